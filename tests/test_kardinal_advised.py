"""Kardinal's ``advised`` network: the greedy agent's cardinal advice (``cardinal_advice``), its crop
layout, the network that adds it to its logits, the checkpoint conversion (``advise_checkpoint``, ``zoo.py
advise``) and training with it (the trainer passes the game to the adapter)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("torch")

import torch  # noqa: E402
from helpers import TINY_TRAINING  # noqa: E402

from agents import load_agent  # noqa: E402
from agents.baselines.kardinal_greedy import greedy_code  # noqa: E402
from agents.baselines.kardinal_heuristics import cardinal_advice, cardinal_block_values  # noqa: E402
from agents.networks.checkpoint import (  # noqa: E402
    CheckpointError,
    advise_checkpoint,
    make_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from agents.networks.kardinal_net import (  # noqa: E402
    PLANES,
    AdvisedKardinalNet,
    KardinalNet,
    KardinalPPOAgent,
    batch,
    crop_indices,
    prepare,
)
from agents.training.config import ConfigError, make_config  # noqa: E402
from agents.training.run import train  # noqa: E402
from agents.zoo import main as zoo_main  # noqa: E402
from kardinal_env.core.registry import get_game  # noqa: E402
from kardinal_env.kardinal.actions import ActionCodec  # noqa: E402
from kardinal_env.kardinal.engine import Game  # noqa: E402
from kardinal_env.kardinal.notation import CARDINAL  # noqa: E402
from kardinal_env.kardinal.observation import ObservationEncoder  # noqa: E402
from kardinal_env.kardinal.rules import Rules  # noqa: E402

RULES = Rules(players=2)
ENCODER = ObservationEncoder(RULES)
CODEC = ActionCodec(RULES)


def _positions(seed: int, games: int = 3) -> list[Game]:
    """Copies of the positions of a few random games (every decision, both kinds)."""
    rng = random.Random(seed)
    out = []
    for i in range(games):
        g = Game(RULES, seed=seed * 100 + i)
        while not g.is_over:
            out.append(g.clone())
            codes = g.legal_move_codes()
            g.play_code(codes[rng.randrange(len(codes))])
    return out


def _cardinal(games):
    return [g for g in games if len(g.legal_move_codes()) > 1 and g.legal_move_codes()[0][0] == CARDINAL]


POSITIONS = _positions(5)


def test_the_advice_is_zero_exactly_on_the_greedy_agents_choices_and_negative_elsewhere():
    cardinal = _cardinal(POSITIONS)
    assert len(cardinal) > 20
    for g in cardinal:
        advice = dict(cardinal_advice(g))
        values = {code: (best, count) for code, best, count in cardinal_block_values(g)}
        assert set(advice) == set(g.legal_move_codes())
        chosen = {code for code, key in values.items() if key == min(values.values())}
        assert {code for code, a in advice.items() if a == 0.0} == chosen
        assert all(-8.0 <= a < 0.0 for code, a in advice.items() if code not in chosen)
        for code, a in advice.items():  # the order is the greedy agent's: fewer chips first, then fewer builds
            for other, b in advice.items():
                if values[code] < values[other]:
                    assert a > b or b == -8.0
        assert greedy_code(g, random.Random(0)) in chosen


def test_the_crop_holds_the_advice_at_the_cardinal_moves_and_nothing_at_other_decisions():
    seen_cardinal = seen_other = 0
    for g in POSITIONS[::3]:
        d = prepare(g, ENCODER, CODEC, advised=True)
        h, w = d.box[2], d.box[3]
        assert d.advice is not None and d.advice.shape == (h * w + 5,)
        codes = g.legal_move_codes()
        if len(codes) < 2 or codes[0][0] != CARDINAL:
            assert not d.advice.any()
            seen_other += 1
            continue
        seen_cardinal += 1
        expected = np.zeros(h * w + 5, dtype=np.float32)
        for code, a in cardinal_advice(g):
            action = CODEC.encode_code(code, g.current_player)
            if action == CODEC.keep_action:
                expected[h * w + 4] = a  # C-, the last of the 5 non-spatial actions
            else:
                index = int(crop_indices(np.array([action]), d.box, CODEC.window)[0])
                expected[index - (PLANES - 1) * h * w] = a  # the cardinal plane is the last spatial one
        assert np.array_equal(d.advice, expected)
        assert prepare(g, ENCODER, CODEC).advice is None  # the plain network's decisions carry none
    assert seen_cardinal > 5 and seen_other > 5


def test_the_adapter_gives_the_environments_decisions_the_advice_of_the_game():
    from agents.training.adapters import make_adapter

    adapter = make_adapter(make_config(("test", {"game": "kardinal", "players": 2, "network": "advised"})))
    plain = make_adapter(make_config(("test", {"game": "kardinal", "players": 2, "network": "cnn"})))
    assert adapter.reads_game and not plain.reads_game
    for g in POSITIONS[::7]:
        d = adapter.prepare(g)
        seat = g.current_player
        legal = np.asarray(CODEC.legal_actions(g))
        again = adapter.decision_of(ENCODER.encode(g, seat), legal, seat, g)
        assert again.advice is not None and np.array_equal(again.advice, d.advice)
        with pytest.raises(ValueError, match="need the game"):
            adapter.decision_of(ENCODER.encode(g, seat), legal, seat)
        assert plain.decision_of(ENCODER.encode(g, seat), legal, seat).advice is None


def _advised_net(scale: float = 8.0, seed: int = 0) -> AdvisedKardinalNet:
    torch.manual_seed(seed)
    return AdvisedKardinalNet(channels=8, blocks=1, hidden=16, advice_scale=scale).eval()


def test_a_batch_of_crops_of_different_sizes_gives_each_decision_its_own_logits():
    net = _advised_net()
    ds = [prepare(g, ENCODER, CODEC, advised=True) for g in _cardinal(POSITIONS)[::4]]
    assert len({d.box[2:] for d in ds}) > 1  # several crop sizes: the batch is padded
    inputs, _ = batch(ds)
    with torch.no_grad():
        logits, values = net(*inputs)
        padded = (inputs[0].shape[2], inputs[0].shape[3])
        for row, d in enumerate(ds):
            alone, value = net(*batch([d])[0])
            at = torch.as_tensor(crop_indices(d.legal, d.box, d.window, padded))
            own = torch.as_tensor(crop_indices(d.legal, d.box, d.window))
            assert torch.allclose(logits[row, at], alone[0, own], atol=1e-5)
            assert torch.allclose(values[row], value[0], atol=1e-5)


def test_the_advice_moves_the_logits_of_the_cardinal_moves_by_the_scale():
    net = _advised_net(scale=3.0)
    plain = KardinalNet(channels=8, blocks=1, hidden=16).eval()
    plain.load_state_dict({k: v for k, v in net.state_dict().items() if k != "log_advice_scale"})
    ds = [prepare(g, ENCODER, CODEC, advised=True) for g in POSITIONS[::5]]
    inputs, _ = batch(ds)
    with torch.no_grad():
        advised_logits, advised_values = net(*inputs)
        plain_logits, plain_values = plain(*inputs[:3])
    assert torch.allclose(advised_logits - plain_logits, 3.0 * inputs[3], atol=1e-5)
    assert torch.equal(advised_values, plain_values)
    assert inputs[3].abs().sum() > 0


def test_with_a_large_scale_the_agent_plays_one_of_the_greedy_agents_cardinal_moves():
    agent = KardinalPPOAgent(_advised_net(scale=50.0), RULES)
    assert agent.advised
    for g in _cardinal(POSITIONS)[::3]:
        advice = {code: a for code, a in cardinal_advice(g)}
        move = agent.select_move(g)
        assert advice[next(c for c in g.legal_move_codes() if _fmt(c) == move)] == 0.0


def _fmt(code) -> str:
    from kardinal_env.kardinal.notation import format_move

    return format_move(code)


def test_advice_where_the_network_reads_none_and_none_where_it_needs_it_are_errors():
    d_plain = prepare(POSITIONS[0], ENCODER, CODEC)
    d_advised = prepare(POSITIONS[0], ENCODER, CODEC, advised=True)
    with pytest.raises(ValueError, match="mixes decisions with and without"):
        batch([d_plain, d_advised])
    with pytest.raises(ValueError, match="advised network reads the greedy agent's cardinal advice"):
        _advised_net()(*batch([d_plain])[0])
    with pytest.raises(ValueError, match="cnn network reads no cardinal advice"):
        KardinalNet(channels=8, blocks=1, hidden=16)(*batch([d_advised])[0])
    agent = KardinalPPOAgent(_advised_net(), RULES)
    env_obs = ENCODER.encode(POSITIONS[0], 0)
    with pytest.raises(ValueError, match="needs the game: use select_move"):
        agent.act(env_obs, CODEC.action_mask(POSITIONS[0]))


def _cnn_checkpoint(tmp_path) -> str:
    torch.manual_seed(1)
    net = KardinalNet(channels=8, blocks=1, hidden=16)
    ckpt = make_checkpoint(get_game("kardinal"), RULES, net, step=123, config={"players": 2})
    return write_checkpoint(ckpt, tmp_path / "cnn.pt")


def test_a_checkpoint_becomes_advised_with_the_same_weights_and_plays_through_every_spec(tmp_path, capsys):
    source = _cnn_checkpoint(tmp_path)
    out = tmp_path / "advised.pt"
    assert zoo_main(["advise", str(out), source, "--scale", "6"]) == 0
    assert "scale 6" in capsys.readouterr().out
    ckpt, net = read_checkpoint(out)
    original, _ = read_checkpoint(source)
    assert isinstance(net, AdvisedKardinalNet) and ckpt["model_config"]["kind"] == "advised"
    assert ckpt["layout"]["network"] == "advised" and "network" not in original["layout"]
    assert ckpt["advised_from"] == {"path": source, "step": 123, "advice_scale": 6.0}
    assert float(net.log_advice_scale.detach().exp()) == pytest.approx(6.0)
    assert all(torch.equal(ckpt["model"][k], v) for k, v in original["model"].items())
    g = _cardinal(POSITIONS)[0]
    for spec in (f"ppo:{out}", f"puct:4:{out}"):
        agent = load_agent(spec, game="kardinal", seed=0)
        assert agent.select_move(g) in g.legal_moves()


def test_advise_refuses_what_it_cannot_convert(tmp_path, capsys):
    source = _cnn_checkpoint(tmp_path)
    advised = tmp_path / "advised.pt"
    write_checkpoint(advise_checkpoint(source, 2.0), advised)
    with pytest.raises(CheckpointError, match="already is an advised one"):
        advise_checkpoint(advised, 2.0)
    with pytest.raises(CheckpointError, match="advice scale must be a positive number, got -1"):
        advise_checkpoint(source, -1.0)
    assert zoo_main(["advise", str(tmp_path / "x.pt"), str(tmp_path / "missing.pt"), "--scale", "2"]) == 2
    assert "error:" in capsys.readouterr().out
    ckpt, _ = read_checkpoint(advised)  # an advised checkpoint relabelled as a plain one no longer loads
    ckpt["model_config"] = {k: v for k, v in ckpt["model_config"].items() if k != "kind"}
    with pytest.raises(CheckpointError, match="weights do not fit"):
        read_checkpoint(write_checkpoint(ckpt, tmp_path / "relabelled.pt"))


TINY = {**TINY_TRAINING, "network": "advised"}


@pytest.mark.parametrize("algorithm", ["ppo", "search"])
def test_both_trainers_train_the_advised_network_and_its_scale(tmp_path, algorithm):
    extra = {"simulations": 4, "fast_simulations": 2} if algorithm == "search" else {}
    opts = {**TINY, **extra, "algorithm": algorithm, "advice_scale": 5.0, "runs_dir": str(tmp_path)}
    ckpt, net = read_checkpoint(train(opts))
    assert isinstance(net, AdvisedKardinalNet) and ckpt["step"] >= 60
    assert float(net.log_advice_scale.detach().exp()) != pytest.approx(5.0, abs=1e-7)  # trained from its start


def test_the_heuristics_weights_are_refused_for_kardinals_advised_network():
    with pytest.raises(ConfigError, match="'advice_weights'.*only for network advised of a game whose advice"):
        make_config(("test", {**TINY, "advice_weights": "contest=0.5"}))

"""Self-play PPO on Kardinal & König: the game adapters' contract (both games), a tiny training run
per network kind, the checkpoint round trip through ``load_agent``, hidden information in training
decisions, and the game-dependent config checks."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers import tiny_run  # noqa: E402

from agents import AgentSpecError, check_spec, load_agent  # noqa: E402
from agents.networks.base import MaskedCategorical  # noqa: E402
from agents.networks.checkpoint import PlayerCountWarning, read_checkpoint  # noqa: E402
from agents.networks.koenig_net import KoenigPPOAgent  # noqa: E402
from agents.registry import game_agents  # noqa: E402
from agents.training import run as train_mod  # noqa: E402
from agents.training.adapters import adapter_class, make_adapter  # noqa: E402
from agents.training.config import ConfigError, make_config  # noqa: E402
from kardinal_env.core.registry import games  # noqa: E402
from kardinal_env.koenig import Game as KGame  # noqa: E402

torch.set_num_threads(1)


def _cfg(**kw):
    return make_config(("test", kw))


# ---------------------------------------------------------------------- adapter contract
ADAPTER_CONFIGS = [
    {"game": "kardinal", "players": 2},
    {"game": "kardinal", "players": 3},
    {"game": "kardinal_koenig", "players": 3, "network": "mlp", "hidden": 32},
    {"game": "kardinal_koenig", "players": 4, "network": "graph", "hidden": 16},
    {"game": "kardinal_koenig", "players": 5, "discard": "any", "network": "graph", "hidden": 16, "rounds": 1},
]


def _play_some(adapter, game, rng_py, k):
    for _ in range(k):
        if game.is_over:
            break
        legal = adapter.legal(game)
        adapter.apply(game, legal[rng_py.randrange(len(legal))])


@pytest.mark.parametrize("options", ADAPTER_CONFIGS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_adapter_contract(options):
    """new_game / legal / prepare / policy_step / stored_action / forward agree with each other and
    with the engine: masks hold exactly the legal moves, sampled moves are legal, the stored action
    of a move is what policy_step stored, and the training forward pass gives the same log-probs."""
    cfg = _cfg(**options)
    adapter = make_adapter(cfg)
    assert type(adapter) is game_agents(cfg.game).load("adapter")  # the agents' entry's adapter class
    assert adapter.rules.players == cfg.players
    torch.manual_seed(0)
    net = adapter.build_net().eval()
    rng = np.random.default_rng(0)
    rng_py = random.Random(0)
    decisions, games = [], []
    for g in range(6):
        game = adapter.new_game(rng)
        _play_some(adapter, game, rng_py, 7 * g + 3)
        if game.is_over or len(adapter.legal(game)) < 2:
            continue
        d = adapter.prepare(game)
        assert d.seat == game.current_player
        assert int(np.asarray(d.mask).sum()) == len(adapter.legal(game))
        decisions.append(d)
        games.append(game)
    assert len(decisions) >= 3
    stored, moves, logp, values = adapter.policy_step(
        net, decisions, greedy=False, generator=torch.Generator().manual_seed(3)
    )
    assert len(moves) == len(decisions) and values.shape == (len(decisions),)
    for d, game, a, move in zip(decisions, games, stored, moves, strict=True):
        assert move in adapter.legal(game)
        assert adapter.stored_action(d, move) == int(a)
        assert bool(np.asarray(d.mask)[int(a)])
    with torch.no_grad():
        logits, vals, mask, actions = adapter.forward(net, decisions, list(stored))
        again = MaskedCategorical(logits, mask).log_prob(actions)
    assert torch.allclose(again, torch.as_tensor(logp), atol=1e-5)
    assert torch.allclose(vals, torch.as_tensor(values), atol=1e-5)
    # the baselines' moves are legal engine moves (Kardinal & König: greedy and the heuristic)
    baselines = [name for name in adapter.wiring.baselines if name != "random"]
    assert "greedy" in baselines and "greedy" in adapter.opponents
    for game in games:
        for name in baselines:
            assert adapter.baseline_move(name, game, rng_py) in adapter.legal(game)
    with pytest.raises(ValueError, match="no baseline 'nope'"):
        adapter.baseline_move("nope", games[0], rng_py)
    # a move in notation encodes to the adapter's own representation of the same legal move
    for game in games:
        assert [adapter.encode_move(game, m) for m in game.legal_moves()] == list(adapter.legal(game))


def test_koenig_new_games_are_shuffled_by_the_trainer_rng():
    adapter = make_adapter(_cfg(game="kardinal_koenig"))
    a = [adapter.new_game(np.random.default_rng(5)).hand(0) for _ in range(2)]
    assert a[0] == a[1]  # same rng state, same deal
    rng = np.random.default_rng(5)
    hands = [tuple(adapter.new_game(rng).hand(s)) for s in range(4) for _ in range(1)]
    assert len({adapter.new_game(rng).initial_deck.__repr__() for _ in range(4)}) > 1
    assert hands  # deals exist for every seat


def test_koenig_decision_sees_only_its_own_observation():
    """A training decision of K&K depends on the deciding seat's observation only: redealing the
    other seats' hands and the deck (same public facts) leaves the decision unchanged."""
    adapter = make_adapter(_cfg(game="kardinal_koenig", players=4))
    game = adapter.new_game(np.random.default_rng(1))
    _play_some(adapter, game, random.Random(1), 25)
    seat = game.current_player
    others = [s for s in range(4) if s != seat]
    # the one place that deals what this seat cannot see (kardinal_env.koenig.knowledge)
    other = game.determinize(seat, random.Random(9))
    assert [other.hand(s) for s in others] != [game.hand(s) for s in others] or other.deck_size() == 0
    d1, d2 = adapter.prepare(game), adapter.prepare(other)
    assert np.array_equal(d1.obs, d2.obs) and np.array_equal(d1.mask, d2.mask)


# ---------------------------------------------------------------------- tiny training runs
def _tiny(tmp_path, **kw):
    base = tiny_run("kardinal_koenig", total_steps=240, steps_per_iter=120, score_shaping=0.05, runs_dir=str(tmp_path))
    base.update(greedy_share=0.3, pool_share=0.3, random_share=0.2, snapshot_interval=1)  # the opponents
    base.update(bc_games=2, bc_epochs=1, checkpoint_interval=1)
    return {**base, **kw}


@pytest.fixture(scope="module")
def koenig_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("koenig_runs")
    graph = train_mod.train(_tiny(tmp, players=3, network="graph", rounds=1, run_name="graph"))
    mlp = train_mod.train(_tiny(tmp, players=4, network="mlp", run_name="mlp"))
    return {"graph": graph, "mlp": mlp}


@pytest.mark.parametrize("kind", ["graph", "mlp"])
def test_tiny_koenig_training_writes_a_koenig_checkpoint(koenig_runs, kind):
    ckpt, net = read_checkpoint(koenig_runs[kind])
    assert ckpt["env"] == "kardinal_koenig_v1"
    layout = ckpt["layout"]
    assert layout["env"] == "kardinal_koenig_v1" and layout["network"] == kind
    assert layout["num_actions"] == 390 and layout["observation_size"] == 494 and layout["board"] == "default"
    assert ckpt["model_config"]["kind"] == kind
    assert ckpt["step"] >= 240 and len(ckpt["pool"]) >= 1
    assert ckpt["config"]["game"] == "kardinal_koenig"
    assert ckpt["rules"]["players"] == (3 if kind == "graph" else 4)
    assert set(ckpt["winrates"]) == {"random", "greedy"}
    assert all(0.0 <= v <= 1.0 for v in ckpt["winrates"].values())
    for name, p in net.named_parameters():
        assert torch.isfinite(p).all(), name


@pytest.mark.parametrize("kind", ["graph", "mlp"])
def test_koenig_checkpoint_round_trip_through_load_agent(koenig_runs, kind):
    path = koenig_runs[kind]
    players = 3 if kind == "graph" else 4
    agent = load_agent(f"ppo:{path}", seed=0)
    assert isinstance(agent, KoenigPPOAgent)
    ckpt = torch.load(path, weights_only=True)
    for k, v in ckpt["model"].items():
        assert torch.equal(agent.net.state_dict()[k], v), k
    # a whole game against random: every move legal
    rules = agent.train_rules
    game = KGame(rules, seed=4)
    rng = random.Random(0)
    while not game.is_over:
        if game.current_player == 0:
            game.play(agent.select_move(game))
        else:
            moves = game.legal_moves()
            game.play(moves[rng.randrange(len(moves))])
    assert game.is_over and len(game.scores()) == players
    assert check_spec(f"ppo:{path}", players=players, game="kardinal_koenig") == []
    with pytest.raises(AgentSpecError, match="kardinal_koenig_v1"):
        check_spec(f"ppo:{path}", players=2, game="kardinal")


def test_koenig_agent_acts_on_env_observations(koenig_runs):
    from kardinal_env import kardinal_koenig_v1

    agent = load_agent(f"ppo:{koenig_runs['mlp']}")
    env = kardinal_koenig_v1.env(players=4)
    env.reset(seed=3)
    for _ in range(40):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        a = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        assert agent.act(obs) == a
        env.step(a)


def test_koenig_agent_warns_for_another_player_count(koenig_runs):
    agent = load_agent(f"ppo:{koenig_runs['graph']}")  # trained for 3 players
    game = KGame(make_adapter(_cfg(game="kardinal_koenig", players=5)).rules, seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        while game.current_player is not None and len(game.legal_actions()) == 1:
            game.play(game.legal_moves()[0])
        move = agent.select_move(game)
    assert move in game.legal_moves()
    assert any(issubclass(w.category, PlayerCountWarning) and "3-player" in str(w.message) for w in caught)


def test_koenig_resume_continues_and_refuses_another_game(koenig_runs, tmp_path):
    path = koenig_runs["mlp"]
    step = torch.load(path, weights_only=True)["step"]
    new = train_mod.train({"runs_dir": str(tmp_path), "run_name": "resumed"}, resume=path, total_steps=step + 100)
    assert torch.load(new, weights_only=True)["step"] > step
    with pytest.raises(ConfigError, match="cannot resume"):
        train_mod.train({"game": "kardinal", "players": 2, "network": "auto", "runs_dir": str(tmp_path)}, resume=path)
    with pytest.raises(ConfigError, match="network"):
        train_mod.train({"network": "graph", "runs_dir": str(tmp_path)}, resume=path)


# ---------------------------------------------------------------------- config
def test_config_game_keys():
    k = _cfg(game="kardinal_koenig")
    assert k.players == 4 and k.resolved_network() == "graph" and k.discard == "one"
    assert _cfg().game == "kardinal" and _cfg().players == 2 and _cfg().resolved_network() == "cnn"
    assert _cfg(game="kardinal_koenig", network="mlp", players=5, discard="any").resolved_network() == "mlp"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"game": "koenig"}, "'game' (test): 'koenig' is not allowed; expected one of kardinal, kardinal_koenig"),
        ({"game": "kardinal_koenig", "players": 6}, "6 is not allowed for game kardinal_koenig; expected an integer"),
        (
            {"game": "kardinal_koenig", "players": 2},
            "2 is not allowed for game kardinal_koenig; expected an integer from 3 to 5",
        ),
        ({"players": 5}, "5 is not allowed for game kardinal; expected an integer from 2 to 4"),
        ({"players": 6}, "6 is not allowed for game kardinal; expected an integer from 2 to 4"),
        ({"network": "graph"}, "'graph' is not a network of game kardinal; expected auto or one of cnn"),
        (
            {"game": "kardinal_koenig", "network": "cnn"},
            "'cnn' is not a network of game kardinal_koenig; expected auto or one of graph, mlp",
        ),
        ({"network": "gnn"}, "'network' (network: test, game: default): 'gnn' is not a network of game kardinal"),
        ({"game": "kardinal_koenig", "chip_shaping": 0.1}, "it has no chips"),
        ({"game": "kardinal_koenig", "preset": "german"}, "an option of game kardinal, not kardinal_koenig"),
        ({"discard": "any"}, "an option of game kardinal_koenig, not kardinal"),
        (
            {"game": "kardinal_koenig", "discard": "two"},
            "'discard' (test): 'two' is not allowed for game kardinal_koenig; expected one of one, any",
        ),
        ({"game": "kardinal_koenig", "rounds": -1}, "'rounds' (test): -1 is not allowed"),
    ],
)
def test_config_game_validation(options, message):
    with pytest.raises(ConfigError) as info:
        _cfg(**options)
    assert message in str(info.value)


def test_every_registered_game_has_an_adapter_for_its_environment():
    for spec in games().values():
        adapter = make_adapter(_cfg(game=spec.name))
        assert type(adapter) is adapter_class(spec) and adapter.env_name == spec.env_name
        assert adapter.rules.players == spec.default_players


def test_evaluator_plays_a_koenig_checkpoint_with_seats_rotated(koenig_runs):
    from agents.evaluation.tournament import Table, evaluate

    res = evaluate([f"ppo:{koenig_runs['graph']}", "random"], Table.of("kardinal_koenig", 3), games=3, seed=0)
    assert len(res["games"]) == 3
    assert sorted(g["seats"].index(0) for g in res["games"]) == [0, 1, 2]  # the checkpoint sat in every seat
    ppo = res["summary"][0]
    assert ppo["games"] == 3 and 0.0 <= ppo["win_rate"] <= 1.0


# ---------------------------------------------------------------------- the warm start's storage
def test_compact_decisions_give_the_same_forward_pass():
    """``compact`` stores K&K's observation as float16 (exact: integer entries) and the legal ids as an
    array; the training forward pass on compacted decisions is the same to the last bit."""
    adapter = make_adapter(_cfg(game="kardinal_koenig", players=4, hidden=16))
    net = adapter.build_net()
    game = adapter.new_game(np.random.default_rng(3))
    rng = random.Random(3)
    decisions, actions = [], []
    for _ in range(40):
        d = adapter.prepare(game)
        decisions.append(d)
        actions.append(d.legal[0])
        adapter.apply(game, d.legal[rng.randrange(len(d.legal))])
    small = [adapter.compact(d) for d in decisions]
    assert all(s.obs.dtype == np.float16 and s.obs.nbytes * 2 == d.obs.nbytes for s, d in zip(small, decisions))
    assert all(list(s.legal) == d.legal for s, d in zip(small, decisions))
    with torch.no_grad():
        full = adapter.forward(net, decisions, actions)
        comp = adapter.forward(net, small, actions)
    for a, b in zip(full, comp):
        assert torch.equal(a, b)


def test_compact_keeps_float32_when_float16_would_round():
    adapter = make_adapter(_cfg(game="kardinal_koenig", players=4, hidden=16))
    d = adapter.prepare(adapter.new_game(np.random.default_rng(4)))
    d.obs[0] = 0.1  # not exact in float16
    assert adapter.compact(d).obs.dtype == np.float32


def test_annealed_warm_start_ends_at_zero_learning_rate(monkeypatch):
    """With ``bc_anneal_lr`` the warm start's last update runs at 1/n of the rate and the first at the
    full rate (linear decay over bc_epochs x minibatches); without it every update at the full rate."""
    from agents.training import trainer as trainer_mod

    seen: dict[bool, list[float]] = {}
    for anneal in (True, False):
        cfg = _cfg(
            game="kardinal_koenig", players=4, hidden=16, bc_games=5, bc_epochs=2, bc_anneal_lr=anneal, progress=False
        )
        adapter = make_adapter(cfg)
        net = adapter.build_net()
        rates: list[float] = []
        step = torch.optim.Adam.step

        def spy(self, *args, _rates=rates, _step=step, **kw):
            _rates.append(self.param_groups[0]["lr"])
            return _step(self, *args, **kw)

        monkeypatch.setattr(torch.optim.Adam, "step", spy)
        stats = trainer_mod.warm_start(
            net, cfg, adapter, random.Random(1), np.random.default_rng(1), log=lambda *_: None
        )
        monkeypatch.setattr(torch.optim.Adam, "step", step)
        assert stats["decisions"] > 256 and len(rates) == 2 * -(-stats["decisions"] // 256)
        seen[anneal] = rates
    n = len(seen[True])
    assert seen[True][0] == pytest.approx(1e-3) and seen[True][-1] == pytest.approx(1e-3 / n)
    assert all(a > b for a, b in zip(seen[True], seen[True][1:]))
    assert seen[False] == [pytest.approx(1e-3)] * len(seen[False])


# ---------------------------------------------------------------------- anchor_kl
def test_anchor_kl_keeps_the_warm_start_weights_and_resumes_with_them(tmp_path):
    """With ``anchor_kl`` the checkpoints carry the warm start's weights (the anchor), PPO moved the
    network away from them, the losses report a positive divergence, and a resumed run keeps the same
    anchor; without it no anchor is stored."""
    from agents.training.trainer import Trainer

    opts = _tiny(tmp_path, players=4, hidden=16, run_name="anchored", anchor_kl=0.5, baseline="greedy")
    path = train_mod.train(opts)
    ckpt, net = read_checkpoint(path)
    anchor = ckpt["anchor"]
    assert set(anchor) == set(ckpt["model"])
    assert any(not torch.equal(anchor[k], ckpt["model"][k]) for k in anchor)  # PPO moved the network
    trainer = Trainer(make_config(("test", dict(opts, total_steps=480))), checkpoint=ckpt)
    assert all(torch.equal(trainer.anchor[k], anchor[k]) for k in anchor)
    stats = trainer.update(trainer.collect_rollout())
    assert stats["anchor_kl"] > 0.0
    plain, _ = read_checkpoint(train_mod.train(_tiny(tmp_path, players=4, hidden=16, run_name="plain")))
    assert plain.get("anchor") is None


def test_anchor_divergence_is_zero_at_the_anchor(tmp_path):
    from agents.training.trainer import Trainer

    cfg = make_config(("test", _tiny(tmp_path, players=4, hidden=16, anchor_kl=1.0)))
    trainer = Trainer(cfg)
    trainer.anchor = {k: v.clone() for k, v in trainer.net.state_dict().items()}
    trainer.anchor_net = trainer._frozen(trainer.anchor)
    ro = trainer.collect_rollout()
    mb = np.arange(min(32, len(ro)))
    logits, _, mask, _ = trainer.adapter.forward(
        trainer.net, [ro.buf["decision"][i] for i in mb], [ro.buf["action"][i] for i in mb]
    )
    assert trainer.anchor_divergence(mb, ro.buf, MaskedCategorical(logits, mask)).item() == pytest.approx(0.0, abs=1e-6)
    with torch.no_grad():
        for p in trainer.net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    logits, _, mask, _ = trainer.adapter.forward(
        trainer.net, [ro.buf["decision"][i] for i in mb], [ro.buf["action"][i] for i in mb]
    )
    assert trainer.anchor_divergence(mb, ro.buf, MaskedCategorical(logits, mask)).item() > 1e-4


def test_anchor_kl_without_a_warm_start_is_refused(tmp_path):
    from agents.training.trainer import TrainingError

    with pytest.raises(ConfigError, match="'anchor_kl' .*algorithm 'search' does not use it"):
        make_config(("test", _tiny(tmp_path, anchor_kl=0.5, algorithm="search")))
    with pytest.raises(TrainingError, match="anchor_kl=0.5 needs a starting policy"):
        train_mod.train(_tiny(tmp_path, players=4, hidden=16, run_name="no_anchor", anchor_kl=0.5, bc_games=0))


def test_total_steps_zero_is_a_warm_start_only(tmp_path):
    """``total_steps: 0``: the warm start, its evaluation and a checkpoint of the imitated network
    (step 0, iteration 0), no PPO iteration; refused without a warm start or with the search trainer."""
    path = train_mod.train(_tiny(tmp_path, players=4, hidden=16, run_name="imitation", total_steps=0, anchor_kl=0.5))
    ckpt, _ = read_checkpoint(path)
    assert ckpt["step"] == 0 and ckpt["iteration"] == 0 and ckpt["pool"] == []
    assert all(torch.equal(ckpt["anchor"][k], ckpt["model"][k]) for k in ckpt["model"])  # no update after it
    with pytest.raises(ConfigError, match="'total_steps' .*needs bc_games > 0"):
        make_config(("test", _tiny(tmp_path, total_steps=0, bc_games=0)))
    with pytest.raises(ConfigError, match="algorithm 'ppo'"):
        make_config(("test", _tiny(tmp_path, total_steps=0, algorithm="search")))

"""PPO stack: masked distribution, per-seat GAE, crop mapping, a tiny training run, the agent, resume."""

from __future__ import annotations

import os
import random
import warnings

import numpy as np
import pytest
import torch

from agents.networks.base import MASK_VALUE, MaskedCategorical
from agents.networks.checkpoint import CHECKPOINT_FORMAT, PlayerCountWarning
from agents.networks.kardinal_net import (
    PLANES,
    KardinalNet,
    KardinalPPOAgent,
    collate,
    crop_box,
    crop_mask,
    crop_to_full,
    current_layout,
    full_to_crop,
    policy_step,
    prepare,
    relayout,
    scatter_logits,
)
from agents.networks.ppo_agent import PPOAgent
from agents.training import rollout as train
from agents.training import run
from kardinal_env.core.rewards import projected_margins
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.actions import ActionCodec
from kardinal_env.kardinal.observation import ObservationEncoder

torch.set_num_threads(1)


# ---------------------------------------------------------------------- masked distribution
def test_masked_distribution_all_but_one_masked():
    logits = torch.randn(3, 10) * 50
    mask = torch.zeros(3, 10, dtype=torch.bool)
    mask[0, 4] = True
    mask[1, 0] = True
    mask[2, 9] = True
    d = MaskedCategorical(logits, mask)
    assert torch.isfinite(d.logits).all() and not torch.isnan(d.log_probs[mask]).any()
    assert torch.equal(d.probs[mask], torch.ones(3))
    assert torch.equal(d.probs[~mask], torch.zeros(27))
    assert torch.allclose(d.entropy(), torch.zeros(3))
    assert d.sample().tolist() == [4, 0, 9]
    assert d.mode().tolist() == [4, 0, 9]
    lp = d.log_prob(torch.tensor([4, 0, 9]))
    assert torch.allclose(lp, torch.zeros(3))
    # gradients stay finite too
    logits.requires_grad_(True)
    MaskedCategorical(logits, mask).log_prob(torch.tensor([4, 0, 9])).sum().backward()
    assert torch.isfinite(logits.grad).all()


def test_masked_distribution_zero_probability_and_entropy_over_legal():
    torch.manual_seed(0)
    logits = torch.randn(64, 30)
    logits[:, 0] = 1e6  # a huge logit on a masked action must not matter
    mask = torch.rand(64, 30) < 0.3
    mask[:, 0] = False
    mask[:, 1] = True
    d = MaskedCategorical(logits, mask)
    assert (d.probs[~mask] == 0).all()
    assert torch.allclose(d.probs.sum(-1), torch.ones(64))
    ref = torch.distributions.Categorical(logits=logits.masked_fill(~mask, float("-inf")))
    assert torch.allclose(d.entropy(), ref.entropy(), atol=1e-5)
    g = torch.Generator().manual_seed(1)
    for _ in range(20):
        a = d.sample(g)
        assert mask.gather(1, a[:, None]).all()
    assert (d.logits[~mask] == MASK_VALUE).all()


# ---------------------------------------------------------------------- GAE
def test_gae_single_trajectory_hand_computed():
    adv, ret = train.gae(np.array([0.0, 0.5, 1.0]), np.array([0.2, 0.4, 0.6]), gamma=0.9, lam=0.5)
    d2 = 1.0 - 0.6
    d1 = 0.5 + 0.9 * 0.6 - 0.4
    d0 = 0.0 + 0.9 * 0.4 - 0.2
    a2 = d2
    a1 = d1 + 0.45 * a2
    a0 = d0 + 0.45 * a1
    assert np.allclose(adv, [a0, a1, a2])
    assert np.allclose(ret, [a0 + 0.2, a1 + 0.4, a2 + 0.6])


def test_per_seat_gae_interleaved_terminal_credit():
    # game order: seat 0, 0 (chip), 0 (cardinal), 1, 1, 0, 1 ; seat 0 wins
    seats = [0, 0, 0, 1, 1, 0, 1]
    rewards = [0.1, 0.0, 0.0, 0.2, 0.0, 0.3, 0.0]
    values = [0.5, 0.4, 0.3, -0.1, -0.2, 0.6, -0.5]
    adv, ret = train.per_seat_gae(seats, rewards, values, {0: 1.0, 1: -1.0}, gamma=1.0, lam=1.0)
    # gamma = lambda = 1: return = sum of the seat's own remaining rewards (terminal on its last decision)
    assert np.allclose(ret, [1.4, 1.3, 1.3, -0.8, -1.0, 1.3, -1.0])
    assert np.allclose(adv, np.array(ret) - np.array(values))
    # gamma = 0.5, lambda = 0: one-step TD within each seat's own stream
    adv, ret = train.per_seat_gae(seats, rewards, values, {0: 1.0, 1: -1.0}, gamma=0.5, lam=0.0)
    expected = [
        0.1 + 0.5 * 0.4 - 0.5,  # seat 0 -> next own decision (index 1)
        0.0 + 0.5 * 0.3 - 0.4,
        0.0 + 0.5 * 0.6 - 0.3,  # skips seat 1's decisions
        0.2 + 0.5 * -0.2 - -0.1,
        0.0 + 0.5 * -0.5 - -0.2,
        0.3 + 1.0 - 0.6,  # seat 0's last decision: its terminal +1, no bootstrap
        0.0 - 1.0 - -0.5,  # seat 1's last decision: terminal -1
    ]
    assert np.allclose(adv, expected)


def test_projected_margins_at_end_are_final_margins():
    rules = Rules(players=2)
    rng = random.Random(3)
    game = Game(rules)
    while not game.is_over:
        codes = game.legal_move_codes()
        game.play_code(codes[rng.randrange(len(codes))])
    s = game.scores()
    assert projected_margins(game) == [s[0] - s[1], s[1] - s[0]]


# ---------------------------------------------------------------------- crop mapping
def _random_positions(players, n_games, seed):
    rules = Rules(players=players)
    rng = random.Random(seed)
    for _ in range(n_games):
        game = Game(rules)
        while not game.is_over:
            yield game
            codes = game.legal_move_codes()
            game.play_code(codes[rng.randrange(len(codes))])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_action_maps_inside_the_crop(players):
    rules = Rules(players=players)
    enc, codec = ObservationEncoder(rules), ActionCodec(rules)
    W = codec.window
    for game in _random_positions(players, 3, seed=players):
        seat = game.current_player
        obs = enc.encode(game, seat)
        box = crop_box(obs)
        full_mask = codec.action_mask(game, seat)
        cm = crop_mask(full_mask, box, W)
        assert cm.sum() == full_mask.sum()  # nothing legal is cut off
        for a in np.flatnonzero(full_mask):
            ca = full_to_crop(int(a), box, W)
            assert cm[ca] and crop_to_full(ca, box, W) == a
        d = prepare(game, enc, codec)
        assert np.array_equal(d.mask, cm.astype(bool)) and d.box == box


def test_padding_and_scatter_round_trip():
    box = (20, 22, 5, 7)
    W = 53
    for ca in [0, 34, 5 * 7 * PLANES - 1, 5 * 7 * PLANES, 5 * 7 * PLANES + 4]:
        pa = relayout(ca, (5, 7), (9, 11))
        assert relayout(pa, (9, 11), (5, 7)) == ca
    logits = torch.arange(PLANES * 35 + 5, dtype=torch.float32)
    full = scatter_logits(logits, box, W)
    assert full.shape == (PLANES * W * W + 5,)
    for ca in range(len(logits)):
        assert full[crop_to_full(ca, box, W)] == logits[ca]
    assert (full == MASK_VALUE).sum() == PLANES * (W * W - 35)


def test_crop_logits_match_full_window_where_unaffected():
    """The net is fully convolutional: on the crop and on the whole window it gives the same logits
    for the non-spatial actions up to padding effects, and crop->full scatter keeps legal actions."""
    torch.manual_seed(0)
    rules = Rules(players=2)
    enc, codec = ObservationEncoder(rules), ActionCodec(rules)
    net = KardinalNet(8, 1, 16).eval()
    game = next(g for i, g in enumerate(_random_positions(2, 1, seed=5)) if i == 12)
    seat = game.current_player
    obs = enc.encode(game, seat)
    box = crop_box(obs)
    d = prepare(game, enc, codec)
    sp, sc, valid, mask = collate([d.spatial], [d.scalars], [d.mask])
    with torch.no_grad():
        logits, _ = net(sp, sc, valid)
    full = scatter_logits(logits[0], box, codec.window)
    legal = np.flatnonzero(codec.action_mask(game, seat))
    assert (full[legal] > MASK_VALUE).all()
    assert torch.equal(mask[0], torch.from_numpy(d.mask))


def test_masked_sampling_only_returns_legal_moves_batched():
    torch.manual_seed(0)
    rules = Rules(players=3)
    enc, codec = ObservationEncoder(rules), ActionCodec(rules)
    net = KardinalNet(8, 1, 16).eval()
    rng = random.Random(0)
    games = [Game(rules) for _ in range(6)]
    for _ in range(30):  # different crop sizes in one batch as games diverge
        for g in games:
            for _ in range(rng.randrange(3)):
                if not g.is_over:
                    codes = g.legal_move_codes()
                    g.play_code(codes[rng.randrange(len(codes))])
        live = [g for g in games if not g.is_over]
        if not live:
            break
        ds = [prepare(g, enc, codec) for g in live]
        _, full, logp, _ = policy_step(net, ds, greedy=False, generator=torch.Generator().manual_seed(1))
        assert np.isfinite(logp).all()
        for g, d, a in zip(live, ds, full):
            assert codec.decode_code(int(a), d.seat) in g.legal_move_codes()
            g.play_code(codec.decode_code(int(a), d.seat))


# ---------------------------------------------------------------------- training run, agent, resume
TINY = [
    "--set",
    "total_steps=300",
    "--set",
    "steps_per_iter=150",
    "--set",
    "num_envs=4",
    "--set",
    "channels=8",
    "--set",
    "blocks=1",
    "--set",
    "hidden=16",
    "--set",
    "eval_interval=1",
    "--set",
    "eval_games=2",
    "--set",
    "final_eval_games=2",
    "--set",
    "checkpoint_interval=1",
    "--set",
    "greedy_share=0.3",
    "--set",
    "pool_share=0.3",
    "--set",
    "snapshot_interval=1",
    "--set",
    "score_shaping=0.02",
    "--set",
    "chip_shaping=0.01",
    "--progress",
    "false",
]
TINY_CONFIG = {k: v for k, _, v in (item.partition("=") for item in TINY[1:-2:2])}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    # through the command line, progress bar on and a small warm start: the code paths main.sh takes
    rc = run.main(
        TINY
        + [
            "--set",
            f"runs_dir={out}",
            "--set",
            "run_name=tiny",
            "--progress",
            "true",
            "--set",
            "bc_games=2",
            "--set",
            "bc_epochs=1",
            "--set",
            "keep_best=true",
        ]
    )
    assert rc == 0
    return out, str(out / "tiny" / "checkpoint.pt")


def test_tiny_run_keeps_its_best_evaluated_network(tiny_run):
    """keep_best on Kardinal's network (what the default preset and main.sh use): best.pt is a
    checkpoint of the run whose greedy win rate is the best the run evaluated, and it plays."""
    out, path = tiny_run
    best = torch.load(out / "tiny" / "best.pt", weights_only=True)
    last = torch.load(path, weights_only=True)
    assert best["best"] == last["best"] and best["best"]["opponent"] == "greedy"
    assert best["winrates"]["greedy"] == best["best"]["winrate"] and best["step"] == best["best"]["step"]
    numbered = [
        torch.load(out / "tiny" / f, weights_only=True) for f in os.listdir(out / "tiny") if f.startswith("checkpoint_")
    ]
    assert all(c["winrates"]["greedy"] <= best["best"]["winrate"] for c in numbered)
    agent = PPOAgent.from_checkpoint(str(out / "tiny" / "best.pt"), greedy=True, seed=0)
    game = Game(Rules(players=2))
    assert agent.select_move(game) in game.legal_moves()


def test_tiny_training_run_checkpoint(tiny_run):
    out, path = tiny_run
    assert os.path.exists(path)
    ckpt = torch.load(path, weights_only=True)
    assert ckpt["format"] == CHECKPOINT_FORMAT and ckpt["game"] == "kardinal" and ckpt["env"] == "kardinal_v0"
    assert ckpt["layout"] == current_layout() and ckpt["layout"]["observation_channels"] == 72
    assert ckpt["layout"]["window"] == 53 and ckpt["model_config"] == {"channels": 8, "blocks": 1, "hidden": 16}
    assert ckpt["rules"]["players"] == 2
    assert ckpt["step"] >= 300
    assert isinstance(ckpt["revision"], str) and ckpt["revision"]
    assert ckpt["config"]["channels"] == 8
    assert set(ckpt["model"]) == set(KardinalNet(8, 1, 16).state_dict())
    assert any(f.startswith("events.out.tfevents") for f in os.listdir(os.path.join(out, "tiny")))


def test_training_stops_with_the_iteration_that_reaches_total_steps(tiny_run):
    """total_steps is rounded up to whole iterations: at least total_steps, less than one iteration more
    than the first iteration boundary that reaches it; the final message states the count."""
    out, path = tiny_run
    ckpt = torch.load(path, weights_only=True)
    numbered = sorted(
        int(f[len("checkpoint_") : -3]) for f in os.listdir(os.path.join(out, "tiny")) if f.startswith("checkpoint_")
    )
    assert numbered[-1] == ckpt["step"] >= 300  # checkpoint every iteration: the last one is the final count
    assert all(s < 300 for s in numbered[:-1])  # no iteration ran after the count was reached


@pytest.mark.parametrize("players", [2, 4])
def test_ppo_agent_plays_legal_games(tiny_run, players):
    _, path = tiny_run
    for greedy in (True, False):
        agent = PPOAgent.from_checkpoint(path, greedy=greedy, seed=3)
        assert isinstance(agent, KardinalPPOAgent) and agent.margin == 1
        game = Game(Rules(players=players))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            while not game.is_over:
                move = agent.select_move(game)
                assert move in game.legal_moves()
                game.play(move)
        # a 2-player checkpoint in a 4-player game: one warning naming both counts
        msgs = [str(w.message) for w in caught if issubclass(w.category, PlayerCountWarning)]
        assert msgs == (
            []
            if players == 2
            else [
                f"ppo:{path} was trained for 2-player games and is used in "
                "4-player games (same observation layout, so it plays, but it "
                "has never seen this game)"
            ]
        )


def test_policy_value_prior_and_value_for_search(tiny_run):
    """policy_value (what a search asks of the network): the legal action ids of the deciding seat, a
    prior over them whose argmax is the greedy agent's move, and a finite value; one forward pass."""
    _, path = tiny_run
    agent = PPOAgent.from_checkpoint(path, greedy=True)
    games = [
        g.clone() for i, g in enumerate(_random_positions(3, 1, seed=8)) if i % 7 == 3 and len(g.legal_moves()) > 1
    ]
    assert len(games) >= 3 and all(g.rules is games[0].rules for g in games)  # clones of one game
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlayerCountWarning)
        out = agent.policy_value(games)
        for g, (legal, prior, value) in zip(games, out, strict=True):
            assert np.array_equal(legal, agent.codec.legal_actions(g))
            assert prior.dtype == np.float64 and prior.shape == legal.shape and abs(prior.sum() - 1) < 1e-9
            assert (prior > 0).all() and np.isfinite(value)
            best = agent.codec.decode_action(int(legal[np.argmax(prior)]), g.current_player)
            assert best == agent.select_move(g)
    with pytest.raises(ValueError, match="share their rules"):
        agent.policy_value([games[0], Game(Rules(players=3))])


def test_ppo_agent_act_on_env_observation(tiny_run):
    from kardinal_env import kardinal_v0

    _, path = tiny_run
    agent = PPOAgent.from_checkpoint(path, greedy=False, seed=0)
    env = kardinal_v0.env(players=2)
    env.reset(seed=0)
    for _agent_name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        env.step(a)


def test_resume_continues_from_checkpoint(tiny_run, tmp_path):
    out, path = tiny_run
    ckpt = torch.load(path, weights_only=True)
    new = run.train(
        resume=path, total_steps=ckpt["step"] + 150, runs_dir=str(tmp_path), run_name="resumed", progress=False
    )
    ck2 = torch.load(new, weights_only=True)
    assert ck2["step"] > ckpt["step"] >= 300
    assert ck2["iteration"] > ckpt["iteration"]
    assert ck2["config"]["channels"] == 8 and ck2["config"]["total_steps"] == ckpt["step"] + 150
    assert not all(torch.equal(ckpt["model"][k], ck2["model"][k]) for k in ckpt["model"])


def _short_run(tmp_path, **options) -> dict:
    """TINY_CONFIG for 100 steps in iterations of 60, with no evaluation and no tracking, under ``tmp_path``."""
    return dict(
        TINY_CONFIG,
        total_steps=100,
        steps_per_iter=60,
        eval_games=0,
        final_eval_games=0,
        track=False,
        runs_dir=str(tmp_path),
        **options,
    )


def test_training_is_deterministic_under_a_seed(tmp_path):
    cfg = _short_run(tmp_path, progress=False)
    a = torch.load(run.train(cfg, run_name="a"), weights_only=True)
    b = torch.load(run.train(cfg, run_name="b"), weights_only=True)
    assert a["step"] == b["step"]
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


def test_progress_bar_counts_the_steps_the_checkpoint_holds(tmp_path, capfd):
    """The last iteration overshoots total_steps; the bar then shows the real count, not 100% of the target."""
    cfg = _short_run(tmp_path, run_name="bar", progress=True, bc_games=1, bc_epochs=1)
    ckpt = torch.load(run.train(cfg), weights_only=True)
    err = capfd.readouterr().err
    step = ckpt["step"]
    assert step > 100
    assert f"{step}/{step}" in err  # the step bar ends at the checkpoint's count
    assert "warm start: greedy games" in err and "warm start: training minibatches" in err
    assert "100/100 " not in err.replace(f"{step}/{step}", "")

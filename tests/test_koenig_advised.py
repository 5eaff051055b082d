"""The ``advised`` Kardinal & König network: the heuristic's advice (its range, its zero at the
heuristic's move, hidden cards that do not change it), an untrained advised agent playing the
heuristic's moves, the training adapter's decisions for it, and its refusal of ``act`` without the game."""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers import tiny_run  # noqa: E402

from agents import load_agent  # noqa: E402
from agents.baselines.koenig_heuristic import (  # noqa: E402
    ADVICE_CLIP,
    HeuristicWeights,
    heuristic_advice,
    heuristic_candidates,
)
from agents.networks.koenig_net import AdvisedGraphNet, KoenigPPOAgent  # noqa: E402
from agents.training import run as train_mod  # noqa: E402
from agents.training.adapters import make_adapter  # noqa: E402
from agents.training.config import ConfigError, make_config  # noqa: E402
from kardinal_env.koenig import Game, Rules  # noqa: E402

torch.set_num_threads(1)


def _positions(players=4, games=3, seed=0):
    """Decisions with several legal moves from random games (every 5th such decision)."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        game = Game(Rules(players=players), seed=seed * 100 + g)
        k = 0
        while not game.is_over:
            legal = game.legal_actions()
            if len(legal) > 1:
                k += 1
                if k % 5 == 0:
                    out.append(game.clone())
            game.apply_action(legal[rng.randrange(len(legal))])
    return out


def test_advice_is_zero_at_the_heuristics_best_moves_and_clipped_elsewhere():
    positions = _positions()
    assert len(positions) >= 20
    for game in positions:
        advice = heuristic_advice(game)
        legal = set(game.legal_actions())
        assert advice.shape == (len(game.board.moves),) and advice.dtype == np.float32
        assert advice.max() == 0.0 and advice.min() >= -ADVICE_CLIP
        best = {}
        for m, v in heuristic_candidates(game):
            best[m] = max(best.get(m, -np.inf), v)
        top = max(best.values())
        for m in range(len(advice)):
            if m not in legal or m not in best:
                assert advice[m] == -ADVICE_CLIP
            else:
                assert advice[m] == pytest.approx(max(-ADVICE_CLIP, best[m] - top), abs=1e-5)
        assert {m for m in legal if advice[m] == 0.0} == {m for m, v in best.items() if v >= top - 1e-6}


def test_advice_of_a_forced_move_and_of_a_finished_game():
    game = Game(Rules(players=4), seed=3)
    while len(game.legal_actions()) != 1:
        game.apply_action(game.legal_actions()[0])
    advice = heuristic_advice(game)
    assert advice[game.legal_actions()[0]] == 0.0 and (advice < 0).sum() == len(advice) - 1
    while not game.is_over:
        game.apply_action(game.legal_actions()[0])
    with pytest.raises(ValueError, match="game is over"):
        heuristic_advice(game)


def test_advice_does_not_change_when_only_hidden_cards_do():
    for game in _positions(games=2, seed=4):
        seat = game.current_player
        world = game.determinize(seat, random.Random(7))
        assert np.allclose(heuristic_advice(game), heuristic_advice(world), atol=1e-5)  # Python vs core: 1e-12


def test_an_untrained_advised_agent_plays_the_heuristics_move():
    rules = Rules(players=4)
    torch.manual_seed(0)
    agent = KoenigPPOAgent(AdvisedGraphNet(rules, hidden=16, rounds=1), rules=rules)
    checked = 0
    for game in _positions(seed=2):
        best = np.flatnonzero(heuristic_advice(game) == 0.0)
        move = game.board.move_index[agent.select_move(game)]
        assert move in best
        checked += len(best) == 1
    assert checked >= 10
    with pytest.raises(ValueError, match="needs the game"):
        agent.act(np.zeros(10, dtype=np.float32), np.ones(390, dtype=bool))


def test_advised_adapter_appends_the_advice_and_hides_the_hidden_cards():
    adapter = make_adapter(make_config(("test", {"game": "kardinal_koenig", "network": "advised", "hidden": 16})))
    assert adapter.reads_game
    for game in _positions(games=1, seed=5)[:6]:
        d = adapter.prepare(game)
        n = adapter.obs_size
        assert d.obs.shape == (n + adapter.num_actions,)
        assert np.array_equal(d.obs[n:], heuristic_advice(game))
        row = d.obs[:n]
        again = adapter.decision_of(row, np.flatnonzero(d.mask), d.seat, game)
        assert np.array_equal(again.obs, d.obs) and np.array_equal(again.mask, d.mask)
        world = game.determinize(d.seat, random.Random(1))
        assert np.allclose(adapter.prepare(world).obs, d.obs, atol=1e-5)
        with pytest.raises(ValueError, match="need the game"):
            adapter.decision_of(row, np.flatnonzero(d.mask), d.seat)


def test_advice_weights_reach_the_adapter_and_bad_ones_are_refused():
    config = {"game": "kardinal_koenig", "network": "advised", "hidden": 16, "advice_weights": "contest=0.48"}
    adapter = make_adapter(make_config(("test", config)))
    weights = HeuristicWeights(contest=0.48)
    for game in _positions(games=1, seed=6)[:4]:
        assert np.array_equal(adapter.prepare(game).obs[adapter.obs_size :], heuristic_advice(game, weights))
    with pytest.raises(ConfigError, match="'advice_weights'.*only for network advised.*not graph"):
        make_config(("test", {**config, "network": "graph"}))
    with pytest.raises(ConfigError, match="'advice_weights'.*expected name=value, got 'contest'"):
        make_config(("test", {**config, "advice_weights": "contest"}))
    with pytest.raises(ConfigError, match="'advice_weights'.*unknown weight.*'contes'"):
        make_config(("test", {**config, "advice_weights": "contes=1"}))
    with pytest.raises(ConfigError, match="'advice_weights'.*HeuristicWeights.fill: expected a number"):
        make_config(("test", {**config, "advice_weights": "fill=lots"}))
    with pytest.raises(ConfigError, match="'advice_weights'.*must be finite and >= 0"):
        make_config(("test", {**config, "advice_weights": "fill=-1"}))
    # the advice's initial weight on the logits
    from agents.networks.koenig_net import build_network

    cfg = make_config(("test", {**config, "advice_scale": 8.0}))
    net = build_network(adapter.rules, cfg.network_options())
    assert net.log_advice_scale.detach().exp().item() == pytest.approx(8.0)
    assert net.config["advice_weights"] == {"contest": 0.48}
    with pytest.raises(ConfigError, match="'advice_scale'.*only for network advised.*not graph"):
        make_config(("test", {"game": "kardinal_koenig", "network": "graph", "advice_scale": 8.0}))


def test_tiny_advised_training_round_trips_through_load_agent(tmp_path):
    options = tiny_run("kardinal_koenig", network="advised", rounds=1, total_steps=200, runs_dir=str(tmp_path))
    path = train_mod.train(
        dict(options, greedy_share=0.5, baseline="heuristic", advice_weights="contest=0.48, fill=0.125,hand=0.6")
    )
    ckpt = torch.load(path, weights_only=True)
    assert ckpt["layout"]["network"] == "advised" and ckpt["model_config"]["kind"] == "advised"
    assert "log_advice_scale" in ckpt["model"]
    # the weights that differ from the defaults are recorded (hand=0.6 is the default) and read back
    assert ckpt["model_config"]["advice_weights"] == {"contest": 0.48, "fill": 0.125}
    agent = load_agent(f"ppo:{path}", seed=0)
    weights = HeuristicWeights(contest=0.48, fill=0.125)
    differs = 0
    for game in _positions(games=2, seed=9):
        row = agent.network_input(game, game.current_player)
        assert np.array_equal(row[-len(game.board.moves) :], heuristic_advice(game, weights))
        differs += not np.array_equal(row[-len(game.board.moves) :], heuristic_advice(game))
    assert differs > 0  # the weights change the advice somewhere
    game = Game(agent.train_rules, seed=8)
    while not game.is_over:
        game.play(agent.select_move(game))
    assert game.is_over


def test_rollout_root_statistics_name_the_move_it_plays():
    from agents.search.heuristic_rollouts import HeuristicRolloutAgent

    for game in _positions(games=1, seed=6)[:8]:
        stats = HeuristicRolloutAgent(16, seed=3).root_statistics(game)
        move = HeuristicRolloutAgent(16, seed=3).select_move(game)
        assert [m for m, visits, _ in stats if visits == 1] == [move]
        assert sum(visits for _, visits, _ in stats) == 1
        assert heuristic_advice(game)[game.board.move_index[stats[0][0]]] == 0.0  # first: the heuristic's move


def _after_the_first_runout(seed=1, more=40):
    """A decision with several legal moves, ``more`` decisions after the first run-out (every seat has
    drawn from the new deck by then)."""
    rng = random.Random(seed)
    game = Game(Rules(players=4), seed=seed)
    after = 0
    while game.live_view().runouts == 0 or after < more or len(game.legal_actions()) < 2:
        after += game.live_view().runouts > 0
        legal = game.legal_actions()
        game.apply_action(legal[rng.randrange(len(legal))])
    assert not game.is_over
    return game


def test_advice_for_another_seat_inside_a_searchs_world_after_the_first_runout():
    """A search's world is dealt for its own seat; after the first run-out the other seats' draws
    are not recorded there, and their advice assumes the deck holds the cards they cannot see."""
    from kardinal_env.koenig.knowledge import UnknownDrawsError

    game = _after_the_first_runout()
    seat = game.current_player
    world = game.determinize(seat, random.Random(2))
    rng = random.Random(3)
    while world.current_player == seat or len(world.legal_actions()) < 2:
        legal = world.legal_actions()
        world.apply_action(legal[rng.randrange(len(legal))])
    with pytest.raises(UnknownDrawsError):
        heuristic_candidates(world)
    advice = heuristic_advice(world)
    assert advice.max() == 0.0 and advice[world.legal_actions()].max() == 0.0


def test_puct_searches_with_an_advised_network():
    from agents.search.puct import PUCTAgent

    rules = Rules(players=4)
    torch.manual_seed(0)
    agent = KoenigPPOAgent(AdvisedGraphNet(rules, hidden=16, rounds=1), rules=rules)
    game = _after_the_first_runout(seed=2)
    move = PUCTAgent(agent, 24, seed=0).select_move(game)
    assert move in game.legal_moves()


def test_puct_backs_up_a_world_that_ended_where_the_tree_goes_on(monkeypatch):
    """Worlds dealt for one seat may end at different times; a descent that meets a finished world
    takes its result as the leaf's value (it used to fail on an empty list of moves)."""
    from agents.search.puct import PUCTAgent

    rules = Rules(players=4)
    torch.manual_seed(0)
    agent = KoenigPPOAgent(AdvisedGraphNet(rules, hidden=16, rounds=1), rules=rules)
    game = _after_the_first_runout(seed=3)
    puct = PUCTAgent(agent, 12, seed=0)
    finished = game.determinize(game.current_player, random.Random(4))
    rng = random.Random(5)
    while not finished.is_over:
        legal = finished.legal_actions()
        finished.apply_action(legal[rng.randrange(len(legal))])
    real_world = puct._world
    calls = []

    def world(root_game, seat):
        calls.append(seat)
        w = real_world(root_game, seat)
        return finished.clone() if len(calls) % 3 == 0 else w

    monkeypatch.setattr(puct, "_world", world)
    root = puct.expand_root(game)
    puct.search(game, root, 12)
    assert len(calls) == 12 and root.visits == 8  # the finished worlds end their descent before a choice

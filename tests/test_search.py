"""Search written once over the game protocol: ``mcts`` and ``ismcts`` on a third game registered
from this test (Nim, ``tests/third_game.py``, perfect information, no playout policy), the agent
specs through the registry (baselines per game, what each search kind needs), and the baseline
that picks its game's class at its first move."""

from __future__ import annotations

import random

import pytest
import third_game
from third_game import NimGame, NimGreedyAgent, NimRules

from agents import AgentSpecError, BaselineAgent, check_spec, load_agent, parse_spec
from agents.baselines.random import RandomAgent
from agents.search.ismcts import ISMCTSAgent
from agents.search.mcts import MCTSAgent


@pytest.fixture
def nim():
    with third_game.registered() as spec:
        yield spec


def _nim(pile: int, players: int = 2, misere: bool = False) -> NimGame:
    return NimGame(NimRules(players=players, pile=pile, misere=misere))


def _play(game, agents) -> NimGame:
    while not game.is_over:
        seat = game.current_player
        history = list(game.history)
        move = agents[seat].select_move(game)
        assert game.history == history, "the agent changed the game"
        assert move in game.legal_moves()
        game.play(move)
    return game


# ------------------------------------------------------------------ search on the third game
@pytest.mark.parametrize("make", [lambda s: MCTSAgent(500, seed=s), lambda s: ISMCTSAgent(500, seed=s)])
@pytest.mark.parametrize("pile", [5, 6, 7, 9, 10, 11])
def test_search_finds_the_winning_nim_move(nim, make, pile):
    """Two-player Nim with takes of 1-3: the winning move leaves a multiple of 4 (no playout policy:
    MCTS plays out at random, ISMCTS values leaves by the game's projected scores)."""
    for seed in range(2):
        assert make(seed).select_move(_nim(pile)) == str(pile % 4)


@pytest.mark.parametrize("make", [lambda s: MCTSAgent(60, seed=s), lambda s: ISMCTSAgent(60, seed=s)])
def test_search_beats_random_at_nim(nim, make):
    """From 13 stones the first seat wins with perfect play; the second needs a mistake of random
    play (each search won 38 of 40 such games, 20 on each seat, when this test was written)."""
    wins = 0
    for g in range(8):
        seat = g % 2
        agents = [RandomAgent(seed=100 + g), RandomAgent(seed=200 + g)]
        agents[seat] = make(g)
        wins += seat in _play(_nim(13), agents).winners()
    assert wins >= 7


@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_search_plays_three_player_misere_nim_reproducibly(nim, kind):
    def play(seed):
        agents = [load_agent(f"{kind}:25", game="nim", seed=seed), load_agent("random", seed=1), NimGreedyAgent(2)]
        return _play(_nim(15, players=3, misere=True), agents).history

    assert play(3) == play(3)


def test_mcts_options_on_a_game_without_playout_policy(nim):
    game = _nim(9)
    for kw in (dict(rollout="random"), dict(widen_base=None), dict(playout_moves=0), dict(margin_weight=0.0)):
        assert MCTSAgent(300, seed=0, **kw).select_move(game) == "1"
    with pytest.raises(ValueError, match="playout_moves"):
        MCTSAgent(5, playout_moves=-1)
    with pytest.raises(ValueError, match="rollout must be one of"):
        MCTSAgent(5, rollout="greedy")


def test_ismcts_options(nim):
    assert ISMCTSAgent(200, seed=0, rollout_moves=20).select_move(_nim(9)) == "1"
    with pytest.raises(ValueError, match="rollout_moves"):
        ISMCTSAgent(5, rollout_moves=-1)
    with pytest.raises(ValueError, match="rollout must be one of"):
        ISMCTSAgent(5, rollout="smart")


def test_search_answers_a_forced_move_without_searching(nim):
    game = _nim(1)
    assert MCTSAgent(5).select_move(game) == "1" and ISMCTSAgent(5).select_move(game) == "1"
    game.play("1")
    for agent in (MCTSAgent(5), ISMCTSAgent(5)):
        with pytest.raises(ValueError, match="game is over"):
            agent.select_move(game)


# ------------------------------------------------------------------ specs through the registry
def test_baselines_come_from_the_game_registry_entry(nim):
    assert isinstance(load_agent("greedy", game="nim", seed=1), NimGreedyAgent)
    assert isinstance(load_agent("random", game=nim, seed=1), RandomAgent)
    assert parse_spec("greedy", game="nim") == ("greedy", None, None)
    assert check_spec("mcts:10", game="nim") == [] and check_spec("ismcts:10", players=3, game="nim") == []


def test_a_baseline_without_a_game_picks_the_class_of_the_game_it_moves_in(nim):
    from agents.baselines.kardinal_greedy import GreedyAgent as KardinalGreedy
    from kardinal_env.core.registry import get_game

    agent = load_agent("greedy", seed=5)
    assert isinstance(agent, BaselineAgent) and agent.name == "greedy"
    game = _nim(10)
    reference = NimGreedyAgent(seed=5)
    while not game.is_over:  # the same moves as the game's own greedy agent with the same seed
        move = agent.select_move(game)
        assert move == reference.select_move(game)
        game.play(move)
    kardinal = get_game("kardinal")
    kgame = kardinal.new_game(kardinal.rules(players=2))
    assert agent.select_move(kgame) == KardinalGreedy(seed=5).select_move(kgame)
    assert isinstance(agent.agent_for(kgame), KardinalGreedy)
    agent.reset(7)  # reaches the agents built so far
    assert agent.agent_for(game).rng.random() == random.Random(7).random()


def _methods(cls) -> dict:
    return {k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__")}


def test_a_baseline_the_game_lacks_is_refused(nim):
    from kardinal_env.core.registry import GameSpec, register_game, unregister_game

    # no baselines listed: it still has random (every game's)
    bare = GameSpec(**{**{f: getattr(nim, f) for f in ("title", "players", "default_players", "rules_class")},
                       "name": "bare_nim", "game_class": type("BareNim", (), _methods(NimGame)),
                       "record_format": "bare-nim/1", "observation": nim.observation,
                       "renderers": nim.renderers})  # fmt: skip
    register_game(bare)
    try:
        with pytest.raises(
            AgentSpecError, match=r"'greedy' is not a baseline of bare_nim; its baselines: \['random'\]"
        ):
            load_agent("greedy", game="bare_nim")
        agent = load_agent("greedy")  # some registered game has a greedy baseline: refused at the first move
        with pytest.raises(ValueError, match="not a baseline of bare_nim"):
            agent.select_move(bare.load("game_class")(NimRules()))
    finally:
        unregister_game("bare_nim")


def test_mcts_is_refused_on_a_game_of_hidden_information():
    with pytest.raises(AgentSpecError, match=r"needs a game of perfect information; kardinal_koenig hides information"):
        check_spec("mcts:200", game="kardinal_koenig")
    with pytest.raises(AgentSpecError, match="try 'ismcts:200'"):
        load_agent("mcts:200", game="kardinal_koenig")
    assert check_spec("ismcts:50", players=4, game="kardinal_koenig") == []
    assert check_spec("mcts:50", game="kardinal") == []
    from kardinal_env.koenig import Game, Rules

    with pytest.raises(ValueError, match="mcts searches games of perfect information; kardinal_koenig hides"):
        load_agent("mcts:5").select_move(Game(Rules(players=3), seed=0))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nobody", "unknown agent spec 'nobody'"),
        ("greedy:3", "the baseline 'greedy' takes no argument"),
        ("ismcts", "ismcts needs a positive number of simulations"),
        ("ismcts:5:x", "ismcts needs a positive number of simulations"),
        ("mcts:1.5", "mcts needs a positive number of simulations"),
        ("rllib:", "rllib needs a checkpoint path"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        parse_spec(spec)


def test_an_unknown_game_is_an_agent_spec_error():
    with pytest.raises(AgentSpecError, match="unknown game 'chess'"):
        load_agent("random", game="chess")


@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_search_on_a_game_given_by_an_unregistered_spec(kind):
    """``load_agent(spec, game=GameSpec)`` hands the spec to the search: the game need not be registered."""
    from kardinal_env.core.registry import games

    assert "nim" not in games()
    agent = load_agent(f"{kind}:300", game=third_game.SPEC, seed=0, rollout_moves=5) if kind == "ismcts" else None
    agent = agent or load_agent(f"{kind}:300", game=third_game.SPEC, seed=0)
    assert agent.game is third_game.SPEC
    assert agent.select_move(_nim(9)) == "1"

"""Network-guided PUCT search (``puct:N:PATH``) on both games: legality, the search's bookkeeping, its
leaf values, its reduction to the plain policy at one simulation, spec parsing; on Kardinal & König a
tiny checkpoint, determinized worlds only (the real game is asked for its legal moves and
``determinize``), the same move when only hidden cards differ."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from koenig_helpers import hidden_twins, walk_hidden_twins

from agents import AgentSpecError, check_spec, load_agent
from agents.networks.checkpoint import make_checkpoint, network_builder, write_checkpoint
from agents.networks.kardinal_net import KardinalNet, KardinalPPOAgent
from agents.networks.ppo_agent import PPOAgent
from agents.search.puct import PUCTAgent
from kardinal_env.core.registry import get_game
from kardinal_env.core.rewards import projected_margins, terminal_rewards
from kardinal_env.kardinal import Game, Rules

torch.set_num_threads(1)


def _net(seed=0):
    torch.manual_seed(seed)
    return KardinalNet(8, 1, 16).eval()


def _evaluator(net=None):
    return KardinalPPOAgent(_net() if net is None else net)


def _midgame(rules, seed, moves=12):
    rng = random.Random(seed)
    game = Game(rules)
    for _ in range(moves):
        codes = game.legal_move_codes()
        game.play_code(codes[rng.randrange(len(codes))])
    return game


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "tiny.pt"
    config = {"score_shaping": 0.05, "reward": "win_loss", "crop_margin": 1}
    write_checkpoint(make_checkpoint(get_game("kardinal"), Rules(players=2), _net(1), config=config), path)
    return str(path)


@pytest.mark.parametrize(
    "variant", [dict(players=2), dict(players=3, preset="german"), dict(players=4, shared_pool=True)]
)
def test_puct_plays_only_legal_moves(variant):
    rules = Rules(**variant)
    agent = PUCTAgent(_evaluator(), simulations=4, seed=0, score_shaping=0.05, temperature=1.0)
    game = Game(rules)
    while not game.is_over:
        move = agent.select_move(game)
        assert move in game.legal_moves()
        game.play(move)


@pytest.mark.parametrize("batch_size", [1, 8])
def test_puct_visit_counts_add_up_and_game_is_untouched(batch_size):
    game = _midgame(Rules(players=3), seed=4)
    before = game.history
    agent = PUCTAgent(_evaluator(), simulations=25, seed=0, score_shaping=0.05, batch_size=batch_size)
    root = agent.expand_root(game)
    agent.search(game, root, 25)
    assert root.visits == 25 and root.child_visits.sum() == 25
    assert np.isclose(root.prior.sum(), 1.0) and (root.prior > 0).all()
    assert sorted(root.moves) == sorted(game.legal_moves())
    visited = [c for c in root.children if c is not None]
    assert all(isinstance(c, type(root)) for c in visited)  # no placeholder is left behind
    assert sum(c.visits for c in visited) <= 25 - len(visited)  # each child's first visit expands it
    assert game.history == before


@pytest.mark.parametrize("batch_size", [1, 4, 16])
def test_virtual_losses_are_taken_back(batch_size):
    """With a value head that says 0 everywhere and no shaping, every backed-up value in a 2-player
    midgame is 0: a virtual loss left in the statistics would show as a negative sum."""
    net = _net()
    with torch.no_grad():
        for param in net.value_head.parameters():
            param.zero_()
    game = _midgame(Rules(players=2), seed=6, moves=6)
    agent = PUCTAgent(_evaluator(net), simulations=40, batch_size=batch_size)
    root = agent.expand_root(game)
    assert root.value == [0.0, 0.0]
    agent.search(game, root, 40)
    assert root.child_visits.sum() == 40
    assert np.allclose(root.child_value, 0.0)


def test_two_player_leaf_values_are_zero_sum_and_terminal_values_exact():
    rules = Rules(players=2)
    agent = PUCTAgent(_evaluator(), simulations=2, score_shaping=0.05)
    game = _midgame(rules, seed=2)
    node = agent.expand_root(game)
    assert node.value[0] == pytest.approx(-node.value[1])
    rng = random.Random(5)
    while not game.is_over:
        codes = game.legal_move_codes()
        game.play_code(codes[rng.randrange(len(codes))])
    end = agent.expand_root(game)
    final, margins = terminal_rewards(game, "win_loss"), projected_margins(game)
    assert end.player is None
    assert end.value == pytest.approx([final[s] + 0.05 * margins[s] for s in range(2)])


def test_four_player_other_seats_share_the_rest():
    rules = Rules(players=4)
    agent = PUCTAgent(_evaluator(), simulations=2, score_shaping=0.0)
    game = _midgame(rules, seed=3)
    node = agent.expand_root(game)
    others = [v for s, v in enumerate(node.value) if s != node.player]
    assert others == pytest.approx([others[0]] * 3)
    assert sum(node.value) == pytest.approx(2 - 4)  # one winner: +1, three losers: -1


@pytest.mark.parametrize("players", [2, 4])
def test_one_simulation_plays_the_policy_argmax(checkpoint, players):
    """With one simulation the only visited child is the prior's argmax: the plain greedy policy."""
    rules = Rules(players=players)
    policy = PPOAgent.from_checkpoint(checkpoint, greedy=True)
    search = load_agent(f"puct:1:{checkpoint}", seed=0)
    game = Game(rules)
    while not game.is_over:
        move = search.select_move(game)
        assert move == policy.select_move(game)
        game.play(move)


def test_seeded_sampling_is_reproducible(checkpoint):
    def play(seed):
        agent = load_agent(f"puct:3:{checkpoint}", seed=seed, temperature=1.0)
        game = Game(Rules(players=2))
        while not game.is_over:
            game.play(agent.select_move(game))
        return game.history

    first = play(7)
    assert play(7) == first
    assert play(8) != first  # the seed really drives the temperature-1 sampling


def test_load_agent_puct_spec(checkpoint):
    agent = load_agent(f"puct:9:{checkpoint}")
    assert isinstance(agent, PUCTAgent) and agent.simulations == 9
    assert agent.score_shaping == 0.05 and agent.name == f"puct:9:{checkpoint}"


@pytest.mark.parametrize(
    "spec", ["puct:", "puct:5", "puct:5:", "puct:x:a.pt", "puct:0:a.pt", "puct:-1:a.pt", "puct:05:a.pt"]
)
def test_load_agent_rejects_bad_puct_specs(spec):
    with pytest.raises(AgentSpecError, match="puct needs"):
        load_agent(spec)


@pytest.mark.parametrize(
    "kw", [dict(simulations=0), dict(c_puct=0.0), dict(temperature=-1.0), dict(batch_size=0), dict(reward="score")]
)
def test_puct_rejects_bad_arguments(kw):
    kw = {"simulations": 4, **kw}
    with pytest.raises(ValueError, match="puct"):
        PUCTAgent(_evaluator(), **kw)


def test_evaluate_puct_in_worker_processes_matches_serial(checkpoint):
    """The spec travels to spawned workers (one torch thread each) and plays the same games."""
    from agents.evaluation.backends import ProcessPool, Serial
    from agents.evaluation.tournament import evaluate

    specs = [f"puct:3:{checkpoint}", "greedy"]
    serial = evaluate(specs, "kardinal", games=2, seed=1, backend=Serial(torch_threads=1))
    parallel = evaluate(specs, "kardinal", games=2, seed=1, backend=ProcessPool(2))
    assert [g["moves"] for g in serial["games"]] == [g["moves"] for g in parallel["games"]]
    assert torch.get_num_threads() == 1


@pytest.mark.parametrize("spec", ["ppo:no/such/checkpoint.pt", "puct:8:no/such/checkpoint.pt"])
def test_load_agent_names_a_missing_checkpoint(spec):
    with pytest.raises(AgentSpecError, match="no checkpoint file 'no/such/checkpoint.pt'"):
        load_agent(spec)


def test_puct_refuses_an_evaluator_without_policy_value():
    with pytest.raises(TypeError, match="policy_value"):
        PUCTAgent(_net(), simulations=4)


# ------------------------------------------------------------------ Kardinal & König
@pytest.fixture(scope="module")
def koenig_checkpoint(tmp_path_factory):
    """A tiny untrained K&K checkpoint (an MLP of 16 hidden units, three players)."""
    spec = get_game("kardinal_koenig")
    rules = spec.rules(players=3)
    torch.manual_seed(0)
    net = network_builder(spec)(rules, {"kind": "mlp", "hidden": 16})
    path = tmp_path_factory.mktemp("kk") / "tiny_kk.pt"
    config = {"score_shaping": 0.02, "reward": "win_loss"}
    write_checkpoint(make_checkpoint(spec, rules, net, config=config), path)
    return str(path)


def _koenig_midgame(seed: int, moves: int = 40):
    from kardinal_env.koenig import Game as KoenigGame
    from kardinal_env.koenig import Rules as KoenigRules

    game = KoenigGame(KoenigRules(players=3), seed=seed)
    rng = random.Random(seed)
    while game.move_count < moves:
        game.play(rng.choice(game.legal_moves()))
    return game


def test_puct_plays_a_koenig_game_with_legal_moves(koenig_checkpoint):
    from kardinal_env.koenig import Game as KoenigGame
    from kardinal_env.koenig import Rules as KoenigRules

    agent = load_agent(f"puct:4:{koenig_checkpoint}", game="kardinal_koenig", seed=0)
    assert isinstance(agent, PUCTAgent) and agent.score_shaping == 0.02
    game = KoenigGame(KoenigRules(players=3), seed=11)
    rng = random.Random(1)
    while not game.is_over:
        move = agent.select_move(game) if game.current_player == 0 else rng.choice(game.legal_moves())
        assert move in game.legal_moves()
        game.play(move)


class _SeatView:
    """The real game as the search may use it: legal moves, seats, ``determinize``; anything else
    (a hand, the deck, a snapshot, ``play``, ``clone``) fails."""

    _ALLOWED = ("legal_moves", "current_player", "num_players", "is_over", "rules", "move_count")

    def __init__(self, game, calls):
        self._game, self._calls = game, calls

    def determinize(self, seat, rng):
        self._calls.append(seat)
        return self._game.determinize(seat, rng)

    def __getattr__(self, name):
        if name in self._ALLOWED:
            return getattr(self._game, name)
        raise AssertionError(f"the search read game.{name} of the real game")


@pytest.mark.parametrize("batch_size, rollouts", [(1, 0), (8, 0), (8, 1)])
def test_koenig_puct_searches_only_determinized_worlds(koenig_checkpoint, batch_size, rollouts):
    agent = load_agent(f"puct:30:{koenig_checkpoint}", seed=3, batch_size=batch_size, rollouts=rollouts)
    game = _koenig_midgame(5)
    while len(game.legal_moves()) < 2:
        game.play(game.legal_moves()[0])
    seat, history, calls = game.current_player, list(game.history), []
    view = _SeatView(game, calls)
    move = agent.select_move(view)
    assert move in game.legal_moves() and game.history == history
    assert len(calls) == 31 and set(calls) == {seat}  # the root's evaluation and one world per simulation
    root = agent.expand_root(view)
    agent.search(view, root, 30)
    assert root.child_visits.sum() == 30 and sorted(root.moves) == sorted(game.legal_moves())
    assert np.isclose(root.prior.sum(), 1.0)


@pytest.mark.parametrize("seed, rollouts", [(0, 0), (1, 0), (0, 1)])
def test_koenig_puct_same_move_when_only_hidden_cards_differ(koenig_checkpoint, seed, rollouts):
    """Also with playouts at the leaves: they play out the seat's determinized worlds only."""
    g1, g2 = hidden_twins(seed, players=3, keep=20)  # seats 1 and 2 swap a card, the deck below 20 reordered
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"]

    def same_move(a, b):
        move1 = load_agent(f"puct:12:{koenig_checkpoint}", seed=seed, rollouts=rollouts).select_move(a)
        move2 = load_agent(f"puct:12:{koenig_checkpoint}", seed=seed, rollouts=rollouts).select_move(b)
        assert move1 == move2
        return move1

    assert walk_hidden_twins(g1, g2, same_move, random.Random(seed), 4) >= 2


def test_puct_checkpoint_plays_only_its_game(koenig_checkpoint, checkpoint):
    assert check_spec(f"puct:8:{koenig_checkpoint}", players=3, game="kardinal_koenig") == []
    with pytest.raises(AgentSpecError, match="trained on kardinal_koenig_v1, not kardinal_v0"):
        check_spec(f"puct:8:{koenig_checkpoint}", game="kardinal")
    with pytest.raises(AgentSpecError, match="trained on kardinal_v0, not kardinal_koenig_v1"):
        load_agent(f"puct:8:{checkpoint}", game="kardinal_koenig")

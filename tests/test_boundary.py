"""Regression tests of issue 53's reproducers: each way in from Python that crashed, hung, truncated or
leaked an unexpected exception now gets a clear refusal naming the limit (kardinal_env.core.limits,
cpp/src/common/boundary.hpp). The crashes themselves (a signal) are caught in subprocesses by
tests/test_core_fuzz.py; here every call is made in-process and must be refused at once."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest

from agents import AgentSpecError, load_agent
from agents.search.ismcts import ISMCTSAgent
from agents.search.mcts import MCTSAgent
from kardinal_env.core import limits
from kardinal_env.core.errors import GameNotOverError, OutOfRangeError, StateError
from kardinal_env.core.registry import get_game
from kardinal_env.vector import VectorEnv


def test_core_limits_are_the_python_limits(core):
    assert core.LIMITS == limits.as_dict()


@pytest.mark.parametrize(
    "spec, limit",
    [
        ("ismcts:4294967346", "1,000,000 simulations"),  # was cut to 50 simulations
        ("ismcts:2147483648", "1,000,000 simulations"),  # was cut to 0, then max() of nothing
        ("gismcts:1000000000000", "1,000,000 simulations"),
        ("rollout:4294967298", "10,000 worlds"),  # was cut to 2 worlds
        ("mcts:100000000", "1,000,000 simulations"),  # was accepted and hung at the first move
        ("mcts:1000000000000", "1,000,000 simulations"),  # was refused only at the first move
    ],
)
def test_counts_beyond_the_limits_are_refused_when_the_agent_is_made(spec, limit):
    game = "kardinal" if spec.startswith("mcts") else "kardinal_koenig"
    with pytest.raises(AgentSpecError, match=limit):
        load_agent(spec, game)


def test_search_agents_check_every_argument_when_made():
    with pytest.raises(ValueError, match="simulations must be an integer from 1 to 1000000"):
        ISMCTSAgent(2**32 + 50)
    with pytest.raises(ValueError, match="simulations must be an integer from 1 to 1000000"):
        MCTSAgent(10**12)
    for knob in ("exploration", "scale"):  # NaN reached the K&K core, which returned NaN values
        with pytest.raises(ValueError, match=f"{knob} must be a finite number"):
            load_agent("ismcts:10", "kardinal_koenig", **{knob: math.nan})
    with pytest.raises(ValueError, match="exploration must be a finite number"):
        MCTSAgent(10, exploration=math.inf)
    with pytest.raises(ValueError, match="widen must be an integer from 1 to 1000000"):
        load_agent("gismcts:50", "kardinal_koenig", widen=2**31)  # was a segmentation fault at select_move


def _koenig_core_game(core):
    spec = get_game("kardinal_koenig")
    from kardinal_env.koenig import compiled

    game = spec.new_game(spec.rules(4), seed=3)
    return compiled.core_position(game, core), game


def test_core_search_knobs_are_range_checked_at_full_width(core):
    from dataclasses import astuple

    from agents.baselines.koenig_heuristic import DEFAULT_WEIGHTS
    from kardinal_env.koenig.knowledge import SeatKnowledge

    kgame, game = _koenig_core_game(core)
    rng = random.Random(1)
    while kgame.num_legal_moves() < 2:
        kgame.play_id(rng.choice(kgame.legal_move_ids()))
        game.apply_action(kgame.history_ids[-1])
    data = SeatKnowledge(game, game.current_player).deal_data()
    weights = list(astuple(DEFAULT_WEIGHTS))
    for widen in (2**31, 2**32, -(2**31)):
        with pytest.raises(ValueError, match="widen must be an integer from 1 to 1000000"):
            core.koenig_search.ismcts_root(kgame, 5, 0.7, 8.0, data, 1, weights, 1, widen)
    with pytest.raises(ValueError, match="simulations must be an integer from 1 to 1000000"):
        core.koenig_search.ismcts_root(kgame, 2**32 + 50, 0.7, 8.0, data, 1)
    for knob, args in (("exploration", (math.nan, 8.0)), ("scale", (0.7, math.nan))):
        with pytest.raises(ValueError, match=f"{knob} must be a finite number"):
            core.koenig_search.ismcts_root(kgame, 5, *args, data, 1)
    legal = kgame.legal_move_ids()[:2]
    with pytest.raises(ValueError, match="worlds must be an integer from 1 to 10000"):
        core.koenig_search.heuristic_rollouts(kgame, legal, 2**32 + 3, weights, 1, data, 1)  # was 3 worlds
    with pytest.raises(ValueError, match="moves must be legal move ids"):
        core.koenig_search.heuristic_rollouts(
            kgame, [legal[0] + 2**32], 2, weights, 1, data, 1
        )  # was the move legal[0]
    with pytest.raises(ValueError, match="n_games must be an integer from 0 to 1000000"):
        core.koenig_search.random_playouts(kgame, 10**12, 1)  # had no bound
    with pytest.raises(ValueError, match="n_games must be an integer from 0 to 1000000"):
        core.kardinal_search.random_playouts(core.KardinalGame(2), 10**12, 1)
    with pytest.raises(ValueError, match="simulations must be an integer from 1 to 1000000"):
        core.kardinal_search.mcts_root(core.KardinalGame(2), 100_000_000)


def test_absurd_batch_sizes_are_refused_before_anything_is_allocated(core):
    for backend in ("core", "python"):
        start = time.perf_counter()
        with pytest.raises(ValueError, match="num_envs must be an integer from 1 to 1048576"):
            VectorEnv("kardinal", num_envs=10**12, backend=backend)  # was a MemoryError after ~20 s
        with pytest.raises(ValueError, match="num_envs must be an integer from 1 to 1048576"):
            VectorEnv("kardinal", num_envs=2**20 + 1, backend=backend)  # was 16 s and 3 GB
        with pytest.raises(ValueError, match="over the limit of 8 GiB"):
            VectorEnv("kardinal", num_envs=2**20, backend=backend)  # 2**20 full windows: hundreds of GiB
        assert time.perf_counter() - start < 5
    with pytest.raises(ValueError, match="over the limit of 8 GiB"):
        core.KardinalBatch(core.KardinalGame(2), 2**20)  # was std::bad_alloc inside the old limit
    with pytest.raises(ValueError, match="num_envs must be an integer from 1 to 1048576"):
        core.KardinalBatch(core.KardinalGame(2), 2**32 + 2)


def test_vector_env_errors_follow_the_convention():
    env = VectorEnv("kardinal_koenig", num_envs=3, players=4, backend="python")
    with pytest.raises(StateError, match="call reset"):
        env.legal_actions(0)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="game index must be an integer"):
        env.legal_actions("0")  # was an IndexError
    with pytest.raises(OutOfRangeError, match="from 0 to 2"):
        env.legal_actions(3)
    assert issubclass(OutOfRangeError, ValueError) and issubclass(OutOfRangeError, IndexError)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        env.reset(seed=-1)  # -1 and 1 seed the same generator: two slots dealt the same game
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        env.reset(seed=[0, 1, -2])


@pytest.mark.parametrize("game_name", ["kardinal", "kardinal_koenig"])
def test_results_before_the_end_raise_game_not_over(game_name):
    spec = get_game(game_name)
    game = spec.new_game(spec.rules(), seed=1 if spec.chance else None)
    with pytest.raises(GameNotOverError, match="only defined once the game is over"):
        game.winners()
    with pytest.raises(GameNotOverError):
        game.finishing_order()
    assert issubclass(GameNotOverError, ValueError) and issubclass(GameNotOverError, RuntimeError)


def test_batch_actions_of_every_dtype_are_checked_before_the_core(core):
    env = VectorEnv("kardinal_koenig", num_envs=2, players=4, seed=0, backend="core")
    env.reset()
    from kardinal_env.vector import IllegalActionError

    with pytest.raises(IllegalActionError, match="game 0"):
        env.step(np.array([2**64 - 1, 0], dtype=np.uint64))
    with pytest.raises(TypeError, match="integer array"):
        env.step(np.zeros(2))

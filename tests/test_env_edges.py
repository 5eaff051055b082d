"""Careless input at the environment boundary: every bad action is refused with a message that names
it, nothing is rounded or clipped, and the Gymnasium view works through ``gymnasium.make``."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import kardinal_env  # noqa: F401  (registers the ids)
from kardinal_env import IllegalMoveError, kardinal_v0
from kardinal_env.core.registry import get_game
from kardinal_env.core.single_agent import KardinalVsBots
from kardinal_env.kardinal.engine import action_codec

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

BAD_ACTIONS = [
    (1.5, "expected an integer"),
    (1.0, "expected an integer"),
    ("3", "expected an integer"),
    (True, "expected an integer"),
    (None, "expected an integer"),
    (np.float32(2.0), "expected an integer"),
    (-1, "outside Discrete"),
    (10**9, "outside Discrete"),
]


def _legal(env) -> int:
    mask = env.unwrapped.action_mask()
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("action,fragment", BAD_ACTIONS, ids=lambda v: repr(v)[:20])
@pytest.mark.parametrize("factory", [kardinal_v0.raw_env, kardinal_v0.env], ids=["raw_env", "env"])
def test_bad_actions_are_refused_and_change_nothing(factory, action, fragment):
    env = factory(players=2)
    env.reset(seed=0)
    before = env.unwrapped.game.history
    selected = env.agent_selection
    with pytest.raises(IllegalMoveError, match=fragment) as info:
        env.step(action)
    assert info.value.rule == "action"
    assert env.unwrapped.game.history == before
    assert env.agent_selection == selected
    assert not any(env.terminations.values())


@pytest.mark.parametrize("factory", [kardinal_v0.raw_env, kardinal_v0.env], ids=["raw_env", "env"])
def test_numpy_integers_are_accepted(factory):
    env = factory(players=2)
    env.reset(seed=0)
    action = _legal(env)
    env.step(np.int64(action))
    assert len(env.unwrapped.game.history) == 1
    env.step(np.array(_legal(env)))  # a 0-d integer array is an integer
    assert len(env.unwrapped.game.history) == 2


def test_masked_in_range_action_through_env_ends_the_game_with_penalty():
    env = kardinal_v0.env(players=2)
    env.reset(seed=0)
    mask = env.unwrapped.action_mask()
    illegal = int(np.flatnonzero(mask == 0)[0])
    agent = env.agent_selection
    env.step(illegal)
    assert env.rewards[agent] == -1
    assert all(env.terminations.values())


def test_raw_env_names_the_rule_for_a_masked_action():
    env = kardinal_v0.raw_env(players=2)
    env.reset(seed=0)
    chip_action = action_codec(env.rules).chip_offset  # a chip choice while a build is due
    with pytest.raises(IllegalMoveError, match="phase") as info:
        env.step(chip_action)
    assert info.value.rule == "phase"


def test_action_mask_without_observation_matches_observe():
    env = kardinal_v0.raw_env(players=3)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if env.unwrapped.game.is_over:
            break
        for agent in env.agents:
            np.testing.assert_array_equal(env.action_mask(agent), env.observe(agent)["action_mask"])
        legal = env.legal_actions()
        assert sorted(env.decode_action(a) for a in legal) == sorted(env.game.legal_moves())
        env.step(int(rng.choice(legal)))


def test_gym_make_action_masks_work_through_make():
    env = gymnasium.make("kardinal/KardinalVsBots-v0", players=2)
    obs, _ = env.reset(seed=0)
    masks = env.action_masks()
    assert masks.dtype == np.bool_
    np.testing.assert_array_equal(masks, obs["action_mask"].astype(bool))
    assert env.get_wrapper_attr("action_masks")().sum() == masks.sum()


def test_gym_view_default_player_count_is_the_registry_default():
    env = gymnasium.make("kardinal/KardinalVsBots-v0")
    env.reset(seed=0)
    assert env.unwrapped.aec.rules.players == get_game("kardinal").default_players == 2


def test_gym_view_refuses_step_before_reset():
    env = KardinalVsBots(players=2)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="before reset"):
        env.action_masks()


def test_gym_view_accepts_agent_spec_opponents():
    env = gymnasium.make("kardinal/KardinalVsBots-v0", players=2, opponents="greedy")
    obs, _ = env.reset(seed=3)
    opponent = env.unwrapped.opponents[0]
    assert opponent.name == "greedy"
    terminated = False
    rng = np.random.default_rng(0)
    while not terminated:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
    assert set(info) >= {"scores", "winners"}


@pytest.mark.parametrize(
    "opponents,fragment",
    [("mcts:zero", "mcts needs a positive number"), ("alphago", "unknown agent spec"), (42, "neither 'random'")],
)
def test_gym_view_rejects_bad_opponents(opponents, fragment):
    with pytest.raises(ValueError, match=fragment):
        KardinalVsBots(players=2, opponents=opponents)


def test_gym_view_rejects_bad_actions():
    env = gymnasium.make("kardinal/KardinalVsBots-v0", players=2)
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="expected an integer"):
        env.step(0.5)

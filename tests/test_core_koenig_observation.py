"""The compiled core's Kardinal & König observation encoder and action mask (``KoenigGame.encode_into`` /
``action_mask_into``, cpp/src/koenig/observation.hpp) against the Python reference
(``kardinal_env.koenig.observation.ObservationEncoder.encode``, the environment's mask of ``legal_actions()``).

Seeded random games in every variant of tests/test_core_koenig.py (3, 4, 5 players × discard one / any ×
the packaged, small and odd boards): at every decision, and once over, the core's observation of every
seat is byte for byte the Python encoder's, and its mask of every seat (and of the deciding seat by
default) the mask of the Python game's legal_actions(), written into buffers filled with junk first
(every entry is written).
Hidden information stays hidden: two games differing only in cards the observer cannot know encode the
same. Wrong buffers and seats raise TypeError / ValueError naming the problem. The ``kardinal_koenig_v1``
env gives the same observations, masks and rewards on both backends and, core-backed, hands out one
array per seat. The default run plays 216 games per check; ``-m slow`` 1,800 more.

Skipped (with the reason) without ``kardinal_core`` unless ``KARDINAL_REQUIRE_CORE=1``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import kardinal_core_or_skip
from koenig_helpers import hidden_twins, play_common_move
from test_core_koenig import VARIANTS

from kardinal_env import kardinal_koenig_v1
from kardinal_env.koenig import Game, Rules, compiled
from kardinal_env.koenig.observation import ObservationEncoder


@pytest.fixture
def core(monkeypatch):
    module = kardinal_core_or_skip()
    if not hasattr(module, "KoenigGame") or not hasattr(module.KoenigGame, "encode_into"):
        pytest.fail("kardinal_core is built without KoenigGame.encode_into: rebuild it (bash scripts/setup.sh)")
    monkeypatch.delenv("KARDINAL_ENV_BACKEND", raising=False)
    return module


def _mask(game, seat=None) -> np.ndarray:
    """The environment's int8 mask of ``seat`` (default: the deciding seat): ones at ``legal_actions()``
    when it decides, zeros otherwise and once the game is over."""
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if game.current_player is not None and seat in (None, game.current_player):
        mask[game.legal_actions()] = 1
    return mask


def _compare_game(module, rules: Rules, seed: int) -> int:
    """One seeded random game on both engines; at every decision every seat's observation and mask
    compared. Returns the number of comparisons."""
    rng = random.Random(seed)
    py = Game.reference(rules, seed=seed)
    cc = compiled.core_game(rules, seed, module=module)
    encoder = ObservationEncoder(rules)
    obs = compiled.observation_buffer(rules)
    mask = compiled.mask_buffer(rules)
    as_bool = compiled.mask_buffer(rules, np.bool_)
    compared = 0
    while True:
        where = f"{rules} seed {seed} move {py.move_count}"
        for seat in range(rules.players):
            obs.fill(np.nan)  # junk: every entry must be written
            cc.encode_into(seat, obs)
            assert obs.tobytes() == encoder.encode(py, seat).tobytes(), f"{where}: observation of seat {seat}"
            mask.fill(7)
            cc.action_mask_into(mask, seat)
            assert mask.tobytes() == _mask(py, seat).tobytes(), f"{where}: mask of seat {seat}"
            compared += 1
        as_bool.fill(True)
        cc.action_mask_into(as_bool)
        assert np.array_equal(as_bool, _mask(py).astype(bool)), f"{where}: default-seat mask"
        if py.is_over:
            assert not as_bool.any(), f"{where}: a finished game has no legal action"
            return compared
        move = rng.choice(py.legal_actions())
        py.apply_action(move)
        cc.play_id(move)


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_core_observation_and_mask_equal_python_every_seat_every_decision(core, rules):
    compared = sum(_compare_game(core, rules, seed) for seed in range(12))
    assert compared > 12 * rules.players * 20


@pytest.mark.slow
@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_core_observation_and_mask_equal_python_many_games(core, rules):
    compared = sum(_compare_game(core, rules, seed) for seed in range(1000, 1100))
    assert compared > 100 * rules.players * 20


def test_the_core_backed_game_and_the_helpers_write_the_python_values(core):
    rules = Rules(players=4, discard="any")
    game, reference = Game(rules, seed=5), Game.reference(rules, seed=5)
    assert game.compiled and not reference.compiled
    rng = random.Random(5)
    for _ in range(30):
        move = rng.choice(reference.legal_actions())
        game.apply_action(move)
        reference.apply_action(move)
    encoder = ObservationEncoder(rules)
    for seat in range(4):
        want = encoder.encode(reference, seat)
        out = compiled.observation_buffer(rules)
        assert game.encode_into(seat, out) is out and np.array_equal(out, want)
        # A Python game is replayed into the core; a raw KoenigGame is read directly.
        assert np.array_equal(compiled.encode_into(reference, seat, compiled.observation_buffer(rules)), want)
        assert np.array_equal(compiled.encode_into(game.core, seat, compiled.observation_buffer(rules)), want)
        mask = compiled.mask_buffer(rules)
        assert game.action_mask_into(mask, seat) is mask
        assert np.array_equal(mask, _mask(reference, seat))
        assert np.array_equal(compiled.action_mask_into(reference, compiled.mask_buffer(rules), seat), mask)
    with pytest.raises(TypeError, match="kardinal_env.koenig.Game or a kardinal_core.KoenigGame"):
        compiled.encode_into("game", 0, compiled.observation_buffer(rules))


# ---------------------------------------------------------------------- hidden information stays hidden
@pytest.mark.parametrize("seed", [0, 3, 4])
def test_twins_that_differ_only_in_hidden_cards_encode_the_same(core, seed):
    g1, g2 = hidden_twins(seed, observer=0)
    assert g1.compiled and g2.compiled
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"] and g1.snapshot()["deck"] != g2.snapshot()["deck"]
    rules = g1.rules
    o1, o2 = compiled.observation_buffer(rules), compiled.observation_buffer(rules)
    rng = random.Random(seed)
    compared = 0
    while not g1.is_over and g1.display() == g2.display() and g1.hand(0) == g2.hand(0):
        g1.encode_into(0, o1)
        g2.encode_into(0, o2)
        assert o1.tobytes() == o2.tobytes(), f"seed {seed} move {g1.move_count}: seat 0 tells the twins apart"
        compared += 1
        if not play_common_move(g1, g2, rng):
            break
    assert compared >= 5
    # The twins do differ for a seat that holds a swapped card: its own hand shows.
    seat = 1
    g1.encode_into(seat, o1)
    g2.encode_into(seat, o2)
    assert g1.hand(seat) == g2.hand(seat) or o1.tobytes() != o2.tobytes()


# ---------------------------------------------------------------------- bad input
def test_bad_buffers_and_seats_are_refused_naming_the_problem(core):
    rules = Rules(players=3)
    game = compiled.core_game(rules, 1, module=core)
    L, A = ObservationEncoder(rules).size, rules.compiled.num_moves
    assert game.observation_size == L
    good = np.zeros(L, dtype=np.float32)
    with pytest.raises(TypeError, match="out must be a writable C-contiguous numpy.float32 array"):
        game.encode_into(0, [0.0] * L)
    with pytest.raises(TypeError, match="out must have dtype float32, got float64"):
        game.encode_into(0, np.zeros(L))
    with pytest.raises(ValueError, match=rf"out must have shape \({L},\).*got \({L + 1},\)"):
        game.encode_into(0, np.zeros(L + 1, dtype=np.float32))
    with pytest.raises(ValueError, match=rf"out must have shape \({L},\), got \(1, {L}\)"):
        game.encode_into(0, np.zeros((1, L), dtype=np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        game.encode_into(0, np.zeros(2 * L, dtype=np.float32)[::2])
    frozen = np.zeros(L, dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        game.encode_into(0, frozen)
    for seat in (-1, 3):
        with pytest.raises(ValueError, match=f"observer {seat} is out of range: a 3-player game has seats 0..2"):
            game.encode_into(seat, good)
        with pytest.raises(ValueError, match=f"seat {seat} is out of range"):
            game.action_mask_into(np.zeros(A, dtype=np.int8), seat)
    assert not good.any()  # nothing was written by a refused call
    with pytest.raises(TypeError, match="out must have dtype bool \\(or int8\\), got int32"):
        game.action_mask_into(np.zeros(A, dtype=np.int32))
    with pytest.raises(ValueError, match=rf"out must have shape \({A},\).*got \({A - 1},\)"):
        game.action_mask_into(np.zeros(A - 1, dtype=np.int8))
    frozen_mask = np.zeros(A, dtype=np.int8)
    frozen_mask.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        game.action_mask_into(frozen_mask)
    with pytest.raises(TypeError):
        game.encode_into("0", good)


# ---------------------------------------------------------------------- the env on both backends
def _run_env(monkeypatch, backend: str | None, players: int, discard: str, seed: int):
    if backend is None:
        monkeypatch.delenv("KARDINAL_ENV_BACKEND", raising=False)
    else:
        monkeypatch.setenv("KARDINAL_ENV_BACKEND", backend)
    env = kardinal_koenig_v1.raw_env(players=players, discard=discard)
    env.reset(seed=seed)
    return env


@pytest.mark.parametrize(("players", "discard"), [(3, "one"), (4, "any"), (5, "one"), (5, "any")])
def test_env_gives_the_same_observations_masks_and_rewards_on_both_backends(core, monkeypatch, players, discard):
    for seed in range(3):
        py = _run_env(monkeypatch, "python", players, discard, seed)
        cc = _run_env(monkeypatch, None, players, discard, seed)
        assert cc.game.compiled and not py.game.compiled
        rng = random.Random(seed)
        steps = 0
        while True:
            assert cc.agent_selection == py.agent_selection
            for agent in py.possible_agents:
                a, b = py.observe(agent), cc.observe(agent)
                assert a["observation"].tobytes() == b["observation"].tobytes(), (seed, steps, agent)
                assert a["action_mask"].tobytes() == b["action_mask"].tobytes(), (seed, steps, agent)
                assert b["observation"].dtype == np.float32 and b["action_mask"].dtype == np.int8
            assert py.rewards == cc.rewards and py.terminations == cc.terminations
            if all(py.terminations.values()):
                assert py._cumulative_rewards == cc._cumulative_rewards
                assert any(r != 0 for r in cc.rewards.values())
                break
            action = rng.choice(np.flatnonzero(py.action_mask()).tolist())
            py.step(action)
            cc.step(action)
            steps += 1
        assert steps > 20


def test_core_backed_env_hands_out_one_shared_array_per_seat(core):
    env = kardinal_koenig_v1.raw_env(players=4)
    env.reset(seed=3)
    assert env.game.compiled
    agent = env.agent_selection
    first = env.observe(agent)
    mask = env.action_mask(agent)
    assert mask is first["action_mask"]
    snapshot = first["observation"].copy()
    env.step(int(np.flatnonzero(mask)[0]))
    again = env.observe(agent)
    assert again["observation"] is first["observation"] and again["action_mask"] is mask
    assert not np.array_equal(snapshot, again["observation"])  # rewritten in place by the core
    others = {id(env.observe(a)["observation"]) for a in env.possible_agents}
    assert len(others) == 4

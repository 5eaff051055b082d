"""kardinal_env.vector: N games stepped together.

* The python backend against N independent AEC envs (``kardinal_v0`` / ``kardinal_koenig_v1`` raw
  envs, seeded ``s + i``, reset without a seed when their game ends) stepped with the same actions:
  the seat to act, observations, masks, rewards (every seat, every step), terminations, final
  observations and final infos are equal, across auto-resets, for several rule options, reward
  schemes and chip shaping.
* The core backend (C++, ``kardinal_core.KardinalBatch``) in lockstep with the python backend, byte
  for byte, over seeded random actions in all 27 rule variants of tests/test_core_kardinal.py (2-4
  players, presets, the shared pool, options against the preset, windows 3-53) with both reward
  schemes and chip shaping: about 8,000 game-steps by default, ``-m slow`` about 100,000 more.
* Auto-reset keeps the final observation and info; the arrays are written in place (``copy=True``
  copies); threads give the same bytes as no threads; seeds (K&K deals); bad input (actions of a
  wrong dtype or shape, ids out of range, illegal actions: an error naming the game and the rule,
  every game unchanged; bad constructor arguments).

* Kardinal & König's core backend (``kardinal_core.KoenigBatch``) against the python backend on the
  reference engine, byte for byte, in its variants and boards; its seeds, bad actions and bindings.

Core tests use the ``core`` fixture (tests/conftest.py: skipped without the core unless
``KARDINAL_REQUIRE_CORE=1``; ``KARDINAL_ENV_BACKEND`` unset for the test, so they run under
``KARDINAL_ENV_BACKEND=python`` too).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import check_decisions_as_aec, step_as_aec, step_in_lockstep, stepped_vector_env
from koenig_helpers import small_board
from test_core_kardinal import VARIANTS
from test_core_koenig import ODD_BOARD

from kardinal_env import IllegalMoveError
from kardinal_env.core.registry import get_game
from kardinal_env.core.rewards import ShapingTracker, terminal_rewards
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.observation import ObservationEncoder
from kardinal_env.koenig import Rules as KoenigRules
from kardinal_env.vector import IllegalActionError, VectorEnv

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane

ARRAYS = ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated", "final_observation")


@pytest.fixture(params=["python", "core"])
def backend(request):
    """Each backend in turn; "core" needs the compiled core (the ``core`` fixture: skipped where it is not built)."""
    if request.param == "core":
        request.getfixturevalue("core")
    return request.param


# ---------------------------------------------------------------- python backend against AEC envs

AEC_CASES = [
    ("kardinal", 4, {}, "win_loss", 0.0, 3, 160),
    ("kardinal", 2, {"preset": "german", "window": 9}, "margin", 0.5, 3, 120),
    ("kardinal", 3, {"shared_pool": True, "window": 7}, "win_loss", -0.25, 3, 120),
    ("kardinal", 3, {"exhausted_colour": "substitute", "neutral_build_chips": "keep"}, "margin", 1.0, 2, 140),
    ("kardinal_koenig", 4, {}, "win_loss", 0.0, 3, 260),
    ("kardinal_koenig", 3, {"discard": "any"}, "margin", 0.0, 2, 260),
    ("kardinal_koenig", 5, {}, "win_loss", 0.0, 2, 200),
]


def _aec_envs(game: str, n: int, players: int, options: dict, reward: str, chip_shaping: float, seed: int):
    raw_env = get_game(game).load("env_module").raw_env
    extra = {"chip_shaping": chip_shaping} if chip_shaping else {}
    envs = [raw_env(players=players, reward=reward, **options, **extra) for _ in range(n)]
    for i, aec in enumerate(envs):
        aec.reset(seed=seed + i)
    return envs


@pytest.mark.parametrize("game, players, options, reward, chip_shaping, n, steps", AEC_CASES, ids=repr)
def test_python_backend_matches_aec_envs(game, players, options, reward, chip_shaping, n, steps):
    seed = 11
    env = VectorEnv(game, n, players, seed=seed, backend="python", reward=reward, chip_shaping=chip_shaping, **options)
    envs = _aec_envs(game, n, players, options, reward, chip_shaping, seed)
    out = env.reset()
    assert out.observation is env.observation and not out.rewards.any() and not out.terminated.any()
    check_decisions_as_aec(env, envs, "reset")
    rng = np.random.default_rng(3)
    ended = 0
    totals = np.zeros((n, players))
    for step in range(steps):
        out, done = step_as_aec(env, envs, env.random_actions(rng), f"step {step}")
        totals += out.rewards
        ended += len(done)
        for i in done:
            envs[i].reset()  # the next game of the AEC env: its generator goes on, as the slot's does
        check_decisions_as_aec(env, envs, f"step {step}")
    assert ended >= n, "every slot should have finished a game (raise steps)"
    if reward == "win_loss" and not chip_shaping:
        assert set(np.unique(totals)) <= set(range(-20, 21))  # whole ±1 per finished game


def test_python_backend_serves_a_third_registered_game():
    """Any registered game (tests/third_game.py's Nim) through the protocol, against the generic AEC env."""
    import third_game

    from kardinal_env.core.generic_env import GameEnv

    with third_game.registered():
        env = VectorEnv("nim", 3, players=3, reward="margin", pile=10, seed=0)
        assert env.backend == "python"
        aecs = [GameEnv(game="nim", players=3, reward="margin", pile=10) for _ in range(3)]
        for i, aec in enumerate(aecs):
            aec.reset(seed=i)
        env.reset(seed=0)
        check_decisions_as_aec(env, aecs, "reset")
        rng = np.random.default_rng(4)
        ended = 0
        for step in range(40):
            _, done = step_as_aec(env, aecs, env.random_actions(rng), f"step {step}")
            ended += len(done)
            for i in done:
                aecs[i].reset()
            check_decisions_as_aec(env, aecs, f"step {step}")
        assert ended >= 3
        with pytest.raises(ValueError, match="Kardinal and Kardinal & König games only"):
            VectorEnv("nim", 2, backend="core")


# ---------------------------------------------------------------- core backend against python backend


def _pair(rules: Rules, n: int, reward: str, chip_shaping: float, score_shaping: float = 0.0, threads: int = 0):
    shaping = {"reward": reward, "chip_shaping": chip_shaping, "score_shaping": score_shaping}
    py = VectorEnv("kardinal", n, rules=rules, backend="python", **shaping)
    cc = VectorEnv("kardinal", n, rules=rules, backend="core", threads=threads, **shaping)
    return py, cc


def _same(a: VectorEnv, b: VectorEnv, where: str) -> None:
    """The two envs' arrays byte for byte, their final infos and their legal ids."""
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: {name} dtype/shape"
        assert x.tobytes() == y.tobytes(), f"{where}: {name} differs"
    assert a.final_info == b.final_info, f"{where}: final_info"
    assert all(x.tolist() == y.tolist() for x, y in zip(a.legal_actions(), b.legal_actions(), strict=True)), where


REWARDS = [
    ("win_loss", 0.0, 0.0),
    ("margin", 0.5, 0.05),
    ("win_loss", -0.25, 0.0),
    ("margin", 1.0, 0.0),
    ("win_loss", 0.0, 0.1),
]


def _lockstep(
    rules: Rules, n: int, steps: int, seed: int, reward: str, chip_shaping: float, score_shaping: float
) -> tuple[int, int]:
    py, cc = _pair(rules, n, reward, chip_shaping, score_shaping)
    py.reset(seed=seed)
    cc.reset(seed=seed)
    _same(py, cc, f"{rules} reset")
    rng = np.random.default_rng(seed)
    ended = 0
    for step in range(steps):
        actions = py.random_actions(rng)
        assert cc.legal_actions() == [] or all(
            a.tolist() == b.tolist() for a, b in zip(py.legal_actions(), cc.legal_actions(), strict=True)
        )
        py.step(actions)
        cc.step(actions)
        _same(py, cc, f"{rules} {reward} {chip_shaping} {score_shaping} step {step}")
        ended += int(py.terminated.sum())
    for i in range(n):  # the core's game, replayed into Python, is the python backend's game
        assert cc.game(i).history_codes == py.game(i).history_codes
    return n * steps, ended


def test_core_lockstep_with_python_backend_every_variant(core):
    total = ended = 0
    for k, rules in enumerate(VARIANTS):
        s, e = _lockstep(rules, 4, 75, k, *REWARDS[k % len(REWARDS)])
        total += s
        ended += e
    assert total >= 8000 and ended >= 100


@pytest.mark.slow
def test_core_lockstep_thousands_of_steps(core):
    total = 0
    for k, rules in enumerate(VARIANTS * 2):
        total += _lockstep(rules, 8, 250, 1000 + k, *REWARDS[(k + 1) % len(REWARDS)])[0]
    assert total >= 100_000


def test_score_shaping_is_the_trainers_shaping(backend):
    """score_shaping: the acting seat earns score_shaping x the change of its projected margin
    (rewards.projected_margins) that its move caused, plus chip shaping and, on the last move, every
    seat's terminal reward: games played alongside with rewards.ShapingTracker give the same rewards."""
    rules = Rules(players=3, window=9)
    env = VectorEnv("kardinal", 3, rules=rules, backend=backend, reward="margin", chip_shaping=0.5, score_shaping=0.05)
    env.reset()
    games = [Game(rules) for _ in range(3)]
    rng = np.random.default_rng(3)
    ended = shaped = 0
    for _ in range(200):
        actions = env.random_actions(rng)
        expected = np.zeros((3, 3))
        for i, game in enumerate(games):
            seat = game.current_player
            tracker = ShapingTracker(0.5, 0.05)
            tracker.before(game, seat)
            game.apply_action(int(actions[i]))
            expected[i, seat] = tracker.reward(game, seat)
            shaped += expected[i, seat] != 0
            if game.is_over:
                expected[i] += terminal_rewards(game, "margin")
                games[i] = Game(rules)
                ended += 1
        env.step(actions)
        assert np.array_equal(env.rewards, expected.astype(np.float32))
    assert ended >= 2 and shaped >= 100


@pytest.mark.parametrize(
    "game, rules, threads, steps, options",
    [
        (
            "kardinal",
            Rules(players=4, preset="german", window=9),
            (0, 1, 2, 3, 7, 64),
            150,
            {"reward": "margin", "chip_shaping": 0.5},
        ),
        ("kardinal_koenig", KoenigRules(players=5, discard="any"), (0, 1, 2, 3, 64), 300, {"seed": 3}),
    ],
    ids=["kardinal", "kardinal_koenig"],
)
def test_core_threads_give_the_same_bytes(core, game, rules, threads, steps, options):
    envs = [VectorEnv(game, 7, rules=rules, backend="core", threads=t, **options) for t in threads]
    step_in_lockstep(envs, steps, 5, _same)


def test_core_threads_on_kardinals_lossless_window(core):
    rng = np.random.default_rng(5)
    full = VectorEnv("kardinal", 5, 4, backend="core", threads=2)  # the lossless window, another size
    one = VectorEnv("kardinal", 5, 4, backend="core")
    full.reset(), one.reset()
    for _ in range(60):
        actions = one.random_actions(rng)
        full.step(actions), one.step(actions)
        _same(one, full, "W=53 threads=2")


@pytest.mark.parametrize("game", ["kardinal", "kardinal_koenig"])
def test_auto_backend(core, game):
    assert VectorEnv(game, 2).backend == "core"
    assert VectorEnv(game, 2, backend=None).backend == "core"  # None is "auto"
    assert VectorEnv(game, 2, backend="python").backend == "python"
    if game == "kardinal_koenig":  # chip shaping is Kardinal's: K&K's core refuses it by name
        with pytest.raises(ValueError, match="chips_held"):
            VectorEnv(game, 2, backend="core", chip_shaping=0.5)


@pytest.mark.parametrize("game", ["kardinal", "kardinal_koenig"])
def test_auto_backend_follows_the_backend_variable(monkeypatch, game):
    monkeypatch.setenv("KARDINAL_ENV_BACKEND", "python")
    assert VectorEnv(game, 2).backend == "python"
    with pytest.raises(RuntimeError, match="KARDINAL_ENV_BACKEND=python"):
        VectorEnv(game, 2, backend="core")


# ---------------------------------------------------------------- auto-reset, arrays, seeds


def test_auto_reset_keeps_the_final_observation(backend):
    rules = Rules(players=2, window=5)
    encoder = ObservationEncoder(rules)
    env = VectorEnv("kardinal", 3, rules=rules, backend=backend)
    env.reset()
    arrays = [getattr(env, name) for name in ARRAYS]
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        before = [env.game(i) for i in range(3)]
        actions = env.random_actions(rng)
        out = env.step(actions)
        assert all(getattr(env, name) is a for name, a in zip(ARRAYS, arrays, strict=True))  # written in place
        assert out.observation is env.observation and out.info["final_observation"] is env.final_observation
        assert sorted(out.info["final_info"]) == np.flatnonzero(out.terminated).tolist()
        for i in np.flatnonzero(out.terminated).tolist():
            ended += 1
            game = before[i]
            seat = game.current_player
            game.apply_action(int(actions[i]))
            assert game.is_over
            assert np.array_equal(out.info["final_observation"][i], encoder.encode(game, seat))
            assert out.info["final_info"][i] == {
                "scores": game.scores(),
                "winners": game.winners(),
                "move_count": game.move_count,
                "last_player": seat,
            }
            # the slot already shows the next game's first decision
            assert np.array_equal(out.observation[i], encoder.encode(Game(rules), 0)) and out.current_player[i] == 0
            assert env.game(i).move_count == 0 and out.action_mask[i].any()
    assert ended >= 3
    # copy=True: arrays that later steps leave alone
    copied = env.step(env.random_actions(rng), copy=True)
    assert all(a is not getattr(env, name) for name, a in zip(ARRAYS, copied[:6], strict=False))
    saved = [a.copy() for a in copied[:6]]
    for _ in range(5):
        env.step(env.random_actions(rng))
    assert all(np.array_equal(a, b) for a, b in zip(copied[:6], saved, strict=True))
    assert copied.info["final_observation"] is not env.final_observation
    # the environment's own arrays refuse writes (the core rewrites only what changed in a row, so a
    # write would corrupt later steps); the copies are the caller's to change
    for name in ARRAYS:
        with pytest.raises(ValueError, match="read-only"):
            getattr(env, name).reshape(-1)[0] = 1
    copied.observation.reshape(-1)[0] = 1


def test_koenig_seeds():
    """Slot i of reset(seed=s) deals as kardinal_koenig_v1 after reset(seed=s + i); reset() without a
    seed goes on; a list gives each slot its seed; the same seed gives the same games."""
    a = VectorEnv("kardinal_koenig", 3, 4, seed=5)
    b = VectorEnv("kardinal_koenig", 3, 4)
    a.reset()
    b.reset(seed=5)
    assert np.array_equal(a.observation, b.observation)
    c = VectorEnv("kardinal_koenig", 1, 4)
    c.reset(seed=6)
    assert np.array_equal(c.observation[0], a.observation[1])
    assert a.game(1).to_record() == c.game(0).to_record()
    d = VectorEnv("kardinal_koenig", 3, 4)
    d.reset(seed=[7, 6, 5])
    assert np.array_equal(d.observation[1], a.observation[1]) and np.array_equal(d.observation[2], a.observation[0])
    assert not np.array_equal(a.observation[0], a.observation[1])  # different deals
    a.reset()  # the generators go on: new deals
    assert not np.array_equal(a.observation, b.observation)
    with pytest.raises(ValueError, match="list of 3 integers"):
        a.reset(seed=[1, 2])
    with pytest.raises(TypeError, match="integer >= 0 or a list"):
        a.reset(seed="7")


def test_spaces_and_legal_actions():
    env = VectorEnv("kardinal", 4, 3, backend="python")
    out = env.reset()
    assert env.observation.shape == (4, 72, 53, 53) and env.observation.dtype == np.uint8
    assert env.action_mask.shape == (4, 17 * 53 * 53 + 5) and env.action_mask.dtype == bool
    assert env.rewards.shape == (4, 3) and env.rewards.dtype == np.float32
    assert env.current_player.dtype == np.int64 and env.terminated.dtype == bool and env.truncated.dtype == bool
    assert env.single_action_space.n == env.num_actions == 47758
    assert env.observation_space.shape == (4, 72, 53, 53) and env.observation_space.contains(out.observation)
    assert env.action_space.shape == (4,)
    for i, ids in enumerate(env.legal_actions()):
        assert set(ids.tolist()) == set(np.flatnonzero(out.action_mask[i]).tolist())
    kk = VectorEnv("kardinal_koenig", 2, 5, seed=0)
    kk.reset()
    assert kk.observation.shape == (2, 494) and kk.observation.dtype == np.float32 and kk.rewards.shape == (2, 5)
    assert kk.action_mask.shape == (2, 390)
    assert "kardinal_koenig" in repr(kk)


# ---------------------------------------------------------------- bad input


@pytest.fixture
def stepped(backend):
    """Three 3-player Kardinal games 5 steps in on ``backend``, a legal action batch, and the env's snapshot."""
    env = stepped_vector_env("kardinal", backend, 3, 5)
    return env, env.random_actions(np.random.default_rng(0)), _snapshot(env)


def _snapshot(env: VectorEnv) -> list:
    return [getattr(env, name).copy() for name in ARRAYS] + [[env.game(i).history for i in range(env.num_envs)]]


def _unchanged(env: VectorEnv, snapshot: list) -> None:
    now = _snapshot(env)
    for a, b in zip(snapshot[:-1], now[:-1], strict=True):
        assert a.tobytes() == b.tobytes()
    assert snapshot[-1] == now[-1]


def test_actions_of_a_wrong_type_or_shape(stepped):
    env, good, snapshot = stepped
    for bad in (good.astype(np.float64), good.astype(bool), [1.0, 2.0, 3.0], np.array(["1", "2", "3"]), None, "012"):
        with pytest.raises(TypeError, match=r"actions must be an integer array of shape \(3,\)"):
            env.step(bad)
    for bad in (good[:2], np.concatenate([good, good]), good.reshape(3, 1), np.int64(5), good.reshape(1, 3)):
        with pytest.raises(ValueError, match=r"actions must have shape \(3,\)"):
            env.step(bad)
    _unchanged(env, snapshot)
    env.step(good.astype(np.int32))  # any integer dtype and a list of ints are fine
    env.step(env.random_actions().tolist())


def test_ids_out_of_range(stepped):
    env, good, snapshot = stepped
    for index, value in ((0, -1), (2, env.num_actions), (1, 2**40)):
        bad = good.copy()
        bad[index] = value
        with pytest.raises(IllegalActionError, match=rf"^game {index}: action: {value} is outside Discrete\(47758\)"):
            env.step(bad)
        try:
            env.step(bad)
        except IllegalMoveError as exc:  # the project's error type, a ValueError
            assert isinstance(exc, ValueError) and exc.rule == "action" and exc.index == index
    huge = good.astype(np.uint64)
    huge[1] = 2**64 - 1
    with pytest.raises(IllegalActionError, match=f"^game 1: action: {2**64 - 1} is outside"):
        env.step(huge)
    _unchanged(env, snapshot)


def test_illegal_actions_name_the_game_and_the_rule(stepped):
    env, good, snapshot = stepped
    for index in range(3):
        game = env.game(index)
        legal = set(env.legal_actions(index).tolist())
        action = next(a for a in range(env.num_actions) if a not in legal)
        bad = good.copy()
        bad[index] = action
        with pytest.raises(IllegalActionError) as error:
            env.step(bad)
        exc = error.value
        with pytest.raises(IllegalMoveError) as engine:
            game.apply_action(action)
        assert str(exc) == f"game {index}: {engine.value}" and exc.rule == engine.value.rule
        assert exc.index == index and exc.move == action
    _unchanged(env, snapshot)
    env.step(good)  # and the batch goes on


def test_koenig_illegal_action():
    env = stepped_vector_env("kardinal_koenig", "python", 4, 5)
    snapshot = _snapshot(env)
    bad = env.random_actions(np.random.default_rng(0))
    legal = set(env.legal_actions(1).tolist())
    bad[1] = next(a for a in range(env.num_actions) if a not in legal)
    with pytest.raises(IllegalActionError, match=r"^game 1: ") as error:
        env.step(bad)
    assert error.value.rule != "action" and error.value.index == 1
    _unchanged(env, snapshot)


def test_bad_construction_and_order():
    env = VectorEnv("kardinal", 2, backend="python")
    for call in (lambda: env.step([0, 0]), env.legal_actions, env.random_actions, lambda: env.game(0)):
        with pytest.raises(RuntimeError, match=r"call reset\(\) before"):
            call()
    env.reset()
    with pytest.raises(IndexError, match="game index"):
        env.legal_actions(2)
    for kwargs, error, message in [
        ({"game": "chess"}, ValueError, "unknown game"),
        ({"num_envs": 0}, ValueError, "num_envs"),
        ({"num_envs": 2.5}, TypeError, "num_envs"),
        ({"players": 5}, ValueError, "2-4 players"),
        ({"backend": "gpu"}, ValueError, "backend must be one of"),
        ({"threads": -1}, ValueError, "threads"),
        ({"reward": "score"}, ValueError, "reward must be one of"),
        ({"chip_shaping": float("nan")}, ValueError, "chip_shaping"),
        ({"foo": 1}, ValueError, r"option\(s\) \['foo'\]"),
        ({"preset": "french"}, ValueError, "preset"),
        ({"game": "kardinal_koenig", "chip_shaping": 1.0}, ValueError, "chips_held"),
        ({"rules": Rules(players=2), "players": 2}, ValueError, "either rules="),
        ({"rules": "rules"}, TypeError, "rules must be a Rules"),
    ]:
        with pytest.raises(error, match=message):
            VectorEnv(**{"num_envs": 2, **kwargs})


def _refuses_bad_steps(batch) -> None:
    """A core batch of 2 games (KardinalBatch, KoenigBatch) refuses actions that are not int64 or not of
    shape (2,) and a negative thread count; ids that are not legal move nothing."""
    with pytest.raises(TypeError, match="int64"):
        batch.step(np.zeros(2, dtype=np.int32))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        batch.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="threads"):
        batch.step(np.zeros(2, dtype=np.int64), -1)
    assert batch.step(np.array([-5, 2**62], dtype=np.int64)) == 0  # not legal: nothing moved


def test_core_batch_binding_refuses_bad_input(core):
    start = core.KardinalGame(3)
    batch = core.KardinalBatch(start, 2)
    _refuses_bad_steps(batch)
    assert batch.game(0).move_count == 0
    with pytest.raises(IndexError, match="game index 2"):
        batch.legal_action_ids(2)
    start.play_index(0)
    with pytest.raises(ValueError, match="at its start"):
        core.KardinalBatch(start, 2)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="num_envs"):
            core.KardinalBatch(core.KardinalGame(2), bad)
    with pytest.raises(ValueError, match="reward"):
        core.KardinalBatch(core.KardinalGame(2), 1, "score")
    with pytest.raises(ValueError, match="finite"):
        core.KardinalBatch(core.KardinalGame(2), 1, "win_loss", float("inf"))
    view = batch.observation
    del batch  # the arrays keep the batch alive
    assert view.shape == (2, 72, 53, 53) and int(view[0, 17, 0, 0]) == 12  # colour slot 0's supply


def test_random_actions_are_legal():
    env = VectorEnv("kardinal_koenig", 4, 3, seed=2)
    env.reset()
    rng = np.random.default_rng(9)
    for _ in range(50):
        actions = env.random_actions(rng)
        assert all(env.action_mask[i, a] for i, a in enumerate(actions))
        env.step(actions)


def test_benchmark_vector_runs(capsys):
    """``scripts/benchmark.py vector`` (:func:`kardinal_env.benchmarks.bench_vector`), a few
    milliseconds per figure: it runs and prints every row, for every registered game."""
    pytest.importorskip("pettingzoo.classic.connect_four_v3", reason="connect_four_v3 needs pygame (the dev extra)")
    from kardinal_env.benchmarks import bench_vector

    out = bench_vector(4, 0.01, 1, sizes=(2,), threads=(0, 2), compare_at=2)
    printed = capsys.readouterr().out
    assert "kardinal_koenig python backend" in printed and "connect_four_v3" in printed
    assert "202,248 bytes" in printed and "kardinal_v0 AEC (4 players)" in printed
    assert out["kardinal python backend"] > 0 and out["kardinal_koenig python backend/connect_four"] > 0


# ---------------------------------------------------------------- Kardinal & König's core backend
# ``kardinal_core.KoenigBatch`` (cpp/src/koenig/batch.hpp) against the python backend on the pure Python
# engine (``KARDINAL_ENV_BACKEND=python`` while it deals: the reference engine, not the core twice), byte
# for byte, in 3-5 players, discard one and any, on the packaged, the small and an odd board
# (tests/test_core_koenig.py's), both reward schemes; seeds; bad actions give the python backend's
# errors; the bindings refuse bad input and, fuzzed in a subprocess, never crash.


def _koenig_variants() -> list[tuple[str, KoenigRules]]:
    out = []
    for name, board in (("default", None), ("small", small_board()), ("odd", ODD_BOARD)):
        for players in (3, 4, 5):
            for discard in ("one", "any"):
                out.append((f"{name}-{players}-{discard}", KoenigRules(players=players, discard=discard, board=board)))
    return out


KOENIG_VARIANTS = _koenig_variants()


def _koenig_pair(
    monkeypatch, rules: KoenigRules, n: int, reward: str = "win_loss", threads: int = 0, seed=None, score_shaping=0.0
):
    """The core env, then the python backend on the pure Python engine (the variable stays set for the
    test: every game it deals later is the reference engine's)."""
    options = {"reward": reward, "seed": seed, "score_shaping": score_shaping}
    cc = VectorEnv("kardinal_koenig", n, rules=rules, backend="core", threads=threads, **options)
    monkeypatch.setenv("KARDINAL_ENV_BACKEND", "python")
    py = VectorEnv("kardinal_koenig", n, rules=rules, backend="python", **options)
    return py, cc


def _koenig_run(py: VectorEnv, cc: VectorEnv, steps: int, rng: np.random.Generator, where: str) -> int:
    ended = 0
    for step in range(steps):
        actions = py.random_actions(rng)
        py.step(actions)
        cc.step(actions)
        _same(py, cc, f"{where} step {step}")
        ended += int(py.terminated.sum())
    return ended


@pytest.mark.parametrize("name, rules", KOENIG_VARIANTS, ids=[name for name, _ in KOENIG_VARIANTS])
def test_koenig_core_lockstep_with_python_backend(core, monkeypatch, name, rules):
    k = [n for n, _ in KOENIG_VARIANTS].index(name)  # both reward schemes, with and without score shaping
    py, cc = _koenig_pair(
        monkeypatch, rules, 4, "margin" if k % 2 else "win_loss", score_shaping=0.05 if k % 3 else 0.0
    )
    seed = len(name) * 7
    py.reset(seed=seed)
    cc.reset(seed=seed)
    _same(py, cc, f"{name} reset")
    ended = _koenig_run(py, cc, 400, np.random.default_rng(seed), name)
    assert ended >= 4, "every slot should end a game (raise steps)"
    for i in range(py.num_envs):  # the core's game, rebuilt in Python, is the python backend's game
        assert cc.game(i).to_record() == py.game(i).to_record()
        assert cc.game(i).snapshot() == py.game(i).snapshot()


def test_koenig_core_many_endings(core, monkeypatch):
    """Many auto-resets on the small board (short games): final observations and infos every time."""
    rules = KoenigRules(players=3, board=small_board())
    py, cc = _koenig_pair(monkeypatch, rules, 8, "margin", score_shaping=0.1)
    py.reset(seed=[11, 12, 13, 14, 15, 16, 17, 2**64 + 5])
    cc.reset(seed=[11, 12, 13, 14, 15, 16, 17, 2**64 + 5])
    assert _koenig_run(py, cc, 500, np.random.default_rng(1), "small") >= 40


def test_koenig_core_seeds_follow_the_slot_generators(core, monkeypatch):
    """An int seed, reset() without a seed going on (the drawn-ahead seeds are used, not skipped),
    reseeding with an int and a list, the constructor's seed: every deal is the python backend's."""
    rules = KoenigRules(players=4)
    py, cc = _koenig_pair(monkeypatch, rules, 4, seed=21)
    rng = np.random.default_rng(2)
    py.reset()
    cc.reset()
    _same(py, cc, "constructor seed")
    _koenig_run(py, cc, 120, rng, "first")
    for seed in (None, None, 5, None, [9, 8, 7, 6], None):
        py.reset(seed=seed)
        cc.reset(seed=seed)
        _same(py, cc, f"reset(seed={seed})")
        _koenig_run(py, cc, 90, rng, f"after reset(seed={seed})")
    monkeypatch.delenv("KARDINAL_ENV_BACKEND")
    solo = VectorEnv("kardinal_koenig", 1, rules=rules, backend="core")
    solo.reset(seed=5 + 2)
    cc.reset(seed=5)
    assert solo.observation[0].tobytes() == cc.observation[2].tobytes()
    assert solo.game(0).to_record() == cc.game(2).to_record()


# ---------------------------------------------------------------- bad input


def _koenig_stepped(backend: str) -> VectorEnv:
    return stepped_vector_env("kardinal_koenig", backend, 4, 7)


def _koenig_state(env: VectorEnv) -> list:
    return [getattr(env, name).tobytes() for name in ARRAYS] + [env.game(i).to_record() for i in range(env.num_envs)]


def _koenig_error(env: VectorEnv, actions) -> tuple:
    with pytest.raises(Exception) as info:
        env.step(actions)
    exc = info.value
    return type(exc), str(exc), getattr(exc, "rule", None), getattr(exc, "index", None), getattr(exc, "move", None)


def test_koenig_bad_actions_give_the_python_backends_errors(core):
    py, cc = _koenig_stepped("python"), _koenig_stepped("core")
    assert _koenig_state(py) == _koenig_state(cc)
    before = _koenig_state(cc)
    good = py.random_actions(np.random.default_rng(0))
    bads: list = [good.astype(np.float64), good.astype(bool), [1.0, 2.0, 3.0], None, "012", np.array(["1", "2", "3"])]
    bads += [good[:2], np.concatenate([good, good]), good.reshape(3, 1), np.int64(5), good.reshape(1, 3)]
    for index, value in ((0, -1), (2, py.num_actions), (1, 2**40)):
        bad = good.copy()
        bad[index] = value
        bads.append(bad)
    huge = good.astype(np.uint64)
    huge[1] = 2**64 - 1
    bads.append(huge)
    for index in range(3):  # an in-range id that is not legal: the engine's error naming the rule
        legal = set(py.legal_actions(index).tolist())
        for action in [a for a in range(py.num_actions) if a not in legal][::97]:
            bad = good.copy()
            bad[index] = action
            bads.append(bad)
    for k, bad in enumerate(bads):
        expected = _koenig_error(py, bad)
        assert _koenig_error(cc, bad) == expected, f"bad action set {k}: {bad!r}"
        if expected[0] is IllegalActionError:
            assert expected[2] and expected[3] is not None
    assert _koenig_state(cc) == before == _koenig_state(py)
    cc.step(good)  # and the batch goes on
    py.step(good)
    assert _koenig_state(py) == _koenig_state(cc)


def test_koenig_batch_binding_refuses_bad_input(core):
    from kardinal_env.koenig import compiled

    board = compiled.core_board(KoenigRules(players=3).compiled)
    batch = core.KoenigBatch(board, 3, "one", 2)
    _refuses_bad_steps(batch)
    assert batch.step(np.array([batch.legal_action_ids(0)[0], 10**6], dtype=np.int64)) == 1
    assert batch.game(0).move_count == 0 and batch.history_ids(0) == []
    for call in (batch.legal_action_ids, batch.history_ids, batch.seed, batch.game):
        with pytest.raises(IndexError, match="game index"):
            call(2)
    for args, error in [
        ((None, 3, "one", 2), TypeError),
        ((board, 2, "one", 2), ValueError),
        ((board, 3, "some", 2), ValueError),
        ((board, 3, "one", 0), ValueError),
        ((board, 3, "one", 2, "score"), ValueError),
        (("board", 3, "one", 2), TypeError),
    ]:
        with pytest.raises(error):
            core.KoenigBatch(*args)
    batch.next_seed[:] = [7, 2**64 - 1]
    batch.reset()
    assert batch.seed(1) == 2**64 - 1
    assert batch.game(0).initial_deck == compiled.core_game(KoenigRules(players=3), 7).initial_deck
    view = batch.observation
    del batch  # the arrays keep the batch alive
    assert view.shape == (2, 494) and view.dtype == np.float32 and view.any()


_FUZZ = textwrap.dedent(
    """
    import random, sys
    import numpy as np
    import kardinal_core
    from kardinal_env.koenig import Rules, compiled

    rng = random.Random(int(sys.argv[1]))
    board = compiled.core_board(Rules(players=4).compiled, kardinal_core)
    batches = [kardinal_core.KoenigBatch(board, p, d, n) for p, d, n in ((3, "one", 3), (4, "any", 1), (5, "one", 4))]
    pool = [None, -1, 0, 1, 389, 390, 2**31, 2**63 - 1, -2**63, 1.5, "3", b"x", [], (1,), True, float("nan"), object()]
    dtypes = [np.int64, np.int32, np.uint64, np.float64, np.bool_, np.int8, object]
    calls = refused = 0
    for _ in range(int(sys.argv[2])):
        b = rng.choice(batches)
        n = b.num_envs
        kind = rng.random()
        x = rng.choice(pool) if rng.random() < 0.5 else rng.randrange(-5, 400)
        calls += 1
        try:
            if kind < 0.5:
                ids, offsets = b.all_legal_action_ids()
                a = np.array([ids[rng.randrange(offsets[i], offsets[i + 1])] for i in range(n)], dtype=np.int64)
                if rng.random() < 0.5:
                    a[rng.randrange(n)] = rng.choice([-1, 390, 2**62, -2**63, rng.randrange(390)])
                shape = rng.choice([(n,), (n,), (n + 1,), (n, 1), ()])
                if shape != (n,):
                    a = np.resize(a, shape)
                if rng.random() < 0.2:
                    a = a.astype(rng.choice(dtypes))
                if rng.random() < 0.1 and a.ndim == 1 and a.size > 1:
                    a = np.repeat(a, 2)[::2]  # not C-contiguous... or a copy
                r = b.step(a if rng.random() < 0.9 else x, rng.choice([0, 0, 1, 2, 3, -1, 2000]))
                assert -1 <= r < n
            elif kind < 0.6:
                b.reset(rng.choice([0, 2, -3]))
            elif kind < 0.8:
                getattr(b, rng.choice(["legal_action_ids", "history_ids", "seed", "game"]))(x)
            elif kind < 0.9:
                b.next_seed[rng.randrange(n)] = rng.getrandbits(64)
            else:
                kardinal_core.KoenigBatch(rng.choice([board, x]), rng.choice([3, 4, 5, x]), rng.choice(["one", x]),
                                          rng.choice([1, 2, x]), rng.choice(["win_loss", "margin", x]))
        except (TypeError, ValueError, IndexError, OverflowError):
            refused += 1
    print(calls, refused)
    """
)


def test_koenig_fuzz_the_batch_bindings_never_crash(core):
    """Random actions arrays (ids out of range, wrong dtypes and shapes), threads, indices and
    constructor arguments: every call works or raises; in a subprocess so a crash fails the test."""
    result = subprocess.run([sys.executable, "-c", _FUZZ, "3", "4000"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    calls, refused = map(int, result.stdout.split())
    assert calls == 4000 and 0 < refused < calls


@pytest.mark.parametrize("game", ["kardinal", "kardinal_koenig"])
def test_a_second_thread_is_refused_while_a_batch_steps(core, game):
    """step() runs without the GIL; a call from another Python thread meanwhile (here a read of the
    legal ids) raises RuntimeError ("another thread is stepping or resetting this batch") instead of
    racing, and the stepping thread's calls all go through."""
    import threading

    env = VectorEnv(game, 512, 4, seed=0)  # a long step: hundreds of games per call
    env.reset()
    batch = env._impl.batch
    stop = threading.Event()
    errors: list[BaseException] = []
    steps = [0]

    def stepper() -> None:
        rng = np.random.default_rng(1)
        try:
            while not stop.is_set() and steps[0] < 200:
                env.step(env.random_actions(rng))
                steps[0] += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=stepper)
    thread.start()
    refused = 0
    try:
        while thread.is_alive() and refused < 3:
            try:
                batch.legal_action_ids(0)
            except RuntimeError as exc:
                assert "another thread is stepping or resetting this batch" in str(exc)
                refused += 1
    finally:
        stop.set()
        thread.join()
    assert not errors, errors
    assert refused == 3 and steps[0] >= 1
    env.step(env.random_actions(np.random.default_rng(2)))  # free again once the stepper is done

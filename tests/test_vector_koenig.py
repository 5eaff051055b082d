"""kardinal_env.vector's core backend for Kardinal & König (``kardinal_core.KoenigBatch``,
cpp/src/koenig/batch.hpp) against the python backend, the reference.

* Lockstep, byte for byte (observation, mask, seat, rewards, terminated, final observation, final
  info, legal ids), over seeded random actions for 3, 4 and 5 players, ``discard`` one and any, on the
  packaged board, the small test board and an odd board (tests/test_core_koenig.py's), both reward
  schemes; the python backend steps the pure Python engine (``KARDINAL_ENV_BACKEND=python`` while it
  deals), so the comparison is against the reference engine, not the core twice. ``game(i)`` replays
  to the python backend's game (same record).
* Seeds: an int, a list, ``reset()`` without a seed going on, reseeding: the same deals in both.
* ``threads`` gives the same bytes as no threads.
* Bad actions (wrong dtype or shape, ids out of range, illegal moves): the python backend's errors,
  every game unchanged. The bindings fuzzed with bad input in a subprocess (a crash fails the test).

Skipped without the core (``core`` fixture, tests/conftest.py) unless ``KARDINAL_REQUIRE_CORE=1``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import step_in_lockstep, stepped_vector_env
from koenig_helpers import small_board
from test_core_koenig import ODD_BOARD

from kardinal_env.koenig import Rules
from kardinal_env.vector import IllegalActionError, VectorEnv

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane

ARRAYS = ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated", "final_observation")


def _variants() -> list[tuple[str, Rules]]:
    out = []
    for name, board in (("default", None), ("small", small_board()), ("odd", ODD_BOARD)):
        for players in (3, 4, 5):
            for discard in ("one", "any"):
                out.append((f"{name}-{players}-{discard}", Rules(players=players, discard=discard, board=board)))
    return out


VARIANTS = _variants()


def _same(a: VectorEnv, b: VectorEnv, where: str) -> None:
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: {name} dtype/shape"
        assert x.tobytes() == y.tobytes(), f"{where}: {name} differs"
    assert a.final_info == b.final_info, f"{where}: final_info"
    assert all(x.tolist() == y.tolist() for x, y in zip(a.legal_actions(), b.legal_actions(), strict=True)), where


def _pair(monkeypatch, rules: Rules, n: int, reward: str = "win_loss", threads: int = 0, seed=None, score_shaping=0.0):
    """The core env, then the python backend on the pure Python engine (the variable stays set for the
    test: every game it deals later is the reference engine's)."""
    options = {"reward": reward, "seed": seed, "score_shaping": score_shaping}
    cc = VectorEnv("kardinal_koenig", n, rules=rules, backend="core", threads=threads, **options)
    monkeypatch.setenv("KARDINAL_ENV_BACKEND", "python")
    py = VectorEnv("kardinal_koenig", n, rules=rules, backend="python", **options)
    return py, cc


def _run(py: VectorEnv, cc: VectorEnv, steps: int, rng: np.random.Generator, where: str) -> int:
    ended = 0
    for step in range(steps):
        actions = py.random_actions(rng)
        py.step(actions)
        cc.step(actions)
        _same(py, cc, f"{where} step {step}")
        ended += int(py.terminated.sum())
    return ended


@pytest.mark.parametrize("name, rules", VARIANTS, ids=[name for name, _ in VARIANTS])
def test_core_lockstep_with_python_backend(core, monkeypatch, name, rules):
    k = [n for n, _ in VARIANTS].index(name)  # both reward schemes, with and without score shaping
    py, cc = _pair(monkeypatch, rules, 4, "margin" if k % 2 else "win_loss", score_shaping=0.05 if k % 3 else 0.0)
    seed = len(name) * 7
    py.reset(seed=seed)
    cc.reset(seed=seed)
    _same(py, cc, f"{name} reset")
    ended = _run(py, cc, 400, np.random.default_rng(seed), name)
    assert ended >= 4, "every slot should end a game (raise steps)"
    for i in range(py.num_envs):  # the core's game, rebuilt in Python, is the python backend's game
        assert cc.game(i).to_record() == py.game(i).to_record()
        assert cc.game(i).snapshot() == py.game(i).snapshot()


def test_core_many_endings(core, monkeypatch):
    """Many auto-resets on the small board (short games): final observations and infos every time."""
    rules = Rules(players=3, board=small_board())
    py, cc = _pair(monkeypatch, rules, 8, "margin", score_shaping=0.1)
    py.reset(seed=[11, 12, 13, 14, 15, 16, 17, 2**64 + 5])
    cc.reset(seed=[11, 12, 13, 14, 15, 16, 17, 2**64 + 5])
    assert _run(py, cc, 500, np.random.default_rng(1), "small") >= 40


def test_core_seeds_follow_the_slot_generators(core, monkeypatch):
    """An int seed, reset() without a seed going on (the drawn-ahead seeds are used, not skipped),
    reseeding with an int and a list, the constructor's seed: every deal is the python backend's."""
    rules = Rules(players=4)
    py, cc = _pair(monkeypatch, rules, 4, seed=21)
    rng = np.random.default_rng(2)
    py.reset()
    cc.reset()
    _same(py, cc, "constructor seed")
    _run(py, cc, 120, rng, "first")
    for seed in (None, None, 5, None, [9, 8, 7, 6], None):
        py.reset(seed=seed)
        cc.reset(seed=seed)
        _same(py, cc, f"reset(seed={seed})")
        _run(py, cc, 90, rng, f"after reset(seed={seed})")
    monkeypatch.delenv("KARDINAL_ENV_BACKEND")
    solo = VectorEnv("kardinal_koenig", 1, rules=rules, backend="core")
    solo.reset(seed=5 + 2)
    cc.reset(seed=5)
    assert solo.observation[0].tobytes() == cc.observation[2].tobytes()
    assert solo.game(0).to_record() == cc.game(2).to_record()


def test_core_threads_give_the_same_bytes(core):
    rules = Rules(players=5, discard="any")
    envs = [VectorEnv("kardinal_koenig", 7, rules=rules, backend="core", threads=t, seed=3) for t in (0, 1, 2, 3, 64)]
    step_in_lockstep(envs, 300, 5, _same)


def test_auto_backend(core, monkeypatch):
    assert VectorEnv("kardinal_koenig", 2).backend == "core"
    assert VectorEnv("kardinal_koenig", 2, backend="python").backend == "python"
    with pytest.raises(ValueError, match="chips_held"):
        VectorEnv("kardinal_koenig", 2, backend="core", chip_shaping=0.5)
    monkeypatch.setenv("KARDINAL_ENV_BACKEND", "python")
    assert VectorEnv("kardinal_koenig", 2).backend == "python"
    with pytest.raises(RuntimeError, match="KARDINAL_ENV_BACKEND=python"):
        VectorEnv("kardinal_koenig", 2, backend="core")


# ---------------------------------------------------------------- bad input


def _stepped(backend: str) -> VectorEnv:
    return stepped_vector_env("kardinal_koenig", backend, 4, 7)


def _state(env: VectorEnv) -> list:
    return [getattr(env, name).tobytes() for name in ARRAYS] + [env.game(i).to_record() for i in range(env.num_envs)]


def _error(env: VectorEnv, actions) -> tuple:
    with pytest.raises(Exception) as info:
        env.step(actions)
    exc = info.value
    return type(exc), str(exc), getattr(exc, "rule", None), getattr(exc, "index", None), getattr(exc, "move", None)


def test_bad_actions_give_the_python_backends_errors(core):
    py, cc = _stepped("python"), _stepped("core")
    assert _state(py) == _state(cc)
    before = _state(cc)
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
        expected = _error(py, bad)
        assert _error(cc, bad) == expected, f"bad action set {k}: {bad!r}"
        if expected[0] is IllegalActionError:
            assert expected[2] and expected[3] is not None
    assert _state(cc) == before == _state(py)
    cc.step(good)  # and the batch goes on
    py.step(good)
    assert _state(py) == _state(cc)


def test_batch_binding_refuses_bad_input(core):
    from kardinal_env.koenig import compiled

    board = compiled.core_board(Rules(players=3).compiled)
    batch = core.KoenigBatch(board, 3, "one", 2)
    with pytest.raises(TypeError, match="int64"):
        batch.step(np.zeros(2, dtype=np.int32))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        batch.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="threads"):
        batch.step(np.zeros(2, dtype=np.int64), -1)
    assert batch.step(np.array([-5, 2**62], dtype=np.int64)) == 0  # not legal: nothing moved
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
    assert batch.game(0).initial_deck == compiled.core_game(Rules(players=3), 7).initial_deck
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


def test_fuzz_the_batch_bindings_never_crash(core):
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

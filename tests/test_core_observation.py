"""The compiled core's observation encoder and action mask builder (cpp/src/kardinal/observation.hpp, bound as
``KardinalGame.encode_into`` / ``action_mask_into`` / ``legal_action_ids``) in lockstep with the
Python :class:`~kardinal_env.kardinal.observation.ObservationEncoder` and
:class:`~kardinal_env.kardinal.actions.ActionCodec`.

Seeded random games over the rule variants of tests/test_core_kardinal.py (2-4 players, both presets,
the shared pool, options set against the preset, window variants 3-53): at every position, for every
observer, the observation bytes are equal (the lossless default window and the window passed
explicitly; a following encoder and a fresh one), the masks are equal for the deciding seat and every
other seat, the legal action ids are equal and in the same order. The buffers are written in place;
windows the Python encoder refuses are refused with the same message; wrong dtypes, shapes,
non-contiguous or read-only buffers and observers or seats out of range raise TypeError/ValueError; a
fuzz of random buffers in a subprocess never crashes the interpreter. The default run checks about
2,400 positions (about a second); ``-m slow`` about 70,000 more.

Skipped without the core unless ``KARDINAL_REQUIRE_CORE=1`` (scripts/test.sh), as
tests/test_core_kardinal.py.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from helpers import kardinal_core_or_skip
from test_core_kardinal import VARIANTS

from kardinal_env.kardinal import Game, Rules, compiled
from kardinal_env.kardinal.actions import ActionCodec, frame_window
from kardinal_env.kardinal.observation import NUM_CHANNELS, ObservationEncoder


@pytest.fixture
def core():
    return kardinal_core_or_skip()


def _windows(rules: Rules) -> list[int | None]:
    """The windows an encoder of ``rules`` may be built with: the default (None) and the same window
    given explicitly (the Python encoder refuses every other one)."""
    return [None, frame_window(rules)]


class _Lockstep:
    """One seeded random game on both engines, with the Python encoder/codec and the core's buffers."""

    def __init__(self, module, rules: Rules, window: int | None):
        self.rules = rules
        self.py = Game.reference(rules)
        self.cc = compiled.game_of_module(module, rules)
        self.encoder = ObservationEncoder(rules, window)
        self.codec = ActionCodec(rules, window)
        w = self.encoder.window
        self.obs = np.full((NUM_CHANNELS, w, w), 0xAB, dtype=np.uint8)  # garbage: every byte must be written
        self.mask = np.ones(self.codec.num_actions, dtype=bool)

    def check(self, fresh: bool) -> None:
        py, cc, rules = self.py, self.cc, self.rules
        where = f"{rules} move {py.move_count}"
        for observer in range(rules.players):
            assert cc.encode_into(observer, self.obs) is None
            expected = self.encoder.encode(py, observer)
            assert self.obs.tobytes() == expected.tobytes(), f"{where} observer {observer}: observation differs"
            if fresh:  # an encoder that has never seen this game (its rebuild path)
                other = ObservationEncoder(rules, self.encoder.window).encode(py.clone(), observer)
                assert self.obs.tobytes() == other.tobytes()
        ids = cc.legal_action_ids(self.encoder.window)
        assert ids.dtype == np.int64
        assert ids.tolist() == self.codec.legal_actions(py).tolist(), f"{where}: legal action ids differ"
        for seat in [None, *range(rules.players)]:
            assert cc.action_mask_into(self.mask, seat) is None
            expected_mask = self.codec.action_mask(py, seat)
            assert self.mask.view(np.int8).tobytes() == expected_mask.tobytes(), f"{where} seat {seat}: mask differs"

    def play(self, rng: random.Random) -> None:
        code = rng.choice(self.py.legal_move_codes())
        self.py.play_code(code)
        self.cc.play_code(code)


def _run(module, games: int, seed0: int) -> int:
    """Play ``games`` games over the variants (each with its default window or the window given
    explicitly, alternately), checking every position; the number of positions checked."""
    positions = 0
    for i in range(games):
        rules = VARIANTS[i % len(VARIANTS)]
        rng = random.Random(seed0 + i)
        step = _Lockstep(module, rules, _windows(rules)[(i // len(VARIANTS)) % 2])
        while True:
            step.check(fresh=rng.random() < 0.05)
            positions += 1
            if step.py.is_over:
                break
            step.play(rng)
        assert step.cc.is_over and step.cc.legal_action_ids().size == 0
        assert not step.mask.any()  # every seat's mask is empty once the game is over
    return positions


def test_lockstep_observations_masks_and_ids(core):
    positions = _run(core, 2 * len(VARIANTS), 0)
    assert positions >= 1000


@pytest.mark.slow
def test_lockstep_thousands_of_positions(core):
    assert _run(core, 60 * len(VARIANTS), 10_000) >= 50_000


def test_variants_cover_the_rule_options():
    assert {r.players for r in VARIANTS} == {2, 3, 4}
    assert any(r.shared_pool for r in VARIANTS) and any(r.window is not None for r in VARIANTS)
    assert {r.exhausted_colour for r in VARIANTS} == {"none", "substitute"}
    neutral = [r for r in VARIANTS if r.has_neutral]
    assert {r.neutral_build_chips for r in neutral} == {"put_aside", "keep"}
    assert {r.neutral_touch_chips for r in neutral} == {"score", "none"}


def test_python_game_helpers_match(core):
    """A Python Game replayed into the core (compiled.core_position) and a core game write the Python
    encoder's and codec's output into compiled.observation_buffer / mask_buffer."""
    rng = random.Random(5)
    for rules in (Rules(players=3, preset="german"), Rules(players=4, shared_pool=True, window=9)):
        game = Game.reference(rules)
        cc = compiled.game_of_module(core, rules)
        encoder, codec = ObservationEncoder(rules), ActionCodec(rules)
        obs, mask = compiled.observation_buffer(rules), compiled.mask_buffer(rules, dtype=np.int8)
        assert obs.shape == encoder.shape and mask.shape == (codec.num_actions,)
        for _ in range(30):
            for target in (compiled.core_position(game, core), cc):
                target.encode_into(1, obs)
                assert np.array_equal(obs, encoder.encode(game, 1))
                target.action_mask_into(mask)
                assert np.array_equal(mask, codec.action_mask(game))
                assert np.array_equal(target.legal_action_ids(), codec.legal_actions(game))
            code = rng.choice(game.legal_move_codes())
            game.play_code(code)
            cc.play_code(code)
    with pytest.raises(TypeError, match="game must be a kardinal_env.kardinal.Game"):
        compiled.core_position("game", core)


# ---------------------------------------------------------------- in place


def test_buffers_are_written_in_place(core):
    rules = Rules(players=4)
    py, game = Game.reference(rules), compiled.game_of_module(core, rules)
    for _ in range(7):
        code = py.legal_move_codes()[0]
        py.play_code(code)
        game.play_code(code)
    encoder, codec = ObservationEncoder(rules), ActionCodec(rules)
    # a slice of a batch: the core writes through the view into the batch, and nowhere else
    batch = np.full((3, NUM_CHANNELS, 53, 53), 7, dtype=np.uint8)
    address = batch.ctypes.data
    assert game.encode_into(2, batch[1]) is None
    assert batch.ctypes.data == address
    assert np.array_equal(batch[1], encoder.encode(py, 2))
    assert (batch[0] == 7).all() and (batch[2] == 7).all()
    masks = np.ones((2, codec.num_actions), dtype=bool)
    assert game.action_mask_into(masks[0]) is None
    assert np.array_equal(masks[0], codec.action_mask(py).astype(bool)) and masks[1].all()
    # int8 masks (the codec's dtype) too
    as_int8 = np.full(codec.num_actions, 5, dtype=np.int8)
    game.action_mask_into(as_int8, game.current_player)
    assert np.array_equal(as_int8, codec.action_mask(py))


def test_gil_is_released_and_threads_agree(core):
    """Several threads encode their own games at once (the GIL is released while writing)."""
    rules = Rules(players=2)
    results: dict[int, bool] = {}

    def work(index: int) -> None:
        game = compiled.game_of_module(core, rules)
        for _ in range(index * 3):
            game.play_index(0)
        out = np.empty((NUM_CHANNELS, 53, 53), dtype=np.uint8)
        first = None
        ok = True
        for _ in range(200):
            game.encode_into(index % 2, out)
            if first is None:
                first = out.copy()
            ok &= np.array_equal(out, first)
        results[index] = ok

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {0: True, 1: True, 2: True, 3: True}


# ---------------------------------------------------------------- windows


@pytest.mark.parametrize("rules", [Rules(players=2), Rules(players=3, window=7), Rules(players=4, window=53)], ids=repr)
def test_windows_the_python_encoder_refuses_are_refused(core, rules):
    game = compiled.game_of_module(core, rules)
    frame = frame_window(rules)
    for w in (1, 2, 3, 5, 9, 51, 52, 55):
        if w == frame:
            continue
        with pytest.raises(ValueError) as python_error:
            ObservationEncoder(rules, w)
        message = str(python_error.value)
        out = np.full((NUM_CHANNELS, w, w), 9, dtype=np.uint8)
        with pytest.raises(ValueError) as core_error:
            game.encode_into(0, out)
        assert str(core_error.value) == message
        assert (out == 9).all()  # nothing written
        with pytest.raises(ValueError, match="window"):
            game.action_mask_into(np.zeros(17 * w * w + 5, dtype=bool))
        with pytest.raises(ValueError) as ids_error:
            game.legal_action_ids(w)
        assert str(ids_error.value) == message
    assert game.frame_window == frame
    assert game.legal_action_ids().tolist() == game.legal_action_ids(frame).tolist()


# ---------------------------------------------------------------- bad input


def _read_only() -> np.ndarray:
    out = np.zeros((NUM_CHANNELS, 53, 53), dtype=np.uint8)
    out.flags.writeable = False
    return out


BAD_OBSERVATION_BUFFERS = [
    (None, TypeError, "got NoneType"),
    ([0] * 10, TypeError, "got list"),
    ("buffer", TypeError, "got str"),
    (np.zeros((NUM_CHANNELS, 53, 53), dtype=np.float32), TypeError, "dtype uint8, got float32"),
    (np.zeros((NUM_CHANNELS, 53, 53), dtype=np.int8), TypeError, "dtype uint8, got int8"),
    (np.zeros((NUM_CHANNELS, 53, 53), dtype=bool), TypeError, "dtype uint8, got bool"),
    (np.zeros((NUM_CHANNELS, 53, 53), dtype=np.int64), TypeError, "dtype uint8, got int64"),
    (np.zeros((NUM_CHANNELS, 53 * 53), dtype=np.uint8), ValueError, r"shape \(72, W, W\), got \(72, 2809\)"),
    (np.zeros((71, 53, 53), dtype=np.uint8), ValueError, r"got \(71, 53, 53\)"),
    (np.zeros((NUM_CHANNELS, 53, 51), dtype=np.uint8), ValueError, r"got \(72, 53, 51\)"),
    (np.zeros((1, NUM_CHANNELS, 53, 53), dtype=np.uint8), ValueError, "shape"),
    (np.uint8(3), ValueError, r"got \(\)"),
    (bytearray(NUM_CHANNELS * 53 * 53), ValueError, "shape"),
    (np.zeros((NUM_CHANNELS, 53, 53), dtype=np.uint8, order="F"), ValueError, "C-contiguous"),
    (np.zeros((NUM_CHANNELS, 53, 106), dtype=np.uint8)[:, :, ::2], ValueError, "C-contiguous"),
    (np.zeros((NUM_CHANNELS, 53, 53), dtype=np.uint8).transpose(0, 2, 1), ValueError, "C-contiguous"),
    (np.broadcast_to(np.zeros(1, dtype=np.uint8), (NUM_CHANNELS, 53, 53)), ValueError, "C-contiguous"),
    (_read_only(), ValueError, "read-only"),
    (np.zeros((NUM_CHANNELS, 52, 52), dtype=np.uint8), ValueError, "odd integer"),
    (np.zeros((NUM_CHANNELS, 51, 51), dtype=np.uint8), ValueError, "would lose squares"),
]


@pytest.mark.parametrize("out, error, message", BAD_OBSERVATION_BUFFERS, ids=lambda v: type(v).__name__)
def test_bad_observation_buffers_raise(core, out, error, message):
    game = compiled.game_of_module(core, Rules(players=3))
    with pytest.raises(error, match=message):
        game.encode_into(0, out)


def _mask_read_only() -> np.ndarray:
    out = np.zeros(17 * 53 * 53 + 5, dtype=bool)
    out.flags.writeable = False
    return out


N53 = 17 * 53 * 53 + 5
BAD_MASK_BUFFERS = [
    (None, TypeError, "got NoneType"),
    ((0,) * N53, TypeError, "got tuple"),
    (np.zeros(N53, dtype=np.uint8), TypeError, r"dtype bool \(or int8\), got uint8"),
    (np.zeros(N53, dtype=np.float64), TypeError, "got float64"),
    (np.zeros(N53, dtype=np.int64), TypeError, "got int64"),
    (np.zeros((1, N53), dtype=bool), ValueError, r"shape \(17\*W\*W \+ 5,\), got \(1, 47758\)"),
    (np.zeros(N53 - 1, dtype=bool), ValueError, "got length 47757"),
    (np.zeros(0, dtype=bool), ValueError, "got length 0"),
    (np.zeros(17 * 51 * 51 + 5, dtype=bool), ValueError, "would lose squares"),
    (np.zeros(17 * 4 * 4 + 5, dtype=bool), ValueError, "odd integer"),
    (np.zeros(2 * N53, dtype=bool)[::2], ValueError, "C-contiguous"),
    (_mask_read_only(), ValueError, "read-only"),
]


@pytest.mark.parametrize("out, error, message", BAD_MASK_BUFFERS, ids=lambda v: type(v).__name__)
def test_bad_mask_buffers_raise(core, out, error, message):
    game = compiled.game_of_module(core, Rules(players=3))
    with pytest.raises(error, match=message):
        game.action_mask_into(out)


def test_observers_and_seats_out_of_range_raise(core):
    game = compiled.game_of_module(core, Rules(players=3))
    out = np.zeros((NUM_CHANNELS, 53, 53), dtype=np.uint8)
    mask = np.zeros(N53, dtype=bool)
    for bad in (-1, 3, 4, 2**40):
        with pytest.raises(ValueError, match=f"observer {bad} is out of range: a 3-player game has seats 0..2"):
            game.encode_into(bad, out)
        with pytest.raises(ValueError, match=f"seat {bad} is out of range"):
            game.action_mask_into(mask, bad)
    for bad in ("0", 1.0, None, 2**70):
        with pytest.raises(TypeError):
            game.encode_into(bad, out)
    for bad in ("0", 1.5):
        with pytest.raises(TypeError):
            game.action_mask_into(mask, bad)
    for bad in ("53", 53.0, 2**70):
        with pytest.raises(TypeError):
            game.legal_action_ids(bad)
    assert not out.any() and not mask.any()  # nothing written


def test_a_finished_game_encodes_as_in_python(core):
    """The Python encoder and codec do not raise once the game is over: the observation shows the
    final position, every mask is empty and there are no legal ids; the core does the same."""
    rules = Rules(players=3, preset="german")
    py, cc = Game.reference(rules), compiled.game_of_module(core, rules)
    while not py.is_over:
        code = py.legal_move_codes()[-1]
        py.play_code(code)
        cc.play_code(code)
    out = np.zeros((NUM_CHANNELS, 53, 53), dtype=np.uint8)
    mask = np.ones(N53, dtype=bool)
    encoder = ObservationEncoder(rules)
    for observer in range(3):
        cc.encode_into(observer, out)
        assert np.array_equal(out, encoder.encode(py, observer))
        cc.action_mask_into(mask, observer)
        assert not mask.any()
    assert cc.legal_action_ids().size == 0 and ActionCodec(rules).legal_actions(py).size == 0


# ---------------------------------------------------------------- fuzz

_FUZZ = textwrap.dedent(
    """
    import random, sys
    import numpy as np
    import kardinal_core

    rng = random.Random(int(sys.argv[1]))
    games = [kardinal_core.KardinalGame(p, window=w) for p, w in ((2, None), (3, 7), (4, None), (3, 3))]
    for g in games:
        for _ in range(rng.randrange(30)):
            if not g.is_over:
                g.play_index(rng.randrange(g.num_legal_moves()))
    dtypes = [np.uint8, np.int8, np.bool_, np.uint16, np.float32, np.float64, np.int64, np.complex64, object]
    sides = [0, 1, 3, 5, 7, 52, 53, 54]
    calls = accepted = 0
    for _ in range(int(sys.argv[2])):
        g = rng.choice(games)
        kind = rng.random()
        if kind < 0.45:
            shape = rng.choice([(72, s, s) for s in sides] + [(72, 7, 5), (71, 7, 7), (72, 7), (7,), (), (2, 72, 7, 7)])
        else:
            length = rng.choice([17 * s * s + 5 for s in sides] + [0, 1, 6, 22, 47757])
            shape = rng.choice([(length,), (1, length), (length, 1)])
        dtype = rng.choice(dtypes)
        try:
            out = np.zeros(shape, dtype=dtype)
        except (MemoryError, ValueError):
            continue
        if out.ndim and rng.random() < 0.2:
            out = np.asfortranarray(out) if rng.random() < 0.5 else out[..., ::-1]
        if rng.random() < 0.15:
            out.flags.writeable = False
        if rng.random() < 0.05:
            out = rng.choice([None, 3, "x", b"abc", bytearray(5), [1, 2], memoryview(bytearray(10))])
        seat = rng.choice([None, -1, 0, 1, 2, 3, 4, 1 << 40, "0", 1.0])
        calls += 1
        try:
            if kind < 0.45:
                g.encode_into(seat, out)
            elif kind < 0.9:
                g.action_mask_into(out, seat)
            else:
                g.legal_action_ids(rng.choice([None, -1, 0, 3, 7, 9, 53, 55, 1 << 40, "7"]))
            accepted += 1
        except (TypeError, ValueError):
            pass
    print(calls, accepted)
    """
)


def test_fuzz_random_buffers_never_crash(core):
    """Random shapes, dtypes, orders, read-only flags, non-arrays, observers and seats: every call
    either writes or raises TypeError/ValueError; run in a subprocess so a crash fails the test."""
    result = subprocess.run([sys.executable, "-c", _FUZZ, "7", "20000"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    calls, accepted = map(int, result.stdout.split())
    assert calls > 15_000 and 0 < accepted < calls

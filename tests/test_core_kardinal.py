"""The compiled core's Kardinal engine (``kardinal_core``, cpp/) in lockstep with the Python engine.

Seeded random games in every rules variant (2-4 players, both presets, the shared pool, options set
against the preset, several windows): at every decision the ordered legal move codes, the seat to act,
phase, chips held, supply, set-aside chips, projected scores, cathedral touches and ``is_over`` agree,
and at the end the scores, winners and finishing order. Plus bad input through the bindings (wrong
types, malformed tuples, out-of-range ints, illegal codes) raises a Python exception, never crashes.
The default run plays 1,000 games; ``-m slow`` plays 10,000 more.

Skipped (with the reason) when ``kardinal_core`` is not importable, unless ``KARDINAL_REQUIRE_CORE=1``
(scripts/test.sh sets it: the full lane builds the core): then they fail. The backend switch without
the core: tests/test_backend_switch.py.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import warnings

import pytest
from helpers import kardinal_core_or_skip, lockstep_games

from kardinal_env.kardinal import Game, Rules, compiled


@pytest.fixture
def core():
    return kardinal_core_or_skip()


def _variants() -> list[Rules]:
    out = []
    for players in (2, 3, 4):
        for preset in ("english", "german"):
            for shared in (False, True) if players > 2 else (False,):
                for window in (None, 7):
                    out.append(Rules(players=players, preset=preset, shared_pool=shared, window=window))
    # Options set against their preset, and more windows (3 is the smallest, 53 the lossless one).
    out.append(Rules(players=3, exhausted_colour="substitute", neutral_build_chips="keep"))
    out.append(Rules(players=3, preset="german", neutral_touch_chips="score", neutral_build_chips="put_aside"))
    out.append(Rules(players=3, preset="german", exhausted_colour="none", neutral_touch_chips="score"))
    out.append(Rules(players=4, exhausted_colour="substitute", window=5))
    out.append(Rules(players=2, preset="german", window=3))
    out.append(Rules(players=3, window=53))
    out.append(Rules(players=4, preset="german", shared_pool=True, window=9))
    return out


VARIANTS = _variants()


def _state(game) -> tuple:
    return (
        game.current_player,
        game.phase,
        game.is_over,
        game.move_count,
        game.pending_chips,
        game.chips(),
        game.supply(),
        game.set_aside(),
        game.edifices_left(),
        game.cathedral_touches(),
        game.projected_scores(),
        game.last_built,
        game.cardinal_key,
    )


def _lockstep(module, rules: Rules, seed: int) -> int:
    """Play one seeded random game on both engines, comparing at every decision; its length."""
    rng = random.Random(seed)
    py = Game.reference(rules)
    cc = compiled.game_of_module(module, rules)
    checked_clone = False
    while True:
        codes = py.legal_move_codes()
        assert cc.legal_move_codes() == codes, f"{rules} seed {seed}: legal codes differ at move {py.move_count}"
        assert cc.num_legal_moves() == len(codes)
        assert _state(cc) == _state(py), f"{rules} seed {seed}: state differs at move {py.move_count}"
        if py.is_over:
            break
        code = rng.choice(codes)
        if not checked_clone and py.move_count >= 10:  # a clone is independent of its original
            checked_clone = True
            twin = cc.clone()
            twin.play_code(code)
            assert cc.legal_move_codes() == codes and twin.move_count == cc.move_count + 1
        if rng.random() < 0.5:
            py.play_code(code)
            cc.play_code(code)
        else:
            py.play_code(code)
            cc.play_index(codes.index(code))
    assert cc.scores() == py.scores()
    assert cc.winners() == py.winners()
    assert cc.finishing_order() == py.finishing_order()
    assert cc.legal_move_codes() == [] and cc.current_player is None
    return py.move_count


def _run(module, games: int, seed0: int) -> None:
    lockstep_games(_lockstep, module, VARIANTS, games, seed0, min_length=0)


def test_lockstep_random_games_every_variant(core):
    _run(core, 1000, 0)


@pytest.mark.slow
def test_lockstep_thousands_of_random_games(core):
    _run(core, 10_000, 100_000)


def test_every_variant_is_covered():
    assert {
        (r.players, r.shared_pool, r.exhausted_colour, r.neutral_build_chips, r.neutral_touch_chips) for r in VARIANTS
    } >= {
        (p, s, e, b, t)
        for p in (2, 3, 4)
        for s in ((False, True) if p > 2 else (False,))
        for e, b, t in (("none", "put_aside", "score"), ("substitute", "keep", "none"))
    }


def test_random_playouts_summary(core):
    game = compiled.game_of_module(core, Rules(players=3))
    summary = core.kardinal_search.random_playouts(game, 50, 7)
    assert summary["games"] == 50 and summary["decisions"] > 50 * 10
    assert sum(summary["wins"]) >= 50 and len(summary["score_sum"]) == 3
    assert game.move_count == 0  # played on copies
    assert core.kardinal_search.random_playouts(game, 50, 7) == summary  # its own seeded generator
    assert core.kardinal_search.random_playouts(game, 0, 1)["games"] == 0
    with pytest.raises(ValueError):
        core.kardinal_search.random_playouts(game, -1, 0)


def test_before_the_end_scores_raise_like_the_python_engine(core):
    game = compiled.game_of_module(core, Rules(players=2))
    for method in ("scores", "winners", "finishing_order"):
        with pytest.raises(RuntimeError):
            getattr(game, method)()
    assert game.current_player == 0 and game.phase == "build" and game.last_built is None
    assert "KardinalGame(players=2" in repr(game)


@pytest.mark.parametrize(
    "options",
    [
        {"players": 1},
        {"players": 5},
        {"players": 2, "shared_pool": True},
        {"players": 3, "exhausted_colour": "some"},
        {"players": 3, "neutral_build_chips": "x"},
        {"players": 3, "neutral_touch_chips": ""},
        {"players": 3, "window": 4},
        {"players": 3, "window": 55},
        {"players": 3, "window": 0},
    ],
)
def test_bad_rules_raise_value_error(core, options):
    with pytest.raises(ValueError):
        core.KardinalGame(**options)


def test_wrong_rule_types_raise_type_error(core):
    for bad in ("3", 3.0, None):
        with pytest.raises(TypeError):
            core.KardinalGame(bad)


def test_bad_codes_raise_and_never_crash(core):
    """Fuzz the bindings: malformed codes, wrong types, out-of-range ints, codes of the wrong phase."""
    rng = random.Random(22)
    game = compiled.game_of_module(core, Rules(players=4))
    fixed = [
        None,
        "H0@0,1",
        b"\x00\x01",
        [0, 0, 0, 8256, -1],
        (0, 0, 0, 8256),
        (0, 0, 0, 8256, -1, 0),
        (0, 0, 0, 8256.0, -1),
        (0, 0, 0, "8256", -1),
        (0, 0, 0, 2**70, -1),
        (0, 0, 0, -(2**70), -1),
        (0, 0, 0, -2, -1),
        (0, 0, 0, 16384, -1),
        (99, 0, 0, 8256, -1),
        (2, -1, -1, -1, -1),  # C- in the build phase
        (1, -1, 0, -1, -1),  # a chip in the build phase
        (),
        object(),
    ]
    for _ in range(3000):
        size = rng.choice([5, 5, 5, 4, 6])
        pool = [-(2**40), -(2**31), -129, -2, -1, 0, 1, 2, 3, 4, 127, 128, 8255, 8256, 8257, 16383, 16384, 2**31, 2**63]
        fixed.append(tuple(rng.choice(pool) if rng.random() < 0.7 else rng.randint(-5, 9000) for _ in range(size)))
    legal = set(game.legal_move_codes())
    for code in fixed:
        if isinstance(code, tuple) and code in legal:
            continue
        for method in (game.play_code, game.apply_legal_code):
            with pytest.raises((TypeError, ValueError)):
                method(code)
        assert game.is_legal_code(code) is False
    for bad_index in (-1, len(legal), 10**6):
        with pytest.raises(IndexError):
            game.play_index(bad_index)
    with pytest.raises(TypeError):
        game.play_index("0")
    assert game.move_count == 0 and set(game.legal_move_codes()) == legal  # nothing was played
    # Once over, every code is refused.
    while not game.is_over:
        game.play_index(0)
    with pytest.raises(ValueError, match="game over"):
        game.play_code((2, -1, -1, -1, -1))
    with pytest.raises(IndexError):
        game.play_index(0)
    with pytest.raises(IndexError):
        game.chips_held(4)


# ---------------------------------------------------------------- kardinal_env.kardinal.compiled


@pytest.fixture
def fresh(monkeypatch):
    """compiled with its import attempt and warning forgotten, restored afterwards."""
    compiled._reset_for_tests()
    yield monkeypatch
    compiled._reset_for_tests()


def test_backend_default_uses_the_core_when_built(fresh, core):
    fresh.delenv(compiled.BACKEND_VARIABLE, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled.available() and compiled.backend() == "core"
        rules = Rules(players=3, preset="german", window=9)
        game = compiled.core_game(rules)
        assert game.legal_move_codes() == Game(rules).legal_move_codes()
    fresh.setenv(compiled.BACKEND_VARIABLE, "core")
    assert compiled.core_module() is core


def test_importing_the_package_does_not_warn():
    """The warning comes only when something asks for the core, never from ``import kardinal_env``."""
    code = "import warnings; warnings.simplefilter('error'); import kardinal_env, kardinal_env.kardinal.compiled"
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    env.pop(compiled.BACKEND_VARIABLE, None)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr

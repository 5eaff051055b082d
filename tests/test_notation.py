"""Move notation (docs/rules.md "Move notation"): canonical strings round-trip, everything else is refused."""

from __future__ import annotations

import pytest

from kardinal_env import IllegalMoveError
from kardinal_env.kardinal import Game, MalformedMoveError, Rules, format_move, parse_move
from kardinal_env.kardinal.notation import (
    BUILD,
    CARDINAL,
    CHIP,
    HOUSE,
    NEIGHBOUR_STEPS,
    TOWER,
    YARD,
    key_text,
    key_xy,
    square_key,
)

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

# ---------------------------------------------------------------- canonical strings

CANONICAL = [
    ("H0@-1,0", (BUILD, HOUSE, 0, square_key(-1, 0), -1)),
    ("T3@0,-1", (BUILD, TOWER, 3, square_key(0, -1), -1)),
    ("H2@25,-25", (BUILD, HOUSE, 2, square_key(25, -25), -1)),
    ("T1@-26,26", (BUILD, TOWER, 1, square_key(-26, 26), -1)),
    ("Y2@-1,1:0,1", (BUILD, YARD, 2, square_key(-1, 1), square_key(0, 1))),  # docs/rules.md example
    ("Y0@0,1:0,2", (BUILD, YARD, 0, square_key(0, 1), square_key(0, 2))),
    ("Y1@-3,-4:-3,-3", (BUILD, YARD, 1, square_key(-3, -4), square_key(-3, -3))),
    ("Y3@-10,5:-9,5", (BUILD, YARD, 3, square_key(-10, 5), square_key(-9, 5))),
    ("chip:0", (CHIP, -1, 0, -1, -1)),
    ("chip:3", (CHIP, -1, 3, -1, -1)),
    ("C@0,1", (CARDINAL, -1, -1, square_key(0, 1), -1)),
    ("C@-26,0", (CARDINAL, -1, -1, square_key(-26, 0), -1)),
    ("C@10,-10", (CARDINAL, -1, -1, square_key(10, -10), -1)),
    ("C-", (CARDINAL, -1, -1, -1, -1)),
]


@pytest.mark.parametrize("text,code", CANONICAL, ids=[t for t, _ in CANONICAL])
def test_parse_and_format_round_trip(text, code):
    assert parse_move(text) == code
    assert format_move(code) == text
    assert format_move(parse_move(text)) == text


@pytest.mark.parametrize("x", [-64, -26, -1, 0, 1, 26, 63])
@pytest.mark.parametrize("y", [-64, -5, 0, 5, 63])
def test_square_keys(x, y):
    k = square_key(x, y)
    assert key_xy(k) == (x, y)
    assert key_text(k) == f"{x},{y}"
    for x2, y2 in ((x, y + 1), (x + 1, y)):
        if x2 < 64 and y2 < 64:
            assert square_key(x2, y2) > k  # ascending keys are ascending (x, y)
    if -64 < x < 63 and -64 < y < 63:  # keys of the outermost ring wrap; no game gets near them
        neighbours = {key_xy(k + s) for s in NEIGHBOUR_STEPS}
        assert neighbours == {(x, y + 1), (x, y - 1), (x + 1, y), (x - 1, y)}


@pytest.mark.parametrize("x,y", [(-65, 0), (64, 0), (0, -65), (0, 64)])
def test_square_key_out_of_range(x, y):
    with pytest.raises(ValueError, match="outside"):
        square_key(x, y)


def test_every_listed_move_round_trips():
    import random

    rng = random.Random(7)
    for players in (2, 3, 4):
        game = Game(Rules(players=players))
        while not game.is_over:
            for text, code in zip(game.legal_moves(), game.legal_move_codes(), strict=True):
                assert format_move(code) == text
                assert parse_move(text) == code
            game.play(rng.choice(game.legal_moves()))


# ---------------------------------------------------------------- malformed strings

MALFORMED = [
    # (string, fragment the message must contain)
    ("H0@01,0", "expected"),  # leading zero
    ("H0@0,01", "expected"),
    ("H0@-01,0", "expected"),
    ("H0@+1,0", "expected"),  # explicit plus
    ("C@+1,0", "expected"),
    ("H0@-0,1", "write 0, not -0"),
    ("T1@1,-0", "write 0, not -0"),
    ("C@-0,1", "write 0, not -0"),
    ("Y0@-0,1:0,2", "write 0, not -0"),
    ("Y0@0,1:-0,2", "write 0, not -0"),
    ("H0@ 1,0", "expected"),  # spaces
    ("H0@1, 0", "expected"),
    (" H0@1,0", "expected"),
    ("H0@1,0 ", "expected"),
    ("chip: 1", "expected"),
    ("C @1,0", "expected"),
    ("C- ", "expected"),
    ("Y0@0,2:0,1", "ascending (x, y) order, Y0@0,1:0,2"),  # descending yard
    ("Y1@1,0:0,0", "ascending (x, y) order, Y1@0,0:1,0"),
    ("Y0@0,1:0,3", "orthogonally adjacent"),  # not adjacent
    ("Y0@0,1:1,2", "orthogonally adjacent"),  # diagonal
    ("Y0@0,1:0,1", "orthogonally adjacent"),  # same square twice
    ("Y0@0,1", "a yard names two squares"),
    ("H4@1,0", "colour must be one digit 0..3"),  # colour 4
    ("T9@1,0", "colour must be one digit 0..3"),
    ("H00@1,0", "colour must be one digit 0..3"),
    ("Y4@0,1:0,2", "colour must be one digit 0..3"),
    ("chip:4", "colour must be one digit 0..3"),
    ("chip:01", "colour must be one digit 0..3"),
    ("H0@1,0:2,0", "a house stands on one square"),  # house with two squares
    ("T0@1,0:1,1", "a tower stands on one square"),
    ("H0@64,0", "outside the engine's coordinate range"),
    ("C@0,-65", "outside the engine's coordinate range"),
    ("H@1,0", "expected"),  # missing colour
    ("X0@1,0", "expected"),  # unknown shape
    ("h0@1,0", "expected"),
    ("H0", "expected"),
    ("H0@1", "expected"),
    ("H0@1,", "expected"),
    ("H0@1,0,2", "expected"),
    ("chip:", "expected"),
    ("chip", "expected"),
    ("C@", "expected"),
    ("C", "expected"),
    ("C+", "expected"),
    ("c-", "expected"),
    ("pass", "expected"),
    ("", "expected"),
    ("garbage!", "expected"),
    ("H0@1.0,0", "expected"),
    ("H0@1,0\n", "expected"),
]


@pytest.mark.parametrize("text,fragment", MALFORMED, ids=[repr(t) for t, _ in MALFORMED])
def test_malformed_strings(text, fragment):
    with pytest.raises(MalformedMoveError) as info:
        parse_move(text)
    message = str(info.value)
    assert message.startswith(f"malformed move {text!r}")
    assert fragment in message


@pytest.mark.parametrize("value", [None, 5, 1.5, b"H0@1,0", ["H0@1,0"], ("C-",), {"m": 1}])
def test_non_strings(value):
    with pytest.raises(MalformedMoveError, match="a move is a string"):
        parse_move(value)


def test_malformed_error_is_value_error():
    assert issubclass(MalformedMoveError, ValueError)


@pytest.mark.parametrize("text", ["H0@01,0", "Y0@0,2:0,1", "chip:4", "nonsense", "H0@-0,1"])
def test_engine_reports_malformed_moves(text):
    game = Game(Rules(players=4))
    with pytest.raises(IllegalMoveError) as info:
        game.play(text)
    assert info.value.rule == "malformed move"
    assert info.value.move == text
    assert "malformed move" in str(info.value)
    assert game.history == []  # nothing happened


@pytest.mark.parametrize("value", [None, 3, ["H0@2,0"], ("C-",)])
@pytest.mark.parametrize("listed_first", [False, True])
def test_engine_reports_non_string_moves(value, listed_first):
    game = Game(Rules(players=4))
    if listed_first:
        game.legal_moves()  # builds the engine's text index first
    with pytest.raises(IllegalMoveError) as info:
        game.play(value)
    assert info.value.rule == "malformed move"
    assert game.history == []

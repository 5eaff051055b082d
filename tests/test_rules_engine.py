"""Table-driven tests of every rule of docs/rules.md on hand-built positions.

Each position is reached by playing an explicit move list from the start; the chip counts quoted in
comments were worked out by hand from the board (see the pictures).
"""

from __future__ import annotations

import pytest
from helpers import new_game, play

# ---------------------------------------------------------------- positions (4 players, english)
from kardinal_env import IllegalMoveError
from kardinal_env.kardinal import Game, Rules, RulesError

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

# P0: the start. Sites: (-1,0) (0,1) (0,-1) next to the nave; (1,1) (1,-1) (2,0) next to the clock tower.
P0: list[str] = []

# PA, seat 0 to move, last build a yard of colour 3, cardinal on 2,0:
#      -3 -2 -1  0  1  2
#   1     T2 Y3 Y3
#   0     H1 T0 N  K  @
PA = ["T0@-1,0", "chip:1", "C@2,0", "H1@-2,0", "C-", "T2@-2,1", "C-", "Y3@-1,1:0,1", "C-"]

# PB = PA + a tower 0 under the nave; seat 1 to move, last build a tower of colour 0.
PB = PA + ["T0@0,-1", "C-"]

# PC, seat 3 to move, last build a house of colour 2, cardinal on 0,-1:
#      -1  0  1  2  3
#   1        H0 Y1 Y1
#   0      N  K  .  H2
#  -1      @
PC = ["H0@1,1", "chip:3", "C@0,-1", "Y1@2,1:3,1", "C-", "H2@3,0", "C-"]

# PC2 = PC + a tower 3 east of H2; seat 0 to move, last build a tower of colour 3.
PC2 = PC + ["T3@4,0", "C-"]

# PD, seat 3 to move, last build a house of colour 2:
#      -2 -1  0  1  2
#   0     Y1  N  K  @
#  -1     Y1 T0
#  -2     H2  .
PD = ["T0@0,-1", "chip:1", "C@2,0", "Y1@-1,-1:-1,0", "C-", "H2@-1,-2", "C-"]

# PE: seat 0 has built both of its yards (Y0@-2,0:-1,0 and Y0@-2,4:-1,4); seat 0 to move.
PE = [
    "Y0@-2,0:-1,0",
    "chip:2",
    "C@1,-1",
    "T1@0,-1",
    "C-",
    "H2@2,0",
    "C-",
    "Y3@0,1:1,1",
    "C-",
    "T0@2,1",
    "C-",
    "H1@1,2",
    "C-",
    "Y2@1,3:1,4",
    "C-",
    "H3@0,4",
    "C-",
    "Y0@-2,4:-1,4",
    "C-",
    "H1@1,5",
    "C-",
    "Y2@0,6:1,6",
    "C-",
    "H3@1,7",
    "C-",
]

# (position, move, rule, fragment of the message)
ILLEGAL_4P = [
    # rule 0: placement
    (P0, "T0@0,0", "rule 0 (placement)", "0,0 is occupied by the nave"),
    (P0, "H0@1,0", "rule 0 (placement)", "1,0 is occupied by the clock tower"),
    (P0, "Y0@-1,0:0,0", "rule 0 (placement)", "occupied by the nave"),
    (PA, "H0@-1,0", "rule 0 (placement)", "-1,0 is occupied by tower 0 at -1,0"),
    (PA, "Y0@-1,-1:-1,0", "rule 0 (placement)", "occupied by tower 0 at -1,0"),
    (PA, "Y0@-1,1:0,1", "rule 0 (placement)", "occupied by yard 3 at -1,1:0,1"),
    (P0, "H0@5,5", "rule 0 (placement)", "house 0 at 5,5 touches no building"),
    (P0, "Y0@3,3:3,4", "rule 0 (placement)", "yard 0 at 3,3:3,4 touches no building"),
    (P0, "T0@1,2", "rule 0 (placement)", "touches no building"),  # diagonal to nothing, 2 away
    (P0, "H0@-1,1", "rule 0 (placement)", "touches no building"),  # diagonal to the nave only
    (P0, "H1@2,0", "rule 0 (placement)", "seat 0 may not build colour 1 (its colours: [0])"),
    (P0, "T3@0,1", "rule 0 (placement)", "seat 0 may not build colour 3"),
    (PB, "H0@1,1", "rule 0 (placement)", "seat 1 may not build colour 0"),
    (PE, "Y0@2,-1:3,-1", "rule 0 (placement)", "no yard of colour 0 is left to build"),
    # rule I: the cardinal
    (PA, "H0@2,0", "rule I", "the cardinal stands on 2,0"),
    (PA, "Y0@2,-1:2,0", "rule I", "the cardinal stands on 2,0"),
    (PC, "T3@0,-1", "rule I", "the cardinal stands on 0,-1"),  # tower next to the nave: fine but for I
    (PC, "Y3@-1,-1:0,-1", "rule I", "the cardinal stands on 0,-1"),
    (PC, "Y3@0,-2:0,-1", "rule I", "the cardinal stands on 0,-1"),
    # rule II: a tower needs a house (the clock tower is not one)
    (P0, "T0@2,0", "rule II", "tower 0 at 2,0 touches no house"),
    (P0, "T0@1,1", "rule II", "touches no house"),
    (PA, "T0@1,1", "rule II", "touches no house"),  # clock tower and a yard
    (PB, "T1@0,2", "rule II", "touches no house"),  # a yard only
    (PB, "T1@-1,-1", "rule II", "touches no house"),  # two towers only
    # rule III: a yard needs a house
    (P0, "Y0@1,1:2,1", "rule III", "yard 0 at 1,1:2,1 touches no house"),
    (P0, "Y0@2,0:3,0", "rule III", "touches no house"),
    (PB, "Y1@-1,2:0,2", "rule III", "touches no house"),  # a yard only
    (PB, "Y1@-1,-2:-1,-1", "rule III", "touches no house"),  # two towers only
    # rule IV: same shape adjacent (nave = house, clock tower = tower)
    (P0, "H0@-1,0", "rule IV", "house 0 at -1,0 touches the nave"),
    (P0, "H0@0,1", "rule IV", "touches the nave"),
    (P0, "H0@0,-1", "rule IV", "touches the nave"),
    (PA, "H0@-3,0", "rule IV", "house 0 at -3,0 touches house 1 at -2,0"),
    (PA, "H0@-2,-1", "rule IV", "touches house 1 at -2,0"),
    (PC, "T3@2,0", "rule IV", "tower 3 at 2,0 touches the clock tower"),  # has houses H2 and none else
    (PC, "H3@1,2", "rule IV", "house 3 at 1,2 touches house 0 at 1,1"),
    (PD, "T3@0,-2", "rule IV", "tower 3 at 0,-2 touches tower 0 at 0,-1"),  # H2 next to it too
    (PC2, "Y0@1,2:2,2", "rule IV", "yard 0 at 1,2:2,2 touches yard 1 at 2,1:3,1"),  # H0 next to it too
    # rule V: same colour adjacent
    (PA, "H0@-1,-1", "rule V", "house 0 at -1,-1 touches tower 0 at -1,0 of the same colour"),
    (PB, "Y1@-2,-1:-1,-1", "rule V", "touches house 1 at -2,0 of the same colour"),
    (PB, "T1@-2,-1", "rule V", "tower 1 at -2,-1 touches house 1 at -2,0 of the same colour"),
    (PC2, "T0@0,1", "rule V", "touches house 0 at 1,1 of the same colour"),
    # rule VI: same shape as the previous build (by whichever player)
    (PA, "Y0@-3,0:-3,1", "rule VI", "the edifice built just before was a yard; a yard may not follow it"),
    (PC, "H3@1,-1", "rule VI", "the edifice built just before was a house"),
    (PC2, "T0@3,-1", "rule VI", "the edifice built just before was a tower"),
]


@pytest.mark.parametrize(
    "setup,move,rule,fragment",
    ILLEGAL_4P,
    ids=[f"{rule}-{move}" for _, move, rule, _ in ILLEGAL_4P],
)
def test_illegal_builds_4p(setup, move, rule, fragment):
    game = new_game(4, setup)
    assert game.phase == "build"
    assert move not in game.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    err = info.value
    assert err.rule == rule
    assert str(err).startswith(rule + ":")
    assert fragment in str(err)
    assert err.move == move
    assert game.history == new_game(4, setup).history  # a refused move changes nothing


LEGAL_4P = [
    (P0, "T0@-1,0"),  # II: the nave counts as a house
    (P0, "T0@0,1"),
    (P0, "T0@0,-1"),
    (P0, "Y0@-2,0:-1,0"),  # III: the nave counts as a house
    (P0, "Y0@0,1:1,1"),  # touches the nave and the clock tower
    (P0, "H0@2,0"),  # a house may touch the clock tower
    (P0, "H0@1,1"),
    (PA, "H0@0,2"),  # a house touching only a yard
    (PA, "T0@0,-1"),
    (PA, "T0@-2,-1"),
    (PA, "H0@1,-1"),
    (PB, "H1@-1,-1"),  # a house touching two towers of other colours
    (PC, "T3@4,0"),
    (PC, "T3@3,-1"),
    (PC, "Y3@3,-1:4,-1"),
    (PD, "T3@-2,-2"),
    (PD, "Y3@0,-2:1,-2"),
    (PE, "T0@2,-1"),
]


@pytest.mark.parametrize("setup,move", LEGAL_4P, ids=[m for _, m in LEGAL_4P])
def test_legal_builds_4p(setup, move):
    game = new_game(4, setup)
    assert move in game.legal_moves()
    before = game.edifices_left()
    game.play(move)
    assert game.history[-1] == move
    shape = "HTY".index(move[0])
    colour = int(move[1])
    assert game.edifices_left()[colour][shape] == before[colour][shape] - 1
    assert game.last_built == (shape, colour)


def test_legal_moves_of_the_first_turn():
    game = Game(Rules(players=4))
    assert sorted(game.legal_moves()) == sorted(
        ["H0@1,1", "H0@1,-1", "H0@2,0", "T0@0,1", "T0@0,-1", "T0@-1,0"]
        + ["Y0@0,1:0,2", "Y0@0,1:1,1", "Y0@-1,1:0,1", "Y0@0,-1:1,-1", "Y0@0,-2:0,-1"]
        + ["Y0@-1,-1:0,-1", "Y0@-1,0:-1,1", "Y0@-1,-1:-1,0", "Y0@-2,0:-1,0"]
    )


# ---------------------------------------------------------------- rule VII and colours per player count

# 3 players: seat 0 builds the neutral tower first (compensation chip 1), seat 1 a house next to it.
S3 = ["T3@-1,0", "chip:1", "C@2,0", "H1@-2,0", "C-"]


def test_rule_vii_neutral_colour_may_not_follow_itself():
    game = new_game(3, ["T3@-1,0", "chip:1", "C@2,0"])
    assert game.current_player == 1
    with pytest.raises(IllegalMoveError) as info:
        game.play("H3@1,1")  # fine for I..VI (touches the clock tower only)
    assert info.value.rule == "rule VII"
    assert "colour 3 may not follow it" in str(info.value)
    assert "H3@1,1" not in game.legal_moves()
    assert "H1@1,1" in game.legal_moves()
    assert {m[1] for m in game.legal_moves()} == {"1"}


@pytest.mark.parametrize(
    "players,shared,seat_colours",
    [
        (2, False, [(0, 1), (2, 3)]),
        (3, False, [(0, 3), (1, 3), (2, 3)]),
        (4, False, [(0,), (1,), (2,), (3,)]),
        (3, True, [(0, 1, 2, 3)] * 3),
        (4, True, [(0, 1, 2, 3)] * 4),
    ],
)
def test_colour_ownership(players, shared, seat_colours):
    rules = Rules(players=players, shared_pool=shared)
    game = Game(rules)
    assert [game.seat_colours(s) for s in range(players)] == seat_colours
    # the first player may build exactly its colours
    assert {int(m[1]) for m in game.legal_moves()} == set(seat_colours[0])
    for colour in range(4):
        move = f"H{colour}@2,0"
        if colour in seat_colours[0]:
            assert move in game.legal_moves()
        else:
            with pytest.raises(IllegalMoveError) as info:
                game.play(move)
            assert info.value.rule == "rule 0 (placement)"
            assert f"may not build colour {colour}" in str(info.value)


def test_two_players_build_either_colour_in_any_order():
    # seat 0 builds colour 1 first, seat 1 a house of colour 2 on top of the yard
    game = new_game(2, ["Y1@-2,0:-1,0", "chip:2", "C@2,0", "H2@-1,1", "C-"])
    assert game.current_player == 0
    assert {m[1] for m in game.legal_moves()} == {"0", "1"}  # either of seat 0's colours
    assert "T1@0,1" in game.legal_moves()  # the same colour again (the last build was colour 2)
    with pytest.raises(IllegalMoveError) as info:
        game.play("T1@-2,1")  # touches Y1: rule V also between a player's own edifices
    assert info.value.rule == "rule V"
    game.play("T0@-2,1")  # colour 0 next to the player's own colour 1 (allowed: different colours)
    assert game.chips()[0] == [0, 1, 2, 0]  # one chip for Y1 (own colour), one for H2, plus compensation 2


# ---------------------------------------------------------------- missed turns (2 players)

# Seat 0 (colours 0, 1) has only towers left; seat 1 builds a tower, so seat 0 cannot build (VI)
# and misses: seat 1 moves again, and VI/VII still refer to that tower of colour 3.
MISS = [
    "Y1@-2,0:-1,0",
    "chip:2",
    "C@-2,-1",
    "H2@1,1",
    "C-",
    "Y1@0,-1:1,-1",
    "C-",
    "H3@-2,1",
    "C-",
    "Y0@-2,2:-2,3",
    "C-",
    "T2@-3,1",
    "C-",
    "H1@-3,2",
    "C-",
    "Y3@2,0:2,1",
    "C-",
    "H0@2,-1",
    "C-",
    "Y3@2,-2:3,-2",
    "C-",
    "H0@2,2",
    "C-",
    "Y2@2,3:2,4",
    "C-",
    "H1@2,5",
    "C-",
    "T2@-1,1",
    "C-",
    "Y0@-5,2:-4,2",
    "C-",
]


def test_missed_turn_keeps_rules_vi_and_vii():
    game = new_game(2, MISS)
    assert game.current_player == 1
    assert game.edifices_left()[0] == [0, 2, 0] and game.edifices_left()[1] == [0, 2, 0]
    play(game, ["T3@1,2", "C-"])
    # seat 0 has nothing but towers and a tower was just built: it misses, seat 1 moves again
    assert game.current_player == 1
    assert game.phase == "build"
    assert game.history[-2:] == ["T3@1,2", "C-"]  # a missed turn is not a move
    assert game.last_built == (1, 3)
    moves = game.legal_moves()
    assert moves and all(m[0] != "T" and m[1] != "3" for m in moves)
    assert "H2@-6,2" in moves
    for move, rule in (("H3@-6,2", "rule VII"), ("T3@-3,3", "rule VI"), ("T0@-3,3", "rule 0 (placement)")):
        assert move not in moves
        with pytest.raises(IllegalMoveError) as info:
            game.play(move)
        assert info.value.rule == rule


# ---------------------------------------------------------------- scoring


def test_scoring_one_chip_per_distinct_touched_edifice():
    game = new_game(4, PA[:-2])
    supply = game.supply()
    # Y3 at -1,1:0,1 touches T2 (-2,1), T0 (-1,0) and the nave: one chip of 2, one of 0, none for the nave
    play(game, ["Y3@-1,1:0,1"])
    assert game.chips()[3] == [1, 0, 1, 0]
    assert game.supply() == [supply[0] - 1, supply[1], supply[2] - 1, supply[3]]
    assert game.cathedral_touches() == [1, 0, 0, 1]  # T0@-1,0 and this yard


def test_scoring_history_of_pa():
    game = new_game(4, PA)
    # seat 0: compensation chip 1; seat 1: H1 touches T0 -> 0; seat 2: T2 touches H1 -> 1; seat 3: 2 and 0
    assert game.chips() == [[0, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0]]
    assert game.supply() == [10, 10, 11, 12]
    assert game.set_aside() == [0, 0, 0, 0]


def test_cathedral_gives_no_chip_and_counts_once_for_the_tie_break():
    game = new_game(4, ["Y0@0,1:1,1", "chip:2"])  # touches the nave and the clock tower
    assert game.chips()[0] == [0, 0, 1, 0]  # only the compensation chip
    assert game.cathedral_touches() == [1, 0, 0, 0]  # one edifice, counted once


def test_building_touching_an_edifice_of_several_colours():
    # PD: seat 3 builds Y3@0,-2:1,-2: touches H2@-1,-2 and T0@0,-1 -> chips 2 and 0
    game = new_game(4, PD)
    before = game.chips()[3]
    play(game, ["Y3@0,-2:1,-2"])
    assert [a - b for a, b in zip(game.chips()[3], before, strict=True)] == [1, 0, 1, 0]
    assert game.phase == "cardinal"


# English exhausted colour: colour 2 is used up; seat 0's yard touches T3 (-2,-3) and H2 (-2,-2).
EXHAUSTED_EN = [
    "H0@1,1",
    "chip:2",
    "C@2,0",
    "T1@2,1",
    "C-",
    "Y2@-1,-1:0,-1",
    "C-",
    "H3@0,-2",
    "C-",
    "T0@-1,-2",
    "C-",
    "Y1@0,2:1,2",
    "C-",
    "T2@1,-2",
    "C-",
    "H3@-1,2",
    "C-",
    "Y0@-2,1:-1,1",
    "C-",
    "H1@1,-1",
    "C-",
    "Y2@-2,3:-1,3",
    "C-",
    "T3@-1,0",
    "C-",
    "H0@-1,4",
    "C-",
    "Y1@0,-3:1,-3",
    "C-",
    "H2@2,-3",
    "C-",
    "Y3@3,-3:3,-2",
    "C-",
    "T0@2,-4",
    "C-",
    "H1@4,-3",
    "C-",
    "T2@2,-1",
    "C-",
    "Y3@-1,5:-1,6",
    "C-",
    "T1@-2,2",
    "C-",
    "H2@-2,-2",
    "C-",
    "T3@-2,-3",
    "C-",
]


@pytest.mark.parametrize("preset,option", [("english", None), ("german", "none")])
def test_exhausted_colour_gives_nothing(preset, option):
    opts = {} if option is None else {"exhausted_colour": option}
    game = new_game(4, EXHAUSTED_EN, preset=preset, **opts)
    assert game.supply() == [6, 9, 0, 5]
    assert game.current_player == 0
    before = game.chips()[0]
    play(game, ["Y0@-3,-3:-3,-2"])
    assert [a - b for a, b in zip(game.chips()[0], before, strict=True)] == [0, 0, 0, 1]  # colour 3 only
    assert game.phase == "cardinal"  # no chip decision
    assert game.supply() == [6, 9, 0, 4]


def test_exhausted_colour_substitute():
    game = new_game(4, EXHAUSTED_EN, exhausted_colour="substitute")
    before = game.chips()[0]
    play(game, ["Y0@-3,-3:-3,-2"])
    assert [a - b for a, b in zip(game.chips()[0], before, strict=True)] == [0, 0, 0, 1]  # regular chips first
    assert game.phase == "chip" and game.pending_chips == 1 and game.current_player == 0
    assert sorted(game.legal_moves()) == ["chip:0", "chip:1", "chip:3"]  # colour 2 is empty
    with pytest.raises(IllegalMoveError) as info:
        game.play("chip:2")
    assert info.value.rule == "chip"
    with pytest.raises(IllegalMoveError) as info:
        game.play("C-")
    assert info.value.rule == "phase"
    play(game, ["chip:1"])
    assert [a - b for a, b in zip(game.chips()[0], before, strict=True)] == [0, 1, 0, 1]
    assert game.phase == "cardinal"
    assert game.supply() == [6, 8, 0, 4]


# German: colour 0 is used up; seat 3's house H3@-3,1 touches H0? no: touches T0, Y2, T2 ->
# two chips of colour 2 and one substitute for the colour-0 tower.
EXHAUSTED_DE = [
    "T0@-1,0",
    "chip:0",
    "C@2,0",
    "H1@-2,0",
    "C-",
    "T2@-3,0",
    "C-",
    "Y3@0,-2:0,-1",
    "C-",
    "T0@-2,1",
    "C-",
    "H1@-2,2",
    "C-",
    "Y2@-1,1:-1,2",
    "C-",
    "T3@-2,3",
    "C-",
    "H0@-3,-1",
    "C-",
    "T1@-3,-2",
    "C-",
    "Y2@-4,2:-3,2",
    "C-",
    "T3@-4,-1",
    "C-",
    "H0@-3,3",
    "C-",
    "Y1@-4,4:-3,4",
    "C-",
    "H2@-5,4",
    "C-",
    "Y3@-2,-2:-2,-1",
    "C-",
    "T1@0,1",
    "C-",
    "H2@-1,-1",
    "C-",
    "Y0@-6,4:-6,5",
    "C-",
    "H3@-7,5",
    "C-",
    "Y0@-8,6:-7,6",
    "C-",
    "T2@-8,5",
    "C-",
]


def test_substitute_after_regular_chips_german_preset():
    game = new_game(4, EXHAUSTED_DE, preset="german")
    assert game.supply()[0] == 0
    seat = game.current_player
    assert seat == 3
    before = game.chips()[seat]
    supply = game.supply()
    play(game, ["H3@-3,1"])
    delta = [a - b for a, b in zip(game.chips()[seat], before, strict=True)]
    assert delta == [0, 0, 2, 0]  # T2@-3,0 and Y2@-4,2:-3,2; T0@-2,1 is exhausted
    assert game.phase == "chip" and game.pending_chips == 1
    assert "chip:0" not in game.legal_moves()
    play(game, ["chip:3"])
    assert game.phase == "cardinal"
    assert game.supply() == [0, supply[1], supply[2] - 2, supply[3] - 1]


def test_compensation_chip_first_build_only():
    game = new_game(4, ["T0@-1,0"])
    assert game.phase == "chip" and game.current_player == 0 and game.pending_chips == 1
    assert sorted(game.legal_moves()) == ["chip:0", "chip:1", "chip:2", "chip:3"]
    for bad, rule in (("C@2,0", "phase"), ("H1@2,0", "phase"), ("C-", "phase")):
        with pytest.raises(IllegalMoveError) as info:
            game.play(bad)
        assert info.value.rule == rule
    game.play("chip:3")
    assert game.chips()[0] == [0, 0, 0, 1]
    assert game.supply() == [12, 12, 12, 11]
    assert game.phase == "cardinal"  # chip phase, then cardinal phase
    play(game, ["C@2,0", "H1@-2,0"])
    assert game.phase == "cardinal"  # later builds: no compensation chip
    assert game.chips()[1] == [1, 0, 0, 0]


# ---------------------------------------------------------------- the cardinal


def test_cardinal_first_turn_is_compulsory():
    game = new_game(4, ["T0@-1,0", "chip:1"])
    assert game.phase == "cardinal"
    moves = game.legal_moves()
    assert "C-" not in moves
    sites = {f"C@{x},{y}" for x, y in game.sites()}
    assert set(moves) == sites
    assert len(sites) == 8
    with pytest.raises(IllegalMoveError) as info:
        game.play("C-")
    assert info.value.rule == "cardinal"
    assert "must place the cardinal" in str(info.value)
    for bad, fragment in (
        ("C@0,0", "occupied by the nave"),
        ("C@-1,0", "occupied by tower 0"),
        ("C@5,5", "not a site"),
    ):
        assert bad not in moves
        with pytest.raises(IllegalMoveError) as info:
            game.play(bad)
        assert info.value.rule == "cardinal" and fragment in str(info.value), str(info.value)
    assert "C@-1,1" in moves  # diagonal to the nave only, but next to the new tower: a site
    game.play("C@-1,1")
    assert game.cardinal == (-1, 1)
    assert game.current_player == 1


def test_cardinal_later_turns_optional_and_not_to_its_own_square():
    game = new_game(4, ["T0@-1,0", "chip:1", "C@2,0", "H1@-2,0"])
    moves = game.legal_moves()
    assert moves[0] == "C-"
    assert "C@2,0" not in moves
    assert set(moves) == {"C-"} | {f"C@{x},{y}" for x, y in game.sites() if (x, y) != (2, 0)}
    with pytest.raises(IllegalMoveError) as info:
        game.play("C@2,0")
    assert info.value.rule == "cardinal" and "already stands on 2,0" in str(info.value)
    with pytest.raises(IllegalMoveError) as info:
        game.play("C@-2,0")
    assert info.value.rule == "cardinal" and "occupied by house 1" in str(info.value)
    keep = game.clone()
    keep.play("C-")
    assert keep.cardinal == (2, 0)
    game.play("C@-3,0")  # a site next to the new house
    assert game.cardinal == (-3, 0)
    assert game.sites().count((-3, 0)) == 1  # the cardinal's square is still a site


def test_cardinal_blocks_yards_on_its_square():
    game = new_game(4, ["T0@-1,0", "chip:1", "C@-2,0"])
    assert not any("-2,0" in m for m in game.legal_moves())
    with pytest.raises(IllegalMoveError) as info:
        game.play("H1@-2,0")
    assert info.value.rule == "rule I"


# ---------------------------------------------------------------- end of game and final scoring


def _play_to_end(game, moves):
    """Play ``moves``; return (held, supply, aside) just before the last move (which ends the game)."""
    for move in moves[:-1]:
        game.play(move)
    assert not game.is_over
    before = (game.chips(), game.supply(), game.set_aside())
    game.play(moves[-1])
    assert game.is_over
    return before


def _random_moves(rules, seed):
    import random

    rng = random.Random(seed)
    game = Game(rules)
    while not game.is_over:
        moves = game.legal_moves()
        game.play("C-" if "C-" in moves else rng.choice(moves))
    return game.history


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2),
        Rules(players=3),
        Rules(players=3, preset="german"),
        Rules(players=4),
        Rules(players=3, shared_pool=True),
        Rules(players=4, shared_pool=True, preset="german"),
    ],
    ids=["2p", "3p-en", "3p-de", "4p", "3p-shared", "4p-shared-de"],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_final_scoring(rules, seed):
    moves = _random_moves(rules, seed)
    game = Game(rules)
    held, supply, aside = _play_to_end(game, moves)
    n = rules.players
    expected = [list(h) for h in held]
    exp_supply = list(supply)
    exp_aside = list(aside)
    for seat in range(n):
        if rules.shared_pool:
            owned = []
        elif n == 2:
            owned = [2 * seat, 2 * seat + 1]
        else:
            owned = [seat]
        for c in owned:
            expected[seat][c] += exp_supply[c]
            exp_supply[c] = 0
    if n == 3 and not rules.shared_pool:
        exp_aside[3] += exp_supply[3]
        exp_supply[3] = 0
    assert game.chips() == expected
    assert game.supply() == exp_supply
    assert game.set_aside() == exp_aside
    if rules.shared_pool:
        assert game.supply() == supply  # leftovers stay in the box
    else:
        assert sum(game.supply()) == 0
    assert game.scores() == [sum(h) + max(h) for h in expected]
    assert sum(game.supply()) + sum(map(sum, game.chips())) + sum(game.set_aside()) == 48
    # nobody can build in the final position
    assert game.current_player is None and game.phase == "over" and game.legal_moves() == []
    with pytest.raises(IllegalMoveError) as info:
        game.play("C-")
    assert info.value.rule == "game over"


def test_scores_and_winners_only_when_over():
    game = Game(Rules(players=2))
    with pytest.raises(RuntimeError):
        game.scores()
    with pytest.raises(RuntimeError):
        game.winners()


def test_game_ends_when_nobody_can_build():
    moves = _random_moves(Rules(players=4), 5)
    game = new_game(4, moves[:-1])
    assert game.phase == "cardinal"
    game.play(moves[-1])
    assert game.is_over
    # every seat's edifices left are unbuildable: check by brute force on the final board
    from reference import RefGame

    ref = RefGame(4)
    for m in moves:
        ref.play(m)
    assert all(not ref.builds(seat) for seat in range(4))


# ---------------------------------------------------------------- neutral colour options (3 players)


@pytest.mark.parametrize(
    "opts,aside_after_first,seat0_after_first",
    [
        ({}, [0, 1, 0, 0], [0, 0, 0, 0]),  # english: put aside, compensation chip included
        ({"preset": "german"}, [0, 0, 0, 0], [0, 1, 0, 0]),
        ({"neutral_build_chips": "keep"}, [0, 0, 0, 0], [0, 1, 0, 0]),
        ({"preset": "german", "neutral_build_chips": "put_aside"}, [0, 1, 0, 0], [0, 0, 0, 0]),
    ],
    ids=["english", "german", "keep-alone", "put-aside-in-german"],
)
def test_neutral_build_chips(opts, aside_after_first, seat0_after_first):
    game = new_game(3, ["T3@-1,0", "chip:1"], **opts)
    assert game.set_aside() == aside_after_first
    assert game.chips()[0] == seat0_after_first
    # seat 1 builds H1@-2,0 next to the neutral tower; seat 2 a neutral yard next to H1
    play(game, ["C@2,0", "H1@-2,0", "C-"])
    touch = game.chips()[1][3]
    play(game, ["Y3@-3,0:-3,1"])
    put_aside = game.rules.neutral_build_chips == "put_aside"
    assert game.chips()[2] == ([0, 0, 0, 0] if put_aside else [0, 1, 0, 0])
    assert game.set_aside()[1] == (aside_after_first[1] + 1 if put_aside else 0)
    assert touch == (1 if game.rules.neutral_touch_chips == "score" else 0)


@pytest.mark.parametrize(
    "opts,score",
    [
        ({}, True),
        ({"preset": "german"}, False),
        ({"neutral_touch_chips": "none"}, False),
        ({"preset": "german", "neutral_touch_chips": "score"}, True),
    ],
    ids=["english", "german", "none-alone", "score-in-german"],
)
def test_neutral_touch_chips(opts, score):
    game = new_game(3, S3, **opts)
    assert game.chips()[1] == ([0, 0, 0, 1] if score else [0, 0, 0, 0])
    assert game.supply()[3] == (11 if score else 12)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize(
    "opts", [{"neutral_build_chips": "keep"}, {"neutral_touch_chips": "none"}, {"preset": "german"}]
)
def test_neutral_options_change_nothing_without_a_neutral_colour(players, opts):
    """The german preset also switches the exhausted colour to "substitute"; with that held at "none",
    the two neutral options (alone or through the preset) must leave a whole game unchanged."""
    moves = _random_moves(Rules(players=players, exhausted_colour="none"), 3)
    a = new_game(players, moves, exhausted_colour="none")
    b = new_game(players, moves, exhausted_colour="none", **opts)
    assert a.rules != b.rules  # the options really differ
    assert a.chips() == b.chips() and a.set_aside() == b.set_aside() == [0, 0, 0, 0]
    assert a.scores() == b.scores() and a.winners() == b.winners()


def test_neutral_touch_none_in_shared_pool_changes_nothing():
    moves = _random_moves(Rules(players=3, shared_pool=True), 4)
    a = new_game(3, moves, shared_pool=True)
    b = new_game(3, moves, shared_pool=True, neutral_touch_chips="none", neutral_build_chips="keep")
    assert a.chips() == b.chips() and a.set_aside() == b.set_aside() == [0, 0, 0, 0]


def test_neutral_colour_usable_by_everybody():
    game = new_game(3, ["T3@-1,0", "chip:1", "C@2,0"])
    assert game.seat_colours(1) == (1, 3)
    play(game, ["H1@-2,0", "C-"])
    assert "Y3@-3,0:-3,1" in game.legal_moves()  # seat 2 may build the neutral colour


# ---------------------------------------------------------------- window variant


def test_window_variant():
    game = Game(Rules(players=4, window=3))  # |x|, |y| <= 1
    moves = game.legal_moves()
    assert "H0@2,0" not in moves and "Y0@-2,0:-1,0" not in moves and "Y0@0,1:0,2" not in moves
    assert "H0@1,1" in moves and "Y0@-1,0:-1,1" in moves
    for bad in ("H0@2,0", "Y0@-2,0:-1,0", "Y0@0,1:0,2"):
        with pytest.raises(IllegalMoveError) as info:
            game.play(bad)
        assert info.value.rule == "window"
        assert "outside the 3x3 window" in str(info.value)
    game.play("T0@-1,0")
    game.play("chip:0")
    assert all(abs(x) <= 1 and abs(y) <= 1 for x, y in game.sites())
    with pytest.raises(IllegalMoveError) as info:
        game.play("C@2,0")
    assert info.value.rule == "window"
    game.play("C@1,1")


def test_window_53_is_the_unbounded_game():
    moves = _random_moves(Rules(players=3), 6)
    a = new_game(3, moves)
    b = new_game(3, moves, window=53)
    assert a.scores() == b.scores() and a.winners() == b.winners()


# ---------------------------------------------------------------- Rules validation


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"players": 1}, "players must be 2, 3 or 4, got 1"),
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"players": True}, "players must be 2, 3 or 4"),
        ({"players": "3"}, "players must be 2, 3 or 4"),
        ({"players": 3, "preset": "french"}, "preset must be one of ['english', 'german'], got 'french'"),
        ({"players": 3, "shared_pool": 1}, "shared_pool must be true or false"),
        ({"players": 2, "shared_pool": True}, "players=2 cannot use it"),
        ({"players": 3, "exhausted_colour": "all"}, "exhausted_colour must be one of ['none', 'substitute']"),
        ({"players": 3, "neutral_build_chips": "discard"}, "neutral_build_chips must be one of ['put_aside', 'keep']"),
        ({"players": 3, "neutral_touch_chips": 0}, "neutral_touch_chips must be one of ['score', 'none']"),
        ({"players": 3, "window": 4}, "window must be None or an odd integer from 3 to 53, got 4"),
        ({"players": 3, "window": 1}, "window must be None or an odd integer"),
        ({"players": 3, "window": 55}, "window must be None or an odd integer"),
        ({"players": 3, "window": 9.0}, "window must be None or an odd integer"),
        ({"players": 3, "window": True}, "window must be None or an odd integer"),
    ],
)
def test_rules_validation(kwargs, fragment):
    with pytest.raises(RulesError) as info:
        Rules(**kwargs)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_rules_presets_and_overrides():
    en = Rules(players=3)
    assert (en.exhausted_colour, en.neutral_build_chips, en.neutral_touch_chips) == ("none", "put_aside", "score")
    de = Rules(players=3, preset="german")
    assert (de.exhausted_colour, de.neutral_build_chips, de.neutral_touch_chips) == ("substitute", "keep", "none")
    mixed = Rules(players=3, preset="german", neutral_touch_chips="score")
    assert mixed.neutral_touch_chips == "score" and mixed.exhausted_colour == "substitute"
    assert Rules.from_dict(mixed.to_dict()) == mixed
    assert hash(Rules(players=4)) == hash(Rules(players=4))
    with pytest.raises(RulesError, match="unknown option"):
        Rules.from_dict({"players": 3, "colour": 2})
    with pytest.raises(RulesError, match="missing option 'players'"):
        Rules.from_dict({"preset": "english"})


def test_game_constructor_arguments():
    assert Game(players=3, preset="german").rules == Rules(players=3, preset="german")
    with pytest.raises(TypeError):
        Game(Rules(players=3), players=3)
    with pytest.raises(TypeError):
        Game({"players": 3})

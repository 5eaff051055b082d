"""Kardinal & König: the deck running out (during a draw, during the display refill), the interim scoring
and reshuffle, the second run-out, the end of the round, and missed turns. Uses a 16-card test board."""

from __future__ import annotations

import random

import pytest
from koenig_helpers import discard_turn, finish_turn, game_with, small_board

from kardinal_env.koenig import Game, IllegalMoveError, Rules

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]


def test_runout_during_a_draw_scores_and_reshuffles():
    # seats: 0 0 0 | 1 1 1 | 2 3 3, display 3 3, deck 2 2 0 1 2
    game = game_with([0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 2, 2, 0, 1, 2], board=small_board())
    assert game.deck_size() == 5
    game.play("K@X1/0")
    finish_turn(game)
    game.play("K@Y1/1")
    finish_turn(game)
    game.play("K@Z1/2")
    finish_turn(game)
    assert game.deck_size() == 2 and game.hand(0) == [0, 0, 2]
    game.play("K@X2/0")
    game.play("K@X3/0")
    game.play("draw:deck")
    assert game.runouts == 0 and game.scores() == [0, 0, 0] and game.discard_pile() == [0, 1, 2, 0, 0]
    game.play("draw:deck")  # the deck's last card: interim scoring at once, with this turn's cloisters
    assert game.runouts == 1
    assert game.interim_scores() == [3, 1, 1] and game.scores() == [3, 1, 1]
    assert sorted(game.reshuffle_order) == [0, 0, 0, 1, 2]
    assert game.deck_size() == 5 and game.discard_pile() == []
    assert game.display() == [3, 3]  # the display stays
    assert game.current_player == 1 and not game.last_round


def _any_game():
    """discard='any'; seats 0 1 2 each, display 3 3, deck 0 1 2 3 3."""
    game = game_with([0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 3, 0, 1, 2, 3, 3], discard="any", board=small_board())
    for _ in range(4):
        discard_turn(game)
    assert game.deck_size() == 1 and game.current_player == 1 and game.hand(1) == [1, 1, 2]
    return game


def test_runout_during_the_display_refill_goes_on_from_the_new_deck():
    game = _any_game()
    game.play("discard:1")
    game.play("discard:1")
    game.play("end")
    assert game.legal_moves() == ["draw:3", "draw:deck"]
    game.play("draw:3")
    game.play("draw:3")  # hand full; the refill takes the deck's last card, then goes on from the new deck
    assert game.runouts == 1 and game.scores() == [0, 0, 0]
    assert sorted(game.reshuffle_order) == [0, 0, 0, 0, 1, 1]
    assert game.display() == sorted([3, game.reshuffle_order[0]])
    assert game.deck_size() == 5
    assert game.current_player == 2


def _after_first_runout():
    """The position of the test above after its first runout: seat 2 to act, 5 cards in the new deck."""
    game = _any_game()
    for move in ("discard:1", "discard:1", "end", "draw:3", "draw:3"):
        game.play(move)
    return game


def _before_second_runout():
    game = _after_first_runout()
    for _ in range(4):
        discard_turn(game)
    assert game.deck_size() == 1 and game.current_player == 0 and game.runouts == 1
    return game


def test_second_runout_during_a_draw_ends_the_round():
    game = _before_second_runout()
    display = game.display()
    discard_turn(game)  # seat 0 takes the last card
    assert game.runouts == 2 and game.last_round and game.deck_size() == 0
    assert game.display() == display and game.current_player == 1
    scores = game.scores()
    # Seat 1: draws from the display only, which is not refilled.
    game.play(f"discard:{game.hand(1)[0]}")
    game.play("end")
    assert "draw:deck" not in game.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        game.play("draw:deck")
    assert info.value.rule == "draw"
    game.play(game.legal_moves()[0])
    assert len(game.display()) == 1 and game.current_player == 2
    # Seat 2 (= n - 1) plays the round's last turn.
    game.play(f"discard:{game.hand(2)[0]}")
    game.play("end")
    game.play(game.legal_moves()[0])
    assert game.is_over and game.current_player is None
    assert game.display() == []
    assert game.scores() == scores  # no piece on the board: the final scoring adds nothing
    assert game.winners() == [0, 1, 2]


def test_second_runout_during_the_refill_stops_it():
    game = _before_second_runout()
    hand = game.hand(0)
    game.play(f"discard:{hand[0]}")
    game.play(f"discard:{hand[1]}")
    game.play("end")
    while game.current_player == 0:
        game.play(next(m for m in game.legal_moves() if m != "draw:deck"))  # take both display cards
    assert game.runouts == 2 and game.last_round
    assert len(game.display()) == 1 and game.deck_size() == 0  # the refill stopped after the last card
    assert game.current_player == 1


def test_second_runout_in_the_last_seats_turn_ends_the_game_after_it():
    game = _after_first_runout()
    for _ in range(3):
        discard_turn(game)  # seats 2, 0, 1
    assert game.current_player == 2 and game.deck_size() == 2
    hand = game.hand(2)
    game.play(f"discard:{hand[0]}")
    game.play(f"discard:{hand[1]}")
    game.play("end")
    game.play("draw:deck")
    assert game.current_player == 2 and not game.last_round
    game.play("draw:deck")  # the second run-out, in seat n-1's turn: the game ends with this turn
    assert game.is_over and game.runouts == 2


def test_final_scoring_and_winners_on_the_small_board():
    # Seat 0 builds a chain X1-X2-X3-X4 and the advisor majority in X and Y.
    game = game_with([0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 0, 1, 2, 2, 2], board=small_board())
    game.play("K@X1/0")
    finish_turn(game)  # draws 0
    game.play("K@Y1/1")  # seat 1
    finish_turn(game)  # draws 1
    discard_turn(game)  # seat 2 discards 2, draws 2
    game.play("K@X2/0")
    game.play("K@X3/0")
    finish_turn(game)  # the deck's last 2 cards: interim scoring, X 3 -> 3, Y 1 -> 1
    assert game.runouts == 1 and game.scores() == [3, 1, 0]
    rules = game.rules
    assert rules.players == 3
    # Play the rest at random; then recompute the final scoring by hand from the public state.
    rng = random.Random(0)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    final = game.final_breakdown()
    assert [a + b + c + d for a, b, c, d in zip(game.interim_scores(), *final.values())] == game.scores()
    assert game.winners() == [s for s, v in enumerate(game.scores()) if v == max(game.scores())]


def test_missed_turns_cannot_happen_under_these_rules():
    """A seat without cards at the start of its turn would miss it; but every seat still to play in the
    last round drew its hand full before the second run-out, so no turn is ever missed."""
    for players in (3, 4, 5):
        for discard in ("one", "any"):
            for seed in range(15):
                game = Game(
                    Rules(players=players, discard=discard, board=small_board() if seed % 2 else None), seed=seed
                )
                rng = random.Random(seed)
                last_seat = None
                while not game.is_over:
                    if game.current_player != last_seat:
                        assert game.hand_size(game.current_player) > 0
                        last_seat = game.current_player
                    game.play(rng.choice(game.legal_moves()))
                assert game.missed_turns == []


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("discard", ["one", "any"])
def test_end_of_round_after_second_runout(players, discard):
    """After the move that runs the deck out the second time, the seats that still decide are the
    current one (finishing its turn) and then each later seat once, in order; then the game is over."""
    for seed in range(12):
        game = Game(Rules(players=players, discard=discard), seed=seed)
        rng = random.Random(seed)
        trigger = None
        while trigger is None:
            seat = game.current_player
            game.play(rng.choice(game.legal_moves()))
            if game.runouts == 2:
                trigger = seat
        assert game.deck_size() == 0 and game.last_round
        seats = []
        while not game.is_over:
            if not seats or seats[-1] != game.current_player:
                seats.append(game.current_player)
            assert "draw:deck" not in game.legal_moves()
            game.play(rng.choice(game.legal_moves()))
        if seats and seats[0] == trigger:
            seats = seats[1:]  # the triggering turn went on (drawing from the display)
        assert seats == list(range(trigger + 1, players)), (seed, trigger, seats)
        assert game.final_breakdown() is not None

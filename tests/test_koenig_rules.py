"""Kardinal & König rules, table by table: setup, payments, one country per turn, two pieces and three
cards, the empty-country rule, the advisor limit, supplies, discarding, drawing and the display."""

from __future__ import annotations

import random

import pytest
from koenig_helpers import DEFAULT_BOARD, discard_turn, finish_turn, game_with

from kardinal_env.koenig import Game, IllegalMoveError, Rules

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

COUNTRY_OF_TYPE = {c["type"]: c["countries"] for c in DEFAULT_BOARD["cards"]}
SITES = {c["id"]: c["sites"] for c in DEFAULT_BOARD["countries"]}
CIDX = [c["id"] for c in DEFAULT_BOARD["countries"]].index


def rejects(game: Game, move: str, rule: str) -> IllegalMoveError:
    """Assert ``move`` is refused for ``rule`` and changes nothing."""
    before = game.snapshot()
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    assert info.value.rule == rule, f"{move!r}: expected rule {rule!r}, got {info.value}"
    assert str(info.value).startswith(rule)
    assert game.snapshot() == before
    return info.value


# ---------------------------------------------------------------------------------------------- setup
@pytest.mark.parametrize("players, size", [(3, 45), (4, 50), (5, 55)])
def test_deck_size_after_removal(players, size):
    rules = Rules(players=players)
    assert len(rules.deck_cards) == size
    removed = {3: 2, 4: 1, 5: 0}[players]
    for t, count in zip((0, 1, 2, 3, 4), (13, 12, 11, 10, 9)):
        assert rules.deck_cards.count(t) == count - removed
    game = Game(rules, seed=1)
    assert game.deck_size() == size - 3 * players - 2
    assert sorted(game.initial_deck) == rules.deck_cards


def test_deal_order_and_start():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2, 4])
    assert [game.hand(s) for s in range(3)] == [[0, 1, 2], [3, 4, 4], [0, 0, 1]]
    assert game.display() == [2, 3]
    assert game.deck_size() == 45 - 11
    assert game.current_player == 0 and game.phase == "place"
    assert game.scores() == [0, 0, 0] and game.discard_pile() == []
    assert all(game.pieces_left(s) == (20, 8) for s in range(3))
    game.play("discard:0")
    game.play("draw:deck")
    assert game.hand(0) == [1, 2, 4]  # the card under the display was the deck's top card


def test_seed_fixes_the_shuffle():
    rules = Rules(players=4)
    assert Game(rules, seed=7).initial_deck == Game(rules, seed=7).initial_deck
    assert Game(rules, seed=7).initial_deck != Game(rules, seed=8).initial_deck


# ------------------------------------------------------------------------------------------- payments
def test_single_card_payments_listed_exactly():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2])
    expected = {f"K@{site}/{t}" for t in (0, 1, 2) for c in COUNTRY_OF_TYPE[t] for site in SITES[c]}
    expected |= {"discard:0", "discard:1", "discard:2"}  # no advisor: every country is empty
    moves = game.legal_moves()
    assert len(moves) == len(set(moves))
    assert set(moves) == expected


@pytest.mark.parametrize(
    "move, rule",
    [
        ("K@FR1/4", "payment"),  # no type-4 card in hand
        ("K@BA1/0", "payment"),  # type 0 names Franconia and Aragon, not Bavaria
        ("K@FR1/00", "payment"),  # a pair needs two cards of the type
        ("K@FN1/11", "payment"),
        ("A@FN/0", "empty country"),
        ("K@XX1/0", "unknown id"),
        ("A@XX/0", "unknown id"),
        ("K@FN1/7", "unknown id"),
        ("K@FN1/01", "malformed move"),  # two different cards are no payment
        ("K@FN1", "malformed move"),
        ("k@FN1/0", "malformed move"),
        ("K@FN1/0 ", "malformed move"),
        ("draw:deck", "phase"),
        ("draw:2", "phase"),
        ("end", "end"),
        ("discard:4", "discard"),
        ("discard:9", "unknown id"),
        ("nonsense", "malformed move"),
    ],
)
def test_payment_and_spelling_errors(move, rule):
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2])
    rejects(game, move, rule)


def test_non_string_move_is_malformed():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2])
    rejects(game, 17, "malformed move")
    with pytest.raises(IllegalMoveError):
        game.apply_action(10**6)


def test_a_paid_card_goes_to_the_discard_pile():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2])
    game.play("K@FN1/0")
    assert game.hand(0) == [1, 2] and game.discard_pile() == [0]
    assert game.owner("FN1") == 0 and game.pieces_left(0) == (19, 8)
    assert game.cloister_counts()[CIDX("FN")] == [1, 0, 0]


def test_pair_is_a_joker_and_also_pays_its_own_country():
    game = game_with([0, 1, 2, 4, 3, 3, 0, 0, 1, 3, 2, 4, 4])
    game.play("K@FN1/0")
    finish_turn(game)
    game.play("K@FR1/4")  # France was empty: one cloister, then drawing
    finish_turn(game)
    moves = set(game.legal_moves())  # seat 2 holds 0, 0, 1
    assert {"K@FR2/00", "K@EN1/00", "K@FN2/0", "K@FN2/00", "A@FN/0", "A@FN/00", "A@FR/00"} <= moves
    assert "K@FR2/0" not in moves and "A@FR/0" not in moves and "K@FR2/11" not in moves
    game.play("K@FN2/00")
    assert game.discard_pile()[-2:] == [0, 0] and game.hand(2) == [1]
    # Type 1 does not name Franconia and no pair is left: no second piece, drawing follows by itself.
    assert game.phase == "draw"
    rejects(game, "K@FN3/1", "phase")


def test_a_type_naming_no_country_pays_only_as_a_pair():
    from koenig_helpers import small_board

    game = game_with([3, 3, 0, 1, 1, 1, 2, 2, 2, 0, 0], board=small_board())
    moves = set(game.legal_moves())
    assert {"K@X1/33", "K@Y1/33", "K@Z1/33", "K@X1/0"} <= moves
    assert not any(m.endswith("/3") for m in moves)
    rejects(game, "K@Y1/3", "payment")


# ------------------------------------------------------------- one country, two pieces, three cards
def _france_game():
    # seat 0: 4 4 0, seat 1: 4 0 0, seat 2: 4 4 4, display 3 2, then the deck 1 1 2 3 ...
    game = game_with([4, 4, 0, 4, 0, 0, 4, 4, 4, 3, 2, 1, 1, 2, 3])
    game.play("K@FR1/4")
    return game


def test_empty_country_takes_one_cloister():
    game = _france_game()
    assert game.phase == "draw" and game.current_player == 0
    assert "end" not in game.legal_moves()
    rejects(game, "K@FR2/4", "empty country")
    rejects(game, "A@FR/4", "empty country")
    rejects(game, "end", "end")
    finish_turn(game)
    assert game.current_player == 1


def test_empty_country_advisor_first_is_refused():
    game = game_with([2, 2, 1, 4, 4, 3, 0, 0, 1, 3, 2])
    assert not any(m.startswith("A@") for m in game.legal_moves())
    rejects(game, "A@IT/2", "empty country")
    rejects(game, "A@IT/22", "empty country")


def test_one_country_per_turn_and_at_most_two_pieces():
    game = _france_game()
    finish_turn(game)
    game.play("K@FR2/4")  # France holds a cloister: a second piece may follow
    assert game.phase == "second" and game.turn_country == "FR"
    moves = set(game.legal_moves())
    assert moves == {f"K@FR{i}/00" for i in range(3, 9)} | {"A@FR/00", "end"}
    rejects(game, "K@FN1/00", "one country")
    rejects(game, "A@IT/00", "one country")
    rejects(game, "discard:0", "discard")
    rejects(game, "draw:deck", "phase")
    game.play("K@FR3/00")  # 1 + 2 = 3 cards, two pieces: drawing follows
    assert game.phase == "draw" and game.pieces_this_turn == 2 and game.cards_this_turn == 3
    rejects(game, "K@FR4/4", "two pieces")
    rejects(game, "A@FR/00", "two pieces")
    assert game.cloister_counts()[CIDX("FR")] == [1, 2, 0]


def test_at_most_three_cards():
    game = _france_game()
    finish_turn(game)
    game.play("K@FR2/4")
    game.play("end")
    assert game.phase == "draw"
    finish_turn(game)
    assert game.hand(2) == [4, 4, 4]
    game.play("K@FR3/44")  # a pair of type 4 (pays France as a joker would)
    assert set(game.legal_moves()) == {f"K@FR{i}/4" for i in range(4, 9)} | {"A@FR/4", "end"}
    rejects(game, "K@FR4/44", "three cards")
    game.play("K@FR4/4")
    assert game.cards_this_turn == 3 and game.hand(2) == []


def test_end_is_offered_only_when_a_second_piece_is_legal():
    game = _france_game()
    finish_turn(game)
    game.play("K@FR2/4")
    assert "end" in game.legal_moves()
    game.play("end")
    assert game.phase == "draw" and game.pieces_this_turn == 1


# ----------------------------------------------------------------------------------- advisor limit
def test_advisor_limit_counts_cloisters_of_the_same_turn():
    # seat 0: 4 4 4, seat 1: 4 4 0, seat 2: 3 3 3, display 3 2, deck 0 4 4 1 1 ...
    game = game_with([4, 4, 4, 4, 4, 0, 3, 3, 3, 3, 2, 0, 4, 4, 1, 1])
    game.play("K@FR1/4")
    finish_turn(game)  # seat 0 draws a 0
    assert "A@FR/4" in game.legal_moves()  # seat 1: one advisor next to one cloister
    game.play("A@FR/4")
    assert "A@FR/4" not in game.legal_moves()
    err = rejects(game, "A@FR/4", "advisor limit")
    assert "2 advisors" in str(err)
    game.play("K@FR2/4")
    finish_turn(game)
    discard_turn(game)  # seat 2
    assert game.hand(0) == [0, 4, 4]
    rejects(game, "A@FR/4", "advisor limit")  # 1 advisor, and no seat has 2 cloisters in France
    game.play("K@FR3/4")  # now seat 0 has 2 cloisters there
    assert "A@FR/4" in game.legal_moves()
    game.play("A@FR/4")
    assert game.advisor_counts()[CIDX("FR")] == [1, 1, 0]
    assert game.pieces_left(0) == (18, 7)


def test_advisor_without_own_cloister_is_allowed():
    game = _france_game()
    finish_turn(game)
    game.play("A@FR/4")  # seat 1 has no cloister in France; seat 0 has one
    assert game.advisor_counts()[CIDX("FR")] == [0, 1, 0]


# -------------------------------------------------------------------------------------- supplies
def _drive_until(pred, prefer, players=3, tries=100):
    """Play games where seat 0 prefers moves starting with ``prefer`` (paid with one card where possible)
    and the other seats only discard, until ``pred(game)``; return the game."""
    for seed in range(tries):
        game = Game(Rules(players=players), seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            if pred(game):
                return game
            moves = game.legal_moves()
            if game.current_player == 0:
                best = [m for m in moves if m.startswith(prefer)]
                cheap = [m for m in best if len(m.split("/")[1]) == 1]
                game.play(rng.choice(cheap or best or moves))
            else:
                game.play(rng.choice([m for m in moves if not m.startswith(("K@", "A@"))] or moves))
    raise AssertionError("no game reached the wanted position")


def _payable(game, seat, country):
    hand = game.hand(seat)
    named = next(t for t, cs in COUNTRY_OF_TYPE.items() if country in cs)
    pays = [str(named)] if named in hand else []
    return pays + [f"{t}{t}" for t in set(hand) if hand.count(t) >= 2]


def test_no_cloister_left():
    def pred(g):
        if g.current_player != 0 or g.phase != "place" or g.pieces_left(0)[0]:
            return False
        owners = dict(zip([s for c in DEFAULT_BOARD["countries"] for s in c["sites"]], g.owners()))
        return any(owners[s] is None and _payable(g, 0, c) for c, sites in SITES.items() for s in sites)

    game = _drive_until(pred, "K@")
    assert not any(m.startswith("K@") for m in game.legal_moves())
    owners = dict(zip([s for c in DEFAULT_BOARD["countries"] for s in c["sites"]], game.owners()))
    c, site = next((c, s) for c, sites in SITES.items() for s in sites if owners[s] is None and _payable(game, 0, c))
    rejects(game, f"K@{site}/{_payable(game, 0, c)[0]}", "supply")


def test_no_advisor_left():
    def room(g, c):  # an advisor would be legal in c but for the supply
        i = CIDX(c)
        cl, ad = g.cloister_counts()[i], g.advisor_counts()[i]
        return _payable(g, 0, c) and sum(ad) < max(cl)

    def pred(g):
        return (
            g.current_player == 0 and g.phase == "place" and not g.pieces_left(0)[1] and any(room(g, c) for c in SITES)
        )

    game = _drive_until(pred, "A@")
    assert not any(m.startswith("A@") for m in game.legal_moves())
    country = next(c for c in SITES if room(game, c))
    rejects(game, f"A@{country}/{_payable(game, 0, country)[0]}", "supply")
    assert sum(row[0] for row in game.advisor_counts()) == 8


# ------------------------------------------------------------------------------------- discarding
def test_discard_one_allowed_when_a_placement_is_possible():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2, 4])
    assert {"discard:0", "discard:1", "discard:2"} <= set(game.legal_moves())
    game.play("discard:1")
    assert game.phase == "draw" and game.discard_pile() == [1]
    rejects(game, "discard:0", "phase")
    rejects(game, "K@FN1/0", "phase")
    assert set(game.legal_moves()) == {"draw:2", "draw:3", "draw:deck"}
    game.play("draw:deck")
    assert game.hand(0) == [0, 2, 4] and game.current_player == 1


def test_discard_any_one_to_three():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2, 4, 4, 4], discard="any")
    game.play("discard:1")
    assert game.phase == "discard"
    assert game.legal_moves() == ["end", "discard:0", "discard:2"]
    rejects(game, "K@FN1/0", "discard")
    rejects(game, "draw:deck", "phase")
    game.play("discard:0")
    assert game.legal_moves() == ["end", "discard:2"]
    game.play("discard:2")  # the third discard: drawing follows by itself
    assert game.phase == "draw" and game.hand(0) == [] and game.cards_this_turn == 3
    assert game.discard_pile() == [1, 0, 2]
    for _ in range(3):
        assert game.current_player == 0
        game.play("draw:deck")
    assert game.hand(0) == [4, 4, 4] and game.current_player == 1


def test_discard_any_end_after_one():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 2], discard="any")
    game.play("discard:2")
    game.play("end")
    assert game.phase == "draw" and game.hand(0) == [0, 1]
    rejects(game, "end", "end")


def test_discard_after_a_piece_is_refused():
    game = _france_game()
    finish_turn(game)
    game.play("K@FR2/4")
    rejects(game, "discard:0", "discard")


# ---------------------------------------------------------------------------------------- drawing
def test_display_refilled_only_after_the_hand_is_full():
    # seat 0: 0 0 1, display 3 2, deck 4 1 ...
    game = game_with([0, 0, 1, 4, 4, 3, 2, 2, 2, 3, 2, 4, 1])
    game.play("K@FN1/00")
    assert game.phase == "draw" and game.hand(0) == [1]
    assert set(game.legal_moves()) == {"draw:2", "draw:3", "draw:deck"}
    rejects(game, "draw:4", "draw")
    game.play("draw:3")
    assert game.display() == [2] and game.deck_size() == 34  # not refilled yet
    assert set(game.legal_moves()) == {"draw:2", "draw:deck"}
    game.play("draw:2")  # a second display card: the hand is full
    assert game.hand(0) == [1, 2, 3]
    assert game.display() == [1, 4] and game.deck_size() == 32
    assert game.current_player == 1


def test_two_equal_display_cards_give_one_draw_move():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 3])
    game.play("discard:0")
    assert game.legal_moves() == ["draw:3", "draw:deck"]


def test_draw_is_a_decision_even_with_one_source():
    game = game_with([0, 1, 2, 4, 4, 3, 0, 0, 1, 3, 3])
    game.play("discard:0")
    game.play("draw:3")  # hand full again after one card
    assert game.current_player == 1 and game.display() == [0, 3]


def test_current_player_cycles():
    game = Game(Rules(players=5), seed=3)
    seats = []
    for _ in range(7):
        seats.append(game.current_player)
        discard_turn(game)
    assert seats == [0, 1, 2, 3, 4, 0, 1]


def test_game_over_refuses_moves():
    from koenig_helpers import random_game

    game = random_game(players=3, seed=4)
    assert game.is_over and game.current_player is None and game.legal_moves() == []
    rejects(game, "draw:deck", "game over")
    rejects(game, "K@FR1/4", "game over")

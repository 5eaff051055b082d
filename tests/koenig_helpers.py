"""Helpers shared by the Kardinal & König tests (tests/test_koenig_*.py)."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Callable, Collection

from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig.board import BOARDS_DIR

DEFAULT_BOARD = json.loads((BOARDS_DIR / "default.json").read_text(encoding="utf-8"))

#: A tiny board for run-out scenarios: 16 cards with 3 players (5 left after the deal).
SMALL_BOARD = {
    "format": "kardinal-koenig-board/1",
    "name": "small",
    "source": "test board",
    "countries": [
        {"id": "X", "name": "Xland", "sites": ["X1", "X2", "X3", "X4"]},
        {"id": "Y", "name": "Yland", "sites": ["Y1", "Y2"]},
        {"id": "Z", "name": "Zland", "sites": ["Z1"]},
    ],
    "cards": [
        {"type": 0, "countries": ["X"], "count": 6},
        {"type": 1, "countries": ["Y"], "count": 6},
        {"type": 2, "countries": ["Z"], "count": 6},
        {"type": 3, "countries": [], "count": 6},
    ],
    "roads": [["X1", "X2"], ["X2", "X3"], ["X3", "X4"], ["X4", "Y1"], ["Y1", "Y2"]],
    "alliances": [["X", "Y"], ["Y", "Z"]],
}


def small_board() -> dict:
    return copy.deepcopy(SMALL_BOARD)


def deck_with(rules: Rules, top: list[int]) -> list[int]:
    """A full deck for ``rules`` that starts with ``top`` (top first); the rest in ascending type order."""
    rest = Counter(rules.deck_cards)
    rest.subtract(top)
    assert all(v >= 0 for v in rest.values()), f"{top} is not part of the deck"
    return list(top) + sorted(rest.elements())


def game_with(top: list[int], players: int = 3, discard: str = "one", board=None) -> Game:
    """A game whose deck starts with ``top``: seat 0's three cards, seat 1's, ..., the display, the draw pile."""
    rules = Rules(players=players, discard=discard, board=board)
    return Game(rules, deck=deck_with(rules, top))


def finish_turn(game: Game) -> None:
    """End the current turn: ``end`` where offered, then draw from the deck (else the display)."""
    seat = game.current_player
    while not game.is_over and game.current_player == seat:
        moves = game.legal_moves()
        if "end" in moves:
            game.play("end")
        elif game.phase == "draw":
            game.play("draw:deck" if "draw:deck" in moves else moves[0])
        else:
            raise AssertionError(f"finish_turn: seat {seat} must still {game.phase}: {moves}")


def discard_turn(game: Game) -> None:
    """A turn of one discard (the lowest card) and drawing from the deck."""
    seat = game.current_player
    assert seat is not None, "discard_turn: the game is over"
    game.play(f"discard:{game.hand(seat)[0]}")
    finish_turn(game)


def random_game(players: int = 4, discard: str = "one", seed: int = 0, board=None, moves: int | None = None) -> Game:
    """A game of uniformly random legal moves (``seed`` fixes the shuffles and the choices), stopped
    after ``moves`` moves when given (a game in progress)."""
    game = Game(Rules(players=players, discard=discard, board=board), seed=seed)
    rng = random.Random(seed)
    while not game.is_over and (moves is None or game.move_count < moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def hidden_twins(seed: int, observer: int = 0, players: int = 4, keep: int = 22) -> tuple[Game, Game]:
    """Two games that differ only in what ``observer`` cannot see: the deal of ``seed`` and its twin,
    in which the first two other seats swap a card of different types and the deck below its first
    ``keep`` cards is in another order (shuffled with ``random.Random(seed)``)."""
    rules = Rules(players=players)
    deck = Game(rules, seed=seed).initial_deck  # top first: seat 0 takes 3, seat 1 the next 3, ...
    a, b = [s for s in range(players) if s != observer][:2]
    for i in range(3):
        for j in range(3):
            if deck[3 * a + i] != deck[3 * b + j]:
                twin = list(deck)
                twin[3 * a + i], twin[3 * b + j] = twin[3 * b + j], twin[3 * a + i]
                rest = twin[keep:]
                random.Random(seed).shuffle(rest)
                assert rest != twin[keep:], "the deck below the kept cards must change order"
                return Game(rules, deck=deck), Game(rules, deck=twin[:keep] + rest)
    raise AssertionError("no swappable cards")


def play_common_move(g1: Game, g2: Game, rng: random.Random, exclude: Collection[str] = ()) -> bool:
    """Play in both games one move legal in both (``rng``'s choice among them, in sorted order, not
    in ``exclude``); ``False`` when there is none."""
    common = sorted(set(g1.legal_moves()) & set(g2.legal_moves()))
    common = [m for m in common if m not in exclude] if exclude else common
    if not common:
        return False
    move = rng.choice(common)
    g1.play(move)
    g2.play(move)
    return True


def walk_hidden_twins(
    g1: Game, g2: Game, same_move: Callable[[Game, Game], str], rng: random.Random, decisions: int, observer: int = 0
) -> int:
    """Play two hidden twins (:func:`hidden_twins`) on together while their displays agree: at each of
    ``observer``'s decisions with two or more legal moves ``same_move(g1, g2)`` gives the move (checking
    that the two games get the same one), which both play; every other move is a common move
    (:func:`play_common_move`). Stops after ``decisions`` such decisions; returns how many were checked."""
    checked = 0
    while not g1.is_over and g1.display() == g2.display() and checked < decisions:
        if g1.current_player == observer and len(g1.legal_moves()) > 1:
            move = same_move(g1, g2)
            checked += 1
            g1.play(move)
            g2.play(move)
        elif not play_common_move(g1, g2, rng):
            break
    return checked

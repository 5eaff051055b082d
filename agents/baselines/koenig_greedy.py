"""One-ply greedy baseline for Kardinal & König, from public information only.

The agent sees what its seat may see: the board, its own hand, the display, scores. It never reads
another seat's hand or the deck (the only game state it changes is a ``clone()`` on which it plays
one *placement*: placing uses no hidden card, so the clone's hidden part is never consulted).

* **Placing** (first or second piece): the placement with the largest gain in the seat's projected
  score (``Game.projected_scores``: the scorings still to come, computed on the board after the
  placement), ties broken by fewer cards spent (a single card before a pair), then at random. When
  no placement gains anything it discards instead (or plays ``end`` for the second piece).
* **Discarding**: the card type it holds most of (keeping variety), ties at random; ``end`` as soon
  as it may stop.
* **Drawing**: a display card of a type it already holds (a pair is a joker) if there is one, else
  the deck; ties at random.
"""

from __future__ import annotations

import random

__all__ = ["koenig_greedy_move"]


def _pick(scored: list[tuple[tuple, str]], rng: random.Random) -> str:
    best = max(key for key, _ in scored)
    top = [move for key, move in scored if key == best]
    return top[0] if len(top) == 1 else top[rng.randrange(len(top))]


def _cards_spent(move: str) -> int:
    return len(move.rsplit("/", 1)[1])


def koenig_greedy_move(game, rng: random.Random) -> str:
    """The greedy move for the current decision of a ``kardinal_env.koenig.Game``."""
    moves = game.legal_moves()
    if not moves:
        raise ValueError("no legal move: the game is over")
    if len(moves) == 1:
        return moves[0]
    seat = game.current_player
    phase = game.phase
    if phase == "draw":
        hand = game.hand(seat)
        return _pick([((1 if m != "draw:deck" and int(m[5:]) in hand else 0,), m) for m in moves], rng)
    if phase == "discard":
        if "end" in moves:
            return "end"
        hand = game.hand(seat)
        return _pick([((hand.count(int(m[8:])),), m) for m in moves if m.startswith("discard:")], rng)
    base = game.projected_scores()[seat]
    scored = []
    for move in moves:
        if move.startswith(("K@", "A@")):
            after = game.clone()
            after.play(move)
            scored.append(((after.projected_scores()[seat] - base, -_cards_spent(move)), move))
    if scored and max(key[0] for key, _ in scored) > 0:
        return _pick(scored, rng)
    if "end" in moves:
        return "end"
    hand = game.hand(seat)
    discards = [((hand.count(int(m[8:])),), m) for m in moves if m.startswith("discard:")]
    return _pick(discards or scored, rng)

"""Kardinal & König's one-ply greedy baseline (``greedy``, :class:`GreedyAgent`) and its playout policy
(``rollout_move``), reached through the game's agents' entry (:mod:`agents.games`); public information only (moves read
with :func:`kardinal_env.koenig.notation.parse_move`; placements tried on a ``clone()``, which consults no hidden card).
Ties are broken at random.

* **Placing**: the placement with the largest gain in the seat's projected score, ties broken by fewer cards spent;
  with no gain it discards instead (``end`` for the second piece).
* **Discarding**: the card type it holds most of; ``end`` as soon as it may stop.
* **Drawing**: a display card of a type it already holds (a pair is a joker) if there is one, else the deck.

``rollout_move`` (the fast policy of a search's playouts, e.g. ``ismcts:N`` with ``rollout_moves``) draws and discards
as the greedy agent and places at random (``end`` / a discard when it cannot). A decision with one legal move takes it
without drawing a random number.
"""

from __future__ import annotations

import random

from agents.base import BaseAgent
from agents.baselines.random import pick_max
from kardinal_env.koenig.notation import ParsedMove, parse_move

__all__ = ["GreedyAgent", "koenig_greedy_move", "rollout_move"]


def _draw_move(game, parsed: dict[str, ParsedMove], rng: random.Random) -> str:
    hand = game.hand(game.current_player)
    return pick_max([((1 if p.target is not None and p.target in hand else 0,), m) for m, p in parsed.items()], rng)


def _discard_move(game, parsed: dict[str, ParsedMove], rng: random.Random) -> str | None:
    """The greedy discard; ``None`` if no discard is legal."""
    hand = game.hand(game.current_player)
    discards = [((hand.count(p.card),), m) for m, p in parsed.items() if p.kind == "discard"]
    return pick_max(discards, rng) if discards else None


def _opening(game, rng: random.Random) -> tuple[str | None, dict[str, ParsedMove]]:
    """Both policies' move for a forced or draw decision (else ``None``), and the decision's parsed moves."""
    moves = game.legal_moves()
    if not moves:
        raise ValueError("no legal move: the game is over")
    if len(moves) == 1:
        return moves[0], {}
    parsed = {m: parse_move(m) for m in moves}
    return (_draw_move(game, parsed, rng) if game.phase == "draw" else None), parsed


def koenig_greedy_move(game, rng: random.Random) -> str:
    move, parsed = _opening(game, rng)
    if move is not None:
        return move
    if game.phase == "discard":
        if "end" in parsed:
            return "end"
        discard = _discard_move(game, parsed, rng)
        assert discard is not None, "a discarding decision offers a discard"
        return discard
    seat = game.current_player
    base = game.projected_scores()[seat]
    scored = []
    for move, p in parsed.items():
        if p.kind in ("K", "A"):
            after = game.clone()
            after.play(move)
            scored.append(((after.projected_scores()[seat] - base, -2 if p.pair else -1), move))
    if scored and max(key[0] for key, _ in scored) > 0:
        return pick_max(scored, rng)
    if "end" in parsed:
        return "end"
    return _discard_move(game, parsed, rng) or pick_max(scored, rng)


class GreedyAgent(BaseAgent):
    """Kardinal & König's greedy baseline."""

    name = "greedy"

    def select_move(self, game) -> str:
        return koenig_greedy_move(game, self.rng)


def rollout_move(game, rng: random.Random) -> str:
    move, parsed = _opening(game, rng)
    if move is not None:
        return move
    placements = [m for m, p in parsed.items() if p.kind in ("K", "A")]
    if game.phase != "discard" and placements:
        return placements[rng.randrange(len(placements))]
    if "end" in parsed:
        return "end"
    discard = _discard_move(game, parsed, rng)
    return discard if discard is not None else list(parsed)[rng.randrange(len(parsed))]

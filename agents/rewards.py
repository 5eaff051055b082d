"""Reward terms shared by training (``scripts/train.py``) and the network-guided search (``agents.puct``).

* :func:`projected_margins` — per seat, the projected final score minus the best other projected
  score. Projection: chips held, plus the leftovers of the seat's own colours, plus the best colour
  once more — the final score if the game ended now. Training's ``score_shaping`` rewards the change
  of this margin a move causes, so ``value + score_shaping * projected_margin`` is a seat's expected
  total return from the start of the game (a potential-based shaping).
* :func:`terminal_rewards` — ``win_loss``: +1 for every winner (shared wins included), −1 otherwise;
  ``margin``: ``clip((own score − best other score) / 20, −1, 1)``.
"""

from __future__ import annotations

__all__ = ["projected_margins", "terminal_rewards", "REWARD_SCHEMES"]

REWARD_SCHEMES = ("win_loss", "margin")


def projected_margins(game, rules) -> list[float]:
    """Per seat: projected final score minus the best other projected score (see the module docstring)."""
    held = game._held
    supply = game._supply
    proj = []
    for seat in range(rules.players):
        h = list(held[seat])
        for c in rules.owned_colours(seat):
            h[c] += supply[c]
        proj.append(sum(h) + max(h))
    return [p - max(q for i, q in enumerate(proj) if i != s) for s, p in enumerate(proj)]


def terminal_rewards(game, rules, scheme: str) -> list[float]:
    """Terminal reward of every seat of a finished ``game`` under ``scheme`` (see the module docstring)."""
    if scheme == "win_loss":
        winners = set(game.winners())
        return [1.0 if s in winners else -1.0 for s in range(rules.players)]
    if scheme != "margin":
        raise ValueError(f"unknown reward scheme {scheme!r}; expected one of {REWARD_SCHEMES}")
    scores = game.scores()
    return [
        max(-1.0, min(1.0, (own - max(v for i, v in enumerate(scores) if i != s)) / 20.0))
        for s, own in enumerate(scores)
    ]

"""Reward terms of Kardinal, in one torch-free module used by the environment and the trainer.

* :func:`terminal_rewards` — at the end of a game, per seat. ``"win_loss"``: +1 for every winner
  (tied winners all get +1), −1 for every other seat. ``"margin"``:
  ``clip((own score − best other score) / MARGIN_SCALE, −1, 1)`` with ``MARGIN_SCALE = 20``.
* :func:`projected_margins` — per seat, the projected final score (``Game.projected_scores``: the
  final score if the game ended now) minus the best other projected score. Potential-based score
  shaping rewards the change of this margin that a move causes.
* :func:`chip_gain` — chips a seat gained from one move (``chip_shaping`` rewards ``s`` per chip).
  Leftover own chips added by final scoring are not earned by the last move and count 0.
* :func:`win_share` — the one definition of a win used in every win-rate figure: a seat among ``k``
  tied winners scores ``1/k``, any other seat 0. Training logs, evaluation tables and the docs all
  count with it.
"""

from __future__ import annotations

from kardinal_env.kardinal.engine import Game

__all__ = ["REWARD_SCHEMES", "MARGIN_SCALE", "terminal_rewards", "projected_margins", "chip_gain", "win_share"]

REWARD_SCHEMES = ("win_loss", "margin")
MARGIN_SCALE = 20.0


def check_scheme(scheme: str) -> str:
    """``scheme`` if it is one of :data:`REWARD_SCHEMES`; ValueError naming the choices otherwise."""
    if scheme not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {list(REWARD_SCHEMES)}, got {scheme!r}")
    return scheme


def terminal_rewards(game: Game, scheme: str = "win_loss") -> list[float]:
    """Terminal reward of every seat of a finished ``game`` under ``scheme``."""
    check_scheme(scheme)
    if scheme == "win_loss":
        winners = set(game.winners())
        return [1.0 if s in winners else -1.0 for s in range(game.num_players)]
    scores = game.scores()
    out = []
    for s, own in enumerate(scores):
        best_other = max(v for i, v in enumerate(scores) if i != s)
        out.append(max(-1.0, min(1.0, (own - best_other) / MARGIN_SCALE)))
    return out


def projected_margins(game: Game) -> list[float]:
    """Per seat: projected final score minus the best other projected score."""
    proj = game.projected_scores()
    return [float(p - max(q for i, q in enumerate(proj) if i != s)) for s, p in enumerate(proj)]


def chip_gain(game: Game, seat: int, held_before: int) -> int:
    """Chips ``seat`` gained by the move just played, given ``game.chips_held(seat)`` before it
    (0 once the game is over: the leftovers of final scoring are not earned by a move)."""
    if game.is_over:
        return 0
    return game.chips_held(seat) - held_before


def win_share(winners: list[int], seat: int) -> float:
    """``1/len(winners)`` if ``seat`` is among the winners, else 0 (shared wins are split)."""
    return 1.0 / len(winners) if seat in winners else 0.0

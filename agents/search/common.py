"""What the tree searches of :mod:`agents.search` share: their arguments' checks, the playout with a
policy or uniform random moves, the backup of a simulation's values along its path, and the paired
test of moves played in the same worlds (``rollout:N``, the paired root of ``pismcts:N``).

Each helper draws from the generator it is given exactly as the searches did before they shared it,
so seeded searches choose the same moves."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from kardinal_env.core import limits
from kardinal_env.core.checks import is_finite_number, is_int

__all__ = [
    "action_list",
    "check_count",
    "check_finite",
    "check_fraction",
    "play_out",
    "forced_root",
    "most_visited",
    "backup",
    "paired_statistics",
    "significant_move",
    "paired_test",
    "choose",
    "seat_result",
    "SEARCH_ARGUMENTS",
    "search_argument_problem",
]


def check_count(
    what: str, value: object, minimum: int = 1, allow_none: bool = False, maximum: int = limits.KNOB
) -> None:
    """``ValueError`` naming ``what`` (e.g. ``"mcts: simulations"``) unless ``value`` is an integer
    (not a bool) from ``minimum`` (1: positive, 0: non-negative) to ``maximum`` (a bound of
    :mod:`kardinal_env.core.limits`: :data:`~kardinal_env.core.limits.KNOB` unless given), or ``None``
    when allowed. Checked when an agent is made, so a count the search cannot honour never reaches it."""
    if value is None and allow_none:
        return
    if not is_int(value) or not minimum <= value <= maximum:
        kind = f"an integer from {minimum} to {maximum}"
        raise ValueError(f"{what} must be {'None or ' if allow_none else ''}{kind}, got {value!r}")


def check_finite(what: str, value: object, positive: bool = False) -> None:
    """``ValueError`` naming ``what`` (e.g. ``"rollout: z"``) unless ``value`` is a finite number >= 0
    (> 0 when ``positive``; not a bool, not NaN)."""
    if not (is_finite_number(value) and (value > 0 if positive else value >= 0)):
        raise ValueError(f"{what} must be a finite number {'> 0' if positive else '>= 0'}, got {value!r}")


def check_fraction(what: str, value: object) -> None:
    """``ValueError`` naming ``what`` (e.g. ``"mcts: margin_weight"``) unless ``value`` is a number in
    [0, 1] (not a bool, not NaN)."""
    if not (is_finite_number(value) and 0 <= value <= 1):
        raise ValueError(f"{what} must be in [0, 1], got {value!r}")


def action_list(game: Any) -> list[int]:
    """The legal action ids of ``game``'s decision (``legal_actions()``, in the order of
    ``legal_moves()``) as a new list of ints: the engine's may be a shared list or an array."""
    actions = game.legal_actions()
    return actions.tolist() if hasattr(actions, "tolist") else list(actions)


def play_out(
    game: Any, policy: Callable[[Any, random.Random], str] | None, rng: random.Random, limit: int | None
) -> None:
    """Play ``game`` on (in place) until it is over or ``limit`` moves are played (``None``: no
    limit): ``policy(game, rng)``'s moves, or uniform random legal actions when ``policy`` is ``None``
    (the same draw as a uniform choice among ``legal_moves()``)."""
    played = 0
    while not game.is_over and (limit is None or played < limit):
        if policy is None:
            actions = game.legal_actions()
            game.apply_action(int(actions[rng.randrange(len(actions))]))
        else:
            game.play(policy(game, rng))
        played += 1


def forced_root(game: Any) -> list[tuple[str, int, float]] | None:
    """The root statistics of a decision no search needs: ``[(move, 0, 0.0)]`` when it has one legal
    move, ``None`` when it has more; ``ValueError`` once the game is over."""
    moves = game.legal_moves()
    if not moves:
        raise ValueError("no legal move: the game is over")
    return [(moves[0], 0, 0.0)] if len(moves) == 1 else None


def most_visited(children: Sequence[tuple]) -> Any:
    """The move of the most visited root child ``(move, visits, mean, ...)`` (ties: the higher mean,
    then the first)."""
    return max(children, key=lambda child: (child[1], child[2]))[0]


def backup(path: Sequence[Any], values: Sequence[float]) -> None:
    """Add one visit and ``values`` (one per seat) to every node of ``path`` (each with ``visits``
    and per-seat ``totals``)."""
    n = len(values)
    for node in path:
        node.visits += 1
        totals = node.totals
        for s in range(n):
            totals[s] += values[s]


def _world_values(shares: Sequence[float], margins: Sequence[int], win_bonus: float) -> list[float]:
    return [m + win_bonus * s for s, m in zip(shares, margins, strict=True)]


def paired_statistics(
    values: Sequence[tuple[Any, Sequence[float], Sequence[int]]], win_bonus: float = 10.0
) -> list[tuple[Any, float, float]]:
    """``[(move, mean, standard error)]`` of each move after the first in ``values``, each
    ``(move, [win share per world], [final score margin per world])`` with the move to beat first (as
    :func:`agents.search.heuristic_rollouts.rollout_values` gives them): the mean of its paired
    difference to the first move, world by world (a world's value: the margin plus ``win_bonus`` times
    the win share), and the standard error of that mean (``inf`` with one world: no error estimate)."""
    base = _world_values(values[0][1], values[0][2], win_bonus)
    n = len(base)
    out = []
    for move, shares, margins in values[1:]:
        diff = [v - b for v, b in zip(_world_values(shares, margins, win_bonus), base, strict=True)]
        mean = _sum_in_order(diff) / n
        se = math.sqrt(_sum_in_order([(d - mean) ** 2 for d in diff]) / (n - 1) / n) if n > 1 else math.inf
        out.append((move, mean, se))
    return out


def _sum_in_order(values: Sequence[float]) -> float:
    """Left-to-right float sum, as the compiled core adds (the builtin ``sum`` compensates its rounding
    from Python 3.12 on; the paired search's stopping rule must agree to the bit in both)."""
    total = 0.0
    for v in values:
        total += v
    return total


def seat_result(game: Any, seat: int) -> tuple[float, int]:
    """``(win share, margin)`` of ``seat`` in a finished game: 1/k when it is one of k winners (else 0),
    and its final score less the best other seat's (a world's outcome in the paired searches)."""
    scores = game.scores()
    winners = game.winners()
    share = 1.0 / len(winners) if seat in winners else 0.0
    return share, scores[seat] - max(s for other, s in enumerate(scores) if other != seat)


def choose(
    values: Sequence[tuple[Any, Sequence[float], Sequence[int]]], z: float = 2.0, win_bonus: float = 10.0
) -> Any:
    """The move of a paired search from ``values`` (as :func:`paired_statistics` takes them), whose first
    move is the one to beat: a world's value is the margin plus ``win_bonus`` times the win share;
    another move replaces the first only when its mean paired difference (world by world) less ``z``
    standard errors is above zero, and the largest such lower bound wins (ties: the earlier move)."""
    return significant_move(values[0][0], paired_statistics(values, win_bonus), z)


def significant_move(first: Any, statistics: Sequence[tuple[Any, float, float]], z: float) -> Any:
    """The paired test's choice from :func:`paired_statistics`: the move whose mean less ``z`` standard
    errors is the largest above zero (ties: the earlier), else ``first``."""
    choice, best = first, 0.0
    for move, mean, se in statistics:
        low = mean - z * se
        if low > best:
            choice, best = move, low
    return choice


def paired_test(
    first: Any, alive: Sequence[Any], played: dict, z: float, t_continue: float, win_bonus: float
) -> tuple[Any, list]:
    """One test of the rounds of a paired search (``rollout:N``, ``pismcts:N``): ``played[move] =
    (win shares, margins)`` of ``first`` and the ``alive`` alternatives; returns the choice
    (:func:`significant_move`) and the alternatives still promising (mean paired difference above
    ``t_continue`` standard errors)."""
    stats = paired_statistics([(m, *played[m]) for m in (first, *alive)], win_bonus)
    return significant_move(first, stats, z), [m for m, mean, se in stats if mean > t_continue * se]


#: The valid range of each search argument a checkpoint may record as its default, held once for
#: :class:`agents.search.puct.PUCTAgent` and :func:`agents.networks.checkpoint.search_defaults`: the
#: test and what the value must be.
SEARCH_ARGUMENTS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "batch_size": (lambda v: is_int(v) and 1 <= v <= limits.KNOB, f"an integer from 1 to {limits.KNOB}"),
    "c_puct": (lambda v: is_finite_number(v) and v > 0, "a positive number"),
    "score_shaping": (lambda v: is_finite_number(v) and v >= 0, "a finite number >= 0"),
    "rollouts": (lambda v: is_int(v) and 0 <= v <= limits.KNOB, f"an integer from 0 to {limits.KNOB}"),
    "rollout_weight": (lambda v: is_finite_number(v) and 0 <= v <= 1, "a number in [0, 1]"),
}


def search_argument_problem(key: str, value: object) -> str | None:
    """``None`` when ``value`` is in the valid range of the search argument ``key``
    (:data:`SEARCH_ARGUMENTS`), else what is wrong (``"c_puct must be a positive number, got 0"``)."""
    ok, want = SEARCH_ARGUMENTS[key]
    return None if ok(value) else f"{key} must be {want}, got {value!r}"

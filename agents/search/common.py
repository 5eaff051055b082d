"""What the tree searches of :mod:`agents.search` share: argument checks, the playout, the backup along a path, and
the paired test of moves played in the same worlds (``rollout:N``, the paired root of ``pismcts:N``)."""

from __future__ import annotations

import functools
import math
import operator
import random
from collections.abc import Callable, Sequence
from typing import Any

from kardinal_env.core import limits
from kardinal_env.core.checks import is_finite_number, is_int
from kardinal_env.core.registry import GameSpec, game_of
from kardinal_env.core.rewards import margins, win_share

__all__ = [
    "action_list",
    "check_count",
    "check_finite",
    "check_fraction",
    "check_uct",
    "spec_of",
    "play_out",
    "forced_root",
    "most_visited",
    "ucb",
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
    """``ValueError`` naming ``what`` unless ``value`` is an int (not bool) in [minimum, maximum] or allowed None."""
    if value is None and allow_none:
        return
    if not is_int(value) or not minimum <= value <= maximum:
        kind = f"an integer from {minimum} to {maximum}"
        raise ValueError(f"{what} must be {'None or ' if allow_none else ''}{kind}, got {value!r}")


def check_finite(what: str, value: object, positive: bool = False) -> None:
    """``ValueError`` unless ``value`` is a finite number >= 0 (> 0 when ``positive``; not a bool)."""
    if not (is_finite_number(value) and (value > 0 if positive else value >= 0)):
        raise ValueError(f"{what} must be a finite number {'> 0' if positive else '>= 0'}, got {value!r}")


def check_fraction(what: str, value: object) -> None:
    """``ValueError`` unless ``value`` is a number in [0, 1] (not a bool, not NaN)."""
    if not (is_finite_number(value) and 0 <= value <= 1):
        raise ValueError(f"{what} must be in [0, 1], got {value!r}")


def check_uct(
    kind: str, simulations: object, exploration: object, margin_weight: object, rollout: object, rollouts: tuple
) -> None:
    """The argument checks ``mcts`` and ``ismcts`` share."""
    check_count(f"{kind}: simulations", simulations, maximum=limits.SIMULATIONS)
    check_finite(f"{kind}: exploration", exploration)
    check_fraction(f"{kind}: margin_weight", margin_weight)
    if rollout not in rollouts:
        raise ValueError(f"{kind}: rollout must be one of {list(rollouts)}, got {rollout!r}")


def spec_of(spec: GameSpec | None, game: Any) -> GameSpec:
    """``spec`` (an agent's ``game=``), else the registry's entry of ``game``."""
    return spec if spec is not None else game_of(game)


def action_list(game: Any) -> list[int]:
    """``game.legal_actions()`` as a new list (the engine's may be shared or an array)."""
    actions = game.legal_actions()
    return actions.tolist() if hasattr(actions, "tolist") else list(actions)


def play_out(
    game: Any, policy: Callable[[Any, random.Random], str] | None, rng: random.Random, limit: int | None
) -> None:
    """Play ``game`` in place to its end or for ``limit`` moves: ``policy(game, rng)``'s moves (to the end:
    ``policy.play_out(game, rng)`` when it has one, same moves and draws), or uniform random actions without one."""
    fast = getattr(policy, "play_out", None) if limit is None else None
    if fast is not None:
        fast(game, rng)
        return
    played = 0
    while not game.is_over and (limit is None or played < limit):
        if policy is None:
            actions = game.legal_actions()
            game.apply_action(int(actions[rng.randrange(len(actions))]))
        else:
            game.play(policy(game, rng))
        played += 1


def forced_root(game: Any) -> list[tuple[str, int, float]] | None:
    """``[(move, 0, 0.0)]`` for a decision with one legal move, ``None`` with more; ``ValueError`` once it is over."""
    moves = game.legal_moves()
    if not moves:
        raise ValueError("no legal move: the game is over")
    return [(moves[0], 0, 0.0)] if len(moves) == 1 else None


def most_visited(children: Sequence[tuple]) -> Any:
    """The most visited child ``(move, visits, mean, ...)``'s move (ties: the higher mean, then the first)."""
    return max(children, key=lambda child: (child[1], child[2]))[0]


def ucb(node: Any, seat: int, c: float, log_n: float) -> float:
    """UCB1 for ``seat``: mean plus ``c * sqrt(log_n / visits)``."""
    return node.totals[seat] / node.visits + c * math.sqrt(log_n / node.visits)


def backup(path: Sequence[Any], values: Sequence[float]) -> None:
    """Add one visit and ``values`` (one per seat) to every node of ``path``."""
    for node in path:
        node.visits += 1
        totals = node.totals
        for s, v in enumerate(values):
            totals[s] += v


def paired_statistics(
    values: Sequence[tuple[Any, Sequence[float], Sequence[int]]], win_bonus: float = 10.0
) -> list[tuple[Any, float, float]]:
    """``[(move, mean, standard error)]`` per move after the first of ``values``, each
    ``(move, [win share per world], [final margin per world])``: its mean paired difference to the first, a world worth
    margin + ``win_bonus`` x win share; SE ``inf`` with one world."""

    def worlds(shares: Sequence[float], seat_margins: Sequence[int]) -> list[float]:
        return [m + win_bonus * s for s, m in zip(shares, seat_margins, strict=True)]

    base = worlds(values[0][1], values[0][2])
    n = len(base)
    out = []
    for move, shares, seat_margins in values[1:]:
        diff = [v - b for v, b in zip(worlds(shares, seat_margins), base, strict=True)]
        mean = _sum_in_order(diff) / n
        se = math.sqrt(_sum_in_order([(d - mean) ** 2 for d in diff]) / (n - 1) / n) if n > 1 else math.inf
        out.append((move, mean, se))
    return out


def _sum_in_order(values: Sequence[float]) -> float:
    """Left-to-right sum as the core adds (``sum`` compensates from Python 3.12): stopping must agree bitwise."""
    return functools.reduce(operator.add, values, 0.0)


def seat_result(game: Any, seat: int) -> tuple[float, int]:
    """``(win share, margin)`` of ``seat`` in a finished game: 1/k as one of k winners, and its score less the best
    other's."""
    return win_share(game.winners(), seat), margins(game.scores())[seat]


def choose(
    values: Sequence[tuple[Any, Sequence[float], Sequence[int]]], z: float = 2.0, win_bonus: float = 10.0
) -> Any:
    """:func:`significant_move` of :func:`paired_statistics` of ``values`` (the move to beat first)."""
    return significant_move(values[0][0], paired_statistics(values, win_bonus), z)


def significant_move(first: Any, statistics: Sequence[tuple[Any, float, float]], z: float) -> Any:
    """The move whose mean less ``z`` standard errors is the largest above zero (ties: the earlier), else ``first``."""
    choice, best = first, 0.0
    for move, mean, se in statistics:
        low = mean - z * se
        if low > best:
            choice, best = move, low
    return choice


def paired_test(
    first: Any, alive: Sequence[Any], played: dict, z: float, t_continue: float, win_bonus: float
) -> tuple[Any, list]:
    """One test of a paired search's rounds over ``played[move] = (win shares, margins)``: the choice
    (:func:`significant_move`) and the alternatives whose mean paired difference is above ``t_continue`` SEs."""
    stats = paired_statistics([(m, *played[m]) for m in (first, *alive)], win_bonus)
    return significant_move(first, stats, z), [m for m, mean, se in stats if mean > t_continue * se]


#: The valid range of each search argument a checkpoint may record as a default (:func:`search_argument_problem`).
SEARCH_ARGUMENTS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "batch_size": (lambda v: is_int(v) and 1 <= v <= limits.KNOB, f"an integer from 1 to {limits.KNOB}"),
    "c_puct": (lambda v: is_finite_number(v) and v > 0, "a positive number"),
    "score_shaping": (lambda v: is_finite_number(v) and v >= 0, "a finite number >= 0"),
    "rollouts": (lambda v: is_int(v) and 0 <= v <= limits.KNOB, f"an integer from 0 to {limits.KNOB}"),
    "rollout_weight": (lambda v: is_finite_number(v) and 0 <= v <= 1, "a number in [0, 1]"),
}


def search_argument_problem(key: str, value: object) -> str | None:
    """``None`` when ``value`` suits the search argument ``key``, else what is wrong (``"c_puct must be ..."``)."""
    ok, want = SEARCH_ARGUMENTS[key]
    return None if ok(value) else f"{key} must be {want}, got {value!r}"

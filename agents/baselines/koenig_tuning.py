"""Tournaments that tune and measure the Kardinal & König heuristic (:mod:`agents.baselines.koenig_heuristic`);
``scripts/tune_koenig_heuristic.py`` is their command line, ``docs/koenig-heuristic.md`` the method.

A small game loop of its own (:func:`play_game`); a seat's win share is ``1/k`` as one of ``k`` winners.

* :func:`one_vs_field` — one agent against ``players - 1`` copies of another, the focal seat rotated.
* :func:`head_to_head` — two weight sets in half of the seats each, every deal played from both sides; the mean score
  difference's standard error over deals separates close candidates with fewer games than the win share.
* :func:`coordinate_search` — each weight in turn, each candidate value against the incumbent on the same deals.
* :func:`wilson_interval` — the 95% Wilson score interval of a share (:mod:`agents.evaluation.stats`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from agents.baselines.koenig_greedy import GreedyAgent
from agents.baselines.koenig_heuristic import DEFAULT_WEIGHTS, HeuristicWeights, KoenigHeuristicAgent
from agents.baselines.random import RandomAgent
from agents.evaluation.stats import wilson_interval
from kardinal_env.core.checks import is_int
from kardinal_env.koenig import Game, Rules

__all__ = [
    "MatchResult",
    "AGENTS",
    "make_agent",
    "play_game",
    "one_vs_field",
    "head_to_head",
    "coordinate_search",
    "wilson_interval",
]

#: Agents the tournaments know by name: a factory ``(seed) -> agent``.
AGENTS: dict[str, Callable[[int | None], object]] = dict(
    random=RandomAgent, greedy=GreedyAgent, heuristic=KoenigHeuristicAgent
)


def make_agent(name: str, seed: int | None = None, weights: HeuristicWeights | None = None):
    """An agent of :data:`AGENTS` by name; ``weights`` only for ``heuristic``."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known: {sorted(AGENTS)}")
    if weights is not None and name != "heuristic":
        raise ValueError(f"weights are for the heuristic agent, not {name!r}")
    return AGENTS[name](seed) if weights is None else KoenigHeuristicAgent(seed=seed, weights=weights)


@dataclass(frozen=True)
class MatchResult:
    """The outcome of a series of games for the *focal* side (the single agent, or weight set A)."""

    games: int
    share: float  # mean win share per game of the focal side (sum over its seats)
    parity: float  # the share of an equally strong side
    score_diff: float  # mean per game: focal seats' mean score minus the other seats' mean score
    score_diff_se: float  # its standard error (head_to_head: over deals, each played from both sides)
    seconds_per_game: float

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.share * self.games, self.games)

    def summary(self) -> str:
        lo, hi = self.interval
        return (
            f"{self.share:.3f} of the wins over {self.games} games (parity {self.parity:.2f}, Wilson 95% "
            f"[{lo:.3f}, {hi:.3f}]), score difference {self.score_diff:+.2f} ± {self.score_diff_se:.2f}, "
            f"{self.seconds_per_game:.2f} s/game"
        )


def play_game(rules: Rules, seed: int, agents: Sequence) -> Game:
    """One game; ``agents[s]`` plays seat ``s``, reset with ``seed * 100 + s``."""
    if len(agents) != rules.players:
        raise ValueError(f"play_game: {rules.players} players need {rules.players} agents, got {len(agents)}")
    for s, agent in enumerate(agents):
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(seed * 100 + s)
    game = Game(rules, seed=seed)
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        game.play(agents[seat].select_move(game))
    return game


def _outcome(game: Game, mine: list[bool]) -> tuple[float, float]:
    """``(win share, mean score difference)`` of the seats ``s`` with ``mine[s]`` in a finished game."""
    winners, scores = game.winners(), game.scores()
    ours = [v for s, v in enumerate(scores) if mine[s]]
    others = [v for s, v in enumerate(scores) if not mine[s]]
    return sum(1 / len(winners) for s in winners if mine[s]), sum(ours) / len(ours) - sum(others) / len(others)


def _result(outcomes: list[tuple[float, float]], parity: float, seconds: float, group: int = 1) -> MatchResult:
    """The summary of a series; the standard error takes the ``group`` games of a deal as one sample."""
    shares, diffs = [share for share, _ in outcomes], [diff for _, diff in outcomes]
    games = len(shares)
    mean = sum(diffs) / games
    samples = [sum(diffs[i : i + group]) / len(diffs[i : i + group]) for i in range(0, games, group)]
    k = len(samples)
    var = sum((d - mean) ** 2 for d in samples) / (k - 1) if k > 1 else 0.0
    return MatchResult(games, sum(shares) / games, parity, mean, math.sqrt(var / k), seconds / games)


def _check_games(games: int) -> None:
    if not is_int(games) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")


def one_vs_field(
    focal: Callable[[int], object],
    field: Callable[[int], object],
    games: int,
    *,
    players: int = 4,
    discard: str = "one",
    seed: int = 0,
    progress: Callable[[int, MatchResult], None] | None = None,
) -> MatchResult:
    """``focal(seed)`` in one seat against ``field(seed)`` in the others; game ``i``: seed ``seed + i``, focal seat
    ``i % players``."""
    _check_games(games)
    rules = Rules(players=players, discard=discard)
    outcomes: list[tuple[float, float]] = []
    start = time.perf_counter()
    for i in range(games):
        mine = [s == i % players for s in range(players)]
        game = play_game(rules, seed + i, [focal(0) if m else field(0) for m in mine])
        outcomes.append(_outcome(game, mine))
        if progress is not None:
            progress(i + 1, _result(outcomes, 1 / players, time.perf_counter() - start))
    return _result(outcomes, 1 / players, time.perf_counter() - start)


def head_to_head(
    a: HeuristicWeights,
    b: HeuristicWeights,
    games: int,
    *,
    players: int = 4,
    discard: str = "one",
    seed: int = 0,
) -> MatchResult:
    """Heuristic weights ``a`` against ``b`` in duplicate: games ``2k`` and ``2k + 1`` share the seed ``seed + k``, game
    ``i`` gives A the seats ``s`` with ``(s + i) % 2 == 0`` (``ABAB``, then ``BABA``). Parity: A's seat share."""
    _check_games(games)
    rules = Rules(players=players, discard=discard)
    outcomes: list[tuple[float, float]] = []
    seats_a = 0
    start = time.perf_counter()
    for i in range(games):
        mine = [(s + i) % 2 == 0 for s in range(players)]
        seats_a += sum(mine)
        agents = [KoenigHeuristicAgent(seed=0, weights=a if m else b) for m in mine]
        outcomes.append(_outcome(play_game(rules, seed + i // 2, agents), mine))
    return _result(outcomes, seats_a / (games * players), time.perf_counter() - start, group=2)


def _candidates(w: HeuristicWeights, name: str, factors: Sequence[float], rival_step: float) -> list[float]:
    value = getattr(w, name)
    if name == "rival_max":
        out = [min(1.0, value + rival_step), max(0.0, value - rival_step)]
    elif value == 0:
        out = [0.1]
    else:
        out = [round(value * f, 4) for f in factors]
    return [v for v in dict.fromkeys(out) if v != value]


def coordinate_search(
    start: HeuristicWeights = DEFAULT_WEIGHTS,
    *,
    games: int = 40,
    rounds: int = 1,
    names: Sequence[str] | None = None,
    factors: Sequence[float] = (0.5, 2.0),
    rival_step: float = 0.25,
    z: float = 1.0,
    players: int = 4,
    discard: str = "one",
    seed: int = 0,
    field: HeuristicWeights | None = None,
    log: Callable[[str], None] = print,
) -> HeuristicWeights:
    """Coordinate search from ``start``; returns the final incumbent. Candidates: the value times each of ``factors``
    (0.1 for 0; ``rival_max`` ± ``rival_step`` within [0, 1]), compared on the same deals (seeds from ``seed``).
    ``field=None``: a candidate replaces the incumbent when its :func:`head_to_head` share is above parity and its score
    difference over ``z`` SEs above 0. ``field=W`` (best response): both play :func:`one_vs_field` against weights
    ``W``; the candidate wins with a higher share and a score difference ``z`` SEs (of the gap) higher."""
    incumbent = start
    names = list(names) if names is not None else list(start.as_dict())
    unknown = sorted(set(names) - set(start.as_dict()))
    if unknown:
        raise ValueError(f"coordinate_search: unknown weight(s) {unknown}")

    deals: dict[str, Any] = dict(players=players, discard=discard, seed=seed)

    def against_field(w: HeuristicWeights) -> MatchResult:
        return one_vs_field(
            partial(KoenigHeuristicAgent, weights=w), partial(KoenigHeuristicAgent, weights=field), games, **deals
        )

    if field is not None:
        held = against_field(incumbent)
        log(f"start {incumbent.as_dict()} against the field: {held.summary()}")
    for r in range(rounds):
        changed = False
        for name in names:
            for value in _candidates(incumbent, name, factors, rival_step):
                try:
                    candidate = replace(incumbent, **{name: value})
                except ValueError:
                    continue
                if field is None:
                    res = head_to_head(candidate, incumbent, games, **deals)
                    accept = res.share > res.parity and res.score_diff > z * res.score_diff_se
                else:
                    res = against_field(candidate)
                    se = math.hypot(res.score_diff_se, held.score_diff_se)
                    accept = res.share > held.share and res.score_diff - held.score_diff > z * se
                log(
                    f"round {r + 1} {name}={value} (incumbent {getattr(incumbent, name)}): {res.summary()} "
                    f"-> {'ACCEPT' if accept else 'reject'}"
                )
                if accept:
                    incumbent = candidate
                    if field is not None:
                        held = res
                    changed = True
                    break
        log(f"after round {r + 1}: {incumbent.as_dict()}")
        if not changed:
            break
    return incumbent

"""Ladders: Markdown tables and plots of evaluation results, for the documentation's Agents page.

A *ladder* pools ``results.json`` files (``kardinal-eval/1``, from ``kardinal-evaluate ... --out DIR``) of one game,
seat count and set of rules, and ranks every participant over all their games::

    from agents.evaluation.report import build_ladder, ladder_markdown, plot_ladder, write_ladder
    ladder = build_ladder(["runs/a/results.json", "runs/b/results.json"])
    print(ladder_markdown(ladder))
    write_ladder(["runs/a/results.json"], "docs/data/ladders", "kardinal")  # NAME.md and NAME.png

Command line: ``python scripts/ladder_page.py RESULTS.json ... --out DIR --name NAME``.

**Participants** are the files' labels (a spec, ``greedy#2`` for a further copy), naming the same spec in every file.
Each gets, over every game of every file in order (files as given), the statistics of
:func:`agents.evaluation.tournament.standings` (with one file, exactly its ``summary``); rows sorted by ordinal, best
first.

**Checks.** A file that cannot be read, is not ``kardinal-eval/1`` JSON or lacks a needed field raises
:class:`LadderError` naming the file and the field; files of different games, seat counts or rules cannot be pooled
(the error names both files and what differs).

**Head to head.** Runs whose first agent plays one seat against copies of one other agent (``--agents A B --players
4``) make :func:`matrix_markdown`: a row per first agent, a column per opponent, each cell the row agent's win share
with its Wilson interval and games.

**Outputs.** :func:`ladder_markdown` (caption, table, matrix, a line per source file) and :func:`plot_ladder` (win
shares beside ratings), deterministic for the same files. :func:`slim_results` rewrites a results file in place to
what a ladder reads (:data:`SLIM_GAME_KEYS` per game, every top-level field but ``rating_history``, and ``slim``),
leaving its ladder unchanged.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.evaluation.tournament import describe_rules, standings, wilson_interval
from kardinal_env.core.checks import is_int, is_number
from kardinal_env.core.rewards import WIN_DEFINITION, win_share

__all__ = [
    "FORMAT",
    "LadderError",
    "Run",
    "LadderRow",
    "Ladder",
    "load_run",
    "build_ladder",
    "ladder_markdown",
    "head_to_head",
    "matrix_markdown",
    "plot_ladder",
    "write_ladder",
    "SLIM_GAME_KEYS",
    "slim_results",
]

#: The results format a ladder reads.
FORMAT = "kardinal-eval/1"


class LadderError(ValueError):
    """A results file that cannot be read or pooled; the message names the file and the problem."""


@dataclass(frozen=True)
class Run:
    """One checked ``results.json``: where it came from and what a ladder needs of it."""

    path: str
    game: str
    players: int
    rules: dict
    seed: Any
    labels: tuple[str, ...]
    specs: tuple[str, ...]
    games: tuple[dict, ...]
    version: str
    commit: str


@dataclass(frozen=True)
class LadderRow:
    """One participant's line of a ladder (see the module docstring for each figure)."""

    agent: str
    spec: str
    games: int
    wins: float
    win_share: float
    ci95: tuple[float, float]
    mean_score: float
    mean_rank: float
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative rating ``mu - 3 sigma`` the rows are sorted by."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Ladder:
    """Participants of one game, seat count and rules ranked over the games of ``runs``."""

    game: str
    players: int
    rules: dict
    runs: tuple[Run, ...]
    rows: tuple[LadderRow, ...]

    @property
    def total_games(self) -> int:
        return sum(len(run.games) for run in self.runs)

    @property
    def parity(self) -> float:
        """The win share of an agent no better than its opponents: ``1 / players``."""
        return 1 / self.players


def _need(condition: bool, path: str, message: str) -> None:
    if not condition:
        raise LadderError(f"{path}: {message}")


def _int_list(value: Any, length: int, lo: int, hi: int) -> bool:
    """``value`` is a list of ``length`` integers in ``[lo, hi]``."""
    return isinstance(value, list) and len(value) == length and all(is_int(v) and lo <= v <= hi for v in value)


def _check_game(path: str, index: int, game: Any, players: int, participants: int) -> None:
    where = f"games[{index}]"
    _need(isinstance(game, dict), path, f"{where} is not an object")
    for key in ("seats", "scores", "ranks", "winners"):
        _need(key in game, path, f"{where} has no {key!r}")
    seats, scores, ranks, winners = game["seats"], game["scores"], game["ranks"], game["winners"]
    last = participants - 1
    ok = _int_list(seats, players, 0, last)
    _need(ok, path, f"{where}.seats must be {players} participant indices in 0..{last}, got {seats!r}")
    ok = isinstance(scores, list) and len(scores) == players and all(is_number(s) for s in scores)
    _need(ok, path, f"{where}.scores must be {players} numbers, got {scores!r}")
    ok = _int_list(ranks, players, 1, players)
    _need(ok, path, f"{where}.ranks must be {players} ranks in 1..{players}, got {ranks!r}")
    ok = isinstance(winners, list) and 0 < len(winners) <= players
    ok = ok and all(is_int(w) and 0 <= w < players for w in winners) and len(set(winners)) == len(winners)
    _need(ok, path, f"{where}.winners must be distinct seats in 0..{players - 1}, at least one, got {winners!r}")


def load_run(path: str | Path) -> Run:
    """Read and check one ``results.json``; :class:`LadderError` names the file and what is wrong."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise LadderError(f"{name}: cannot read it ({exc.strerror or exc})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LadderError(f"{name}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from exc
    _need(isinstance(data, dict), name, f"expected a JSON object of format {FORMAT!r}, got {type(data).__name__}")
    found = data.get("format")
    _need(
        found == FORMAT, name, f"format is {found!r}, expected {FORMAT!r} (a results.json of kardinal-evaluate --out)"
    )
    options = data.get("options")
    _need(isinstance(options, dict), name, "no 'options' object")
    for key in ("game", "players", "rules", "agents"):
        _need(key in options, name, f"options has no {key!r}")
    game, players, rules = options["game"], options["players"], options["rules"]
    _need(isinstance(game, str) and game != "", name, f"options.game must be a game name, got {game!r}")
    _need(is_int(players) and players >= 1, name, f"options.players must be a positive integer, got {players!r}")
    _need(isinstance(rules, dict), name, f"options.rules must be an object, got {rules!r}")
    labels = data.get("labels")
    ok = isinstance(labels, list) and labels != [] and all(isinstance(x, str) and x for x in labels)
    _need(ok, name, f"'labels' must be a non-empty list of agent labels, got {labels!r}")
    _need(len(set(labels)) == len(labels), name, f"'labels' repeats a label: {labels!r}")
    specs = options["agents"]
    ok = isinstance(specs, list) and len(specs) == len(labels) and all(isinstance(s, str) for s in specs)
    _need(ok, name, f"options.agents must be {len(labels)} agent specs (one per label), got {specs!r}")
    games = data.get("games")
    _need(isinstance(games, list) and games != [], name, "'games' must be a non-empty list")
    for index, record in enumerate(games):
        _check_game(name, index, record, players, len(labels))
    versions = data.get("versions") if isinstance(data.get("versions"), dict) else {}
    version, commit = str(versions.get("kardinal_env", "unknown")), str(versions.get("git_commit") or "unknown")
    seed = options.get("seed")
    return Run(name, game, players, rules, seed, tuple(labels), tuple(specs), tuple(games), version, commit)


def build_ladder(paths: Iterable[str | Path]) -> Ladder:
    """The ladder of the results files ``paths`` (at least one), pooled in the order given."""
    runs = [load_run(p) for p in paths]
    if not runs:
        raise LadderError("no results file given: a ladder needs at least one results.json")
    first = runs[0]
    specs: dict[str, tuple[str, str]] = {}  # label: (its spec, the first file naming it), in order of appearance
    for run in runs:
        for what in ("game", "players", "rules"):
            mine, theirs = getattr(run, what), getattr(first, what)
            if mine != theirs:
                raise LadderError(
                    f"{run.path}: {what} {mine!r} differs from {theirs!r} in {first.path}; "
                    "a ladder pools one game, seat count and rules"
                )
        for label, spec in zip(run.labels, run.specs):
            seen = specs.setdefault(label, (spec, run.path))
            if seen[0] != spec:
                raise LadderError(
                    f"{run.path}: label {label!r} is agent {spec!r} here but {seen[0]!r} in {seen[1]}; "
                    "a label must name the same agent in every file"
                )

    def seated_games():
        for run in runs:
            for record in run.games:
                seated = [run.labels[i] for i in record["seats"]]
                if len(set(seated)) != len(seated):
                    raise LadderError(f"{run.path}: a game seats the same label twice: {seated!r}")
                yield seated, record

    stats, _ = standings(list(specs), seated_games())
    keys = ("games", "wins", "win_rate", "win_ci95", "mean_score", "mean_rank", "mu", "sigma")
    rows = [LadderRow(label, spec, *(stats[label][key] for key in keys)) for label, (spec, _) in specs.items()]
    rows = [dataclasses.replace(row, ci95=(row.ci95[0], row.ci95[1])) for row in rows]  # a tuple
    rows.sort(key=lambda row: -row.ordinal)
    return Ladder(game=first.game, players=first.players, rules=first.rules, runs=tuple(runs), rows=tuple(rows))


def _wins_text(wins: float) -> str:
    """Wins to two decimals without trailing zeros; 1/k shares' float noise (849.9999999999) rounds away."""
    return f"{wins:.2f}".rstrip("0").rstrip(".")


def _caption(ladder: Ladder) -> str:
    return (
        f"{describe_rules(ladder.game, ladder.rules)}, {ladder.players} players: {ladder.total_games} games "
        f"in {len(ladder.runs)} run{'s' if len(ladder.runs) != 1 else ''}, parity {ladder.parity:.3f}"
    )


def head_to_head(run: Run) -> tuple[str, str] | None:
    """``(agent, opponent)`` labels of a head-to-head run (module docstring), else ``None``. Labels, not specs: a
    file relabelled to tell an agent's earlier version (``pismcts:200 ranked``) from the current one is not pooled."""
    first, rest = run.specs[0], run.specs[1:]
    if rest and first not in rest and len(set(rest)) == 1:
        return run.labels[0], run.labels[1]
    return None


def matrix_markdown(ladder: Ladder) -> str:
    """The head-to-head runs of ``ladder`` as a Markdown matrix (rows: the agent in one seat; columns: the opponent in
    every other seat; both in the ladder's order, best rated first; cells: the row agent's win share, 95% Wilson
    interval, games); an empty string when the ladder has no head-to-head run."""
    wins: dict[tuple[str, str], float] = {}
    games: dict[tuple[str, str], int] = {}
    for run in ladder.runs:
        pair = head_to_head(run)
        if pair is None:
            continue
        for record in run.games:
            seat = list(record["seats"]).index(0)
            wins[pair] = wins.get(pair, 0.0) + win_share(record["winners"], seat)
            games[pair] = games.get(pair, 0) + 1
    if not games:
        return ""
    place = {row.agent: i for i, row in enumerate(ladder.rows)}  # a spec's first copy is labelled by the spec

    def by_rating(specs):
        return sorted(dict.fromkeys(specs), key=lambda spec: place.get(spec, len(place)))

    rows = by_rating(a for a, _ in games)
    cols = by_rating(b for _, b in games)
    copies = ladder.players - 1

    def cell(pair: tuple[str, str]) -> str:
        n = games.get(pair, 0)
        if n == 0:
            return "—"
        lo, hi = wilson_interval(wins[pair], n)
        return f"{wins[pair] / n:.3f} ({lo:.3f}–{hi:.3f}), {n}"

    lines = [
        f"**Head to head: the row's agent in one seat against {copies} cop{'y' if copies == 1 else 'ies'} of the "
        f"column's agent** (its win share, 95% Wilson interval, games; parity {ladder.parity:.3f}).",
        "",
        "| agent (one seat) / against | " + " | ".join(f"`{c}`" for c in cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    lines += [f"| `{a}` | " + " | ".join(cell((a, b)) for b in cols) + " |" for a in rows]
    return "\n".join(lines) + "\n"


def ladder_markdown(ladder: Ladder, source_names: Sequence[str] | None = None) -> str:
    """The ladder as Markdown: caption, table, the definition of a win and the source files (``source_names`` replaces
    the files' paths in that list, e.g. with paths relative to the repository)."""
    names = list(source_names) if source_names is not None else [run.path for run in ladder.runs]
    if len(names) != len(ladder.runs):
        raise ValueError(f"source_names: {len(names)} names for {len(ladder.runs)} runs")
    lines = [
        f"**{_caption(ladder)}.**",
        "",
        "| # | agent | games | wins | win share | 95% CI (Wilson) | mean score | mean rank | μ | σ | ordinal |",
        "|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for place, row in enumerate(ladder.rows, start=1):
        lo, hi = row.ci95
        lines.append(
            f"| {place} | `{row.agent}` | {row.games} | {_wins_text(row.wins)} | {row.win_share:.3f} "
            f"| {lo:.3f}–{hi:.3f} | {row.mean_score:.2f} | {row.mean_rank:.2f} "
            f"| {row.mu:.2f} | {row.sigma:.2f} | {row.ordinal:.2f} |"
        )
    matrix = matrix_markdown(ladder)
    if matrix:
        lines += ["", matrix.rstrip("\n")]
    lines += [
        "",
        f"Wins: {WIN_DEFINITION}. Ratings: OpenSkill Plackett-Luce over every game in order; "
        "ordinal = μ − 3σ. Sources:",
        "",
    ]
    for name, run in zip(names, ladder.runs):
        commit = run.commit[:12] + ("-dirty" if run.commit.endswith("-dirty") else "")
        lines.append(
            f"- `{name}`: {' vs '.join(f'`{spec}`' for spec in run.specs)}, {len(run.games)} games, "
            f"seed {run.seed}, kardinal-env {run.version} (commit `{commit}`)"
        )
    return "\n".join(lines) + "\n"


def plot_ladder(ladder: Ladder, path: str | Path) -> None:
    """A PNG of the ladder: win share with its 95% Wilson interval (parity dashed) and the OpenSkill
    mu with a 3-sigma bar, one row per participant, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(ladder.rows))  # barh draws bottom-up: best at the top
    names = [row.agent for row in rows]
    height = 1.4 + 0.45 * len(rows)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, height), sharey=True)
    shares = [row.win_share for row in rows]
    below = [max(0.0, row.win_share - row.ci95[0]) for row in rows]  # 0, not -1e-16, at a share of 0 or 1
    above = [max(0.0, row.ci95[1] - row.win_share) for row in rows]
    left.barh(names, shares, xerr=[below, above], capsize=3, color="#7e57c2")
    left.axvline(ladder.parity, color="black", linestyle="--", linewidth=1, label=f"parity {ladder.parity:.2f}")
    left.set_xlim(0, 1)
    left.set_xlabel("win share (95% Wilson interval)")
    left.legend(fontsize=8, loc="lower right")
    right.barh(names, [row.mu for row in rows], xerr=[3 * row.sigma for row in rows], capsize=3, color="#26a69a")
    right.set_xlabel("OpenSkill μ (bar: 3σ)")
    fig.suptitle(_caption(ladder), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)


def write_ladder(
    paths: Iterable[str | Path], out_dir: str | Path, name: str, source_names: Sequence[str] | None = None
) -> dict[str, Path]:
    """Build the ladder of ``paths`` and write ``out_dir/NAME.md`` (:func:`ladder_markdown`) and
    ``out_dir/NAME.png`` (:func:`plot_ladder`); return both paths (keys ``markdown``, ``png``)."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name must be a plain file name stem, got {name!r}")
    ladder = build_ladder(paths)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    markdown, png = out / f"{name}.md", out / f"{name}.png"
    markdown.write_text(ladder_markdown(ladder, source_names), encoding="utf-8")
    plot_ladder(ladder, png)
    return {"markdown": markdown, "png": png}


#: What :func:`slim_results` keeps of each game record.
SLIM_GAME_KEYS = ("game", "seed", "seats", "scores", "ranks", "winners")


def slim_results(path: str | Path) -> Path:
    """Rewrite the results file ``path`` in place to what a ladder and the pages read (module docstring); a file
    :func:`load_run` refuses is not rewritten, a slim one is unchanged. Returns the path."""
    load_run(path)
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("rating_history", None)
    data["games"] = [{key: game[key] for key in SLIM_GAME_KEYS if key in game} for game in data["games"]]
    data["slim"] = (
        f"per game only {', '.join(SLIM_GAME_KEYS)}; no rating_history (agents.evaluation.report.slim_results)"
    )
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            items = ",\n".join(f"  {json.dumps(item)}" for item in value)  # one record a line
            lines.append(f" {json.dumps(key)}: [\n{items}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    return path

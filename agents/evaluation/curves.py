"""Strength over training: the checkpoints of training runs played against fixed opponents, against their CPU time.

Library::

    from agents.evaluation.curves import strength_curve, curve_markdown, plot_curves
    rows = strength_curve("runs/search_2p", ["greedy", "mcts:200"], games=100)
    print(curve_markdown({"search": rows}))

Command line::

    python scripts/curve.py runs/search_2p runs/ppo_2p --opponents greedy mcts:200 --games 100 --workers 2 \\
        --out docs/data/curves/kardinal-2p

**Checkpoints.** A run directory's ``checkpoint_{step}.pt`` in step order, each with its recorded ``cpu_seconds`` (its
training chain's process CPU time; ``None`` for an older checkpoint); ``every=k`` keeps every k-th and the last. The
command line reuses ``--out``'s ``curves.json`` rows of the same step, opponent, games and seed (``--fresh``: none).

**Games.** Each checkpoint plays ``games`` games as ``ppo:PATH`` against each opponent
(:func:`agents.evaluation.tournament.evaluate`, the same ``seed`` and deals for every checkpoint); a row per
(checkpoint, opponent): ``step``, ``cpu_seconds``, ``opponent``, ``games``, ``win_rate`` (shared wins count 1/k),
``win_ci95``. :func:`write_curves` writes ``curves.json``, ``curves.md`` (:func:`curve_markdown`) and ``curves.png``
(:func:`plot_curves`: win rate against CPU hours, a panel per opponent, a line per run).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["run_checkpoints", "strength_curve", "curve_markdown", "plot_curves", "write_curves", "main"]

_NUMBERED = re.compile(r"checkpoint_(\d+)\.pt$")


def run_checkpoints(run_dir, every: int = 1) -> list[tuple[str, int, float | None]]:
    """``(path, step, cpu_seconds)`` of ``run_dir``'s checkpoints (module docstring); ``ValueError`` if it has none."""
    import torch

    matches = ((_NUMBERED.search(file.name), str(file)) for file in Path(run_dir).glob("checkpoint_*.pt"))
    found = sorted((int(match.group(1)), path) for match, path in matches if match)
    if not found:
        raise ValueError(f"{run_dir}: no checkpoint_STEP.pt files (set checkpoint_interval when training)")
    if every < 1:
        raise ValueError(f"every must be a positive integer, got {every!r}")
    kept = found[::every]
    if kept[-1] != found[-1]:
        kept.append(found[-1])
    out = []
    for step, path in kept:
        ckpt = torch.load(path, weights_only=True, map_location="cpu")
        cpu = ckpt.get("cpu_seconds")
        out.append((path, step, float(cpu) if cpu is not None else None))
    return out


def strength_curve(
    run_dir,
    opponents: Sequence[str],
    games: int = 100,
    seed: int = 0,
    every: int = 1,
    backend: Any = None,
    progress=None,
    known: Sequence[dict] = (),
) -> list[dict]:
    """The rows of one run (module docstring); ``progress(message)`` after each evaluation. ``known``: rows
    measured before (e.g. an interrupted call's ``curves.json``), not played again (same games and seed)."""
    from agents.evaluation.tournament import Table, evaluate
    from agents.networks.checkpoint import read_checkpoint

    done = {(r["step"], r["opponent"], r["games"], r.get("seed")): r for r in known}
    rows = []
    for path, step, cpu in run_checkpoints(run_dir, every):
        ckpt, _ = read_checkpoint(path, build=False)
        table = Table.of(ckpt["game"], players=ckpt["rules"]["players"])
        for opponent in opponents:
            if (step, opponent, games, seed) in done:
                rows.append(done[(step, opponent, games, seed)])
                continue
            results = evaluate([f"ppo:{path}", opponent], table, games=games, seed=seed, backend=backend)
            mine = results["summary"][0]
            rows.append(
                {
                    "run": str(run_dir),
                    "step": step,
                    "cpu_seconds": cpu,
                    "opponent": opponent,
                    "games": mine["games"],
                    "seed": seed,
                    "win_rate": mine["win_rate"],
                    "win_ci95": list(mine["win_ci95"]),
                }
            )
            if progress is not None:
                progress(f"{run_dir} step {step}: vs {opponent} {mine['win_rate']:.3f}")
    return rows


def _cell(row: dict | None) -> str:
    return "" if row is None else f"{row['win_rate']:.3f} ({row['win_ci95'][0]:.2f}-{row['win_ci95'][1]:.2f})"


def curve_markdown(curves: dict[str, list[dict]]) -> str:
    """A Markdown table per run: step, CPU hours, and the win rate (interval) against each opponent."""
    parts = []
    for label, rows in curves.items():
        opponents = list(dict.fromkeys(r["opponent"] for r in rows))
        games = sorted({r["games"] for r in rows})
        head = f"**{label}** ({'/'.join(map(str, games))} games per point)\n\n"
        head += "| step | CPU hours | " + " | ".join(f"vs `{o}`" for o in opponents) + " |\n"
        head += "|---:|---:|" + "---|" * len(opponents) + "\n"
        by_step: dict[int, dict[str, dict]] = {}
        for r in rows:
            by_step.setdefault(r["step"], {})[r["opponent"]] = r
        lines = []
        for step, cells in sorted(by_step.items()):
            cpu = next(iter(cells.values()))["cpu_seconds"]
            hours = "?" if cpu is None else f"{cpu / 3600:.2f}"
            lines.append(f"| {step:,} | {hours} | " + " | ".join(_cell(cells.get(o)) for o in opponents) + " |")
        parts.append(head + "\n".join(lines) + "\n")
    return "\n".join(parts)


def plot_curves(curves: dict[str, list[dict]], path, title: str = "") -> None:
    """PNG: win rate against CPU hours, one panel per opponent, one line per run (95% bands)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = list(dict.fromkeys(r["opponent"] for rows in curves.values() for r in rows))
    fig, axes = plt.subplots(1, len(opponents), figsize=(5.2 * len(opponents), 3.8), squeeze=False)
    for ax, opponent in zip(axes[0], opponents, strict=True):
        for label, rows in curves.items():
            pts = sorted(
                (r["cpu_seconds"] / 3600, r["win_rate"], *r["win_ci95"])
                for r in rows
                if r["opponent"] == opponent and r["cpu_seconds"] is not None
            )
            if not pts:
                continue
            xs, ys, lo, hi = zip(*pts, strict=True)
            ax.plot(xs, ys, marker="o", label=label)
            ax.fill_between(xs, lo, hi, alpha=0.15)
        ax.set_xlabel("training CPU hours")
        ax.set_ylabel(f"win rate vs {opponent}")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_curves(curves: dict[str, list[dict]], out_dir, title: str = "") -> dict[str, str]:
    """Write ``curves.json``, ``curves.md`` and ``curves.png`` into ``out_dir``; their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {name: os.path.join(out_dir, f"curves.{name}") for name in ("json", "md", "png")}
    Path(paths["json"]).write_text(json.dumps(curves, indent=1) + "\n", encoding="utf-8")
    Path(paths["md"]).write_text(curve_markdown(curves), encoding="utf-8")
    plot_curves(curves, paths["png"], title)
    return paths


def main(argv=None) -> int:
    """``python scripts/curve.py RUN_DIR [RUN_DIR ...] --opponents ... --out DIR``."""
    from agents import AgentSpecError
    from agents.evaluation.backends import ProcessPool, Serial

    parser = argparse.ArgumentParser(prog="curve", description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("runs", nargs="+", help="run directories (label=DIR names a run's line)")
    add("--opponents", nargs="+", default=["greedy"], help="agent specs to play against")
    add("--games", type=int, default=100, help="games per checkpoint and opponent")
    add("--seed", type=int, default=0)
    add("--every", type=int, default=1, help="keep every k-th checkpoint (and the last)")
    add("--workers", type=int, default=1, help="processes playing the games")
    add("--out", required=True, help="folder for curves.json, curves.md and curves.png")
    add("--title", default="")
    add("--fresh", action="store_true", help="play every point again (default: reuse --out's curves.json)")
    ns = parser.parse_args(argv)
    saved = Path(ns.out) / "curves.json"
    previous = json.loads(saved.read_text(encoding="utf-8")) if saved.is_file() and not ns.fresh else {}
    backend = ProcessPool(workers=ns.workers) if ns.workers > 1 else Serial()
    say = functools.partial(print, flush=True)  # a line per point played
    curves = {}
    try:
        for item in ns.runs:
            label, sep, run_dir = item.partition("=")
            if not sep:
                label, run_dir = Path(item).name, item
            known = previous.get(label, ())
            curves[label] = strength_curve(run_dir, ns.opponents, ns.games, ns.seed, ns.every, backend, say, known)
    except (ValueError, AgentSpecError) as exc:
        print(f"error: {exc}")
        return 2
    for path in write_curves(curves, ns.out, ns.title).values():
        print(path)
    return 0

"""Tournaments among agents: the command line of :mod:`agents.evaluation.tournament` (same as ``kardinal-evaluate``).

    python scripts/evaluate.py --help
    python scripts/evaluate.py --agents ppo:runs/default/checkpoint.pt greedy --games 200 --workers 2

The library functions are ``agents.evaluation.tournament.evaluate``, ``format_table``, ``write_outputs``, ...;
they are re-exported here for old imports (``from scripts.evaluate import evaluate``).
"""

import sys

from agents.evaluation.tournament import (
    evaluate,
    format_table,
    lineup,
    main,
    plot_ratings,
    wilson_interval,
    write_outputs,
)

__all__ = ["evaluate", "format_table", "lineup", "main", "plot_ratings", "wilson_interval", "write_outputs"]

if __name__ == "__main__":
    sys.exit(main())

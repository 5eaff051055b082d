"""Tournaments among agents: the command line of :mod:`agents.evaluation.tournament` (same as ``kardinal-evaluate``).

    python scripts/evaluate.py --help
    python scripts/evaluate.py --agents ppo:runs/default/checkpoint.pt greedy --games 200 --workers 2

The library is :mod:`agents.evaluation` (``tournament.evaluate``, ``tournament.Table``, the back-ends in
``backends`` and ``distributed``).
"""

import sys

from agents.evaluation.tournament import main

if __name__ == "__main__":
    sys.exit(main())

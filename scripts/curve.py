"""Strength over training CPU time: the command line of :mod:`agents.evaluation.curves`.

    python scripts/curve.py search=runs/search_2p ppo=runs/ppo_2p --opponents greedy mcts:200 --games 100 \\
        --workers 2 --out docs/data/curves/kardinal-2p
"""

import sys

from agents.evaluation.curves import main

if __name__ == "__main__":
    sys.exit(main())

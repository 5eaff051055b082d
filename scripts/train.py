"""Self-play PPO for Kardinal: the command line of :mod:`agents.training.trainer` (same as ``kardinal-train``).

python scripts/train.py --help
python scripts/train.py --config configs/default.yaml --set total_steps=20000
"""

import sys

from agents.training.trainer import main

if __name__ == "__main__":
    sys.exit(main())

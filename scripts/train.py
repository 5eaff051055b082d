"""Self-play PPO for every registered game: the command line of :mod:`agents.training.trainer` (same as
``kardinal-train``).

python scripts/train.py --help
python scripts/train.py --config configs/default.yaml --set total_steps=20000
python scripts/train.py --config kardinal_koenig:default
"""

import sys

from agents.training.run import main

if __name__ == "__main__":
    sys.exit(main())

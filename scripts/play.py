"""Play Kardinal in the terminal against agents: the command line of :mod:`agents.serving.play` (same as ``kardinal-play``).

python scripts/play.py --agents greedy --save game.json
"""

import sys

from agents.serving.play import main

if __name__ == "__main__":
    sys.exit(main())

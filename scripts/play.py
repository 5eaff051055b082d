"""Play any registered game in the terminal (or, with ``--web``, the browser) against agents: the command
line of :mod:`agents.serving.play` (same as ``kardinal-play``).

python scripts/play.py --agents greedy --save game.json
python scripts/play.py --game kardinal_koenig --agents random
"""

import sys

from agents.serving.play import main

if __name__ == "__main__":
    sys.exit(main())

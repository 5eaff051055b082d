"""The model zoo's command line (:func:`agents.zoo.main`).

python scripts/zoo.py list
python scripts/zoo.py show kardinal-2p
python scripts/zoo.py add kardinal-2p runs/search_2p/checkpoint.pt --force
python scripts/zoo.py average runs/search_2p/swa.pt runs/search_2p/checkpoint_8*.pt
"""

import sys

from agents.zoo import main

if __name__ == "__main__":
    sys.exit(main())

"""The model zoo's command line (:func:`agents.zoo.main`).

python scripts/zoo.py list
python scripts/zoo.py show kardinal-2p
python scripts/zoo.py add kardinal-2p runs/search_2p/checkpoint.pt --force
python scripts/zoo.py average runs/search_2p/swa.pt runs/search_2p/checkpoint_8*.pt
python scripts/zoo.py advise runs/search_2p/advised.pt runs/search_2p/checkpoint.pt --scale 8
python scripts/zoo.py search-defaults runs/k2p.pt agents/zoo/kardinal-2p.pt \
    --batch-size 1 --rollouts 4 --rollout-weight 0.5
"""

import sys

from agents.zoo import main

if __name__ == "__main__":
    sys.exit(main())

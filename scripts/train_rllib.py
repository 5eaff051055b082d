"""League self-play PPO with Ray RLlib: the command line of :mod:`kardinal_env.integrations.rllib_train`.

    python scripts/train_rllib.py --help
    python scripts/train_rllib.py                                              # tiny run, local Ray
    python scripts/train_rllib.py --game kardinal_koenig --players 3           # another registered game
    python scripts/train_rllib.py --address HOST:PORT --num-env-runners 8 --iterations 500   # a cluster

Needs ``pip install "kardinal-env[rllib]"``.
"""

import sys

from kardinal_env.integrations.rllib_train import main

if __name__ == "__main__":
    sys.exit(main())

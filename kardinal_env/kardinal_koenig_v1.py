"""``kardinal_koenig_v1``: the Kardinal & König PettingZoo AEC environment (a PettingZoo-style versioned module).

The environment lives in :mod:`kardinal_env.koenig.env`, whose docstring is the specification (spaces, masks, rewards,
version history) and becomes this module's docstring::

    from kardinal_env import kardinal_koenig_v1
    env = kardinal_koenig_v1.env(players=4)
"""

import kardinal_env.koenig.env as _implementation
from kardinal_env.koenig.env import RENDER_MODES, REWARD_SCHEMES, env, raw_env

__doc__ = _implementation.__doc__
__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]

"""``kardinal_v0``: the Kardinal PettingZoo AEC environment (a PettingZoo-style versioned module).

The environment lives in :mod:`kardinal_env.kardinal.env`, whose docstring is the specification (spaces, masks, rewards,
version history) and becomes this module's docstring::

    from kardinal_env import kardinal_v0
    env = kardinal_v0.env(players=4)
"""

import kardinal_env.kardinal.env as _implementation
from kardinal_env.kardinal.env import RENDER_MODES, REWARD_SCHEMES, env, raw_env

__doc__ = _implementation.__doc__
__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]

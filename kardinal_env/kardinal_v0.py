"""``kardinal_v0``, the Kardinal PettingZoo AEC environment (``kardinal_v0.env(players=4)``): the versioned name of
:mod:`kardinal_env.kardinal.env`, whose docstring (the specification) replaces this one on import."""

import kardinal_env.kardinal.env as _implementation
from kardinal_env.kardinal.env import RENDER_MODES, REWARD_SCHEMES, env, raw_env

__doc__ = _implementation.__doc__
__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]

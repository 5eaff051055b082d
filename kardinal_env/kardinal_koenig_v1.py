"""``kardinal_koenig_v1``, the Kardinal & König PettingZoo AEC environment (``kardinal_koenig_v1.env(players=4)``): the
versioned name of :mod:`kardinal_env.koenig.env`, whose docstring (the specification) replaces this one on import."""

import kardinal_env.koenig.env as _implementation
from kardinal_env.koenig.env import RENDER_MODES, REWARD_SCHEMES, env, raw_env

__doc__ = _implementation.__doc__
__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]

"""``kardinal_koenig_v0``: replaced by :mod:`kardinal_env.kardinal_koenig_v1` (PettingZoo's habit).

v1 deals seeded games with the shared shuffler (:mod:`kardinal_env.core.shuffle`), so a seeded v0
result does not reproduce on v1; observations, actions and rewards are unchanged. Importing this
module works; calling ``env``, ``raw_env``, ``parallel_env`` or ``manual_control`` raises
``DeprecatedEnv`` (an ``ImportError``: PettingZoo's own class) naming ``kardinal_koenig_v1``, as
PettingZoo's deprecated environment modules do.
"""

from typing import Any, NoReturn

try:
    from pettingzoo.utils.deprecated_module import DeprecatedEnv
except ImportError:  # the engines alone

    class DeprecatedEnv(ImportError):  # type: ignore[no-redef]
        """An environment version that was replaced (PettingZoo's ``DeprecatedEnv``)."""


__all__ = ["env", "raw_env", "parallel_env", "manual_control", "DeprecatedEnv"]

MESSAGE = "kardinal_koenig_v0 is now deprecated, use kardinal_koenig_v1 instead"


def env(*args: Any, **kwargs: Any) -> NoReturn:
    raise DeprecatedEnv(MESSAGE)


raw_env = parallel_env = manual_control = env

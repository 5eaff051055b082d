"""``kardinal_koenig_v0``: replaced by :mod:`kardinal_env.kardinal_koenig_v1`, which deals seeded games with the shared
shuffler (a seeded v0 result does not reproduce; observations, actions and rewards are unchanged). As PettingZoo's
deprecated modules do, importing works and calling ``env``, ``raw_env``, ``parallel_env`` or ``manual_control`` raises
``DeprecatedEnv`` (an ``ImportError``) naming v1.
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

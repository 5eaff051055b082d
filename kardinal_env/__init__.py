"""kardinal-env: board games as exact rules engines, PettingZoo/Gymnasium environments and a game protocol that every
tool of the suite speaks.

The games, each a folder with the same module names (``docs/adding-a-game.md``): ``kardinal``
(``kardinal_env.kardinal``, environment ``kardinal_env.kardinal_v0``) and ``kardinal_koenig`` (``kardinal_env.koenig``,
``kardinal_env.kardinal_koenig_v1``). ``kardinal_env.core`` holds what the games share and imports no game;
:class:`kardinal_env.vector.VectorEnv` steps many games.

Importing this package registers the built-in games (:mod:`kardinal_env.games`) and, when gymnasium and pettingzoo are
installed, every registered game's environments with their registries. It imports no engine, no environment, never
``agents``, torch or pygame; the engines need only the standard library.
"""

from importlib.metadata import PackageNotFoundError, version

from kardinal_env import games as _builtin_games  # noqa: F401  (registers the built-in games)
from kardinal_env.core.errors import IllegalMoveError, RecordError
from kardinal_env.core.registry import GameSpec, RuleOption, games, get_game, register_game

try:
    __version__ = version("kardinal-env")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"


def _register_envs_if_available() -> None:
    try:
        import gymnasium  # noqa: F401
        import pettingzoo  # noqa: F401
    except ImportError:  # the engines alone: nothing to register with
        return
    from kardinal_env.core.registration import register

    register()


_register_envs_if_available()

__all__ = [
    "GameSpec",
    "IllegalMoveError",
    "RecordError",
    "RuleOption",
    "get_game",
    "games",
    "register_game",
    "__version__",
]

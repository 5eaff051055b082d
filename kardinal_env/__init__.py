"""kardinal-env: board games as exact rules engines, PettingZoo/Gymnasium environments and a game
protocol that every tool of the suite speaks.

The games (each a folder of its own with the same module names, see ``docs/adding-a-game.md``):

=====================  =====================================  ==========================================
game                   engine                                 environment
=====================  =====================================  ==========================================
``kardinal``           ``kardinal_env.kardinal`` (Game, Rules) ``kardinal_env.kardinal_v0``
``kardinal_koenig``    ``kardinal_env.koenig`` (Game, Rules)   ``kardinal_env.kardinal_koenig_v1``
=====================  =====================================  ==========================================

* ``kardinal_env.core`` — what the games share and which imports no game: the game protocol
  (:mod:`kardinal_env.core.protocol`), the registry of games (:mod:`kardinal_env.core.registry`),
  errors, the turn state of the engines, records' common checks, reward terms and the one win
  definition, the AEC environment base and a generic AEC environment for any registered game, the
  single-agent Gymnasium view, drawing, the HTML replay page, environment registration,
  ``kardinal-replay``.
* :func:`get_game` / :func:`register_game` — the registry (:class:`GameSpec`); importing this
  package registers the two built-in games (:mod:`kardinal_env.games`) and, when gymnasium and
  pettingzoo are installed, the environments of every registered game (now and later) with
  PettingZoo's and Gymnasium's registries. A game from elsewhere is registered with one call or a
  package entry point (``docs/adding-a-game.md``).

The engines need only the standard library; importing ``kardinal_env`` imports no engine, no
environment, and never ``agents``, torch or pygame.
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

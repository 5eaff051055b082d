"""kardinal-env: the Kardinal tile-laying game (Wolfgang Panning, 2000) as a rules engine and RL environment.

``from kardinal_env import Game, Rules, IllegalMoveError`` gives the pure rules engine
(``kardinal_env.engine``), which needs only the standard library; ``kardinal_env.kardinal_v0`` is
the PettingZoo AEC environment. Importing this package registers the environments
(``kardinal_env.registration``) when gymnasium and pettingzoo are installed. It never imports
torch or pygame.
"""

from importlib.metadata import PackageNotFoundError, version

from .engine import BuildChips, Building, Game, LiveView
from .errors import IllegalMoveError, RecordError
from .notation import MalformedMoveError, format_move, parse_move
from .rules import PRESETS, Rules, RulesError

try:
    __version__ = version("kardinal-env")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"


def _register_if_available() -> None:
    try:
        import gymnasium  # noqa: F401
        import pettingzoo  # noqa: F401
    except ImportError:  # the engine alone: nothing to register with
        return
    from .registration import register

    register()


_register_if_available()

__all__ = [
    "Building",
    "BuildChips",
    "Game",
    "IllegalMoveError",
    "LiveView",
    "MalformedMoveError",
    "PRESETS",
    "RecordError",
    "Rules",
    "RulesError",
    "format_move",
    "parse_move",
    "__version__",
]

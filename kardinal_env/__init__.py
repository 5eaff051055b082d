"""kardinal-env: the Kardinal tile-laying game (Wolfgang Panning, 2000) as a rules engine and RL environment.

``from kardinal_env import Game, Rules, IllegalMoveError`` gives the pure rules engine
(``kardinal_env.engine``); ``kardinal_env.kardinal_v0`` is the PettingZoo AEC environment.
Importing this package does not import torch or pygame.
"""

from .engine import Building, Game, IllegalMoveError
from .notation import MalformedMoveError, format_move, parse_move
from .record import RecordError
from .rules import PRESETS, Rules, RulesError

__version__ = "0.1.0"

__all__ = [
    "Building",
    "Game",
    "IllegalMoveError",
    "MalformedMoveError",
    "PRESETS",
    "RecordError",
    "Rules",
    "RulesError",
    "format_move",
    "parse_move",
    "__version__",
]

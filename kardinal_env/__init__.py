"""kardinal-env: the Kardinal tile-laying game (Wolfgang Panning, 2000) as a rules engine and RL environment.

``from kardinal_env import Game, Rules, IllegalMoveError`` gives the pure rules engine
(``kardinal_env.engine``); ``kardinal_env.kardinal_v0`` is the PettingZoo AEC environment.
Importing this package does not import torch or pygame.
"""

from .engine import Building, Game, IllegalMoveError
from .errors import RecordError
from .notation import MalformedMoveError, format_move, parse_move
from .rules import PRESETS, Rules, RulesError

__version__ = "0.1.0"


def _register() -> None:
    """Register ``kardinal/kardinal-v0`` (PettingZoo) and ``kardinal/KardinalVsBots-v0`` (Gymnasium)."""
    import gymnasium
    import pettingzoo

    if "kardinal/kardinal-v0" not in pettingzoo.aec_registry:
        pettingzoo.register("aec", "kardinal/kardinal-v0", entry_point="kardinal_env.kardinal_v0:env")
    if "kardinal/KardinalVsBots-v0" not in gymnasium.registry:
        gymnasium.register(id="kardinal/KardinalVsBots-v0", entry_point="kardinal_env.single_agent:KardinalVsBots")


_register()

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

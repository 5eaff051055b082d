"""Kardinal (Wolfgang Panning, Holzinsel 2000) — a tile-laying game of perfect information.

A pure rules engine, no RL imports::

    from kardinal_env.kardinal import Game, Rules
    game = Game(Rules(players=3, preset="german"))
    while not game.is_over:
        game.play(game.legal_moves()[0])
    game.scores(), game.winners(), game.finishing_order()

Modules (the suite's names): ``engine``, ``rules``, ``notation``, ``record``, ``actions``, ``observation``, ``env``
(``kardinal_env.kardinal_v0``), ``text``, ``render``, ``replay_html``; the game's own: ``state``, ``explain``,
``window``, ``core_game`` / ``compiled`` (the compiled core). ``docs/rules.md`` states the rules.
"""

from kardinal_env.core.errors import IllegalMoveError, RecordError
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.notation import MalformedMoveError, format_move, parse_move
from kardinal_env.kardinal.rules import PRESETS, Rules, RulesError
from kardinal_env.kardinal.state import BuildChips, Building, LiveView

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
]

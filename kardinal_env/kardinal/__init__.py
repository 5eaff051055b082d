"""Kardinal (Wolfgang Panning, Holzinsel 2000) — a tile-laying game of perfect information.

A pure rules engine, no RL imports::

    from kardinal_env.kardinal import Game, Rules
    game = Game(Rules(players=3, preset="german"))
    while not game.is_over:
        game.play(game.legal_moves()[0])
    game.scores(), game.winners(), game.finishing_order()

Modules (the same names as every game of the suite): ``engine`` (the game, implementing the game
protocol of ``kardinal_env.core.protocol``), ``rules`` (options and presets), ``notation`` (move
strings), ``record`` (the ``kardinal-record/1`` format), ``actions`` (the action codec), ``observation``
(the observation encoder), ``env`` (the PettingZoo environment, public as ``kardinal_env.kardinal_v0``),
``text`` (the text picture), ``render`` (the rgb picture), ``replay_html`` (the HTML replay); and the
game's own: ``state`` (the fields of a game and the queries that read them, which ``engine`` changes
move by move), ``explain`` (the rule an illegal move breaks), ``window`` (the lossless window of the
codec and the encoder). Records replay with ``kardinal-replay FILE`` (``kardinal_env.core.replay``).
``docs/rules.md`` states the rules as implemented.
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

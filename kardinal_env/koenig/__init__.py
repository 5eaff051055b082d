"""Kardinal & König (Michael Schacht, 2000; English edition *Web of Power*) — the second game of the suite.

A pure rules engine, no RL imports::

    from kardinal_env.koenig import Game, Rules, IllegalMoveError
    rules = Rules(players=4, discard="one", board=None)   # None = the packaged default board
    game = Game(rules, seed=0)
    while not game.is_over:
        game.play(game.legal_moves()[0])
    game.scores(), game.winners(), game.finishing_order()

Modules (the suite's names): ``engine``, ``rules``, ``notation``, ``record``, ``actions``, ``observation``, ``env``
(``kardinal_env.kardinal_koenig_v1``), ``text``, ``render``, ``replay_html``; the game's own: ``state``, ``explain``,
``deck``, ``board`` (board files and the move table), ``scoring``, ``knowledge`` (what a seat may know of
the cards), ``compiled`` / ``core_game`` (the compiled core). ``docs/rules-koenig.md`` states the rules.
"""

from kardinal_env.core.errors import RecordError
from kardinal_env.koenig.board import BOARD_FORMAT, Board, BoardError, board_names, load_board
from kardinal_env.koenig.engine import PHASES, DeckError, Game, IllegalMoveError
from kardinal_env.koenig.notation import MalformedMoveError, parse_move
from kardinal_env.koenig.rules import Rules, RulesError

__all__ = [
    "BOARD_FORMAT",
    "Board",
    "BoardError",
    "DeckError",
    "Game",
    "IllegalMoveError",
    "MalformedMoveError",
    "PHASES",
    "RecordError",
    "Rules",
    "RulesError",
    "board_names",
    "load_board",
    "parse_move",
]

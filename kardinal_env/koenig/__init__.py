"""Kardinal & König (Michael Schacht, 2000; English edition *Web of Power*) — the second game of the suite.

A pure rules engine, no RL imports::

    from kardinal_env.koenig import Game, Rules, IllegalMoveError
    rules = Rules(players=4, discard="one", board=None)   # None = the packaged default board
    game = Game(rules, seed=0)
    while not game.is_over:
        game.play(game.legal_moves()[0])
    game.scores(), game.winners(), game.finishing_order()

Modules (the same names as every game of the suite): ``engine`` (the game, implementing the game
protocol of ``kardinal_env.core.protocol``), ``rules`` (options), ``notation`` (move strings),
``record`` (the ``kardinal-koenig-record/1`` format), ``actions`` (the action codec: the board's move
table as action ids, the one mask builder), ``observation`` (the observation encoder), ``env`` (the
PettingZoo environment, public as ``kardinal_env.kardinal_koenig_v1``), ``text`` (the text picture),
``render`` (the rgb picture), ``replay_html`` (the HTML replay); and the game's own: ``state`` (the
fields of a game and its queries, which ``engine`` changes move by move), ``explain`` (the rule an
illegal move breaks), ``deck`` (checks of given card orders: ``DeckError``), ``worlds`` (determinized
worlds: ``Game.with_hidden``, ``Game.determinize``), ``board`` (board files: schema, validation,
the move table), ``scoring`` (the three scorings as pure functions),
``knowledge`` (what a seat may know of the cards, and dealing the worlds it cannot tell apart:
``Game.determinize``), ``shuffle`` (the documented card shuffler, the same in the compiled core),
``compiled`` (the compiled core's engine, ``kardinal_core.KoenigGame``, when it is built),
and ``core_game`` (``Game(...)`` backed by it: ``CoreGame``; ``Game(..., backend="python")`` and
``Game.reference(...)`` are always the Python engine; :mod:`kardinal_env.core.backend` decides). Records
replay with ``kardinal-replay FILE`` (``kardinal_env.core.replay``).
``docs/rules-koenig.md`` states the rules as implemented.
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

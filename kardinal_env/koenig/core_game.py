"""The Kardinal & König :class:`~kardinal_env.koenig.engine.Game` backed by the compiled core.

:class:`CoreGame` is a ``Game`` subclass (``isinstance`` and the registry's ``game_of`` hold) whose state lives in a
``kardinal_core.KoenigGame`` (:mod:`kardinal_env.koenig.compiled`). Its public API gives the Python engine's results,
errors included (the same ``IllegalMoveError`` rule and message, the same ``DeckError``; ``live_view`` gives new lists
each call). It adds :attr:`CoreGame.core` (read it, never play on it) and :func:`encode_into` /
:func:`action_mask_into` (also as methods).

**Hidden information.** ``deck_takes`` shows each card only to the seat that saw it; ``determinize`` is the Python
engine's, and :meth:`CoreGame.with_hidden` (so every world) is a world of the Python engine: this position replayed into
it (:meth:`CoreGame.reference_game`), then ``Game.with_hidden`` there.

**Pickling** stores the constructor's arguments (a ``seed=None`` game draws a seed when built) and the move ids, and
replays them.
"""

from __future__ import annotations

import random
from operator import attrgetter
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kardinal_env.core.backend import CoreBacked, core_module, forward_to_core, unavailable
from kardinal_env.core.checks import check_action
from kardinal_env.core.game_base import resolve_rules
from kardinal_env.koenig.board import Board
from kardinal_env.koenig.engine import Cards, Game, Seed
from kardinal_env.koenig.rules import Rules
from kardinal_env.koenig.state import LiveView

if TYPE_CHECKING:  # the engines import no third-party library (tests/test_packaging.py)
    import numpy as np

__all__ = ["CoreGame", "action_mask_into", "core_board", "core_game", "encode_into"]


def _restore(rules: Rules, args: tuple, moves: list[int]) -> CoreGame:
    """Unpickling: the constructor's arguments, then the moves (each checked)."""
    seed, deck, reshuffle = args
    game = CoreGame(rules, seed, deck=deck, reshuffle=reshuffle)
    for m in moves:
        game.apply_action(m)
    return game


def encode_into(game: Any, observer: int, out: np.ndarray, module: ModuleType | None = None) -> np.ndarray:
    """``ObservationEncoder(rules).encode(game, observer)`` written by the core into ``out``
    (:func:`~kardinal_env.koenig.compiled.observation_buffer`; errors: :mod:`~kardinal_env.koenig.compiled`);
    returns ``out``. ``game``: a :class:`Game` (a Python one is replayed into the core) or a ``KoenigGame``."""
    _core_of(game, module).encode_into(observer, out)
    return out


def action_mask_into(
    game: Any, out: np.ndarray, seat: int | None = None, module: ModuleType | None = None
) -> np.ndarray:
    """The environment's mask of ``seat`` (default: the deciding seat) written by the core into ``out``
    (:func:`~kardinal_env.koenig.compiled.mask_buffer`); returns ``out``."""
    _core_of(game, module).action_mask_into(out, seat)
    return out


def core_position(game: Game, module: ModuleType | None = None) -> Any:
    """A new core game in the position of ``game`` (a copy of a core-backed game's core, or the Python
    game's deck, reshuffle and moves replayed). A determinized world has no first deck: ``RuntimeError``."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a kardinal_env.koenig.Game, got {type(game).__name__}")
    if game.compiled:  # a core-backed game: a copy of its core (no replay)
        return game.core.clone()  # type: ignore[attr-defined]
    plan = game.reshuffle_plan if game.reshuffle_order is None else game.reshuffle_order
    core = core_game(game.rules, deck=game.initial_deck, reshuffle=plan, module=module)
    for m in game.to_record()["moves"]:
        core.play(m)
    if core.snapshot()["history"] != game.snapshot()["history"]:
        raise RuntimeError("the compiled core and the Python engine disagree on this game's position")
    return core


def _core_of(game: Any, module: ModuleType | None) -> Any:
    """``game``'s core, the core replay of a Python :class:`Game`, or ``game`` itself (a ``KoenigGame``)."""
    if isinstance(game, Game):
        return game.core if game.compiled else core_position(game, module)  # type: ignore[attr-defined]
    if type(game).__name__ == "KoenigGame" and type(game).__module__ == "kardinal_core":  # the core's own object
        return game
    raise TypeError(f"game must be a kardinal_env.koenig.Game or a kardinal_core.KoenigGame, got {type(game).__name__}")


class CoreGame(CoreBacked, Game):
    """A Kardinal & König game whose state is a ``kardinal_core.KoenigGame`` (module docstring)."""

    __slots__ = ("_core", "_args", "_reference")
    _reference: Game | None

    def __init__(
        self, rules: Rules | None = None, seed: Seed = None, *, deck: Cards = None, reshuffle: Cards = None, **options
    ):
        module = core_module(options.pop("backend", None))
        rules = resolve_rules(rules, options, Rules)
        if module is None:
            raise unavailable("Kardinal & König engine")
        if seed is None:  # a drawn seed (as ShuffleRng(None) draws one), kept so the game can be rebuilt
            seed = random.SystemRandom().getrandbits(64)
        core = core_game(rules, seed, deck=deck, reshuffle=reshuffle, module=module)
        args = (seed, None if deck is None else list(deck), None if reshuffle is None else list(reshuffle))
        self._wrap(rules, core, args, [])

    def _wrap(self, rules: Rules, core: Any, args: tuple, history: list[int]) -> None:
        self.rules = rules
        self.board = rules.compiled
        self._n = rules.players
        self._core = core
        self._args = args
        self._history = history
        self._moves = self._names = self._knowledge = self._reference = None

    def __reduce__(self):
        return (_restore, (self.rules, self._args, list(self._history)))

    # GameState's history, decision_log and deck_takes read _history (which this class keeps too), _by and _takes.
    _by = property(attrgetter("_core.movers"))
    _takes = property(lambda self: self._core.deck_takes_raw())

    def live_view(self) -> LiveView:
        """The Python engine's :class:`LiveView`, built by the core (new lists each call)."""
        return LiveView(*self._core.live_view())

    def hand_counts_view(self, seat: int) -> list[int]:
        return self._core.hand_counts(seat)

    encode_into = encode_into  # the functions below, as methods (game=self): one definition each
    action_mask_into = action_mask_into

    # ------------------------------------------------------------------ hidden information
    def reference_game(self) -> Game:
        """This position replayed into the Python engine (for worlds and tests); cached until the next move:
        do not play on it."""
        ref = self._reference
        if ref is None or ref.move_count != len(self._history):
            seed, deck, reshuffle = self._args
            ref = Game.reference(self.rules, seed, deck=deck, reshuffle=reshuffle)
            for m in self._history:
                ref._apply(m)  # the core's moves: legal
            if ref.snapshot() != self._core.snapshot():
                raise AssertionError("engine bug: the compiled core and the Python engine disagree on this position")
            self._reference = ref
        return ref

    def with_hidden(self, hands: dict[int, list[int]], deck: list[int], seed: int | str | None = None) -> Game:
        """:meth:`Game.with_hidden`: a world of the Python engine (module docstring)."""
        return self.reference_game().with_hidden(hands, deck, seed)

    # ------------------------------------------------------------------ moves
    def legal_actions(self) -> list[int]:
        moves = self._moves
        if moves is None:
            moves = self._moves = self._core.legal_move_ids()
        return moves

    def play(self, move: str) -> None:
        self._core.play(move)  # IllegalMoveError naming the rule, as the Python engine
        self._played(self.board.move_index[move])  # the core played it: a move string of the table

    def apply_action(self, action: int) -> None:
        m = check_action(action, self.board.num_moves)
        self._core.play_id(m)  # IllegalMoveError naming the rule, as the Python engine
        self._played(m)

    def _played(self, m: int) -> None:
        self._history.append(m)
        self._moves = self._names = None

    @classmethod
    def of_core(cls, rules: Rules, core: Any, seed: int, history: list[int]) -> CoreGame:
        """A game around ``core`` (a ``KoenigGame`` with these ``rules``, dealt from ``seed`` and having played
        the move ids ``history``, taken as they are): the batched environment's copies of its games."""
        g = object.__new__(cls)
        g._wrap(rules, core, (int(seed), None, None), [int(m) for m in history])
        return g

    def clone(self) -> CoreGame:
        g = object.__new__(CoreGame)
        g._wrap(self.rules, self._core.clone(), self._args, list(self._history))
        g._moves = self._moves  # replaced after a move, never modified: safe to share
        g._names = self._names
        return g

    def __repr__(self) -> str:
        return repr(self._core).replace("KoenigGame(", "Game(", 1)


forward_to_core(
    CoreGame,
    "hand hand_counts hand_size display deck_size discard_pile pieces_left owners cloister_counts advisor_counts"
    " scores interim_scores final_breakdown scoring_now projected_scores winners finishing_order snapshot",
    "runouts last_round turn_country pieces_this_turn cards_this_turn missed_turns initial_deck reshuffle_order"
    " reshuffle_plan",
)

_boards: dict[int, tuple[Any, Any]] = {}  # id(Board) -> (Board, KoenigBoard): boards are compiled once and shared


def _module_or_raise(module: ModuleType | None) -> ModuleType:
    module = module or core_module()
    if module is None:
        raise unavailable("Kardinal & König engine")
    return module


def core_game(
    rules: Rules, seed: Seed = None, *, deck: Cards = None, reshuffle: Cards = None, module: ModuleType | None = None
) -> Any:
    """A new ``KoenigGame``: ``Game(rules, seed, deck=deck, reshuffle=reshuffle)`` in C++. ``RuntimeError``
    when the core is not used (``ImportError`` under ``KARDINAL_ENV_BACKEND=core``); ``DeckError`` as ``Game``."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a kardinal_env.koenig.Rules, got {type(rules).__name__}")
    module = _module_or_raise(module)
    return module.KoenigGame(core_board(rules.compiled, module), rules.players, rules.discard, seed, deck, reshuffle)


def board_args(board: Board) -> list:
    """The arguments of the core's ``KoenigBoard`` for ``board`` (its tables as plain lists)."""
    return [
        board.name,
        list(board.country_ids),
        list(board.site_ids),
        list(board.site_country),
        list(board.types),
        list(board.counts),
        [list(cs) for cs in board.type_countries],
        [tuple(r) for r in board.roads],
        [tuple(a) for a in board.alliances],
    ]


def core_board(board: Board, module: ModuleType | None = None) -> Any:
    """The core's ``KoenigBoard`` of a :class:`~kardinal_env.koenig.board.Board`, cached (the two move tables
    must be one)."""
    if not isinstance(board, Board):
        raise TypeError(f"board must be a kardinal_env.koenig.board.Board, got {type(board).__name__}")
    module = _module_or_raise(module)
    entry = _boards.get(id(board))
    if entry is None or entry[0] is not board or type(entry[1]).__module__ != module.__name__:
        kb = module.KoenigBoard(*board_args(board))
        if list(kb.moves) != list(board.moves):
            raise RuntimeError(f"the compiled core's move table differs from the Python one on board {board.name!r}")
        entry = _boards[id(board)] = (board, kb)
    return entry[1]

"""The Kardinal :class:`~kardinal_env.kardinal.engine.Game` backed by the compiled core.

:class:`CoreGame` is a ``Game`` subclass (``isinstance`` and the registry's ``game_of`` keep working) whose state lives
in a ``kardinal_core.KardinalGame`` (:mod:`kardinal_env.kardinal.compiled`). It has the Python engine's whole public API
with the same results and adds :attr:`CoreGame.core` (read it, never play on it) and ``encode_into`` /
``action_mask_into``. ``Game(rules, backend="python")`` and ``Game.reference(rules)`` always give the Python engine.

**Errors.** An illegal move raises the Python engine's :class:`~kardinal_env.core.errors.IllegalMoveError`: the rare
error path replays the moves into the Python reference, which explains. **Pickling** stores the rules and the move
codes and replays them.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from kardinal_env.core.backend import CoreBacked, core_module, forward_to_core, unavailable
from kardinal_env.core.game_base import resolve_rules
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.notation import format_move, key_xy
from kardinal_env.kardinal.rules import Rules
from kardinal_env.kardinal.state import PHASES, BuildChips, LiveView

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CoreGame"]

_CORE_OPTIONS = ("players", "shared_pool", "exhausted_colour", "neutral_build_chips", "neutral_touch_chips", "window")


def _restore(rules: Rules, codes: list[tuple]) -> CoreGame:
    """Unpickling: a new core-backed game with ``codes`` replayed (each checked by the core)."""
    game = CoreGame(rules)
    for code in codes:
        game.play_code(code)
    return game


def game_of_module(module: ModuleType, rules: Any) -> Any:
    """A new ``KardinalGame`` of the given core ``module`` with these rules (the one place that
    passes ``Rules`` to the core's constructor)."""
    return module.KardinalGame(*(getattr(rules, name) for name in _CORE_OPTIONS))


class CoreGame(CoreBacked, Game):
    """A Kardinal game whose state is a ``kardinal_core.KardinalGame`` (see the module docstring)."""

    __slots__ = ("_core",)

    def __init__(self, rules: Rules | None = None, seed: int | None = None, *, backend: str | None = None, **options):
        rules = resolve_rules(rules, options, Rules)
        module = core_module(backend)
        if module is None:
            raise unavailable("Kardinal engine")
        self._wrap(rules, game_of_module(module, rules), [])

    def _wrap(self, rules: Rules, core: Any, history: list[tuple]) -> None:
        self.rules = rules
        self._n = rules.players
        self._seat_colours = tuple(rules.seat_colours(s) for s in range(rules.players))
        self._core = core
        self._history: list[tuple] = list(history)
        self._moves = self._text_index = None

    def __reduce__(self):
        return (_restore, (self.rules, list(self._history)))

    # ------------------------------------------------------------------ public state
    def _rows(self) -> list[tuple[int, int, int, tuple[int, ...]]]:
        return [(s, c, b, (k1,) if k2 < 0 else (k1, k2)) for s, c, b, k1, k2 in self._core.buildings()]

    def sites(self) -> list[tuple[int, int]]:
        return [key_xy(k) for k in sorted(self._core.site_summaries())]

    def builds_for(self, seat: int, ignore_cardinal: bool = False) -> list[tuple]:
        return self._core.builds_for(seat, ignore_cardinal)

    def next_builder(self, ignore_cardinal: bool = False) -> tuple[int | None, list[tuple]]:
        return self._core.next_builder(ignore_cardinal)

    def build_chips(self, code: tuple) -> BuildChips:
        ids, colours_of, taken, substitutes, set_aside, cathedral = self._core.build_chips(code)
        # The Python engine lists the regular chips in the iteration order of its set of touched
        # building ids; the core counts them per colour and names the ids in the order the engine
        # adds them to that set, so the same set gives the same order.
        colour_of = dict(zip(ids, colours_of, strict=True))
        left = list(taken)
        colours = []
        for bid in set(ids):
            c = colour_of[bid]
            if c >= 0 and left[c]:
                left[c] -= 1
                colours.append(c)
        return BuildChips(tuple(colours), substitutes, set_aside, cathedral)

    def live_view(self) -> LiveView:
        """The Python engine's :class:`LiveView` built from the core (new containers each call, not live
        references: the observation encoder writes a core game with :meth:`encode_into` instead)."""
        core = self._core
        shapes, colours, _, squares = map(list, zip(*self._rows(), strict=True))
        return LiveView(
            squares,
            shapes,
            colours,
            core.site_summaries(),
            core.cardinal_key,
            core.supply(),
            core.chips(),
            [n for per_colour in core.edifices_left() for n in per_colour],
            core.cathedral_touches(),
            PHASES.index(core.phase),
            core.current_seat,
            core.pending_chips,
        )

    # ------------------------------------------------------------------ observation and mask buffers
    def encode_into(self, observer: int, out: np.ndarray) -> np.ndarray:
        """``ObservationEncoder(rules).encode(self, observer)`` written into ``out``; returns ``out``."""
        self._core.encode_into(observer, out)
        return out

    def action_mask_into(self, out: np.ndarray, seat: int | None = None) -> np.ndarray:
        """``ActionCodec(rules).action_mask(self, seat)`` written into ``out``; returns ``out``."""
        self._core.action_mask_into(out, seat)
        return out

    # ------------------------------------------------------------------ moves
    def _generate(self) -> list[tuple]:
        return self._core.legal_move_codes()

    def legal_actions(self) -> np.ndarray:
        """The core's legal action ids (a new ``int64`` array, the Python engine's ids in its order)."""
        return self._core.legal_action_ids(None)

    def apply_action(self, action: int) -> None:
        try:
            code = self._core.play_action(action)
        except TypeError:  # not an integer, or one wider than 64 bits: nothing was played
            code = None
        if code is None:
            self._raise_illegal(self._code_of(action), None)
        self._played(code)

    def play_code(self, code: tuple) -> None:
        """Play a legal move code (checked once, by the core); :class:`IllegalMoveError` names the rule."""
        self._apply(code)

    def _apply(self, code: tuple) -> None:
        try:
            self._core.play_code(code)
        except (TypeError, ValueError):
            self._raise_illegal(code, code)
        self._played(code)

    def _played(self, code: tuple) -> None:
        self._history.append(code)
        self._moves = self._text_index = None

    @classmethod
    def of_core(cls, rules: Rules, core: Any, history: list[tuple]) -> CoreGame:
        """A game around ``core``, a ``kardinal_core.KardinalGame`` with these ``rules`` that has played
        the move codes ``history`` (taken as they are; the batched environment's copies of its games)."""
        g = object.__new__(cls)
        g._wrap(rules, core, history)
        return g

    def clone(self) -> CoreGame:
        g = CoreGame.of_core(self.rules, self._core.clone(), self._history)
        g._moves = self._moves  # replaced after a move, never modified: safe to share
        g._text_index = self._text_index
        return g

    def reference_game(self) -> Game:
        """This position in the Python reference engine (the moves replayed: for diagnosis and tests)."""
        game = Game.reference(self.rules)
        for code in self._history:
            game._apply(code)  # legal: the core played it
        return game

    def _raise_illegal(self, code: Any, move: object) -> None:
        reference = self.reference_game()
        if move is code or move is None:
            try:
                move = format_move(code)
            except (TypeError, ValueError, IndexError, KeyError):
                move = code
        if reference.is_legal_code(code):
            raise AssertionError(f"engine bug: the core refuses {move!r}, which the Python engine accepts")
        reference._raise_illegal(code, move)
        raise AssertionError("unreachable: the Python engine explains every illegal move")  # pragma: no cover


forward_to_core(
    CoreGame,
    "chips supply set_aside edifices_left cathedral_touches scores winners chips_held projected_holdings"
    " projected_scores is_cardinal_target cardinal_target_keys is_legal_code",
    "cardinal_key last_built pending_chips",
)

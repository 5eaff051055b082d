"""The game protocol: what every engine of the suite offers and what every generic tool may use.

Generic tools talk to a game only through these interfaces and its registry entry
(:class:`kardinal_env.core.registry.GameSpec`). Both engines implement them, and so can a game written elsewhere
(``docs/adding-a-game.md``); the protocol is structural (:class:`typing.Protocol`): an engine inherits nothing here.

:class:`GameState` — one game in progress
======================================  ================================================================================
``rules``                               the game's rules object (its registry entry builds it)
``num_players``                         seats ``0 .. num_players - 1``
``current_player``                      the seat that decides now; ``None`` once the game is over
``is_over``                             ``True`` once the game has ended
``move_count`` / ``history``            moves played so far / their notation strings
``num_actions``                         ids ``0 .. num_actions - 1`` (the environments' ``Discrete`` space; may be
                                        relative to the deciding seat)
``legal_actions()``                     the legal action ids now (a list or 1-D integer array, in the order of
                                        ``legal_moves()``; empty once over)
``apply_action(action)``                play the move with this id; one not legal now raises ``IllegalMoveError`` naming
                                        the broken rule (``"action"`` for a value outside the action space) and changes
                                        nothing
``action_to_string(action)``            the notation of an action id for the deciding seat
``string_to_action(move)``              the action id of a move in notation (``IllegalMoveError`` if malformed);
                                        ``action_to_string(string_to_action(m)) == m``
``legal_moves()``                       the legal moves now (notation, no duplicates, canonical order)
``play(move)``                          play one move in notation; an illegal or malformed one (or any move after the
                                        end) raises :class:`~kardinal_env.core.errors.IllegalMoveError` ``(message,
                                        rule, move)`` and changes nothing. Only that class: the tools take any other
                                        error for an engine bug
``scores()``                            the final scores once over; before, the scores so far or a ``RuntimeError`` for
                                        a game without (Kardinal): tools read ``projected_scores()`` mid-game
``projected_scores()``                  the final scores if the game ended now (shaping, search)
``winners()``                           once over: the seats in first place (several for a shared win); ``RuntimeError``
                                        before
``finishing_order()``                   once over: groups of seats from first place to last, with the game's tie-break
                                        (the first group is ``winners()``); ``RuntimeError`` before, as ``winners()``
``clone()``                             an independent copy (search plays on clones)
``to_record()``                         the game record, a JSON-ready dict whose ``format`` is the registry entry's
                                        ``record_format``
``from_record(record)`` (class method)  the game of a record (in progress if the moves stop early); the error names what
                                        and where
``determinize(seat, rng)``              a full state ``seat`` cannot tell from this one, its hidden parts dealt with
                                        ``rng`` consistently with all the seat has seen. ``rng`` has ``getrandbits(k)``
                                        (``random.Random`` or :class:`~kardinal_env.core.shuffle.ShuffleRng`); a game
                                        needing other draws seeds its own generator with ``rng.getrandbits(64)``. A game
                                        of perfect information without chance returns ``clone()``. The *one* place a
                                        game decides what a seat may know (the encoder reads the same knowledge)
======================================  ================================================================================

:class:`ObservationEncoder` — what a seat sees, as a tensor
==========================  ============================================================================================
``shape`` / ``dtype``       the observation's shape and NumPy dtype
``encode(game, observer)``  the observation of seat ``observer``: only what that seat may know (never another seat's
                            hidden cards or a deck order)
==========================  ============================================================================================

Version history: 2 — integer actions are the protocol (``num_actions``, ``legal_actions()``, ``apply_action``,
``action_to_string``, ``string_to_action``, as OpenSpiel's ``State``); no separate action codec. 1 — first version
(``legal_actions`` in the order of ``legal_moves()``).
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "GameState",
    "ObservationEncoder",
    "PROTOCOL_VERSION",
    "check_protocol",
    "finishing_order_from_keys",
]

PROTOCOL_VERSION = 2


@runtime_checkable
class GameState(Protocol):
    """One game in progress (see the module docstring)."""

    rules: Any

    @property
    def num_players(self) -> int: ...

    @property
    def current_player(self) -> int | None: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def move_count(self) -> int: ...

    @property
    def history(self) -> list[str]: ...

    @property
    def num_actions(self) -> int: ...

    def legal_actions(self) -> Any: ...

    def apply_action(self, action: int) -> None: ...

    def action_to_string(self, action: int) -> str: ...

    def string_to_action(self, move: str) -> int: ...

    def legal_moves(self) -> list[str]: ...

    def play(self, move: str) -> None:
        """Play ``move`` in notation; a refused move raises ``IllegalMoveError`` and no other error type."""

    def scores(self) -> list[int]: ...

    def projected_scores(self) -> list[int]: ...

    def winners(self) -> list[int]:
        """The seats in first place, once the game is over; ``RuntimeError`` before (never a guess)."""

    def finishing_order(self) -> list[list[int]]: ...

    def clone(self) -> GameState: ...

    def to_record(self) -> dict: ...

    def determinize(self, seat: int, rng: random.Random) -> GameState: ...


@runtime_checkable
class ObservationEncoder(Protocol):
    """What a seat sees, as a tensor (see the module docstring)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def encode(self, game: Any, observer: int) -> Any: ...


#: The members of :class:`GameState`, in its order.
_GAME_MEMBERS = (*GameState.__annotations__, *(name for name in vars(GameState) if not name.startswith("_")))


def check_protocol(game: Any) -> None:
    """``TypeError`` naming every member of :class:`GameState` that ``game`` lacks (checked at registration)."""
    missing = [name for name in _GAME_MEMBERS if not hasattr(game, name)]
    if not hasattr(type(game), "from_record"):
        missing.append("from_record")
    if missing:
        raise TypeError(f"{type(game).__qualname__} does not implement the game protocol: missing {missing}")


def finishing_order_from_keys(keys: list[Any]) -> list[list[int]]:
    """Groups of seats by descending ``keys[seat]``, equal keys sharing a group (for ``finishing_order``)."""
    order: list[list[int]] = []
    for seat in sorted(range(len(keys)), key=lambda s: keys[s], reverse=True):
        if order and keys[order[-1][0]] == keys[seat]:
            order[-1].append(seat)
        else:
            order.append([seat])
    return order

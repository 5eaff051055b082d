"""The game protocol: what every engine of the suite offers and what every generic tool may use.

A generic tool (evaluation, search, training, play, replays, the environments' plumbing) talks to a
game only through the three interfaces below and the game's registry entry
(:class:`kardinal_env.core.registry.GameSpec`). Both engines (``kardinal_env.kardinal.Game`` and
``kardinal_env.koenig.Game``) implement them, and so can a game written outside this package
(``docs/adding-a-game.md``). The protocol is structural (:class:`typing.Protocol`): an engine does not
inherit from anything here.

:class:`GameState` — one game in progress
=============================================  =======================================================
``rules``                                      the game's rules object (its registry entry builds it)
``num_players``                                seats ``0 .. num_players - 1``
``current_player``                             the seat that decides now; ``None`` once the game is over
``is_over``                                    ``True`` once the game has ended
``move_count`` / ``history``                   moves played so far / their notation strings
``num_actions``                                the size of the game's action space under its rules: action
                                               ids are ``0 .. num_actions - 1`` (the environments'
                                               ``Discrete`` space; a game may give ids relative to the
                                               seat that decides, as Kardinal does)
``legal_actions()``                            the legal action ids of the current decision (a list or a
                                               1-D integer array; empty once the game is over), in the
                                               order of ``legal_moves()``
``apply_action(action)``                       play the move with this id, checked once: an id that is not
                                               legal now raises ``IllegalMoveError`` naming the rule it
                                               breaks (rule ``"action"`` for anything that is not an id of
                                               the action space) and changes nothing. Every tool plays
                                               through it (environments, ``VectorEnv``, search, training)
``action_to_string(action)``                   the notation of an action id for the seat that decides now
``string_to_action(move)``                     the action id of a move in notation for the seat that decides
                                               now (``IllegalMoveError`` for a malformed move); for a legal
                                               move ``action_to_string(string_to_action(m)) == m``
``legal_moves()``                              the legal moves of the current decision (notation strings,
                                               no duplicates, in the engine's canonical order)
``play(move)``                                 play one move in notation (records, people: the convenience
                                               on top of ``apply_action``); an illegal or malformed one (a move after
                                               the end too) raises
                                               :class:`~kardinal_env.core.errors.IllegalMoveError`
                                               ``(message, rule, move)`` — a ``ValueError`` whose ``rule``
                                               names the rule it breaks — and changes nothing. It must be
                                               that class: the tools catch only it (the batched
                                               ``kardinal_env.vector.VectorEnv``, record replays), so any
                                               other error is taken for a bug of the engine
``scores()``                                   the final scores once the game is over; before the end the
                                               scores so far, or a ``RuntimeError`` for a game that has
                                               none (Kardinal): tools read ``projected_scores()`` mid-game
``projected_scores()``                         the final scores if the game ended now (shaping, search)
``winners()``                                  once the game is over: the seats in first place (shared
                                               wins: several seats). Before the end there are none to
                                               give: it raises ``RuntimeError`` (the engines: "winners()
                                               is only defined once the game is over"); tools ask only
                                               once ``is_over``
``finishing_order()``                          once the game is over: groups of seats from first place to
                                               last, with the game's own tie-break; seats still tied share
                                               a group (the first group is ``winners()``). Before the end,
                                               ``RuntimeError`` as for ``winners()``
``clone()``                                    an independent copy (search plays on clones)
``to_record()``                                the game record (a JSON-ready dict; its ``format`` field
                                               names the record format of the registry entry)
``from_record(record)`` (class method)         the game of a record (a game in progress if the moves stop
                                               early); the record error names what and where
``determinize(seat, rng)``                     a full game state that ``seat`` cannot tell apart from this
                                               one, its hidden parts dealt with ``rng`` consistently with
                                               everything the seat has seen. ``rng`` is a random source
                                               with ``getrandbits(k)``: a ``random.Random``, or the
                                               ``ShuffleRng`` (``kardinal_env.core.shuffle``) that
                                               ``ismcts:N`` passes; a game that needs other draws seeds
                                               its own generator with ``rng.getrandbits(64)``, as
                                               Kardinal & König does. A game of perfect information
                                               without chance returns ``clone()``. This is the *one*
                                               place where a game decides what a seat may know: searches
                                               that need a sampled world call it, and the observation
                                               encoder reads the same knowledge (for Kardinal & König:
                                               ``kardinal_env.koenig.knowledge``)
=============================================  =======================================================

:class:`ObservationEncoder` — what a seat sees, as a tensor
=============================================  =======================================================
``shape`` / ``dtype``                          the observation's shape and NumPy dtype
``encode(game, observer)``                     the observation of seat ``observer``: only what that seat
                                               may know (never another seat's hidden cards or a deck order)
=============================================  =======================================================

Version history: 2 — integer actions are the protocol (``num_actions``, ``legal_actions()``,
``apply_action``, ``action_to_string``, ``string_to_action`` on the game, as OpenSpiel's ``State``); no
separate action codec. 1 — first version (both built-in games; ``legal_actions`` in the order of
``legal_moves()``, as both codecs give them).
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

    def apply_action(self, action: int) -> None:
        """Play the move whose id is ``action``, checked once; ``IllegalMoveError`` naming the rule
        otherwise (rule ``"action"`` for a value that is not an id of the action space)."""
        ...

    def action_to_string(self, action: int) -> str: ...

    def string_to_action(self, move: str) -> int: ...

    def legal_moves(self) -> list[str]: ...

    def play(self, move: str) -> None:
        """Play ``move``. An illegal or malformed move (or any move once the game is over) raises
        :class:`kardinal_env.core.errors.IllegalMoveError` ``(message, rule, move)`` and leaves the game
        unchanged; no other error type: the tools catch only that one (``VectorEnv`` among them)."""
        ...

    def scores(self) -> list[int]: ...

    def projected_scores(self) -> list[int]: ...

    def winners(self) -> list[int]:
        """The seats in first place, once the game is over (several for a shared win). Before the end:
        ``RuntimeError`` ("winners() is only defined once the game is over"), never a guess."""
        ...

    def finishing_order(self) -> list[list[int]]:
        """Groups of seats from first place to last, once the game is over; ``RuntimeError`` before."""
        ...

    def clone(self) -> GameState: ...

    def to_record(self) -> dict: ...

    def determinize(self, seat: int, rng: random.Random) -> GameState: ...


@runtime_checkable
class ObservationEncoder(Protocol):
    """What a seat sees, as a tensor (see the module docstring)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def encode(self, game: Any, observer: int) -> Any: ...


_GAME_MEMBERS = (
    "rules",
    "num_players",
    "current_player",
    "is_over",
    "move_count",
    "history",
    "num_actions",
    "legal_actions",
    "apply_action",
    "action_to_string",
    "string_to_action",
    "legal_moves",
    "play",
    "scores",
    "projected_scores",
    "winners",
    "finishing_order",
    "clone",
    "to_record",
    "determinize",
)


def check_protocol(game: Any) -> None:
    """``TypeError`` naming every member of :class:`GameState` that ``game`` lacks (a registry entry
    checks a new game with it, so a game missing a method fails at registration, not mid-tournament)."""
    missing = [name for name in _GAME_MEMBERS if not hasattr(game, name)]
    if not hasattr(type(game), "from_record"):
        missing.append("from_record")
    if missing:
        raise TypeError(f"{type(game).__qualname__} does not implement the game protocol: missing {missing}")


def finishing_order_from_keys(keys: list[Any]) -> list[list[int]]:
    """Groups of seats by descending ``keys[seat]`` (a comparable tie-break key per seat), equal keys
    sharing a group: the helper an engine uses for :meth:`GameState.finishing_order`."""
    order: list[list[int]] = []
    for seat in sorted(range(len(keys)), key=lambda s: keys[s], reverse=True):
        if order and keys[order[-1][0]] == keys[seat]:
            order[-1].append(seat)
        else:
            order.append([seat])
    return order

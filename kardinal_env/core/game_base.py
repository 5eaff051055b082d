"""What the two rules engines share (``kardinal_env.kardinal.engine``, ``kardinal_env.koenig.engine``).

* :class:`TurnBasedGame` — the public turn state every engine exposes the same way: ``current_player`` (``None`` once
  over), ``phase`` (a name from the engine's ``PHASES``), ``is_over``, ``num_players``, ``move_count``. An engine sets
  ``PHASE_NAMES`` and keeps ``_phase`` (an index into it, the last one meaning over), ``_current``, ``_n`` and
  ``_history``; it also gives the class method ``load(path)``: a record file replayed by the engine's ``from_record``.
* :func:`options_from_dict` — a ``Rules`` object from a record's ``rules`` dict: unknown or missing options are named,
  and the rules' own validation error is prefixed with where the dict came from.
* :func:`resolve_rules` — the one reading of ``Game(rules, **options)`` for both engines and their core-backed games:
  the rules object itself, or the rules class called with the options.
* :func:`core_subclass` — which class each engine's ``Game(..., backend=None)`` builds (its ``__new__``): the
  core-backed ``CoreGame`` when :func:`kardinal_env.core.backend.core_module` says so, the Python engine otherwise; no
  metaclass, nothing registered at import.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from typing import Any, ClassVar, TypeVar

from kardinal_env.core.backend import core_module
from kardinal_env.core.records import read_record_file

__all__ = ["TurnBasedGame", "core_subclass", "options_from_dict", "resolve_rules"]

_G = TypeVar("_G", bound="TurnBasedGame")
_R = TypeVar("_R")


class TurnBasedGame:
    """Mixin of the public turn state (the module docstring); no state of its own."""

    __slots__ = ()
    PHASE_NAMES: ClassVar[tuple[str, ...]]
    _OVER_PHASE: ClassVar[int]
    _phase: int
    _current: int
    _n: int
    _history: list

    @property
    def current_player(self) -> int | None:
        return None if self._phase == self._OVER_PHASE else self._current

    @property
    def phase(self) -> str:
        return self.PHASE_NAMES[self._phase]

    @property
    def is_over(self) -> bool:
        return self._phase == self._OVER_PHASE

    @property
    def num_players(self) -> int:
        return self._n

    @property
    def move_count(self) -> int:
        return len(self._history)

    @classmethod
    def load(cls: type[_G], path: str) -> _G:
        """The game of a record file (``RecordError`` naming the file on any problem)."""
        return cls.from_record(read_record_file(path), source=path)  # type: ignore[attr-defined]


def options_from_dict(cls: Any, data: Any, names: set[str], error: type[Exception], where: str = "rules") -> Any:
    if not isinstance(data, dict):
        raise error(f"{where}: expected an object of rule options, got {type(data).__name__}")
    unknown = sorted(set(data) - names)
    if unknown:
        raise error(f"{where}: unknown option(s) {unknown}; known: {sorted(names)}")
    if "players" not in data:
        raise error(f"{where}: missing option 'players'")
    try:
        return cls(**data)
    except error as exc:
        raise error(f"{where}: {exc}") from None


@functools.cache
def _rule_options(rules_class: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(rules_class) if f.init)


def resolve_rules(rules: _R | None, options: dict, rules_class: type[_R]) -> _R:
    """The rules of ``Game(rules, **options)``: ``rules``, or ``rules_class(**options)``; ``TypeError`` for both, for
    rules not a ``rules_class``, for an unknown option and for no ``players``."""
    if rules is None:
        known = _rule_options(rules_class)  # type: ignore[arg-type]  # a class is hashable
        if "players" not in options or not options.keys() <= set(known):  # the checks only on a bad call
            package = rules_class.__module__.rsplit(".", 1)[0]
            unknown = sorted(set(options) - set(known))
            if unknown:
                raise TypeError(f"{package}.Game: unknown rule option(s) {unknown}; the options are {list(known)}")
            raise TypeError(
                f"{package}.Game needs the number of players: Game(players=N, ...) or "
                f"Game({package}.Rules(players=N, ...)); the options are {list(known)}"
            )
        return rules_class(**options)
    if options:
        raise TypeError("pass either a Rules object or rule options by name, not both")
    if not isinstance(rules, rules_class):
        package = rules_class.__module__.rsplit(".", 1)[0]
        raise TypeError(f"rules must be a {package}.{rules_class.__qualname__}, got {type(rules).__name__}")
    return rules


def core_subclass(cls: type, base: type, backend: str | None, core_module_name: str) -> type:
    """The class ``base(..., backend=backend)`` builds: ``cls`` for a subclass or when not core-backed
    (:func:`kardinal_env.core.backend.core_module` decides), else ``core_module_name``'s ``CoreGame``."""
    if cls is not base or core_module(backend) is None:
        return cls
    return importlib.import_module(core_module_name).CoreGame

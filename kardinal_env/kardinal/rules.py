"""Rule options of ``docs/rules.md`` as one immutable value.

``Rules(players=3, preset="german", shared_pool=False)`` — the preset fills in every option that is
not given by name; an option given by name always wins over the preset.

==========================  ===============================  =============  =============
option                      values                           ``english``    ``german``
==========================  ===============================  =============  =============
``players``                 2, 3, 4                          (required)     (required)
``shared_pool``             bool (3 and 4 players only)      False          False
``exhausted_colour``        ``"none"``, ``"substitute"``     none           substitute
``neutral_build_chips``     ``"put_aside"``, ``"keep"``      put_aside      keep
``neutral_touch_chips``     ``"score"``, ``"none"``          score          none
``window``                  None or an odd int 3..53         None           None
==========================  ===============================  =============  =============

The two ``neutral_*`` options only have an effect in the 3-player game without the shared pool
(the only game with a neutral colour); elsewhere they are recorded but change nothing.

``window`` is this project's variant: ``None`` is the unbounded game of docs/rules.md; an odd ``W``
restricts building and the cardinal to ``|x|, |y| <= W // 2`` (outside: illegal, "window"). Every
legal game stays within ``W = 53`` (``kardinal_env.kardinal.window``), so ``window=53`` equals ``None``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from kardinal_env.core.checks import is_int
from kardinal_env.core.game_base import options_from_dict
from kardinal_env.kardinal.window import check_window

__all__ = ["Rules", "PRESETS", "RulesError"]

PRESETS: dict[str, dict[str, str]] = {
    "english": {"exhausted_colour": "none", "neutral_build_chips": "put_aside", "neutral_touch_chips": "score"},
    "german": {"exhausted_colour": "substitute", "neutral_build_chips": "keep", "neutral_touch_chips": "none"},
}

#: Each option's two values: the English and the German edition's.
_CHOICES = {name: (english, PRESETS["german"][name]) for name, english in PRESETS["english"].items()}


class RulesError(ValueError):
    """An invalid rule option (names the option and the allowed values)."""


@dataclass(frozen=True)
class Rules:
    """All options of one Kardinal game. Immutable and hashable; see the module docstring."""

    players: int
    preset: str = "english"
    shared_pool: bool = False
    exhausted_colour: str | None = None
    neutral_build_chips: str | None = None
    neutral_touch_chips: str | None = None
    window: int | None = None

    def __post_init__(self) -> None:
        if not is_int(self.players) or not 2 <= self.players <= 4:
            raise RulesError(f"players must be 2, 3 or 4, got {self.players!r}")
        if self.preset not in PRESETS:
            raise RulesError(f"preset must be one of {sorted(PRESETS)}, got {self.preset!r}")
        if not isinstance(self.shared_pool, bool):
            raise RulesError(f"shared_pool must be true or false, got {self.shared_pool!r}")
        if self.shared_pool and self.players == 2:
            raise RulesError("shared_pool is a 3- and 4-player variant; players=2 cannot use it")
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value is None:
                object.__setattr__(self, name, PRESETS[self.preset][name])
            elif value not in allowed:
                raise RulesError(f"{name} must be one of {list(allowed)}, got {value!r}")
        check_window(self.window, RulesError, allow_none=True)

    @property
    def has_neutral(self) -> bool:
        """True in the 3-player game without the shared pool (colour 3 is neutral stock)."""
        return self.players == 3 and not self.shared_pool

    def seat_colours(self, seat: int) -> tuple[int, ...]:
        """Colours seat ``seat`` may build, in ascending order."""
        if self.shared_pool:
            return (0, 1, 2, 3)
        return self.owned_colours(seat) + ((3,) if self.has_neutral else ())

    def owned_colours(self, seat: int) -> tuple[int, ...]:
        """Colours whose leftover chips seat ``seat`` takes at the end (none in the shared pool)."""
        if self.shared_pool:
            return ()
        if self.players == 2:
            return (2 * seat, 2 * seat + 1)
        return (seat,)

    def to_dict(self) -> dict:
        """Every option by name (the ``rules`` object of a game record)."""
        return asdict(self)

    def __getstate__(self) -> dict:
        """The options only: the action codec cached on the object is rebuilt on demand."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict, where: str = "rules") -> Rules:
        """Inverse of :meth:`to_dict`; unknown or missing keys raise :class:`RulesError`."""
        return options_from_dict(cls, data, {f.name for f in fields(cls)}, RulesError, where)

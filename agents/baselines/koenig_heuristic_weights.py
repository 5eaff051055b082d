"""The weights of the Kardinal & König ``heuristic``'s value (:mod:`agents.baselines.koenig_heuristic`).

:class:`HeuristicWeights` names them, each a finite number >= 0. What each weighs:
:mod:`agents.baselines.koenig_heuristic_value` (the board: ``rival_max``, ``fill``, ``contest``, ``alliance_one``,
``alliance_two``, ``chain_three``, ``chain_two``, ``horizon``) and :mod:`agents.baselines.koenig_heuristic_plan` (the
hand: ``hand``, ``hand_second``). :data:`DEFAULT_WEIGHTS` are the tuned ones (:mod:`agents.baselines.koenig_tuning`).
:meth:`HeuristicWeights.parse` reads ``"name=value,..."`` as configs write them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from kardinal_env.core.checks import is_number

__all__ = ["DEFAULT_WEIGHTS", "HeuristicWeights"]


@dataclass(frozen=True)
class HeuristicWeights:
    """Weights of the heuristic's value, each finite and >= 0; ``rival_max`` at most 1, ``horizon`` positive."""

    rival_max: float = 0.5
    fill: float = 0.25
    contest: float = 0.3
    alliance_one: float = 0.5
    alliance_two: float = 0.15
    chain_three: float = 0.5
    chain_two: float = 0.15
    hand: float = 0.6
    hand_second: float = 0.25
    horizon: float = 6.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not is_number(value) or not value == value:
                raise ValueError(f"HeuristicWeights.{f.name} must be a number, got {value!r}")
            if value < 0 or value == float("inf"):
                raise ValueError(f"HeuristicWeights.{f.name} must be finite and >= 0, got {value!r}")
        if self.rival_max > 1:
            raise ValueError(f"HeuristicWeights.rival_max must be at most 1, got {self.rival_max!r}")
        if self.horizon <= 0:
            raise ValueError(f"HeuristicWeights.horizon must be positive, got {self.horizon!r}")

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> HeuristicWeights:
        """Weights from a dict of (some of) the fields; an unknown name is an error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"HeuristicWeights: unknown weight(s) {unknown}; known: {sorted(known)}")
        return cls(**data)

    @classmethod
    def parse(cls, text: str) -> HeuristicWeights:
        """Weights from ``"name=value,name=value"`` (others at their defaults), e.g. a config's ``advice_weights``."""
        data: dict[str, float] = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            name, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"HeuristicWeights: expected name=value, got {item!r} in {text!r}")
            try:
                data[name.strip()] = float(value)
            except ValueError:
                raise ValueError(f"HeuristicWeights.{name.strip()}: expected a number, got {value!r}") from None
        return cls.from_dict(data)

    def changed(self) -> dict[str, float]:
        """The weights that differ from the defaults."""
        return {k: v for k, v in self.as_dict().items() if v != getattr(DEFAULT_WEIGHTS, k)}


DEFAULT_WEIGHTS = HeuristicWeights()

"""The agents' registry: one :class:`GameAgents` per game, keyed by the game's name, what the agents layer plays a game
with (the game registry, :mod:`kardinal_env.core.registry`, holds the game's facts). Every tool of ``agents`` asks
:func:`game_agents`; a game without an entry plays with the fields' defaults below (the ``random`` baseline only,
uniform random playouts, no compiled search, the trainer's generic MLP and adapter, a generic text play page).

Registering a game's agents
===========================

The built-in games' entries are :mod:`agents.games`. A game written elsewhere registers its agents
next to its ``register_game`` (a plugin of the game registry may call both: ``tests/third_game.py``)::

    from agents.registry import GameAgents, register_agents
    register_agents(GameAgents(game="nim", baselines={"greedy": NimGreedyAgent}))

or by an entry point of the group :data:`ENTRY_POINT_GROUP` (loaded when :func:`game_agents` is first
asked): a :class:`GameAgents`, a function returning one, or a module that registers its entries when
imported. The Gymnasium view of ``kardinal_env`` finds the opponents' spec loader in the same group:
the first module entry with a ``load_agent`` function (this package declares ``agents = "agents"``).

Fields that name code take the object or a ``"module:attribute"`` string, imported on first use by
:meth:`GameAgents.load` (registering imports no torch, no engine).

=====================  =================================================================================
field                  meaning
=====================  =================================================================================
``game``               the game's name (its :class:`~kardinal_env.core.registry.GameSpec`'s ``name``)
``baselines``          agent kind → agent class (``"greedy"``, ...), built with ``seed=``; every game also has
                       the kinds of :data:`GENERIC_BASELINES` (``random``) without listing them; an entry
                       may list ``random`` only as that agent
``rollout``            ``rollout(game, rng) -> move``: the searches' playout policy (``None``: uniform random)
``compiled_search``    ``compiled_search(game, rng, simulations=, exploration=, widen_base=, margin_weight=)
                       -> [(move, visits, mean reward of the deciding seat), ...] | None``: the root of
                       ``mcts:N`` (:mod:`agents.search.mcts`, playouts with ``rollout``) in compiled code,
                       its children in expansion order; it answers ``None`` when it cannot search this
                       game now (the Python search runs) and draws from ``rng`` only when it searches
``compiled_playout``   ``compiled_playout(game, rng) -> finished game | None``: a copy of ``game`` played to
                       its end by ``rollout``'s policy in compiled code (the same policy, not the same
                       draws; the finished game answers ``scores()``, ``winners()``, ``num_players``); it
                       answers ``None``, without drawing, when it cannot play this game now
``compiled_ismcts``    ``compiled_ismcts(game, rng, simulations=, exploration=, scale=[, guide=, widen=,
                       margin_weight=]) -> [(move, visits, mean value of the deciding seat), ...] | None``:
                       the root of ``ismcts:N`` (:mod:`agents.search.ismcts` without playouts, or guided by
                       the game's ``search_guide``) in compiled code, drawing from ``rng`` exactly as the
                       Python search does; ``None``, without drawing, when it cannot search this game now
``search_guide``       the class guiding ``gismcts:N`` and ``pismcts:N`` (``rollout="guide"``):
                       ``ranked(world, limit) -> [action id, ...]``, the mover's best moves first;
                       ``play_out(world)``, to the game's end; optionally ``root_moves(game, limit, rng,
                       compiled) -> [action id, ...]``, the paired root's children on the real game
``rollout_search``     the agent class of ``rollout:N`` (playouts by the game's strongest baseline), built as
                       ``cls(N, seed=..., game=spec)``
``network``            ``network(rules, config) -> torch.nn.Module``: the trainer's network (``None``: generic MLP)
``adapter``            the self-play trainer's adapter class (``None``: the generic one for flat observations)
``presets``            preset name → training config file (``"kardinal_configs:default.yaml"``)
``play_page``          the browser play page of ``kardinal-play --web`` (an object, or a class or function
                       that makes one without arguments; ``None``: a generic text page)
=====================  =================================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

from kardinal_env.core.registry import GameSpec, entry_point_objects, load_cached

__all__ = [
    "GameAgents",
    "GENERIC_BASELINES",
    "ENTRY_POINT_GROUP",
    "register_agents",
    "unregister_agents",
    "game_agents",
    "registered_agents",
    "load_entry_points",
]

#: The entry point group of packages that provide agents (the module docstring).
ENTRY_POINT_GROUP = "kardinal_env.agents"

#: The baselines every game has without listing them (they use nothing but the game protocol): ``load_agent``, the
#: trainer's evaluation and the Gymnasium view (``opponents="random"``) all play this one ``random``.
GENERIC_BASELINES: Mapping[str, str] = MappingProxyType({"random": "agents.baselines.random:RandomAgent"})


@dataclass(frozen=True, eq=False)
class GameAgents:
    """The agent wiring of one game (the module docstring); every field but ``game`` is optional."""

    game: str
    baselines: Mapping[str, Any] = field(default_factory=dict)
    rollout: Any = None
    compiled_search: Any = None
    compiled_playout: Any = None
    compiled_ismcts: Any = None
    search_guide: Any = None
    rollout_search: Any = None
    network: Any = None
    adapter: Any = None
    presets: Mapping[str, str] = field(default_factory=dict)
    play_page: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.game, str) or not self.game.isidentifier():
            raise ValueError(f"GameAgents.game must be a game's name (an identifier), got {self.game!r}")
        for name in ("baselines", "presets"):
            if not isinstance(getattr(self, name), Mapping):
                raise TypeError(
                    f"GameAgents {self.game!r}: {name} must be a mapping, got {type(getattr(self, name)).__name__}"
                )
        for kind, target in GENERIC_BASELINES.items():
            given = self.baselines.get(kind)
            if given is not None and _target_name(given) != target:
                raise ValueError(
                    f"GameAgents {self.game!r}: baselines[{kind!r}] must be every game's {kind} agent ({target}) "
                    f"or be left out (the trainer and the Gymnasium view play that one), got {given!r}"
                )

    def load(self, field_name: str) -> Any:
        """The object of a field (a ``"module:attribute"`` string imported on first use), or ``None``."""
        where = f"agents of game {self.game!r}, field {field_name!r}"
        return load_cached(self, "_resolved", field_name, getattr(self, field_name), where)

    @property
    def baseline_kinds(self) -> list[str]:
        """Every baseline kind the game plays, sorted: its entry's and :data:`GENERIC_BASELINES`."""
        return sorted({*self.baselines, *GENERIC_BASELINES})

    def has_baseline(self, kind: object) -> bool:
        return isinstance(kind, str) and (kind in self.baselines or kind in GENERIC_BASELINES)

    def baseline(self, kind: str) -> Any:
        """The baseline agent class ``kind``; ``KeyError`` naming the choices."""
        if not self.has_baseline(kind):
            raise KeyError(f"{self.game} has no baseline {kind!r}; its baselines: {self.baseline_kinds}")
        target = self.baselines[kind] if kind in self.baselines else GENERIC_BASELINES[kind]
        return load_cached(self, "_baselines", kind, target, f"agents of game {self.game!r}, baseline {kind!r}")


def _target_name(obj: Any) -> str:
    """``"module:qualname"`` of an object (a string as it is): what a lazy field names."""
    if isinstance(obj, str):
        return obj
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"


_AGENTS: dict[str, GameAgents] = {}
_DEFAULTS: dict[str, GameAgents] = {}
_ENTRY_POINTS_LOADED = False


def register_agents(agents: GameAgents, replace: bool = False) -> GameAgents:
    """Add a game's agent wiring and return it; the same entry again does nothing, another entry for a
    game that has one is a ``ValueError`` unless ``replace``. The game need not be registered yet."""
    if not isinstance(agents, GameAgents):
        raise TypeError(f"register_agents expects a GameAgents, got {type(agents).__name__}")
    old = _AGENTS.get(agents.game)
    if old is agents:
        return agents
    if old is not None and not replace:
        raise ValueError(
            f"the agents of game {agents.game!r} are already registered (pass replace=True to replace them)"
        )
    _AGENTS[agents.game] = agents
    return agents


def unregister_agents(game: str) -> None:
    """Remove a game's agent wiring (it then plays with the defaults); an unknown name does nothing."""
    _AGENTS.pop(game, None)


def game_agents(game: str | GameSpec) -> GameAgents:
    """The agent wiring of ``game`` (a name or ``GameSpec``): its entry, else ``GameAgents(game=name)``."""
    name = game.name if isinstance(game, GameSpec) else game
    if not isinstance(name, str):
        raise TypeError(f"game_agents expects a game's name or GameSpec, got {type(game).__name__}")
    load_entry_points()
    return _AGENTS.get(name) or _DEFAULTS.get(name) or _DEFAULTS.setdefault(name, GameAgents(game=name))


def registered_agents() -> dict[str, GameAgents]:
    """Every registered entry by game name (the built-in games first)."""
    load_entry_points()
    return dict(_AGENTS)


def load_entry_points(force: bool = False) -> None:
    """Register the entries of the entry points of :data:`ENTRY_POINT_GROUP`, once (``force``: again); a
    game that has an entry keeps it. Errors name the entry point."""
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED and not force:
        return
    _ENTRY_POINTS_LOADED = True  # before loading: a module entry may import agents, which asks again
    try:
        for where, obj in entry_point_objects(ENTRY_POINT_GROUP):
            if isinstance(obj, ModuleType):
                continue  # a module registers its entries when it is imported
            agents = obj() if callable(obj) and not isinstance(obj, GameAgents) else obj
            if not isinstance(agents, GameAgents):
                raise TypeError(
                    f"{where} must be a GameAgents, a function returning one or a module, got {type(agents).__name__}"
                )
            if agents.game not in _AGENTS:
                register_agents(agents)
    except BaseException:
        _ENTRY_POINTS_LOADED = False
        raise

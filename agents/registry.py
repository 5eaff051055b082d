"""The agents' registry: one :class:`GameAgents` per game, what the agents layer plays a game with.

The game registry (:mod:`kardinal_env.core.registry`, a :class:`~kardinal_env.core.registry.GameSpec`
per game) holds the facts of a game; this registry holds the agent wiring of a game, keyed by the
game's name: its baselines, the playout policy and compiled hooks of the searches, the trainer's
network and adapter, training presets and the browser play page. Every tool of ``agents`` asks
:func:`game_agents`; a game that has no entry here plays with the generic defaults (the fields'
defaults below: the ``random`` baseline only, uniform random playouts, no compiled search, the
trainer's generic MLP and adapter, the generic text play page).

Registering a game's agents
===========================

The built-in games' entries are registered by this package (:mod:`agents.games`, which importing
``agents`` imports, as importing ``kardinal_env`` registers the built-in games). A game written
elsewhere registers its agents with one call, next to its ``register_game``::

    from agents.registry import GameAgents, register_agents
    register_agents(GameAgents(game="nim", baselines={"greedy": NimGreedyAgent}))

or by a package entry point in the group ``kardinal_env.agents`` (:data:`ENTRY_POINT_GROUP`): its
object is a :class:`GameAgents` or a function returning one (``nim = "my_nim:AGENTS"``), or a module,
imported (one that registers its entries when it is imported). :func:`game_agents` loads the entry
points of installed packages the first time it is asked (:func:`load_entry_points`). The single-agent
Gymnasium view of ``kardinal_env`` (which imports nothing of this package) finds the agent loader of
opponent spec strings in the same group: the first module entry with a ``load_agent`` function (this
package declares ``agents = "agents"``). A game that a script or module registers reaches the
command-line tools as a plugin of the game registry (``--plugin MODULE[:ATTRIBUTE]``,
``KARDINAL_ENV_PLUGINS``): the module imported (or the function called) may call both
``register_game`` and :func:`register_agents` (``tests/third_game.py``: ``third_game:register``).
:func:`unregister_agents` removes an entry.

Fields that name code may be given as the object or as a ``"module:attribute"`` string, which
:meth:`GameAgents.load` imports on first use (so registering imports nothing heavy: no torch, no
engine).

=====================  =================================================================================
field                  meaning
=====================  =================================================================================
``game``               the name of the game (its :class:`~kardinal_env.core.registry.GameSpec`'s ``name``)
``baselines``          agent kind → agent class (``"greedy"``, ...), built with ``seed=``; every game also has
                       the kinds of :data:`GENERIC_BASELINES` (``random``) without listing them
                       (:attr:`GameAgents.baseline_kinds`); an entry may list ``random`` only as that agent
``rollout``            ``rollout(game, rng) -> move``: the fast move policy a search's playouts use
                       (``None``: uniform random)
``compiled_search``    ``compiled_search(game, rng, simulations=, exploration=, widen_base=, margin_weight=)
                       -> [(move, visits, mean reward of the deciding seat), ...] | None``: the root of
                       the ``mcts:N`` search (:mod:`agents.search.mcts`, playouts with ``rollout``) in
                       compiled code, its children in expansion order, or ``None`` (none); it answers
                       ``None`` when it cannot search this game now (then the Python search runs) and
                       draws from ``rng`` only when it searches
``compiled_playout``   ``compiled_playout(game, rng) -> finished game | None``: a copy of ``game`` played to
                       its end by ``rollout``'s policy in compiled code (the same policy, not the same
                       random draws; the finished game answers ``scores()``, ``winners()`` and
                       ``num_players``), or ``None`` (none); it answers ``None``, without drawing,
                       when it cannot play this game now (then the Python policy plays)
``compiled_ismcts``    ``compiled_ismcts(game, rng, simulations=, exploration=, scale=[, guide=, widen=,
                       margin_weight=]) -> [(move, visits, mean value of the deciding seat), ...] | None``:
                       the root of the ``ismcts:N`` search (:mod:`agents.search.ismcts` without
                       playouts, or guided by ``guide``, the game's ``search_guide``) in compiled code, drawing
                       from ``rng`` exactly as the Python search does (the same move), or ``None`` (none); it
                       answers ``None``, without drawing, when it cannot search this game now
``search_guide``       a class whose instances guide ``gismcts:N`` and ``pismcts:N``
                       (:mod:`agents.search.ismcts` with ``rollout="guide"``): ``ranked(world, limit) ->
                       [action id, ...]``, the mover's best moves, best first; ``play_out(world)``, to the
                       game's end; optionally ``root_moves(game, limit, rng, compiled) -> [action id, ...]``,
                       the paired root's children on the real game; or ``None`` (none)
``rollout_search``     the agent class of ``rollout:N`` (a search whose playouts are the game's strongest
                       baseline), built as ``cls(N, seed=..., game=spec)``, or ``None`` (the game has none)
``network``            ``network(rules, config) -> torch.nn.Module``: the policy/value network builder of
                       the self-play trainer, or ``None`` (the trainer's generic MLP)
``adapter``            the self-play trainer's adapter class for the game, or ``None`` (the generic one
                       for flat observations)
``presets``            preset name → training config file (``"kardinal_configs:default.yaml"``)
``play_page``          the browser play page of ``kardinal-play --web`` (an object, or a class or function
                       that makes one without arguments), or ``None`` (a generic text page)
=====================  =================================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

from kardinal_env.core.registry import GameSpec, resolve

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

#: The entry point group of packages that provide agents: a :class:`GameAgents` (or a function
#: returning one), or a module imported for the entries it registers and, for the single-agent view of
#: ``kardinal_env``, its ``load_agent`` function.
ENTRY_POINT_GROUP = "kardinal_env.agents"

#: The baselines every game has without its entry listing them: agents that use nothing but the game
#: protocol (``legal_moves``), so they play any game. ``random``: a uniformly random legal move
#: (:class:`agents.baselines.random.RandomAgent`). This is the one definition of ``random``:
#: ``agents.load_agent``, ``parse_spec`` and ``check_spec`` look it up here through
#: :meth:`GameAgents.baseline`, and the trainer's evaluation and the Gymnasium view
#: (``kardinal_env.core.single_agent.VsBots``, ``opponents="random"``) play the same uniform choice
#: among the legal moves from their own seeded streams, for every game. An entry may list ``random``
#: only as this agent (a game-specific ``random`` would disagree with them).
GENERIC_BASELINES: Mapping[str, str] = MappingProxyType({"random": "agents.baselines.random:RandomAgent"})


@dataclass(frozen=True, eq=False)
class GameAgents:
    """The agent wiring of one game (see the module docstring for every field); every field but
    ``game`` is optional, and left out it is the generic default."""

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
        """The object of a field (imports a ``"module:attribute"`` string on first use); ``None`` for an
        optional field that is not set."""
        value = getattr(self, field_name)
        cache = self.__dict__.setdefault("_resolved", {})
        if field_name not in cache:
            try:
                cache[field_name] = resolve(value)
            except (ImportError, AttributeError) as exc:
                raise type(exc)(f"agents of game {self.game!r}, field {field_name!r}: {exc}") from exc
        return cache[field_name]

    @property
    def baseline_kinds(self) -> list[str]:
        """Every baseline kind the game plays, sorted: its entry's ``baselines`` and the generic ones
        (:data:`GENERIC_BASELINES`: ``random``), which every game has without listing them."""
        return sorted({*self.baselines, *GENERIC_BASELINES})

    def has_baseline(self, kind: object) -> bool:
        """Whether ``kind`` is one of :attr:`baseline_kinds`."""
        return isinstance(kind, str) and (kind in self.baselines or kind in GENERIC_BASELINES)

    def baseline(self, kind: str) -> Any:
        """The baseline agent class ``kind`` of this game (one of :attr:`baseline_kinds`: its entry's, or
        a generic one such as ``random``); ``KeyError`` naming the choices otherwise."""
        if not self.has_baseline(kind):
            raise KeyError(f"{self.game} has no baseline {kind!r}; its baselines: {self.baseline_kinds}")
        cache = self.__dict__.setdefault("_baselines", {})
        if kind not in cache:
            cache[kind] = resolve(self.baselines[kind] if kind in self.baselines else GENERIC_BASELINES[kind])
        return cache[kind]


def _target_name(obj: Any) -> str:
    """``"module:qualname"`` of an object (a string as it is): what a lazy field names."""
    if isinstance(obj, str):
        return obj
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"


_AGENTS: dict[str, GameAgents] = {}
_DEFAULTS: dict[str, GameAgents] = {}
_ENTRY_POINTS_LOADED = False


def register_agents(agents: GameAgents, replace: bool = False) -> GameAgents:
    """Add a game's agent wiring; returns it. Registering the same entry again does nothing new;
    another entry for a game that has one is a ``ValueError`` (unless ``replace``). The game need not be
    registered yet (its ``register_game`` may come later)."""
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
    """Remove a game's agent wiring (the game then plays with the generic defaults); an unknown name
    does nothing."""
    _AGENTS.pop(game, None)


def game_agents(game: str | GameSpec) -> GameAgents:
    """The agent wiring of ``game`` (a game's name or :class:`~kardinal_env.core.registry.GameSpec`):
    its registered entry, else the generic defaults (``GameAgents(game=name)``, one per name)."""
    name = game.name if isinstance(game, GameSpec) else game
    if not isinstance(name, str):
        raise TypeError(f"game_agents expects a game's name or GameSpec, got {type(game).__name__}")
    load_entry_points()
    found = _AGENTS.get(name)
    if found is not None:
        return found
    if name not in _DEFAULTS:
        _DEFAULTS[name] = GameAgents(game=name)
    return _DEFAULTS[name]


def registered_agents() -> dict[str, GameAgents]:
    """Every registered entry by game name (the built-in games first, then those of entry points)."""
    load_entry_points()
    return dict(_AGENTS)


def load_entry_points(force: bool = False) -> None:
    """Register the entries of installed packages' entry points (group :data:`ENTRY_POINT_GROUP`; the
    object is a :class:`GameAgents`, a function returning one, or a module, imported). Done once, the
    first time :func:`game_agents` is asked (``force``: look again). A game that already has an entry
    keeps it. An entry point that cannot be loaded or gives no :class:`GameAgents` raises an error
    naming it."""
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED and not force:
        return
    from importlib.metadata import entry_points

    _ENTRY_POINTS_LOADED = True
    try:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            where = f"entry point {ep.name!r} ({ep.value}) of group {ENTRY_POINT_GROUP!r}"
            try:
                obj = ep.load()
            except Exception as exc:
                raise ImportError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from exc
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

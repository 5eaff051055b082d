"""The registry of games: one :class:`GameSpec` per game, and the only place tools look a game up.

Every tool (environments' registration, replays, evaluation, training, play, search) asks the registry; outside a game's
own folder and this registry no code compares game names or module paths.

Registering a game
==================

The built-in games (``kardinal``, ``kardinal_koenig``) are registered by ``kardinal_env`` (:mod:`kardinal_env.games`). A
game written elsewhere is registered with one call::

    from kardinal_env.core.registry import GameSpec, register_game
    register_game(GameSpec(name="nim", title="Nim", players=(2, 3), default_players=2,
                           rules_class=NimRules, game_class=NimGame, record_format="nim-record/1",
                           observation=NimEncoder, renderers=Renderers(text=nim_text)))

or by an entry point in the group ``kardinal_env.games`` (a :class:`GameSpec` or a function returning one), loaded the
first time :func:`games` is asked. The command-line tools load a module's games as a **plugin** (:func:`load_plugins`):
``--plugin MODULE[:ATTRIBUTE]`` or ``KARDINAL_ENV_PLUGINS`` (:data:`PLUGINS_ENV`, which spawned processes see too).
``docs/adding-a-game.md`` walks through a whole game. Names, record formats, ``env_id`` and ``gym_id`` are unique
(:func:`register_game`); :func:`unregister_game` removes a game; :func:`on_register` tells a listener about every game
(un)registered.

Fields that name code may be the object or a ``"module:attribute"`` string, imported on first use
(:meth:`GameSpec.load`). A spec holds the game's facts only; what plays it is registered by the agents' package.

=======================  ===============================================================================================
field                    meaning
=======================  ===============================================================================================
``name``                 the game's name in every tool (``--game NAME``, ``TrainConfig.game``)
``title``                a human-readable title
``players``              the seat counts the game supports; ``default_players`` the one tools use by default
``rules_class``          ``rules_class(players=n, **options)`` builds rules; ``rules_class.from_dict(d)`` reads a
                         record's ``rules`` dict; ``rules.to_dict()`` writes it
``game_class``           ``game_class(rules, seed=None)`` starts a game (a :class:`~kardinal_env.core.protocol.
                         GameState`; a game without chance ignores the seed); ``game_class.from_record(r)``
``record_format``        the ``format`` string of the game's records (replays find the game by it)
``observation``          ``observation(rules, **env_options)``: the observation encoder
``renderers``            how the game is drawn, a :class:`Renderers`: ``text(game, seat=None) -> str``, the text picture
                         (``seat``: whose view; required); ``image(game) -> uint8 H×W×3`` array, or ``None``;
                         ``html_replay(record, path, source=None) -> str``, which writes a self-contained HTML replay of
                         a record to ``path`` and returns the path, or ``None``
``env_module``           the PettingZoo module (``env()``, ``raw_env``) or ``None`` (then the generic
                         :class:`kardinal_env.core.generic_env.GameEnv` wraps the game and its encoder)
``env_id`` / ``gym_id``  the PettingZoo id and the id of the single-agent Gymnasium view
                         (:class:`kardinal_env.core.single_agent.VsBots`), or ``None``
``chance``               whether the game deals or shuffles (then ``seed`` matters)
``perfect_information``  whether every seat sees everything (else ``determinize`` deals hidden cards)
``rule_options``         the rules' options besides ``players`` as :class:`RuleOption` (command-line flags)
=======================  ===============================================================================================
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kardinal_env.core.checks import is_int

__all__ = [
    "GameSpec",
    "Renderers",
    "RuleOption",
    "register_game",
    "unregister_game",
    "on_register",
    "load_entry_points",
    "get_game",
    "games",
    "game_names",
    "game_of",
    "game_for_record",
    "resolve",
    "seat_counts",
    "UnknownGameError",
    "ENTRY_POINT_GROUP",
    "PLUGINS_ENV",
    "load_plugins",
    "load_cached",
    "entry_point_objects",
]

ENTRY_POINT_GROUP = "kardinal_env.games"
#: Comma-separated ``module`` or ``module:attribute`` plugins, loaded the first time :func:`games` is asked.
PLUGINS_ENV = "KARDINAL_ENV_PLUGINS"


class UnknownGameError(ValueError):
    """A game name (or record format) that no registered game has; the message names the choices."""


def resolve(target: Any) -> Any:
    """``target`` itself, or what a string names: ``"module:attribute"`` or ``"module"`` (imported now)."""
    if not isinstance(target, str):
        return target
    module_name, sep, attribute = target.partition(":")
    if not module_name or (sep and not attribute):
        raise ValueError(f"expected 'module:attribute' or 'module', got {target!r}")
    obj: Any = importlib.import_module(module_name)
    if not sep:
        return obj
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(f"{target!r}: {module_name} has no attribute {attribute!r}") from None
    return obj


def load_cached(owner: Any, cache_name: str, key: str, target: Any, where: str) -> Any:
    """:func:`resolve` ``target`` once per ``key`` (cached in ``owner.__dict__[cache_name]``, for frozen dataclasses);
    an import error is prefixed with ``where``."""
    cache = owner.__dict__.setdefault(cache_name, {})
    if key not in cache:
        try:
            cache[key] = resolve(target)
        except (ImportError, AttributeError) as exc:
            raise type(exc)(f"{where}: {exc}") from exc
    return cache[key]


def entry_point_objects(group: str) -> Iterator[tuple[str, Any]]:
    """``(where, object)`` of each entry point of ``group``; ImportError naming one that cannot be loaded."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=group):
        where = f"entry point {ep.name!r} ({ep.value}) of group {group!r}"
        try:
            obj = ep.load()
        except Exception as exc:
            raise ImportError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from exc
        yield where, obj


@dataclass(frozen=True)
class RuleOption:
    """A rules option besides ``players``, the flag ``--name``; ``kind``: ``"choice"`` (one of ``choices``), ``"flag"``
    (a boolean switch, default off) or ``"str"`` (free text such as a file path)."""

    name: str
    kind: str
    help: str
    choices: tuple[str, ...] = ()
    default: Any = None

    def __post_init__(self) -> None:
        if self.kind not in ("choice", "flag", "str"):
            raise ValueError(f"RuleOption {self.name!r}: kind must be choice, flag or str, got {self.kind!r}")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"RuleOption {self.name!r}: a choice needs choices")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Renderers:
    """How a game is drawn (the module docstring's ``renderers``)."""

    text: Any
    image: Any = None
    html_replay: Any = None


@dataclass(frozen=True, eq=False)
class GameSpec:
    """One game of the suite (see the module docstring for every field)."""

    name: str
    title: str
    players: tuple[int, ...]
    default_players: int
    rules_class: Any
    game_class: Any
    record_format: str
    observation: Any
    renderers: Renderers
    env_module: Any = None
    env_id: str | None = None
    gym_id: str | None = None
    chance: bool = False
    perfect_information: bool = True
    rule_options: tuple[RuleOption, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"GameSpec.name must be an identifier, got {self.name!r}")
        if not self.players or any(not isinstance(p, int) or p < 1 for p in self.players):
            raise ValueError(f"GameSpec {self.name!r}: players must be positive seat counts, got {self.players!r}")
        if self.default_players not in self.players:
            raise ValueError(
                f"GameSpec {self.name!r}: default_players {self.default_players} is not one of {list(self.players)}"
            )
        if not isinstance(self.renderers, Renderers):
            raise TypeError(
                f"GameSpec {self.name!r}: renderers must be a Renderers, got {type(self.renderers).__name__}"
            )

    def load(self, field_name: str) -> Any:
        """The object of a field, imported on first use; ``None`` for an optional field not set."""
        where = f"game {self.name!r}, field {field_name!r}"
        return load_cached(self, "_resolved", field_name, getattr(self, field_name), where)

    def renderer(self, kind: str) -> Any:
        """The ``"text"``, ``"image"`` or ``"html_replay"`` renderer, imported on first use; ``None`` if unset."""
        return load_cached(
            self, "_renderers", kind, getattr(self.renderers, kind), f"game {self.name!r}, renderer {kind!r}"
        )

    @property
    def env_name(self) -> str:
        """The environment's versioned name (``kardinal_v0``): its module's ``metadata["name"]``, else ``NAME_v0``."""
        if self.env_module is None:
            return f"{self.name}_v0"
        return self.load("env_module").raw_env.metadata["name"]

    @property
    def previous_envs(self) -> tuple[str, ...]:
        """Earlier env names with the same spaces (their checkpoints load): the module's
        ``metadata["previous_names"]``."""
        if self.env_module is None:
            return ()
        return tuple(self.load("env_module").raw_env.metadata.get("previous_names", ()))

    def check_players(self, players: int | None) -> int:
        """``players`` (the default when ``None``) if the game supports it; ``ValueError`` otherwise."""
        if players is None:
            return self.default_players
        if not is_int(players) or players not in self.players:
            raise ValueError(f"{self.name} plays {seat_counts(self.players)} players, got {players!r}")
        return players

    def rules(self, players: int | None = None, **options: Any) -> Any:
        """Rules for ``players`` seats (``None`` options keep defaults); ``ValueError`` naming the options for an
        unknown one."""
        known = {o.name for o in self.rule_options}
        given = {k: v for k, v in options.items() if v is not None}
        if unknown := sorted(set(given) - known):
            raise ValueError(f"{self.name} has no rule option(s) {unknown}; its options: {sorted(known) or 'none'}")
        return self.load("rules_class")(players=self.check_players(players), **given)

    def rules_from_dict(self, data: dict) -> Any:
        return self.load("rules_class").from_dict(data)

    def new_game(self, rules: Any = None, seed: int | None = None, backend: str | None = None) -> Any:
        """A new game under ``rules`` (default rules when ``None``); ``backend`` goes to a game class with a compiled
        core."""
        chosen = {} if backend is None else {"backend": backend}
        return self.load("game_class")(self.rules() if rules is None else rules, seed=seed, **chosen)

    def from_record(self, record: dict, source: str = "record") -> Any:
        return self.load("game_class").from_record(record, source=source)

    def make_encoder(self, rules: Any, **env_options: Any) -> Any:
        return self.load("observation")(rules, **env_options)

    def game_text(self, game: Any, seat: int | None = None) -> str:
        return self.renderer("text")(game, seat)


def seat_counts(players: Sequence[int]) -> str:
    """A game's player counts for messages: ``"2-4"`` for a run, else ``"2, 4"``."""
    ordered = sorted(players)
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 1:
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(map(str, ordered))


_GAMES: dict[str, GameSpec] = {}
_ENTRY_POINTS_LOADED = False
_ENV_PLUGINS_LOADED = False
_LISTENERS: list[Callable[[GameSpec], None]] = []
_UNREGISTER_LISTENERS: list[Callable[[GameSpec], None]] = []


def register_game(spec: GameSpec, replace: bool = False) -> GameSpec:
    """Add ``spec`` (again: a no-op), tell the listeners and return it. ``ValueError`` for a name (unless ``replace``),
    record format, ``env_id`` or ``gym_id`` another game has; a game whose classes are objects is started with default
    rules and checked against the protocol (``TypeError``). A failing listener undoes the registration."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register_game expects a GameSpec, got {type(spec).__name__}")
    old = _GAMES.get(spec.name)
    if old is spec:
        return spec
    if old is not None and not replace:
        raise ValueError(f"a game named {spec.name!r} is already registered (pass replace=True to replace it)")
    for other in _GAMES.values():
        for attribute in ("record_format", "env_id", "gym_id"):
            value = getattr(spec, attribute)
            if other.name != spec.name and value is not None and value == getattr(other, attribute):
                raise ValueError(
                    f"GameSpec {spec.name!r}: {attribute} {value!r} already belongs to game {other.name!r}"
                )
    if not isinstance(spec.game_class, str) and not isinstance(spec.rules_class, str):
        from kardinal_env.core.protocol import check_protocol

        try:
            game = spec.new_game()
        except Exception as exc:
            raise TypeError(f"GameSpec {spec.name!r}: cannot start a game with the default rules: {exc}") from exc
        check_protocol(game)
    if old is not None:
        _notify(_UNREGISTER_LISTENERS, old)
    _GAMES[spec.name] = spec
    try:
        _notify(_LISTENERS, spec)
    except BaseException:
        _notify(_UNREGISTER_LISTENERS, spec, quiet=True)
        del _GAMES[spec.name]
        if old is not None:
            _GAMES[spec.name] = old
            _notify(_LISTENERS, old, quiet=True)
        raise
    return spec


def _notify(listeners: list[Callable[[GameSpec], None]], spec: GameSpec, quiet: bool = False) -> None:
    for listener in list(listeners):
        try:
            listener(spec)
        except Exception:
            if not quiet:
                raise


def unregister_game(name: str) -> None:
    """Remove a game and tell the unregister listeners; an unknown name does nothing."""
    spec = _GAMES.pop(name, None)
    if spec is not None:
        _notify(_UNREGISTER_LISTENERS, spec)


def on_register(listener: Callable[[GameSpec], None], on_unregister: Callable[[GameSpec], None] | None = None) -> None:
    """Call ``listener(spec)`` for each game registered now and later, ``on_unregister(spec)`` for each unregistered."""
    _LISTENERS.append(listener)
    if on_unregister is not None:
        _UNREGISTER_LISTENERS.append(on_unregister)
    for spec in list(_GAMES.values()):
        listener(spec)


def _spec_of(obj: Any, must: str) -> GameSpec:
    """An entry point's or plugin's object: a spec, or a function returning one, called; else TypeError ``must ...``."""
    spec = obj() if callable(obj) and not isinstance(obj, GameSpec) else obj
    if not isinstance(spec, GameSpec):
        raise TypeError(f"{must} a GameSpec or a function returning one, got {type(spec).__name__}")
    return spec


def load_entry_points(force: bool = False) -> None:
    """Register the games of :data:`ENTRY_POINT_GROUP` once (``force``: again), keeping names taken; errors name the
    entry point."""
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED and not force:
        return
    for where, obj in entry_point_objects(ENTRY_POINT_GROUP):
        spec = _spec_of(obj, f"{where} must be")
        if spec.name not in _GAMES:
            register_game(spec)
    _ENTRY_POINTS_LOADED = True


def load_plugins(plugins: str | Iterable[str] | None, source: str = "--plugin") -> list[GameSpec]:
    """Load game plugins (a list or one comma-separated string) and return the games they registered, in order, each
    once. A plugin is ``"module"`` (registering its games when imported) or ``"module:attribute"`` (a :class:`GameSpec`
    or a function returning one). Loading one again does nothing new. Errors name the plugin and ``source``:
    ``ImportError`` (cannot be imported), ``TypeError`` (no :class:`GameSpec`), ``ValueError`` (name, record format or
    ids of another game)."""
    names = plugins.split(",") if isinstance(plugins, str) else plugins or ()
    loaded: list[GameSpec] = []
    for name in (raw.strip() for raw in names):
        if not name:
            continue
        where = f"plugin {name!r} ({source})"
        before = dict(_GAMES)
        try:
            obj = resolve(name)
        except Exception as exc:
            raise ImportError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from exc
        if ":" in name:
            try:
                spec = register_game(_spec_of(obj, "must name"))
            except (TypeError, ValueError) as exc:
                raise (TypeError if isinstance(exc, TypeError) else ValueError)(f"{where}: {exc}") from exc
            if spec not in loaded:
                loaded.append(spec)
        loaded += [s for n, s in _GAMES.items() if before.get(n) is not s and s not in loaded]
    return loaded


def games() -> dict[str, GameSpec]:
    """Every registered game by name: the built-in ones, then those of entry points and of :data:`PLUGINS_ENV`."""
    global _ENV_PLUGINS_LOADED
    load_entry_points()
    if not _ENV_PLUGINS_LOADED:
        _ENV_PLUGINS_LOADED = True  # first: a plugin may ask for the games
        try:
            load_plugins(os.environ.get(PLUGINS_ENV), source=f"environment variable {PLUGINS_ENV}")
        except BaseException:
            _ENV_PLUGINS_LOADED = False
            raise
    return dict(_GAMES)


def game_names() -> list[str]:
    return list(games())


def get_game(name: str | GameSpec) -> GameSpec:
    """The spec called ``name`` (a spec as it is); :class:`UnknownGameError` naming the games otherwise."""
    if isinstance(name, GameSpec):
        return name
    registered = games()
    try:
        return registered[name]
    except (KeyError, TypeError):
        raise UnknownGameError(f"unknown game {name!r}; registered games: {list(registered)}") from None


def game_of(obj: Any) -> GameSpec:
    """The spec of a game or rules object of a registered game (by its class)."""
    for spec in games().values():
        if isinstance(obj, (spec.load("game_class"), spec.load("rules_class"))):
            return spec
    raise UnknownGameError(f"{type(obj).__qualname__} is not the game or rules class of a registered game")


def game_for_record(record: Any) -> GameSpec:
    fmt = record.get("format") if isinstance(record, dict) else None
    known = {spec.record_format: spec for spec in games().values()}
    if isinstance(fmt, str) and fmt in known:
        return known[fmt]
    raise UnknownGameError(f"unknown record format {fmt!r}; known formats: {list(known)}")

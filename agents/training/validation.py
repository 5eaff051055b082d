"""The checks of a training config: :func:`make_config` makes a :class:`TrainConfig` of ``(source,
{key: value})`` layers, checking each value against its field and the options against each other and
the game's registry entry (players, rule options, network kinds, chips, baselines). A bad value raises
:class:`ConfigError` naming the key, its source, the value and what is allowed, e.g. ``config key
'greedy_share' (--set): 1.5 is not allowed; expected a number from 0 to 1``. Torch-free.
"""

from __future__ import annotations

import difflib
import math
import re
import warnings
from collections.abc import Callable
from typing import Any

from agents.registry import game_agents
from agents.training.options import (
    _FIELDS,
    _RULE_FIELDS,
    TrainConfig,
    _advice_weights,
    _allowed,
    _builder,
    _kind,
    _option,
    _owners,
)
from kardinal_env.core.registry import GameSpec, UnknownGameError, game_names, get_game

__all__ = ["ConfigError", "make_config"]

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


class ConfigError(ValueError):
    """A training option (or the file / checkpoint it came from) that is not acceptable."""


def _coerce(name: str, value, source: str):
    """The value of key ``name`` as its field's type, range-checked; :class:`ConfigError` otherwise."""
    f = _FIELDS[name]
    kind, m = _kind(f), f.metadata

    def bad(why: str = "") -> ConfigError:
        why = f" ({why})" if why else ""
        return ConfigError(f"config key {name!r} ({source}): {value!r} is not allowed{why}; expected {_allowed(f)}")

    if value is None and f.default is None:  # e.g. players: the game's default
        return None

    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise bad("not a boolean")
    if isinstance(value, (bool, list, dict)) or value is None:
        raise bad("not a string" if kind == "str" else "not a number")
    if kind == "str":
        if m["choices"] and str(value) not in m["choices"]:
            raise bad()
        return str(value)
    number: Any = value
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            number = int(text) if text.lstrip("+-").isdigit() else float(text)
        except ValueError:
            raise bad("not a number") from None
    if not isinstance(number, (int, float)) or not math.isfinite(number):
        raise bad("not a finite number")
    if kind == "int" and isinstance(number, float) and not number.is_integer():
        raise bad("not an integer")
    number = int(number) if kind == "int" else float(number)
    lo, hi = m["lo"], m["hi"]
    if lo is not None and (number < lo or (m["lo_open"] and number == lo)):
        raise bad()
    if hi is not None and number > hi:
        raise bad()
    return number


def _where(sources: dict, *keys: str) -> str:
    """Where the values of ``keys`` came from (``default`` for a key no layer set), each source once."""
    return ", ".join(sorted({sources.get(k, "default") for k in keys}))


def _unknown(name: str, source: str) -> ConfigError:
    close = difflib.get_close_matches(name, list(_FIELDS), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(_FIELDS)})"
    return ConfigError(f"unknown config key {name!r} ({source}){hint}")


def make_config(*layers: tuple[str, dict]) -> TrainConfig:
    """A validated :class:`TrainConfig` from ``(source, {key: value})`` layers (later wins)."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for source, layer in layers:
        for key, value in layer.items():
            if key not in _FIELDS:
                raise _unknown(str(key), source)
            values[key] = _coerce(key, value, source)
            sources[key] = source
    game = values.get("game", _FIELDS["game"].default)
    try:
        spec = get_game(game)
    except UnknownGameError:
        raise ConfigError(
            f"config key 'game' ({_where(sources, 'game')}): {game!r} is not allowed; "
            f"expected one of {', '.join(game_names())} (the registered games)"
        ) from None
    if values.get("players") is None:
        values["players"] = spec.default_players
    cfg = TrainConfig(**values)
    _check_game_options(cfg, spec, sources)
    shares = cfg.greedy_share + cfg.pool_share + cfg.random_share
    if shares > 1.0 + 1e-9:
        where = _where(sources, "greedy_share", "pool_share", "random_share")
        raise ConfigError(
            f"config keys greedy_share + pool_share + random_share ({where}) must sum to at most 1, got "
            f"{cfg.greedy_share} + {cfg.pool_share} + {cfg.random_share} = {shares:g}"
        )
    if cfg.total_steps == 0 and (cfg.bc_games == 0 or cfg.algorithm != "ppo"):
        where = _where(sources, "total_steps", "bc_games", "algorithm")
        raise ConfigError(
            f"config key 'total_steps' ({where}): 0 means a warm start only, which needs bc_games > 0 and "
            f"algorithm 'ppo' (got bc_games={cfg.bc_games}, algorithm={cfg.algorithm!r})"
        )
    if cfg.init_weights:
        _check_init_weights(cfg, spec, sources)
    if cfg.anchor_kl > 0 and cfg.algorithm != "ppo":
        where = _where(sources, "anchor_kl", "algorithm")
        raise ConfigError(
            f"config key 'anchor_kl' ({where}): a penalty of PPO's loss; algorithm {cfg.algorithm!r} does not "
            "use it (set anchor_kl: 0)"
        )
    for key, plain, why in (
        ("selfplay_workers", 1, "plays and updates in its own process on the CPU"),
        ("device", "cpu", "plays and updates in its own process on the CPU"),
        ("teacher", "", "learns from its own games' returns, not from a teacher"),
        ("baseline_targets", "", "learns from its own games' returns, not from targets"),
    ):
        if cfg.algorithm != "search" and getattr(cfg, key) != plain:
            where = _where(sources, key, "algorithm")
            raise ConfigError(
                f"config key {key!r} ({where}): {getattr(cfg, key)!r} is for algorithm=search; algorithm "
                f"{cfg.algorithm!r} {why} (expected {plain!r})"
            )
    if cfg.algorithm == "search":
        _check_search(cfg, spec, sources)
    if cfg.keep_best and not (cfg.eval_games or cfg.final_eval_games):
        where = _where(sources, "keep_best", "eval_games", "final_eval_games")
        raise ConfigError(
            f"config key 'keep_best' ({where}): needs evaluation games to choose by; eval_games and "
            "final_eval_games are both 0"
        )
    if not cfg.exp_name.strip():
        raise ConfigError(f"config key 'exp_name' ({_where(sources, 'exp_name')}): must not be empty")
    if not cfg.runs_dir.strip():
        raise ConfigError(f"config key 'runs_dir' ({_where(sources, 'runs_dir')}): must not be empty")
    return cfg


def _counts(players: tuple[int, ...]) -> str:
    ordered = sorted(players)
    if len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"an integer from {ordered[0]} to {ordered[-1]}"
    return "one of " + ", ".join(map(str, ordered))


def _check_game_options(cfg: TrainConfig, spec: GameSpec, sources: dict) -> None:
    """The options that depend on the game's registry entry."""

    def src(*keys: str) -> str:
        return ", ".join(f"{k}: {_where(sources, k)}" for k in keys)

    game = spec.name
    if cfg.players not in spec.players:
        raise ConfigError(
            f"config key 'players' ({src('players', 'game')}): {cfg.players} is not allowed for game {game}; "
            f"expected {_counts(spec.players)}"
        )
    for name in sorted(_RULE_FIELDS):
        value = getattr(cfg, name)
        option = _option(spec, name)
        if option is None:
            if value != _FIELDS[name].default:
                owners = " or ".join(o.name for o in _owners(name)) or "no registered game"
                theirs = ", ".join(["players"] + [o.name for o in spec.rule_options])
                raise ConfigError(
                    f"config key {name!r} ({src(name)}): an option of game {owners}, not {game} "
                    f"(its rule options: {theirs})"
                )
        elif option.choices and value not in option.choices:
            raise ConfigError(
                f"config key {name!r} ({_where(sources, name)}): {value!r} is not allowed for game {game}; "
                f"expected one of {', '.join(option.choices)}"
            )
    if cfg.network != "auto":
        kinds = _builder(spec).kinds
        if cfg.network not in kinds:
            raise ConfigError(
                f"config key 'network' ({src('network', 'game')}): {cfg.network!r} is not a network of game {game}; "
                f"expected auto or one of {', '.join(kinds)}"
            )
    if cfg.advice_scale != _FIELDS["advice_scale"].default and cfg.resolved_network() != "advised":
        raise ConfigError(
            f"config key 'advice_scale' ({src('advice_scale')}): {cfg.advice_scale!r} is only for network advised, "
            f"not {cfg.resolved_network()} ({src('network')}); expected {_FIELDS['advice_scale'].default}"
        )
    if cfg.advice_weights:
        if cfg.resolved_network() != "advised" or "advice_weights" not in _builder(spec).options:
            raise ConfigError(
                f"config key 'advice_weights' ({src('advice_weights')}): {cfg.advice_weights!r} is only for "
                f"network advised of a game whose advice has weights (kardinal_koenig: the heuristic's), not "
                f"{cfg.resolved_network()} ({src('network')}) of game {game}; expected ''"
            )
        try:
            _advice_weights(cfg.advice_weights)
        except ValueError as exc:
            raise ConfigError(f"config key 'advice_weights' ({src('advice_weights')}): {exc}") from None
    if cfg.chip_shaping != 0 and not hasattr(spec.load("game_class"), "chips_held"):
        raise ConfigError(
            f"config key 'chip_shaping' ({src('chip_shaping')}): {cfg.chip_shaping} is not allowed for game "
            f"{game} (it has no chips); expected 0 (use score_shaping)"
        )
    _check_baseline_opponent(cfg, spec, src)


#: Why ``greedy_share`` and ``bc_games`` take a baseline other than ``random`` (which every game has).
_NOT_RANDOM = {
    "greedy_share": "games against random are random_share's (set random_share instead)",
    "bc_games": "the warm start imitates the baseline's moves, and random moves teach nothing",
}


def _check_baseline_opponent(cfg: TrainConfig, spec: GameSpec, src: Callable[..., str]) -> None:
    """``greedy_share`` and ``bc_games`` need a ``baseline`` of the game other than ``random``."""
    wiring = game_agents(spec)
    others = [b for b in wiring.baseline_kinds if b != "random"]
    for key in ("greedy_share", "bc_games"):
        value = getattr(cfg, key)
        if not value:
            continue
        start = f"config key {key!r} ({src(key)}): {value} is not allowed"
        baseline = f"config key 'baseline' ({src('baseline')})"
        if others:
            fix = f"set baseline to one of game {spec.name}'s other baselines ({', '.join(others)}) or expected 0"
        else:
            fix = f"game {spec.name} has no baseline besides random; expected 0"
        if cfg.baseline == "random":
            raise ConfigError(f"{start} with baseline random ({baseline}): {_NOT_RANDOM[key]}; {fix}")
        if not wiring.has_baseline(cfg.baseline):
            if others:
                fix = f"set baseline to one of its baselines ({', '.join(others)}) or expected 0"
            raise ConfigError(f"{start} for game {spec.name}: it has no baseline {cfg.baseline!r} ({baseline}); {fix}")


def _check_search(cfg: TrainConfig, spec: GameSpec, sources: dict) -> None:
    """algorithm=search: no pool or random opponents; mcts and rollout where the game allows."""
    for key in ("pool_share", "random_share"):
        if getattr(cfg, key):
            raise ConfigError(
                f"config key {key!r} ({_where(sources, key)}): {getattr(cfg, key)} is not allowed with "
                f"algorithm=search ({_where(sources, 'algorithm')}): its games are searched self-play or "
                "against the baseline (greedy_share); expected 0"
            )
    if cfg.search == "mcts" and not spec.perfect_information:
        raise ConfigError(
            f"config key 'search' ({_where(sources, 'search')}): mcts is not allowed for game {spec.name}, "
            "which hides information from the seats (mcts searches games of perfect information); "
            "expected puct or ismcts"
        )
    if cfg.search == "rollout" and game_agents(spec).rollout_search is None:
        raise ConfigError(
            f"config key 'search' ({_where(sources, 'search')}): rollout is not allowed for game {spec.name}, "
            "which has no rollout search (GameAgents.rollout_search); expected puct, ismcts or mcts"
        )
    _check_teacher(cfg, spec, sources)
    if cfg.baseline_targets:
        try:
            re.compile(cfg.baseline_targets)
        except re.error as exc:
            raise ConfigError(
                f"config key 'baseline_targets' ({_where(sources, 'baseline_targets')}): "
                f"{cfg.baseline_targets!r} is not a regular expression ({exc})"
            ) from None
    if not re.fullmatch(r"cpu|cuda(:[0-9]+)?", cfg.device):
        raise ConfigError(
            f"config key 'device' ({_where(sources, 'device')}): {cfg.device!r} is not a device; "
            "expected cpu, cuda or cuda:N"
        )
    if cfg.fast_simulations > cfg.simulations:
        raise ConfigError(
            f"config key 'fast_simulations' ({_where(sources, 'fast_simulations')}): {cfg.fast_simulations} "
            f"is more than simulations ({cfg.simulations}); a fast search must not be larger than a full one"
        )


def _check_teacher(cfg: TrainConfig, spec: GameSpec, sources: dict) -> None:
    """search=network needs a ``teacher`` (``ppo:PATH`` or ``zoo:NAME`` of the game); other searches none."""
    where = _where(sources, "teacher", "search")
    if cfg.search != "network":
        if cfg.teacher:
            raise ConfigError(
                f"config key 'teacher' ({where}): {cfg.teacher!r} is for search=network; search {cfg.search!r} "
                "is its own teacher (expected '')"
            )
        return
    if not cfg.teacher:
        raise ConfigError(
            f"config key 'teacher' ({where}): search=network needs the network to learn from, an agent spec "
            "ppo:PATH or zoo:NAME"
        )
    _check_network_spec("teacher", cfg.teacher, where, cfg, spec)


def _check_init_weights(cfg: TrainConfig, spec: GameSpec, sources: dict) -> None:
    """``init_weights``: a network spec of the game (``ppo:PATH`` or ``zoo:NAME``), not with a warm start."""
    where = _where(sources, "init_weights")
    if cfg.bc_games > 0:
        both = _where(sources, "init_weights", "bc_games")
        raise ConfigError(
            f"config keys 'init_weights' and 'bc_games' ({both}): two starting points; a run starts either from "
            f"{cfg.init_weights!r} or from a warm start on the baseline (set bc_games: 0 or init_weights: '')"
        )
    _check_network_spec("init_weights", cfg.init_weights, where, cfg, spec)


def _check_network_spec(key: str, value: str, where: str, cfg: TrainConfig, spec: GameSpec) -> None:
    """``ConfigError`` unless ``value`` is a network of the game (another player count: a warning)."""
    from agents import AgentSpecError, check_spec, parse_spec
    from agents.networks.checkpoint import PlayerCountWarning

    try:
        kind, _, _ = parse_spec(value, spec)
        if kind not in ("ppo", "zoo"):
            raise AgentSpecError(f"{value!r} is a {kind} agent, not a network (expected ppo:PATH or zoo:NAME)")
        notes = check_spec(value, players=cfg.players, game=spec)
    except AgentSpecError as exc:
        raise ConfigError(f"config key {key!r} ({where}): {exc}") from None
    for note in notes:  # trained for another number of players: allowed, said (evaluation's category)
        warnings.warn(f"config key {key!r} ({where}): {note}", PlayerCountWarning, stacklevel=3)

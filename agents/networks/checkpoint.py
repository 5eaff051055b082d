"""PPO checkpoints of every game: what they hold, how they are written, and the one check every loader runs.

A checkpoint (``torch.load(path, weights_only=True)``) is a dict: ``format`` (:data:`CHECKPOINT_FORMAT`),
``game``, ``env`` (or one of the game's ``previous_envs``), ``model`` (the ``state_dict``),
``model_config`` (rebuilds it with the game's builder), ``layout`` (``env`` plus the builder's
layout), ``rules``, ``config`` (training), ``step``, ``iteration``, ``revision``, ``winrates``; for
``--resume`` ``optimizer``, ``pool``, ``rng``; optionally ``search_defaults`` (:data:`SEARCH_DEFAULT_KEYS`).

:func:`write_checkpoint` writes atomically (a temporary ``DIR/.NAME.XXXXXXXX.tmp``, ``os.replace``) and removes what
killed writes to the target left (:func:`remove_temp_files`). :func:`read_checkpoint`, the check of every loader, raises
:class:`CheckpointError` (``PATH: not a kardinal-env checkpoint (why)``) for a missing, empty, damaged or foreign file,
another format, an unregistered game, a missing or other layout, unreadable rules or weights that do not fit; version 1
(no ``format``) is read by its ``env``. Also :func:`average_checkpoints`, :func:`advise_checkpoint`,
:func:`with_search_defaults` and :func:`player_count_warning` (another player count plays, the layout being the same).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import tempfile
from collections.abc import Mapping
from typing import Any

import torch

from agents.networks.base import NetworkBuilder, advised, model_config
from agents.networks.mlp import build_network as generic_builder
from agents.networks.mlp import flat_layout
from agents.registry import game_agents
from agents.search.common import SEARCH_ARGUMENTS, search_argument_problem
from kardinal_env.core.checks import is_int
from kardinal_env.core.registry import GameSpec, UnknownGameError, games, get_game

__all__ = [
    "CHECKPOINT_FORMAT",
    "CheckpointError",
    "PlayerCountWarning",
    "network_builder",
    "checkpoint_layout",
    "checkpoint_game",
    "checkpoint_rules",
    "make_checkpoint",
    "write_checkpoint",
    "temp_target",
    "remove_temp_files",
    "read_checkpoint",
    "trained_players",
    "advise_checkpoint",
    "SEARCH_DEFAULT_KEYS",
    "search_defaults",
    "with_search_defaults",
    "player_count_warning",
    "average_checkpoints",
]

#: The ``format`` of the checkpoints this version writes.
CHECKPOINT_FORMAT = "kardinal-checkpoint/2"


class CheckpointError(ValueError):
    """A file that is not a usable kardinal-env PPO checkpoint; ``str()`` names the path and why."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: not a kardinal-env checkpoint ({reason})")

    def named(self, label: str) -> str:
        """The message with ``label`` (e.g. ``ppo:PATH`` or ``--resume PATH``) in place of the path."""
        return f"{label}: not a kardinal-env checkpoint ({self.reason})"


class PlayerCountWarning(UserWarning):
    """A checkpoint used in games with another number of players than it was trained for."""


# ---------------------------------------------------------------------- a game's networks
def network_builder(spec: GameSpec) -> NetworkBuilder:
    """A game's network builder: its agents' entry's ``network`` (a function: flat layout and agent), else the MLP."""
    found = game_agents(spec).load("network")
    if found is None:
        return generic_builder
    if isinstance(found, NetworkBuilder):
        return found
    if not callable(found):
        raise TypeError(f"game {spec.name!r}: 'network' must be a network builder, got {type(found).__name__}")
    return NetworkBuilder(("custom",), found, flat_layout, "agents.networks.ppo_agent:FlatPPOAgent")


def checkpoint_layout(spec: GameSpec, rules: Any, model_config: Mapping[str, Any]) -> dict:
    """The layout a checkpoint of network ``model_config`` for ``rules`` records and needs."""
    return {"env": spec.env_name, **network_builder(spec).layout(rules, model_config)}


def make_checkpoint(spec: GameSpec, rules: Any, net: torch.nn.Module, **fields: Any) -> dict:
    """A checkpoint dict of ``net`` (of ``spec``'s builder, trained under ``rules``) plus ``fields``."""
    config = model_config(net)
    return {
        "format": CHECKPOINT_FORMAT,
        "game": spec.name,
        "env": spec.env_name,
        "model": net.state_dict(),
        "model_config": config,
        "layout": checkpoint_layout(spec, rules, config),
        "rules": rules.to_dict(),
        **fields,
    }


def write_checkpoint(ckpt: dict, path) -> str:
    """Write ``ckpt`` to ``path`` atomically (a failed write leaves ``path`` as it was); returns ``path``."""
    path = str(path)
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(ckpt, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    remove_temp_files(directory, name)
    return path


#: The name of a temporary file of :func:`write_checkpoint`: ``.TARGET.XXXXXXXX.tmp``.
_TEMP_NAME = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp")


def temp_target(filename: str) -> str | None:
    """The target a temporary file of :func:`write_checkpoint` was written for, else ``None``."""
    match = _TEMP_NAME.fullmatch(filename)
    return match["target"] if match else None


def remove_temp_files(directory, targets: str | re.Pattern[str]) -> list[str]:
    """Remove the temporary files killed writes left in ``directory`` for ``targets`` (a name or a pattern)."""
    removed: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        target = temp_target(entry.name)
        if target is None or not (target == targets if isinstance(targets, str) else targets.fullmatch(target)):
            continue
        with contextlib.suppress(OSError):  # gone already, or not ours to remove
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(entry.path)
    return sorted(removed)


# ---------------------------------------------------------------------- reading
def _short(exc: BaseException, limit: int = 200, first_sentence: bool = False) -> str:
    text = " ".join(str(exc).split())
    text = (text.split(". ")[0] if first_sentence else text) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _load_failure(magic: bytes, size: int, exc: Exception) -> str:
    first = _short(exc, 160, first_sentence=True)
    if magic.startswith(b"PK"):
        if "weights only" in str(exc).lower() or "weights_only" in str(exc):
            return f"holds objects other than tensors and plain values ({size} bytes; weights_only load: {first})"
        return f"truncated or damaged torch file ({size} bytes): {first}"
    return f"not a torch checkpoint file ({size} bytes, does not start like one): {first}"


def checkpoint_game(ckpt: dict, path="checkpoint") -> GameSpec:
    """The registered game of a checkpoint dict (version 1: by its ``env``); :class:`CheckpointError` otherwise."""
    fmt = ckpt.get("format")
    if fmt is None and "game" not in ckpt:  # version 1: the game is named by its environment
        if "env" not in ckpt:
            raise CheckpointError(path, "no 'env' or 'game' key: nothing says which game it was trained on")
        known = {spec.env_name: spec for spec in games().values()}
        for spec in games().values():  # earlier versions with the same observations and actions
            for previous in spec.previous_envs:
                known.setdefault(previous, spec)
        if ckpt["env"] not in known:
            raise CheckpointError(
                path, f"made for env {ckpt['env']!r}; this version knows {', '.join(map(repr, known))}"
            )
        return known[ckpt["env"]]
    if fmt is not None and fmt != CHECKPOINT_FORMAT:
        raise CheckpointError(
            path,
            f"format {fmt!r}: this version reads {CHECKPOINT_FORMAT!r} and version-1 checkpoints (no 'format' key); "
            "retrain, or read it with the version that wrote it",
        )
    name = ckpt.get("game")
    if not isinstance(name, str):
        raise CheckpointError(path, f"'game' must be a registered game's name, got {name!r}")
    try:
        spec = get_game(name)
    except UnknownGameError:
        raise CheckpointError(
            path, f"made for game {name!r}, which is not registered (registered games: {list(games())})"
        ) from None
    env = ckpt.get("env", spec.env_name)
    if env != spec.env_name and env not in spec.previous_envs:
        raise CheckpointError(path, f"made for env {env!r}, but game {spec.name!r} has env {spec.env_name!r}")
    return spec


def checkpoint_rules(ckpt: dict, path="checkpoint", spec: GameSpec | None = None) -> Any:
    """The rules of the training games of a checkpoint (its ``rules`` dict, read by its game)."""
    spec = spec or checkpoint_game(ckpt, path)
    data = ckpt.get("rules")
    if not isinstance(data, dict):
        raise CheckpointError(path, f"a {spec.name} checkpoint needs a 'rules' dict, got {type(data).__name__}")
    try:
        return spec.rules_from_dict(data)
    except (TypeError, ValueError, KeyError) as exc:
        raise CheckpointError(path, f"'rules' do not build {spec.title} rules: {_short(exc)}") from None


def read_checkpoint(path, build: bool = True):
    """``(checkpoint dict, network in eval mode)`` of the checked checkpoint (``build=False``: no network)."""
    path = str(path)
    if not os.path.exists(path):
        raise CheckpointError(path, "no such file")
    if os.path.isdir(path):
        raise CheckpointError(path, "a directory, not a file")
    size = os.path.getsize(path)
    if size == 0:
        raise CheckpointError(path, "empty file")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    try:
        ckpt = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:  # torch raises many types for damaged files; all mean "not readable"
        raise CheckpointError(path, _load_failure(magic, size, exc)) from None
    if not isinstance(ckpt, dict):
        raise CheckpointError(path, f"holds a {type(ckpt).__name__}, expected a dict with 'model' and 'model_config'")
    missing = [k for k in ("model", "model_config") if k not in ckpt]
    if missing:
        keys = ", ".join(repr(k) for k in list(ckpt)[:8]) or "none"
        raise CheckpointError(path, f"no {' or '.join(repr(k) for k in missing)} key (keys: {keys})")
    if "layout" not in ckpt:
        raise CheckpointError(
            path,
            "no 'layout' key: it does not record the observation/action layout its network was trained on "
            "(written before checkpoints recorded one), so it cannot be checked against this version; retrain",
        )
    spec = checkpoint_game(ckpt, path)
    ckpt["game"] = spec.name
    layout = ckpt["layout"]
    if not isinstance(layout, dict):
        raise CheckpointError(path, f"'layout' is a {type(layout).__name__}, expected a dict")
    mc = ckpt["model_config"]
    if not isinstance(mc, dict):
        raise CheckpointError(path, f"'model_config' must be a dict of network options, got {mc!r}")
    rules = checkpoint_rules(ckpt, path, spec)
    try:
        expected = checkpoint_layout(spec, rules, mc)
    except (TypeError, ValueError, KeyError) as exc:
        raise CheckpointError(
            path, f"'model_config' {mc!r} does not describe a {spec.name} network: {_short(exc)}"
        ) from None
    same_env = (spec.env_name, *spec.previous_envs)  # earlier versions keep the observations and actions
    diffs = [
        f"{k} {layout.get(k)!r} (checkpoint) vs {v!r} (this version)"
        for k, v in expected.items()
        if layout.get(k) != v and not (k == "env" and layout.get(k) in same_env)
    ]
    if diffs:
        raise CheckpointError(path, "made for another observation/action layout: " + "; ".join(diffs))
    if not isinstance(ckpt["model"], dict):
        raise CheckpointError(path, f"'model' is a {type(ckpt['model']).__name__}, expected a state_dict")
    if not isinstance(ckpt.get("config", {}), dict):
        raise CheckpointError(path, f"'config' is a {type(ckpt['config']).__name__}, expected a dict")
    search_defaults(ckpt, path)
    if not build:
        return ckpt, None
    try:
        net = network_builder(spec)(rules, mc)
    except (TypeError, ValueError, KeyError, RuntimeError) as exc:
        raise CheckpointError(path, f"'model_config' {mc!r} does not build a network: {_short(exc)}") from None
    try:
        net.load_state_dict(ckpt["model"])
    except (RuntimeError, TypeError, KeyError, AttributeError) as exc:
        raise CheckpointError(path, f"weights do not fit model_config {mc!r}: {_short(exc)}") from None
    return ckpt, net.eval()


def trained_players(ckpt: dict) -> int | None:
    """Players of the games a checkpoint was trained on (``None``: unknown)."""
    for section in ("rules", "config"):
        found = ckpt.get(section)
        if isinstance(found, dict) and is_int(found.get("players")):
            return found["players"]
    return None


def player_count_warning(label: str, trained: int | None, players: int) -> str | None:
    """A warning naming both counts when ``trained`` and ``players`` differ (``None`` if they agree or unknown)."""
    if trained is None or trained == players:
        return None
    return (
        f"{label} was trained for {trained}-player games and is used in {players}-player games "
        "(same observation layout, so it plays, but it has never seen this game)"
    )


# ---------------------------------------------------------------------- averaging
#: What :func:`average_checkpoints` drops: the training state of one run, which the average is not.
TRAINING_ONLY_KEYS = ("optimizer", "pool", "rng")


def _without_training_state(ckpt: dict) -> dict:
    return {k: v for k, v in ckpt.items() if k not in TRAINING_ONLY_KEYS}


def average_checkpoints(paths) -> dict:
    """The checkpoint with the mean weights of ``paths`` (two or more of one network), ``averaged_from`` added."""
    paths = [str(p) for p in paths]
    if len(paths) < 2:
        raise CheckpointError(paths[0] if paths else "checkpoint", "averaging needs two or more checkpoints")
    first, _ = read_checkpoint(paths[0])
    total = {k: v.detach().clone().double() if v.is_floating_point() else v for k, v in first["model"].items()}
    sources = [{"path": paths[0], "step": first.get("step")}]

    def refuse(path: str, why: str) -> CheckpointError:
        return CheckpointError(path, f"cannot be averaged with {paths[0]}: {why}")

    for path in paths[1:]:
        ckpt, _ = read_checkpoint(path)
        for key in ("game", "layout", "model_config"):
            if ckpt[key] != first[key]:
                raise refuse(path, f"its {key} {ckpt[key]!r} differs from {first[key]!r}")
        model = ckpt["model"]
        if set(model) != set(total):
            raise refuse(path, f"other weights ({', '.join(sorted(set(model) ^ set(total))[:4])})")
        for name, value in model.items():
            if value.shape != total[name].shape:
                raise refuse(path, f"{name} has shape {tuple(value.shape)}, not {tuple(total[name].shape)}")
            if value.is_floating_point():
                total[name] += value.double()
            elif not torch.equal(value, total[name]):
                raise refuse(path, f"integer tensor {name} differs")
        sources.append({"path": path, "step": ckpt.get("step")})
    averaged = _without_training_state(ckpt)  # the last one's fields
    averaged["model"] = {
        name: (value / len(paths)).to(first["model"][name].dtype) if value.is_floating_point() else value
        for name, value in total.items()
    }
    averaged["averaged_from"] = sources
    return averaged


def advise_checkpoint(path, advice_scale: float) -> dict:
    """The checkpoint at ``path`` as its game's ``advised`` network (same weights, ``advice_scale``), untrained."""
    path = str(path)
    ckpt, _net = read_checkpoint(path)
    spec = checkpoint_game(ckpt, path)
    builder = network_builder(spec)
    if "advised" not in builder.kinds:
        raise CheckpointError(path, f"game {spec.name} has no advised network (its kinds: {', '.join(builder.kinds)})")
    config = ckpt["model_config"]
    if advised(config):
        raise CheckpointError(path, "its network already is an advised one")
    if not (isinstance(advice_scale, int | float) and math.isfinite(advice_scale) and advice_scale > 0):
        raise CheckpointError(path, f"the advice scale must be a positive number, got {advice_scale!r}")
    rules = checkpoint_rules(ckpt, path, spec)
    net = builder(rules, {**config, "kind": "advised", "advice_scale": float(advice_scale)})
    missing, unexpected = net.load_state_dict(ckpt["model"], strict=False)
    if unexpected or missing != ["log_advice_scale"]:
        names = sorted(set(unexpected) | (set(missing) - {"log_advice_scale"}))[:4]
        raise CheckpointError(
            path, f"its weights do not carry over to the advised network ({', '.join(names)}): another network kind"
        )
    out = _without_training_state(ckpt)
    out["model"] = net.state_dict()
    out["model_config"] = model_config(net)
    out["layout"] = checkpoint_layout(spec, rules, out["model_config"])
    out["advised_from"] = {"path": path, "step": ckpt.get("step"), "advice_scale": float(advice_scale)}
    return out


#: The arguments of ``puct:N`` (:class:`agents.search.puct.PUCTAgent`) a checkpoint may record as defaults.
SEARCH_DEFAULT_KEYS = tuple(SEARCH_ARGUMENTS)


def search_defaults(ckpt: Mapping[str, Any], path="checkpoint") -> dict:
    """The checkpoint's ``search_defaults`` (``{}`` when none), checked: :class:`CheckpointError` otherwise."""
    found = ckpt.get("search_defaults", {})
    if not isinstance(found, dict):
        raise CheckpointError(path, f"'search_defaults' is a {type(found).__name__}, expected a dict")
    for key, value in found.items():
        if key not in SEARCH_DEFAULT_KEYS:
            raise CheckpointError(
                path, f"'search_defaults' has {key!r}; the search's defaults are {', '.join(SEARCH_DEFAULT_KEYS)}"
            )
        problem = search_argument_problem(key, value)
        if problem:
            raise CheckpointError(path, f"'search_defaults' {problem}")
    return dict(found)


def with_search_defaults(path, **defaults: Any) -> dict:
    """The checkpoint at ``path`` with ``defaults`` merged into its ``search_defaults`` (``None`` removes one)."""
    path = str(path)
    ckpt, _net = read_checkpoint(path, build=False)
    merged = {**search_defaults(ckpt, path), **defaults}
    out = _without_training_state(ckpt)
    out["search_defaults"] = {k: v for k, v in merged.items() if v is not None}
    search_defaults(out, path)
    if not out["search_defaults"]:
        del out["search_defaults"]
    return out

"""Training configuration, the one module to import: every option is a :class:`TrainConfig` field
(:mod:`agents.training.options`); :func:`build_parser` makes ``kardinal-train --help`` of them and
:func:`make_config` checks every value (:class:`ConfigError`). Values come from, later winning: a
checkpoint's config (``--resume``), a YAML preset (``--config``: a file or a game's preset by name,
:func:`preset_names`), ``--set key=value``, ``--key value`` (:func:`config_from_args`). Torch-free.
"""

from __future__ import annotations

import argparse
import dataclasses

from agents.registry import game_agents
from agents.training.options import _FIELDS, TrainConfig, _allowed, _default, _kind
from agents.training.validation import ConfigError, make_config
from kardinal_env.core.cli import add_plugin_argument
from kardinal_env.core.registry import game_names, games
from kardinal_env.core.rewards import REWARD_SCHEMES

__all__ = [
    "TrainConfig",
    "ConfigError",
    "make_config",
    "load_yaml",
    "parse_set",
    "build_parser",
    "config_from_args",
    "preset_names",
    "REWARD_SCHEMES",
]


def load_yaml(path) -> dict:
    """The mapping of a YAML preset (a file or a game's preset by name); :class:`ConfigError` otherwise."""
    import yaml  # type: ignore[import-untyped]

    path = str(path)
    try:
        fh = open(path)
    except FileNotFoundError:
        preset = _open_preset(path)
        if preset is None:
            names = ", ".join(preset_names()) or "none registered"
            raise ConfigError(f"config file {path!r} does not exist (presets by name: {names})") from None
        fh = preset
    except IsADirectoryError:
        raise ConfigError(f"config file {path!r} is a directory, not a YAML file") from None
    except OSError as exc:
        raise ConfigError(f"config file {path!r} cannot be read: {exc}") from None
    try:
        with fh:
            data = yaml.safe_load(fh)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path!r} is not a text file: {exc}") from None
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise ConfigError(f"config file {path!r} is not valid YAML: {detail}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path!r} must be a mapping of config keys to values (key: value lines), "
            f"got a {type(data).__name__}"
        )
    for key in data:
        if not isinstance(key, str):
            raise ConfigError(f"config file {path!r}: key {key!r} is not a string")
    return data


def _presets() -> dict[str, tuple[str, str]]:
    """Preset name -> (package, resource) of the registered games' presets: ``GAME:NAME`` and bare file names."""
    qualified: dict[str, tuple[str, str]] = {}
    bare: dict[str, tuple[str, str]] = {}
    for spec in games().values():
        for name, target in game_agents(spec).presets.items():
            package, _, resource = str(target).partition(":")
            qualified[f"{spec.name}:{name}"] = (package, resource)
            bare.setdefault(resource.rsplit("/", 1)[-1].removesuffix(".yaml"), (package, resource))
    return {**dict(sorted(bare.items())), **qualified}


def preset_names() -> list[str]:
    """The presets :func:`load_yaml` reads by name: the bare file names, then ``GAME:NAME``."""
    return list(_presets())


def _open_preset(name: str):
    """An open preset of a registered game for a name that is not a file, else ``None``."""
    found = _presets().get(name) or _presets().get(name.removesuffix(".yaml"))
    if found is None:
        return None
    from importlib.resources import files

    package, resource = found
    try:
        return files(package).joinpath(resource).open()
    except (ImportError, OSError) as exc:
        raise ConfigError(f"preset {name!r} ({package}:{resource}) cannot be read: {exc}") from None


def parse_set(items) -> dict:
    """``{key: text}`` of ``--set KEY=VALUE`` items (values are converted and checked by :func:`make_config`)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The ``kardinal-train`` parser: ``--config``, ``--resume``, ``--set`` and one flag per config field."""
    p = argparse.ArgumentParser(
        prog=prog,
        description=f"Self-play PPO for every registered game (game: {' | '.join(game_names())}). "
        "Options come from (later wins): the --resume checkpoint's config, "
        "the --config YAML preset, --set KEY=VALUE, --KEY VALUE. Every value is checked before training starts.",
        epilog="A step is one stored learner decision (a decision of a learner seat with more than one legal move). "
        "Example: %(prog)s --config configs/default.yaml --set total_steps=20000 --progress false; "
        "%(prog)s --config kardinal_koenig:default (a game's preset by name)",
    )
    p.add_argument(
        "--config",
        metavar="YAML",
        help="YAML preset: a file (e.g. configs/default.yaml) or the name of a game's preset ("
        + ", ".join(preset_names())
        + "); a mapping of the keys below",
    )
    p.add_argument(
        "--resume",
        metavar="CHECKPOINT",
        help="continue a run from its checkpoint.pt (its config is the base; options given here override it)",
    )
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="set a config key (repeatable)")
    add_plugin_argument(p)  # loaded by agents.training.run.main before this parser is built
    group = p.add_argument_group("training options (also as KEY=VALUE with --set or as keys of the YAML preset)")
    for f in dataclasses.fields(TrainConfig):
        group.add_argument(
            f"--{f.name}",
            dest=f"opt_{f.name}",
            default=None,
            metavar=_kind(f).upper(),
            help=f"{f.metadata['help']} [{_allowed(f)}; default: {_default(f)}]".replace("%", "%%"),
        )
    return p


def config_from_args(ns: argparse.Namespace, base: dict | None = None, base_source: str = "checkpoint") -> TrainConfig:
    """The validated config of parsed arguments on top of ``base`` (a resumed checkpoint's config)."""
    layers = []
    if base:
        layers.append((base_source, base))
    if ns.config:
        layers.append((f"config file {ns.config!r}", load_yaml(ns.config)))
    layers.append(("--set", parse_set(ns.set)))
    for name in _FIELDS:
        value = getattr(ns, f"opt_{name}", None)
        if value is not None:
            layers.append((f"--{name}", {name: value}))
    return make_config(*layers)

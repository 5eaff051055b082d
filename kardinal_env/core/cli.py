"""Command-line flags for the registered games, shared by every tool that takes a ``--game``.

* ``--plugin MODULE[:ATTRIBUTE]`` (repeatable): a game registered by a module of one's own. :func:`load_plugin_argv`
  loads the command line's plugins *before* the tool builds the parser that lists the games, and adds them to
  ``KARDINAL_ENV_PLUGINS`` for spawned processes; :func:`add_plugin_argument` adds the option to that parser.
* :func:`add_rule_option_flags`: one flag per rules option name of the registered games, shared names once
  (``--preset``, ``--discard``, ...), stored under ``rule_<name>`` (default ``None``); :func:`given_rule_options`: after
  parsing, the options given for ``--game``'s game (another game's option or a choice it lacks is a usage error naming
  it).
* :func:`seat_counts`: ``"2-4"`` or ``"2, 4"``, a game's player counts for messages (the registry's).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from kardinal_env.core.registry import PLUGINS_ENV, GameSpec, RuleOption, games, load_plugins, seat_counts

__all__ = [
    "add_plugin_argument",
    "load_plugin_argv",
    "PLUGIN_HELP",
    "add_rule_option_flags",
    "given_rule_options",
    "rule_options_by_name",
    "seat_counts",
]

PLUGIN_HELP = (
    "load a game plugin before the game is looked up (repeatable): MODULE, a module that registers its "
    "games when imported, or MODULE:ATTRIBUTE, a GameSpec or a function returning one (e.g. my_games:SPEC); "
    f"the module must be importable (PYTHONPATH). The environment variable {PLUGINS_ENV}=MODULE,... does the same"
)


def add_plugin_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE[:ATTRIBUTE]", help=PLUGIN_HELP)


def load_plugin_argv(argv: Sequence[str] | None, prog: str | None = None) -> list[str]:
    """The plugins ``--plugin`` (spelled out) names in ``argv`` (default ``sys.argv[1:]``), loaded; usage error (2) if
    one fails."""
    pre = argparse.ArgumentParser(prog=prog, add_help=False, allow_abbrev=False)
    pre.add_argument("--plugin", action="append", default=[])
    known, _ = pre.parse_known_args(None if argv is None else list(argv))
    plugins: list[str] = [p.strip() for p in known.plugin]
    try:
        load_plugins(plugins, source="--plugin")
    except (ImportError, TypeError, ValueError) as exc:
        pre.error(str(exc))
    if plugins:
        current = [p.strip() for p in os.environ.get(PLUGINS_ENV, "").split(",") if p.strip()]
        os.environ[PLUGINS_ENV] = ",".join(dict.fromkeys(current + [p for p in plugins if p]))
    return plugins


def rule_options_by_name() -> dict[str, list[tuple[GameSpec, RuleOption]]]:
    by_name: dict[str, list[tuple[GameSpec, RuleOption]]] = {}
    for spec in games().values():
        for option in spec.rule_options:
            by_name.setdefault(option.name, []).append((spec, option))
    return by_name


def add_rule_option_flags(parser: argparse.ArgumentParser, tool: str) -> None:
    """Add the rules options' flags to ``parser``; ``ValueError`` naming ``tool`` when one is taken."""
    taken = {flag for action in parser._actions for flag in action.option_strings}
    group = parser.add_argument_group("rules options", "the registered games' rules options (for --game's game only)")
    for name, owners in rule_options_by_name().items():
        option = owners[0][1]
        if option.flag in taken:
            raise ValueError(
                f"rules option {name!r} of {owners[0][0].name} would be {option.flag}, which {tool} "
                "uses for something else; rename the option"
            )
        defaults = [f" (default {opt.default})" if opt.default not in (None, False) else "" for _, opt in owners]
        helps = [f"{spec.name}: {opt.help}{default}" for (spec, opt), default in zip(owners, defaults)]
        kinds = {opt.kind for _, opt in owners}
        kw: dict[str, Any] = {"dest": "rule_" + name, "default": None, "help": "; ".join(helps)}
        if kinds == {"flag"}:
            kw["action"] = "store_true"
        elif kinds == {"choice"}:
            kw["choices"] = list(dict.fromkeys(c for _, opt in owners for c in opt.choices))
        else:
            kw["metavar"] = name.upper()
        group.add_argument(option.flag, **kw)


def given_rule_options(parser: argparse.ArgumentParser, args: argparse.Namespace, spec: GameSpec) -> dict[str, Any]:
    own = {option.name: option for option in spec.rule_options}
    given: dict[str, Any] = {}
    for name, owners in rule_options_by_name().items():
        value = getattr(args, "rule_" + name, None)
        if value is None:
            continue
        option = own.get(name)
        if option is None:
            others = ", ".join(s.name for s, _ in owners)
            parser.error(f"{owners[0][1].flag} is an option of {others}, not {spec.name}")
        if option.kind == "choice" and value not in option.choices:
            parser.error(f"{option.flag} {value}: {spec.name} offers {', '.join(option.choices)}")
        given[name] = value
    return given

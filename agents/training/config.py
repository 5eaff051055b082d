"""Training configuration of the self-play PPO trainer (:mod:`agents.training.trainer`): one dataclass, validated.

Every field of :class:`TrainConfig` carries its help text, its type and what values it allows
(``metadata``); ``--help`` of ``kardinal-train`` / ``scripts/train.py`` is generated from them, and
:func:`make_config` checks every value before anything runs. Values come from, in order (later
wins): a checkpoint's stored config (``--resume``), a YAML preset (``--config``), ``--set key=value``
(repeatable), ``--key value`` flags.

A bad value raises :class:`ConfigError` naming the key, where it came from, the value and what is
allowed, e.g. ``config key 'greedy_share' (--set): 1.5 is not allowed; expected a number from 0 to 1``.

Torch-free: importing this module does not import torch.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import math
from dataclasses import dataclass, field

__all__ = [
    "TrainConfig",
    "ConfigError",
    "make_config",
    "load_yaml",
    "parse_set",
    "build_parser",
    "config_from_args",
    "config_help",
    "REWARD_SCHEMES",
    "PRESETS",
    "GAMES",
    "NETWORKS",
    "GAME_NETWORKS",
]

REWARD_SCHEMES = ("win_loss", "margin")  # same as agents.rewards.REWARD_SCHEMES (checked in the tests)
PRESETS = ("english", "german")
GAMES = ("kardinal", "kardinal_koenig")  # same as agents.games.GAMES (checked in the tests)
DISCARD_OPTIONS = ("one", "any")
NETWORKS = ("auto", "cnn", "mlp", "graph")
#: Networks each game can train, its default first (``network: auto``).
GAME_NETWORKS = {"kardinal": ("cnn",), "kardinal_koenig": ("graph", "mlp")}
DEFAULT_NETWORK = {game: nets[0] for game, nets in GAME_NETWORKS.items()}
#: Player counts of each game.
GAME_PLAYERS = {"kardinal": (2, 4), "kardinal_koenig": (3, 5)}
#: The player count a game gets when ``players`` is not given.
DEFAULT_PLAYERS = {"kardinal": 2, "kardinal_koenig": 4}
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


class ConfigError(ValueError):
    """A training option (or the file / checkpoint it came from) that is not acceptable."""


def opt(default, help: str, *, lo=None, hi=None, lo_open: bool = False, choices=None):
    """A config field: ``default``, ``help`` (shown by ``--help``), allowed range ``lo..hi`` (``lo``
    excluded when ``lo_open``) or ``choices``."""
    return field(default=default, metadata={"help": help, "lo": lo, "hi": hi, "lo_open": lo_open, "choices": choices})


@dataclass
class TrainConfig:
    """Every option of the self-play PPO trainer (see :mod:`agents.training.trainer` for the algorithm).

    A *step* is one stored learner decision: one decision of a seat the learner controls that had
    more than one legal move (opponent moves and forced moves are not counted)."""

    # ------------------------------------------------------------ run
    exp_name: str = opt("ppo_selfplay", "experiment name (the run name defaults to {exp_name}__{seed})")
    run_name: str = opt("", "run directory name under runs_dir (empty: {exp_name}__{seed})")
    runs_dir: str = opt("runs", "directory that holds the run directories (TensorBoard logs, checkpoints)")
    seed: int = opt(1, "random seed of everything (opponent choice, sampling, minibatches, initial weights)", lo=0)
    torch_threads: int = opt(1, "torch intra-op threads (results are reproducible only for the same number)", lo=1)
    deterministic: bool = opt(True, "torch.use_deterministic_algorithms (same machine, same results)")
    # ------------------------------------------------------------ game
    game: str = opt("kardinal", "the game to train on: kardinal or kardinal_koenig (Kardinal & Koenig)", choices=GAMES)
    players: int = opt(
        2,
        "players per game (kardinal 2-4; kardinal_koenig 3-5: when not given, kardinal_koenig plays 4)",
        lo=2,
        hi=5,
    )
    preset: str = opt("english", "rules preset (kardinal only)", choices=PRESETS)
    discard: str = opt(
        "one",
        "kardinal_koenig only: a discarding turn discards exactly one card (one) or any number (any)",
        choices=DISCARD_OPTIONS,
    )
    # ------------------------------------------------------------ rollout
    total_steps: int = opt(
        200_000,
        "learner steps to train (a step = one stored learner decision). Training runs whole iterations and "
        "stops after the first iteration that reaches this count, so it trains this many steps rounded up to "
        "the end of that iteration (at most about one iteration more)",
        lo=1,
    )
    num_envs: int = opt(32, "games played in lockstep during a rollout", lo=1)
    steps_per_iter: int = opt(
        2048, "learner steps collected per iteration before the PPO update (games are finished, so a little more)", lo=1
    )
    crop_margin: int = opt(
        1, "squares around the sites' bounding box that the network sees (1 holds every move)", lo=1, hi=53
    )
    # ------------------------------------------------------------ rewards
    reward: str = opt(
        "win_loss",
        "terminal reward: win_loss (+1 every winner, shared wins included; -1 otherwise) or margin "
        "(clip((own score - best other score) / 20, -1, 1))",
        choices=REWARD_SCHEMES,
    )
    chip_shaping: float = opt(0.0, "reward per chip a learner move takes (leftovers at the end excluded)")
    score_shaping: float = opt(0.0, "reward per point of change of the seat's projected score margin its move causes")
    # ------------------------------------------------------------ opponents
    greedy_share: float = opt(
        0.0,
        "share of games against the greedy baseline (2 players: it plays one seat; more: all seats but one)",
        lo=0.0,
        hi=1.0,
    )
    pool_share: float = opt(0.0, "share of games against a frozen past snapshot of the network", lo=0.0, hi=1.0)
    random_share: float = opt(
        0.0,
        "share of games against the random agent (the shares must sum to at most 1; the rest is pure self-play)",
        lo=0.0,
        hi=1.0,
    )
    pool_size: int = opt(5, "snapshots kept in the opponent pool (the latest ones)", lo=1)
    snapshot_interval: int = opt(10, "iterations between two snapshots taken into the pool", lo=1)
    # ------------------------------------------------------------ warm start (behaviour cloning of greedy)
    bc_games: int = opt(0, "warm start: games of the greedy baseline to imitate before PPO (0: no warm start)", lo=0)
    bc_epsilon: float = opt(0.1, "warm start: share of random moves in the imitation games", lo=0.0, hi=1.0)
    bc_epochs: int = opt(2, "warm start: epochs over the imitation data", lo=0)
    bc_learning_rate: float = opt(1e-3, "warm start: Adam learning rate", lo=0.0, lo_open=True)
    # ------------------------------------------------------------ PPO
    learning_rate: float = opt(5e-4, "Adam learning rate of PPO", lo=0.0, lo_open=True)
    anneal_lr: bool = opt(
        True, "decay the learning rate linearly to 0 over ceil(total_steps / steps_per_iter) iterations"
    )
    gamma: float = opt(0.99, "discount factor (over a seat's own decisions)", lo=0.0, hi=1.0)
    gae_lambda: float = opt(0.95, "GAE lambda", lo=0.0, hi=1.0)
    num_minibatches: int = opt(8, "minibatches per update epoch", lo=1)
    update_epochs: int = opt(2, "PPO epochs over each rollout", lo=1)
    bucket_minibatches: bool = opt(True, "minibatches of similar crop size (less padding)")
    norm_adv: bool = opt(True, "normalise advantages per minibatch")
    clip_coef: float = opt(0.2, "PPO clipping coefficient", lo=0.0, lo_open=True)
    clip_vloss: bool = opt(False, "clip the value loss like the policy ratio")
    ent_coef: float = opt(0.01, "entropy bonus coefficient", lo=0.0)
    vf_coef: float = opt(0.5, "value loss coefficient", lo=0.0)
    max_grad_norm: float = opt(0.5, "gradient norm clip", lo=0.0, lo_open=True)
    target_kl: float = opt(0.0, "stop an update early when the approximate KL exceeds this (0: off)", lo=0.0)
    # ------------------------------------------------------------ network
    network: str = opt(
        "auto",
        "network: cnn (kardinal: agents.networks.kardinal_net.KardinalNet on crops), mlp (kardinal_koenig: two hidden layers on "
        "the flat observation), graph (kardinal_koenig: message passing over sites and countries); auto: the "
        "game's default (kardinal: cnn, kardinal_koenig: graph)",
        choices=NETWORKS,
    )
    channels: int = opt(32, "network: convolution channels (cnn)", lo=1)
    blocks: int = opt(2, "network: residual blocks (cnn)", lo=0)
    hidden: int = opt(
        64, "network: width of the pooled-feature MLPs (cnn), hidden layers (mlp), node features (graph)", lo=1
    )
    rounds: int = opt(2, "network: message-passing rounds (graph)", lo=0)
    # ------------------------------------------------------------ evaluation, checkpoints, output
    eval_interval: int = opt(10, "iterations between evaluations against random and greedy (0: none)", lo=0)
    eval_games: int = opt(40, "games per opponent in each periodic evaluation (0: none)", lo=0)
    final_eval_games: int = opt(100, "games per opponent in the final evaluation (0: none)", lo=0)
    checkpoint_interval: int = opt(
        50, "iterations between numbered checkpoints (0: only the final checkpoint.pt)", lo=0
    )
    track: bool = opt(True, "write TensorBoard logs into the run directory")
    progress: bool = opt(True, "show tqdm progress bars (false: one log line per iteration)")

    def resolved_run_name(self) -> str:
        return self.run_name or f"{self.exp_name}__{self.seed}"

    def resolved_network(self) -> str:
        """The network kind: ``network``, or the game's default for ``auto``."""
        if self.network != "auto":
            return self.network
        return DEFAULT_NETWORK[self.game]

    def network_keys(self) -> dict:
        """The options that define the network's shape (they cannot change when resuming)."""
        if self.game == "kardinal":
            return {"channels": self.channels, "blocks": self.blocks, "hidden": self.hidden}
        net = self.resolved_network()
        keys = {"network": net, "hidden": self.hidden}
        if net == "graph":
            keys["rounds"] = self.rounds
        return keys


_FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _kind(f: dataclasses.Field) -> str:
    return f.type if isinstance(f.type, str) else f.type.__name__


def _allowed(f: dataclasses.Field) -> str:
    m, kind = f.metadata, _kind(f)
    if kind == "bool":
        return "true or false"
    if m["choices"]:
        return "one of " + ", ".join(m["choices"])
    noun = {"int": "an integer", "float": "a number", "str": "a string"}[kind]
    lo, hi = m["lo"], m["hi"]
    if lo is not None and hi is not None:
        return f"{noun} from {lo} to {hi}"
    if lo is not None:
        if m["lo_open"]:
            return f"{noun} greater than {lo}"
        return f"{noun} >= {lo}" if not (kind == "int" and lo == 1) else "a positive integer"
    return noun


def _coerce(name: str, value, source: str):
    """The value of key ``name`` as its field's type, range-checked; :class:`ConfigError` otherwise."""
    f = _FIELDS[name]
    kind, m = _kind(f), f.metadata

    def bad(why: str = "") -> ConfigError:
        why = f" ({why})" if why else ""
        return ConfigError(f"config key {name!r} ({source}): {value!r} is not allowed{why}; expected {_allowed(f)}")

    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise bad("not a boolean")
    if kind == "str":
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            raise bad("not a string")
        out = str(value)
        if m["choices"] and out not in m["choices"]:
            raise bad()
        return out
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise bad("not a number")
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            number = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                raise bad("not a number") from None
    else:
        number = value
    if not isinstance(number, (int, float)) or not math.isfinite(number):
        raise bad("not a finite number")
    if kind == "int":
        if isinstance(number, float):
            if not number.is_integer():
                raise bad("not an integer")
            number = int(number)
    else:
        number = float(number)
    lo, hi = m["lo"], m["hi"]
    if lo is not None and (number < lo or (m["lo_open"] and number == lo)):
        raise bad()
    if hi is not None and number > hi:
        raise bad()
    return number


def _unknown(name: str, source: str) -> ConfigError:
    close = difflib.get_close_matches(name, list(_FIELDS), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(_FIELDS)})"
    return ConfigError(f"unknown config key {name!r} ({source}){hint}")


def make_config(*layers: tuple[str, dict]) -> TrainConfig:
    """A validated :class:`TrainConfig` from ``(source, {key: value})`` layers (later layers win).
    ``source`` names where the values came from, for the error messages."""
    values, sources = {}, {}
    for source, layer in layers:
        for key, value in layer.items():
            if key not in _FIELDS:
                raise _unknown(str(key), source)
            values[key] = _coerce(key, value, source)
            sources[key] = source
    game = values.get("game", "kardinal")
    if "players" not in values:
        values["players"] = DEFAULT_PLAYERS[game]
    cfg = TrainConfig(**values)
    _check_game_options(cfg, sources)
    shares = cfg.greedy_share + cfg.pool_share + cfg.random_share
    if shares > 1.0 + 1e-9:
        where = ", ".join(sorted({sources.get(k, "default") for k in ("greedy_share", "pool_share", "random_share")}))
        raise ConfigError(
            f"config keys greedy_share + pool_share + random_share ({where}) must sum to at most 1, got "
            f"{cfg.greedy_share} + {cfg.pool_share} + {cfg.random_share} = {shares:g}"
        )
    if not cfg.exp_name.strip():
        raise ConfigError(f"config key 'exp_name' ({sources.get('exp_name', 'default')}): must not be empty")
    if not cfg.runs_dir.strip():
        raise ConfigError(f"config key 'runs_dir' ({sources.get('runs_dir', 'default')}): must not be empty")
    return cfg


def _check_game_options(cfg: TrainConfig, sources: dict) -> None:
    """Options that depend on the game: the player count, the network, the rule options."""

    def src(*keys: str) -> str:
        return ", ".join(f"{k}: {sources.get(k, 'default')}" for k in keys)

    lo, hi = GAME_PLAYERS[cfg.game]
    if not lo <= cfg.players <= hi:
        raise ConfigError(
            f"config key 'players' ({src('players', 'game')}): {cfg.players} is not allowed for game {cfg.game}; "
            f"expected an integer from {lo} to {hi}"
        )
    allowed = GAME_NETWORKS[cfg.game]
    if cfg.network != "auto" and cfg.network not in allowed:
        raise ConfigError(
            f"config key 'network' ({src('network', 'game')}): {cfg.network!r} is not a network of game {cfg.game}; "
            f"expected auto or one of {', '.join(allowed)}"
        )
    if cfg.game == "kardinal_koenig":
        if cfg.chip_shaping != 0:
            raise ConfigError(
                f"config key 'chip_shaping' ({src('chip_shaping')}): {cfg.chip_shaping} is not allowed for game "
                "kardinal_koenig (it has no chips); expected 0 (use score_shaping)"
            )
        if cfg.preset != _FIELDS["preset"].default:
            raise ConfigError(
                f"config key 'preset' ({src('preset')}): an option of game kardinal, not kardinal_koenig "
                "(its rule options: players, discard)"
            )
    elif cfg.discard != _FIELDS["discard"].default:
        raise ConfigError(
            f"config key 'discard' ({src('discard')}): an option of game kardinal_koenig, not kardinal "
            "(set game: kardinal_koenig)"
        )


def load_yaml(path) -> dict:
    """The mapping of a YAML preset; :class:`ConfigError` naming the file if it is missing, not YAML
    or not a mapping of keys to values. A bare preset name (``default``, ``long_2p``, ``long_4p``,
    ``koenig_default``, ``koenig_long``)
    that is not a file reads the preset installed with the package (``kardinal_configs``)."""
    import yaml

    path = str(path)
    try:
        fh = open(path)
    except FileNotFoundError:
        preset = _packaged_preset(path)
        if preset is None:
            names = ", ".join(_packaged_preset_names()) or "none installed"
            raise ConfigError(f"config file {path!r} does not exist (packaged presets by name: {names})") from None
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


def _packaged_preset_names() -> list[str]:
    try:
        from importlib.resources import files

        return sorted(p.name[:-5] for p in files("kardinal_configs").iterdir() if p.name.endswith(".yaml"))
    except (ImportError, OSError, TypeError):
        return []


def _packaged_preset(name: str):
    """An open preset of the installed ``kardinal_configs`` package for a bare name such as
    ``default`` (what ``--config default`` means when no file ``default`` exists), else ``None``."""
    stem = name[:-5] if name.endswith(".yaml") else name
    if stem not in _packaged_preset_names():
        return None
    from importlib.resources import files

    return files("kardinal_configs").joinpath(f"{stem}.yaml").open()


def parse_set(items) -> dict:
    """``{key: text}`` of ``--set KEY=VALUE`` items (values are converted and checked by :func:`make_config`)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def config_help() -> str:
    """One line per option: name, type, default and help (what ``--help`` shows)."""
    lines = []
    for f in dataclasses.fields(TrainConfig):
        lines.append(f"{f.name} ({_allowed(f)}; default {f.default!r}): {f.metadata['help']}")
    return "\n".join(lines)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The ``kardinal-train`` argument parser: ``--config``, ``--resume``, ``--set`` and one
    ``--key VALUE`` flag per :class:`TrainConfig` field, each with its help text."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Self-play PPO for Kardinal and Kardinal & Koenig (game: kardinal | kardinal_koenig). "
        "Options come from (later wins): the --resume checkpoint's config, "
        "the --config YAML preset, --set KEY=VALUE, --KEY VALUE. Every value is checked before training starts.",
        epilog="A step is one stored learner decision (a decision of a learner seat with more than one legal move). "
        "Example: %(prog)s --config configs/default.yaml --set total_steps=20000 --progress false; "
        "%(prog)s --config configs/koenig_default.yaml (Kardinal & Koenig)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--config",
        metavar="YAML",
        help="YAML preset: a file (e.g. configs/default.yaml) or the name of a packaged preset (default, long_2p, "
        "long_4p, koenig_default, koenig_long); a mapping of the keys below",
    )
    p.add_argument(
        "--resume",
        metavar="CHECKPOINT",
        help="continue a run from its checkpoint.pt (its config is the base; options given here override it)",
    )
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="set a config key (repeatable)")
    group = p.add_argument_group("training options (also as KEY=VALUE with --set or as keys of the YAML preset)")
    for f in dataclasses.fields(TrainConfig):
        group.add_argument(
            f"--{f.name}",
            dest=f"opt_{f.name}",
            default=None,
            metavar=_kind(f).upper(),
            help=f"{f.metadata['help']} [{_allowed(f)}; default: {f.default!r}]".replace("%", "%%"),
        )
    # ArgumentDefaultsHelpFormatter would print "(default: None)" for the flags; the text above has the real one
    p.formatter_class = argparse.HelpFormatter
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

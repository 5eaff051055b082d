"""Training configuration: every option is a :class:`TrainConfig` field, its help and range or choices in ``metadata``
(:func:`opt`; a game's rule option: :func:`rule_opt`); :func:`build_parser` makes ``kardinal-train --help`` of them.
:func:`make_config` makes a :class:`TrainConfig` of ``(source, {key: value})`` layers, checking each value against its
field and the options against each other and the game's registry entry (players, rule options, network kinds, chips,
baselines); a bad value raises :class:`ConfigError` naming the key, its source, the value and what is allowed, e.g.
``config key 'greedy_share' (--set): 1.5 is not allowed; expected a number from 0 to 1``. Values come from, later
winning: a checkpoint's config (``--resume``), a YAML preset (``--config``: a file or a game's preset by name,
:func:`preset_names`), ``--set key=value``, ``--key value`` (:func:`config_from_args`). Torch-free.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import kardinal_env  # noqa: F401  (registers the built-in games)
from agents.registry import game_agents
from kardinal_env.core.cli import add_plugin_argument
from kardinal_env.core.registry import GameSpec, RuleOption, UnknownGameError, game_names, games, get_game
from kardinal_env.core.rewards import REWARD_SCHEMES

__all__ = [
    "TrainConfig",
    "ConfigError",
    "make_config",
    "opt",
    "rule_opt",
    "load_yaml",
    "parse_set",
    "build_parser",
    "config_from_args",
    "preset_names",
    "REWARD_SCHEMES",
]

#: The searches of ``algorithm: search`` (:mod:`agents.training.search_training`).
SEARCHES = ("puct", "mcts", "ismcts", "rollout", "network")


def opt(default, help: str, *, lo=None, hi=None, lo_open: bool = False, choices=None, **more):
    """A config field: ``default``, ``help``, the range ``lo..hi`` (``lo`` excluded when ``lo_open``) or ``choices``."""
    metadata = {"help": help, "lo": lo, "hi": hi, "lo_open": lo_open, "choices": choices, **more}
    return field(default=default, metadata=metadata)


def _owners(name: str) -> list[GameSpec]:
    """The registered games that have the rule option ``name``."""
    return [spec for spec in games().values() if any(o.name == name for o in spec.rule_options)]


def _option(spec: GameSpec, name: str) -> RuleOption | None:
    return next((o for o in spec.rule_options if o.name == name), None)


def rule_opt(name: str):
    """A config field for the games' rule option ``name`` (default and help from the registry)."""
    owners = _owners(name)
    option = _option(owners[0], name)
    assert option is not None and option.choices, name
    default = option.default if option.default is not None else option.choices[0]
    return opt(default, f"{option.help} (a rule option of {', '.join(s.name for s in owners)})", rule_option=True)


@dataclass
class TrainConfig:
    """Every option of the trainers (a *step*: one stored learner decision with more than one legal move)."""

    # ------------------------------------------------------------ run
    exp_name: str = opt("ppo_selfplay", "experiment name (the run name defaults to {exp_name}__{seed})")
    run_name: str = opt("", "run directory name under runs_dir (empty: {exp_name}__{seed})")
    runs_dir: str = opt("runs", "directory that holds the run directories (TensorBoard logs, checkpoints)")
    seed: int = opt(1, "random seed of everything (opponent choice, sampling, minibatches, initial weights)", lo=0)
    torch_threads: int = opt(1, "torch intra-op threads (results are reproducible only for the same number)", lo=1)
    deterministic: bool = opt(True, "torch.use_deterministic_algorithms (same machine, same results)")
    algorithm: str = opt("ppo", "ppo: self-play PPO; search: search-based self-play", choices=("ppo", "search"))
    # ------------------------------------------------------------ game
    game: str = opt(game_names()[0], "the game to train on: a registered game (" + ", ".join(game_names()) + ")")
    players: int | None = opt(None, "players per game: one of the game's counts (not given: its default)", lo=1)
    preset: str = rule_opt("preset")
    discard: str = rule_opt("discard")
    # ------------------------------------------------------------ rollout
    total_steps: int = opt(
        200_000, "learner steps to train (a step = one stored learner decision; 0: the warm start alone)", lo=0
    )
    num_envs: int = opt(32, "games played in lockstep during a rollout", lo=1)
    steps_per_iter: int = opt(2048, "learner steps collected per iteration (whole games) before the update", lo=1)
    crop_margin: int = opt(1, "cnn (kardinal): squares the crop adds around the sites (1 holds every move)", lo=1)
    # ------------------------------------------------------------ rewards
    reward: str = opt(
        "win_loss", "terminal reward: win_loss (+1/-1) or margin (clip(margin / 20, -1, 1))", choices=REWARD_SCHEMES
    )
    chip_shaping: float = opt(0.0, "reward per chip a learner move takes (a game with chips only)")
    score_shaping: float = opt(0.0, "reward per point of change of the seat's projected margin by its move", lo=0.0)
    # ------------------------------------------------------------ opponents
    baseline: str = opt("greedy", "the game's baseline that plays the greedy_share games and the warm start imitates")
    greedy_share: float = opt(0.0, "share of games against the baseline named by 'baseline'", lo=0.0, hi=1.0)
    pool_share: float = opt(0.0, "share of games against a frozen past snapshot of the network", lo=0.0, hi=1.0)
    random_share: float = opt(0.0, "share of games against random (the shares sum to at most 1)", lo=0.0, hi=1.0)
    pool_size: int = opt(5, "snapshots kept in the opponent pool (the latest ones)", lo=1)
    snapshot_interval: int = opt(10, "iterations between two snapshots taken into the pool", lo=1)
    # ------------------------------------------------------------ search-based self-play (algorithm=search)
    search: str = opt("puct", "algorithm=search: the search at every self-play move", choices=SEARCHES)
    teacher: str = opt("", "algorithm=search, search=network: the network to learn from, ppo:PATH or zoo:NAME")
    simulations: int = opt(32, "algorithm=search: simulations of a full search (a training target)", lo=1)
    fast_simulations: int = opt(8, "algorithm=search: simulations of a fast search (not a target)", lo=1)
    full_search_share: float = opt(
        0.25, "algorithm=search: share of decisions searched fully", lo=0.0, hi=1.0, lo_open=True
    )
    c_puct: float = opt(1.5, "algorithm=search, search=puct: exploration constant of PUCT", lo=0.0, lo_open=True)
    search_batch: int = opt(4, "algorithm=search, search=puct: descents per game per network call", lo=1)
    dirichlet_alpha: float = opt(0.3, "algorithm=search, search=puct: root noise's alpha", lo=0.0, lo_open=True)
    noise_fraction: float = opt(0.25, "algorithm=search, search=puct: the root noise's weight", lo=0.0, hi=1.0)
    target_temperature: float = opt(1.0, "algorithm=search: target = visits ** (1 / this)", lo=0.0, lo_open=True)
    temperature_moves: int = opt(8, "algorithm=search: a game's first decisions that draw by the visits", lo=0)
    replay_size: int = opt(50_000, "algorithm=search: training examples kept (the latest)", lo=1)
    sample_reuse: float = opt(4.0, "algorithm=search: minibatch samples per new example", lo=0.0, lo_open=True)
    minibatch_size: int = opt(256, "algorithm=search: examples per minibatch", lo=1)
    replay_warmup: int = opt(0, "algorithm=search: no update until the replay holds this many examples", lo=0)
    policy_play_share: float = opt(0.0, "algorithm=search: share of games the network plays (DAgger)", lo=0.0, hi=1.0)
    baseline_targets: str = opt("", "algorithm=search: regex; decisions whose moves all match take the baseline's")
    selfplay_workers: int = opt(1, "algorithm=search: processes that play the self-play games", lo=1)
    device: str = opt("cpu", "algorithm=search: where the updates run: cpu, cuda or cuda:N")
    # ------------------------------------------------------------ warm start (behaviour cloning of the baseline)
    bc_games: int = opt(0, "warm start: games of the baseline to imitate before PPO (0: no warm start)", lo=0)
    bc_epsilon: float = opt(0.1, "warm start: share of random moves in the imitation games", lo=0.0, hi=1.0)
    bc_epochs: int = opt(2, "warm start: epochs over the imitation data", lo=0)
    bc_learning_rate: float = opt(1e-3, "warm start: Adam learning rate", lo=0.0, lo_open=True)
    bc_anneal_lr: bool = opt(False, "warm start: decay the learning rate linearly to zero over its epochs")
    anchor_kl: float = opt(0.0, "PPO: weight of KL(starting policy || policy) in the loss (0: off)", lo=0.0)
    init_weights: str = opt("", "start a new run from the weights of ppo:PATH or zoo:NAME ('': fresh)")
    # ------------------------------------------------------------ PPO
    learning_rate: float = opt(5e-4, "Adam learning rate of PPO", lo=0.0, lo_open=True)
    anneal_lr: bool = opt(True, "decay the learning rate linearly to 0 at total_steps")
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
    network: str = opt("auto", "network kind: auto (the game's default) or one of the game's network kinds")
    channels: int = opt(32, "network: convolution channels (cnn)", lo=1)
    blocks: int = opt(2, "network: residual blocks (cnn)", lo=0)
    hidden: int = opt(64, "network: MLP width (cnn, mlp), node features (graph, advised)", lo=1)
    rounds: int = opt(2, "network: message-passing rounds (graph, advised)", lo=0)
    advice_scale: float = opt(2.0, "network advised: the advice's initial weight on the logits", lo=0.0, lo_open=True)
    advice_weights: str = opt("", "network advised: heuristic weights as name=value,... ('': the defaults)")
    # ------------------------------------------------------------ evaluation, checkpoints, output
    eval_interval: int = opt(10, "iterations between evaluations against the baselines (0: none)", lo=0)
    eval_games: int = opt(40, "games per opponent in each periodic evaluation (0: none)", lo=0)
    final_eval_games: int = opt(100, "games per opponent in the final evaluation (0: none)", lo=0)
    checkpoint_interval: int = opt(50, "iterations between numbered checkpoints (0: only checkpoint.pt)", lo=0)
    keep_best: bool = opt(False, "write best.pt after each evaluation that is the best so far against the baseline")
    track: bool = opt(True, "write TensorBoard logs into the run directory")
    progress: bool = opt(True, "show tqdm progress bars (false: one log line per iteration)")

    def resolved_run_name(self) -> str:
        return self.run_name or f"{self.exp_name}__{self.seed}"

    def __post_init__(self) -> None:
        if self.players is None:
            self.players = get_game(self.game).default_players

    def resolved_network(self) -> str:
        """The network kind: ``network``, or the game's default for ``auto``."""
        if self.network != "auto":
            return self.network
        return str(_builder(get_game(self.game)).kinds[0])

    def network_options(self) -> dict:
        """The options of the game's network builder: ``kind`` and the sizes."""
        sizes = {key: getattr(self, key) for key in ("channels", "blocks", "hidden", "rounds", "advice_scale")}
        return {"kind": self.resolved_network(), **sizes, "advice_weights": _advice_weights(self.advice_weights)}

    def rule_options(self, spec: GameSpec) -> dict:
        """The rule options of ``spec`` that this config sets (its fields named like them)."""
        return {o.name: getattr(self, o.name) for o in spec.rule_options if o.name in _RULE_FIELDS}


def _advice_weights(text: str) -> dict[str, float]:
    """The advised network's heuristic weights that differ from the defaults, from ``advice_weights``."""
    if not text:
        return {}
    from agents.baselines.koenig_heuristic import HeuristicWeights

    return HeuristicWeights.parse(text).changed()


def _builder(spec: GameSpec) -> Any:
    """The game's network builder (imports torch: only when a network is checked)."""
    from agents.networks.checkpoint import network_builder

    return network_builder(spec)


_FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}
_RULE_FIELDS = {name for name, f in _FIELDS.items() if f.metadata.get("rule_option")}


def _kind(f: dataclasses.Field) -> str:
    return str(f.type).removesuffix(" | None")  # the annotation's text (annotations are not evaluated here)


def _allowed(f: dataclasses.Field) -> str:
    m, kind = f.metadata, _kind(f)
    if kind == "bool":
        return "true or false"
    if m.get("rule_option"):
        owners = [(spec.name, _option(spec, f.name)) for spec in _owners(f.name)]
        return "; ".join(f"{name}: one of {', '.join(o.choices)}" for name, o in owners if o)
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
    if (lo is not None and (number < lo or (m["lo_open"] and number == lo))) or (hi is not None and number > hi):
        raise bad()
    return number


def _where(sources: dict, *keys: str) -> str:
    """Where the values of ``keys`` came from (``default`` for a key no layer set), each source once."""
    return ", ".join(sorted({sources.get(k, "default") for k in keys}))


def make_config(*layers: tuple[str, dict]) -> TrainConfig:
    """A validated :class:`TrainConfig` from ``(source, {key: value})`` layers (later wins)."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for source, layer in layers:
        for key, value in layer.items():
            if key not in _FIELDS:
                close = difflib.get_close_matches(str(key), list(_FIELDS), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(_FIELDS)})"
                raise ConfigError(f"unknown config key {str(key)!r} ({source}){hint}")
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
    cfg = TrainConfig(**values)  # players not given: the game's default
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
    for key, why in (
        ("selfplay_workers", "plays and updates in its own process on the CPU"),
        ("device", "plays and updates in its own process on the CPU"),
        ("teacher", "learns from its own games' returns, not from a teacher"),
        ("baseline_targets", "learns from its own games' returns, not from targets"),
    ):
        plain = _FIELDS[key].default  # what algorithm=ppo takes
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
    for key in ("exp_name", "runs_dir"):
        if not getattr(cfg, key).strip():
            raise ConfigError(f"config key {key!r} ({_where(sources, key)}): must not be empty")
    return cfg


def _counts(players: tuple[int, ...]) -> str:
    ordered = sorted(players)
    if len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"an integer from {ordered[0]} to {ordered[-1]}"
    return "one of " + ", ".join(map(str, ordered))


#: Why ``greedy_share`` and ``bc_games`` take a baseline other than ``random`` (which every game has).
_NOT_RANDOM = {
    "greedy_share": "games against random are random_share's (set random_share instead)",
    "bc_games": "the warm start imitates the baseline's moves, and random moves teach nothing",
}


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
        if option is None and value != _FIELDS[name].default:
            owners = " or ".join(o.name for o in _owners(name)) or "no registered game"
            theirs = ", ".join(["players"] + [o.name for o in spec.rule_options])
            raise ConfigError(
                f"config key {name!r} ({src(name)}): an option of game {owners}, not {game} "
                f"(its rule options: {theirs})"
            )
        if option is not None and option.choices and value not in option.choices:
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
    # greedy_share and bc_games need a baseline of the game other than random
    wiring = game_agents(spec)
    others = ", ".join(b for b in wiring.baseline_kinds if b != "random")
    for key in ("greedy_share", "bc_games"):
        value = getattr(cfg, key)
        if not value or (cfg.baseline != "random" and wiring.has_baseline(cfg.baseline)):
            continue
        baseline = f"config key 'baseline' ({src('baseline')})"
        if cfg.baseline == "random":
            why, which = f"with baseline random ({baseline}): {_NOT_RANDOM[key]}", f"game {game}'s other"
        else:
            why, which = f"for game {game}: it has no baseline {cfg.baseline!r} ({baseline})", "its"
        fix = f"set baseline to one of {which} baselines ({others}) or expected 0"
        fix = fix if others else f"game {game} has no baseline besides random; expected 0"
        raise ConfigError(f"config key {key!r} ({src(key)}): {value} is not allowed {why}; {fix}")


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
    where = _where(sources, "teacher", "search")  # search=network needs a teacher; the other searches take none
    if cfg.search != "network" and cfg.teacher:
        raise ConfigError(
            f"config key 'teacher' ({where}): {cfg.teacher!r} is for search=network; search {cfg.search!r} "
            "is its own teacher (expected '')"
        )
    if cfg.search == "network" and not cfg.teacher:
        raise ConfigError(
            f"config key 'teacher' ({where}): search=network needs the network to learn from, an agent spec "
            "ppo:PATH or zoo:NAME"
        )
    if cfg.teacher:
        _check_network_spec("teacher", cfg.teacher, where, cfg, spec)
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


def load_yaml(path) -> dict:
    """The mapping of a YAML preset (a file or a game's preset by name); :class:`ConfigError` otherwise."""
    import yaml  # type: ignore[import-untyped]

    path = str(path)
    try:
        fh = open(path)
    except FileNotFoundError:
        fh = _open_preset(path)
        if fh is None:
            names = ", ".join(preset_names()) or "none registered"
            raise ConfigError(f"config file {path!r} does not exist (presets by name: {names})") from None
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
        default = "the game's" if f.default is None else repr(f.default)
        group.add_argument(
            f"--{f.name}",
            dest=f"opt_{f.name}",
            default=None,
            metavar=_kind(f).upper(),
            help=f"{f.metadata['help']} [{_allowed(f)}; default: {default}]".replace("%", "%%"),
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

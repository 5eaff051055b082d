"""The training options: :class:`TrainConfig`, one field per ``kardinal-train`` option, its help and
range or choices in ``metadata`` (:func:`opt`; a game's rule option: :func:`rule_opt`). Torch-free.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import kardinal_env  # noqa: F401  (registers the built-in games)
from kardinal_env.core.registry import GameSpec, RuleOption, game_names, games, get_game
from kardinal_env.core.rewards import REWARD_SCHEMES

__all__ = ["TrainConfig", "opt", "rule_opt"]

#: The searches of ``algorithm: search`` (:mod:`agents.training.search_training`).
SEARCHES = ("puct", "mcts", "ismcts", "rollout", "network")


def opt(default, help: str, *, lo=None, hi=None, lo_open: bool = False, choices=None):
    """A config field: ``default``, ``help``, the range ``lo..hi`` (``lo`` excluded when ``lo_open``) or ``choices``."""
    return field(default=default, metadata={"help": help, "lo": lo, "hi": hi, "lo_open": lo_open, "choices": choices})


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
    help = f"{option.help} (a rule option of {', '.join(spec.name for spec in owners)})"
    return field(
        default=default,
        metadata={"help": help, "lo": None, "hi": None, "lo_open": False, "choices": None, "rule_option": True},
    )


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
        return {
            "kind": self.resolved_network(),
            "channels": self.channels,
            "blocks": self.blocks,
            "hidden": self.hidden,
            "rounds": self.rounds,
            "advice_weights": _advice_weights(self.advice_weights),
            "advice_scale": self.advice_scale,
        }

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
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    return kind.removesuffix(" | None")


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


def _default(f: dataclasses.Field) -> str:
    return "the game's" if f.default is None else repr(f.default)

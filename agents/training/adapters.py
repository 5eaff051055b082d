"""Game adapters: what the trainers need of a game. :func:`make_adapter` takes the game's
:class:`agents.registry.GameAgents` entry's ``adapter``, or :class:`FlatAdapter`.

An adapter holds ``spec``, ``rules`` (training), ``opponents`` (``random``, ``greedy``, ``baseline`` where the game has
them), ``reads_game``; it makes games (``new_game(rng)``: a seed only with chance; ``eval_game(seed, i)``,
:func:`agents.runinfo.game_seed`), handles moves in its own representation (``legal``, ``apply``, ``encode_move``,
``baseline_move``; ``action_of``: its action id) and decisions (``prepare(game)`` / ``decision_of(obs, legal, seat,
game)`` from a :class:`kardinal_env.vector.VectorEnv` row: the seat's own observation and mask; ``compact``, ``size``),
and runs networks (``policy_step`` / ``policy_actions``: one batched pass giving stored actions, moves or ids,
log-probs, values; ``stored_action``; ``forward`` and ``forward_targets`` for training; ``build_net``; ``vector_env(n)``
with the training rewards).

:class:`GameAdapter` (and :class:`FlatAdapter`, any game): ``spec.make_encoder``'s flat observation, action ids as
moves. :class:`KoenigAdapter`: :func:`agents.baselines.koenig_greedy.koenig_greedy_move` and the advice.
:class:`KardinalAdapter`: crops (:mod:`agents.networks.kardinal_net`), engine move codes,
:func:`agents.baselines.kardinal_greedy.greedy_code`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.baselines.kardinal_greedy import greedy_code
from agents.baselines.koenig_greedy import koenig_greedy_move
from agents.networks.base import MaskedCategorical, legal_mask, num_actions
from agents.networks.checkpoint import network_builder
from agents.networks.kardinal_net import (
    batch,
    cardinal_advice_crop,
    decision_of,
    full_to_crop,
    policy_step,
    relayout,
)
from agents.networks.koenig_net import advice_weights, network_input
from agents.registry import game_agents
from agents.runinfo import game_seed
from kardinal_env.core.registry import GameSpec, get_game
from kardinal_env.kardinal.engine import action_codec
from kardinal_env.kardinal.notation import parse_move

__all__ = ["GameAdapter", "FlatAdapter", "FlatDecision", "KardinalAdapter", "KoenigAdapter", "make_adapter"]


class GameAdapter:
    """The interface (see the module docstring), implemented for any game's action ids and flat observation."""

    def __init__(self, config, spec: GameSpec):
        self.config = config
        self.spec = spec
        self.wiring = game_agents(spec)
        self.rules = spec.rules(config.players, **config.rule_options(spec))
        self.env_name = spec.env_name
        self.builder = network_builder(spec)
        self.encoder = spec.make_encoder(self.rules)
        self.num_actions = num_actions(self.rules)
        self.obs_size = int(math.prod(self.encoder.shape))
        names = [name for name in ("greedy", config.baseline) if self.wiring.has_baseline(name) and name != "random"]
        self.opponents: tuple[str, ...] = ("random", *dict.fromkeys(names))
        self._baseline_agents: dict[str, Any] = {}
        self._baseline_seed = config.seed
        #: Whether :meth:`decision_of` needs a copy of the game (an ``advised`` network reads advice from it).
        self.reads_game = config.resolved_network() == "advised"

    def reseed_baselines(self, seed: int) -> None:
        """Baseline agents built afresh, seeded with ``seed`` (a search-training worker's new streams)."""
        self._baseline_agents.clear()
        self._baseline_seed = seed

    def new_game(self, rng: np.random.Generator):
        seed = int(rng.integers(2**31)) if self.spec.chance else None  # no chance: nothing is drawn from rng
        return self.spec.new_game(self.rules, seed=seed)

    def eval_game(self, seed: int, index: int):
        return self.spec.new_game(self.rules, seed=game_seed(seed, index))

    def legal(self, game) -> list:
        return [int(a) for a in game.legal_actions()]

    def apply(self, game, move) -> None:
        game.apply_action(int(move))

    def baseline_move(self, name: str, game, rng_py):
        agent = self._baseline_agents.get(name)
        if agent is None:
            if not self.wiring.has_baseline(name):
                known = ", ".join(self.wiring.baseline_kinds)
                raise ValueError(f"game {self.spec.name} has no baseline {name!r} (its baselines: {known})")
            agent = self._baseline_agents[name] = self.wiring.baseline(name)(seed=self._baseline_seed)
        return self.encode_move(game, agent.select_move(game))

    def encode_move(self, game, move: str):
        return game.string_to_action(move)

    def action_of(self, game, move) -> int:
        return int(move)

    def stored_action(self, decision, move) -> int:
        return int(move)

    def prepare(self, game):
        seat = game.current_player
        return self.decision_of(self.encoder.encode(game, seat), game.legal_actions(), seat, game)

    def needs_game(self, game: Any) -> bool:
        """Whether :meth:`decision_of` reads ``game`` (``ValueError`` when it does and ``game`` is ``None``)."""
        if self.reads_game and game is None:
            raise ValueError("the advised network's decisions need the game (reads_game)")
        return self.reads_game

    def decision_of(self, observation: np.ndarray, legal: np.ndarray, seat: int, game: Any = None):
        mask = legal_mask(self.num_actions, legal)
        obs = np.array(observation, dtype=np.float32).reshape(self.obs_size)  # a copy
        return FlatDecision(seat, obs, mask, [int(a) for a in np.flatnonzero(mask)])

    def compact(self, decision):
        """The observation as float16 where that is exact, the legal ids as int16: a third of the memory."""
        obs16 = decision.obs.astype(np.float16)
        obs = obs16 if np.array_equal(obs16, decision.obs) else decision.obs
        legal = np.asarray(decision.legal, dtype=np.int16 if self.num_actions < 2**15 else np.int64)
        return FlatDecision(decision.seat, obs, decision.mask, legal)

    def size(self, decision) -> int:
        return 0

    @torch.no_grad()
    def policy_step(self, net, decisions, greedy: bool = False, generator=None):
        logits, values, mask, _ = self.forward(net, decisions, [])
        dist = MaskedCategorical(logits, mask)
        actions = dist.mode() if greedy else dist.sample(generator)
        acts = actions.numpy().astype(np.int64)
        return acts, [int(a) for a in acts], dist.log_prob(actions).numpy(), values.numpy()

    def policy_actions(self, net, decisions, greedy: bool = False, generator=None):
        stored, moves, logp, values = self.policy_step(net, decisions, greedy=greedy, generator=generator)
        return stored, np.asarray(moves, dtype=np.int64), logp, values

    def forward(self, net, decisions, actions):
        obs = torch.from_numpy(np.stack([d.obs for d in decisions]).astype(np.float32, copy=False))
        mask = torch.from_numpy(np.stack([d.mask for d in decisions]))
        logits, values = net(obs)
        return logits, values, mask, torch.as_tensor(np.asarray(actions, dtype=np.int64))

    def forward_targets(self, net, decisions, actions: list, probs: list):
        """``(logits, values, mask, target)``, ``target`` holding ``probs[i]`` at the stored ``actions[i]``."""
        logits, values, mask, _ = self.forward(net, decisions, [int(a[0]) for a in actions])
        target = torch.zeros_like(logits)
        for row, index in enumerate(self.logit_indices(decisions, actions, logits)):
            target[row, torch.as_tensor(index, device=target.device)] = torch.as_tensor(
                probs[row], dtype=target.dtype, device=target.device
            )
        return logits, values, mask, target

    def logit_indices(self, decisions, actions: list, logits) -> list[np.ndarray]:
        """The columns of ``logits`` of each decision's stored ``actions`` (here: the stored actions)."""
        return [np.asarray(a, dtype=np.int64) for a in actions]

    def build_net(self) -> torch.nn.Module:
        return self.builder(self.rules, self.config.network_options())

    def vector_env(self, num_envs: int) -> Any:
        from kardinal_env.vector import VectorEnv

        cfg = self.config
        shaping = {"chip_shaping": cfg.chip_shaping, "score_shaping": cfg.score_shaping}
        return VectorEnv(self.spec, num_envs, rules=self.rules, reward=cfg.reward, **shaping)


@dataclass
class FlatDecision:
    """One decision: the seat's flat observation, its action mask and legal ids."""

    seat: int
    obs: np.ndarray  # (observation size,) float32
    mask: np.ndarray  # (num_actions,) bool
    legal: Any  # list[int], or an integer array after GameAdapter.compact


class FlatAdapter(GameAdapter):
    """Any registered game through its action ids and observation encoder (:class:`GameAdapter`'s own)."""


class KoenigAdapter(FlatAdapter):
    """Kardinal & König: the greedy baseline's fast path; the advised network's input adds the advice."""

    def __init__(self, config, spec: GameSpec):
        super().__init__(config, spec)
        self.advice = advice_weights(config.network_options()) if self.reads_game else None

    def decision_of(self, observation, legal, seat, game=None):
        d = super().decision_of(observation, legal, seat)
        if self.needs_game(game):
            d.obs = network_input(d.obs, game, self.advice)
        return d

    def baseline_move(self, name, game, rng_py):
        if name == "greedy":
            return self.encode_move(game, koenig_greedy_move(game, rng_py))
        return super().baseline_move(name, game, rng_py)


class KardinalAdapter(GameAdapter):
    def __init__(self, config, spec: GameSpec):
        super().__init__(config, spec)
        self.codec = action_codec(self.rules)  # Kardinal's own codec: windows and move codes
        self.margin = config.crop_margin

    def legal(self, game):
        return game.legal_move_codes()

    def apply(self, game, move):
        game.play_code(move)

    def baseline_move(self, name, game, rng_py):
        if name == "greedy":
            return greedy_code(game, rng_py)
        return super().baseline_move(name, game, rng_py)

    def encode_move(self, game, move):
        return parse_move(move)

    def policy_step(self, net, decisions, greedy=False, generator=None):
        crop_a, full_a, logp, values = policy_step(net, decisions, greedy=greedy, generator=generator)
        moves = [self.codec.decode_code(int(full_a[i]), d.seat) for i, d in enumerate(decisions)]
        return crop_a, moves, logp, values

    def stored_action(self, decision, move):
        return full_to_crop(self.codec.encode_code(move, decision.seat), decision.box, self.codec.window)

    def decision_of(self, observation, legal, seat, game=None):
        d = decision_of(observation, legal, seat, self.codec.window, self.margin)
        if self.needs_game(game):
            d.advice = cardinal_advice_crop(game, self.codec, d.box)
        return d

    def policy_actions(self, net, decisions, greedy=False, generator=None):
        return policy_step(net, decisions, greedy=greedy, generator=generator)

    def action_of(self, game, move):
        return self.codec.encode_code(move, game.current_player)

    def forward(self, net, decisions, actions):
        inputs, mask = batch(decisions)
        H, W = inputs[0].shape[2], inputs[0].shape[3]
        acts = torch.tensor([relayout(a, d.spatial.shape[1:], (H, W)) for d, a in zip(decisions, actions)])
        logits, values = net(*inputs)
        return logits, values, mask, acts

    def size(self, decision):
        return decision.spatial.shape[1] * decision.spatial.shape[2]

    def compact(self, decision):
        return decision

    def logit_indices(self, decisions, actions, logits):
        H = max(d.spatial.shape[1] for d in decisions)  # the padded layout of collate (the batch's largest crop)
        W = max(d.spatial.shape[2] for d in decisions)
        return [
            np.array([relayout(int(a), d.spatial.shape[1:], (H, W)) for a in acts], np.int64)
            for d, acts in zip(decisions, actions, strict=True)
        ]


def adapter_class(spec: GameSpec) -> type[GameAdapter]:
    """The adapter class of a game: its agents' entry's ``adapter``, or :class:`FlatAdapter`."""
    found: Any = game_agents(spec).load("adapter")
    return FlatAdapter if found is None else found


def make_adapter(config) -> GameAdapter:
    """The adapter of ``config.game`` (a :class:`agents.training.config.TrainConfig`)."""
    spec = get_game(config.game)
    return adapter_class(spec)(config, spec)

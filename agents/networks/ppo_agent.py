"""A trained PPO policy as an agent of any registered game.

``PPOAgent.from_checkpoint(path, greedy=True, seed=None, **kw)`` returns the checkpoint's game's agent class
(:class:`agents.networks.kardinal_net.KardinalPPOAgent`, :class:`agents.networks.koenig_net.KoenigPPOAgent` or
:class:`FlatPPOAgent`). Each reads *only* the deciding seat's observation: ``select_move(game)`` plays the most probable
legal action (``greedy``) or a seeded sample (a single legal move without the network); ``act(observation,
action_mask)`` the same on an environment's observation; ``policy_value(games)`` gives per game (not over, one rules
object) the legal action ids (``game.legal_actions()``), the prior over them (float64, summing to 1) and the seat's
value in one forward pass. ``config`` and ``search_defaults`` are the checkpoint's; a game of another player count
issues one :class:`agents.networks.checkpoint.PlayerCountWarning`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch

from agents.base import BaseAgent
from agents.networks.base import MaskedCategorical, legal_mask, model_config, softmax
from agents.networks.checkpoint import (
    CheckpointError,
    PlayerCountWarning,
    checkpoint_game,
    checkpoint_rules,
    network_builder,
    player_count_warning,
    read_checkpoint,
    search_defaults,
    trained_players,
)
from kardinal_env.core.registry import game_of

__all__ = ["PPOAgent", "FlatPPOAgent"]


class PPOAgent(BaseAgent):
    """A policy network playing one game: the base of every game's network agent (see the module docstring)."""

    name = "ppo"

    def __init__(
        self,
        net: torch.nn.Module,
        greedy: bool = True,
        seed: int | None = None,
        name: str = "ppo",
        trained_players: int | None = None,
        config: dict | None = None,
    ):
        self.reset(seed)  # the seed, rng and _generator
        self.net = net.eval()
        self.greedy = greedy
        self.name = name
        self.trained_players = trained_players
        self.config = dict(config or {})
        #: The checkpoint's ``search_defaults``: what ``puct:N`` takes with this network unless told otherwise.
        self.search_defaults: dict = {}
        self._rules: Any = None  # the rules the agent is set up for (_setup)
        self._warned = False

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._generator = torch.Generator().manual_seed(seed if seed is not None else 0)

    def _warn_players(self, players: int) -> None:
        msg = player_count_warning(self.name, self.trained_players, players)
        if msg and not self._warned:
            self._warned = True
            warnings.warn(msg, PlayerCountWarning, stacklevel=4)

    @classmethod
    def from_checkpoint(cls, path, greedy: bool = True, seed: int | None = None, **kw) -> PPOAgent:
        """The agent of a checkpoint: its game's agent class (``cls`` or a subclass)."""
        ckpt, net = read_checkpoint(path)
        agent_cls = network_builder(checkpoint_game(ckpt, path)).agent_class()
        if not (isinstance(agent_cls, type) and issubclass(agent_cls, cls)):
            raise CheckpointError(path, f"a {ckpt['game']} network, which {cls.__name__} does not play")
        kw.setdefault("name", f"ppo:{path}")
        return agent_cls.from_checkpoint_dict(ckpt, net, path, greedy=greedy, seed=seed, **kw)

    @classmethod
    def from_checkpoint_dict(cls, ckpt: dict, net: torch.nn.Module, path="checkpoint", **kw) -> PPOAgent:
        """The agent of a checkpoint dict checked by :func:`read_checkpoint` and its network."""
        config, players = dict(ckpt.get("config", {})), trained_players(ckpt)
        if players is not None:
            config["players"] = players
        kw.setdefault("trained_players", config.get("players"))
        kw.setdefault("config", config)
        agent = cls(net, **kw)
        agent.search_defaults = search_defaults(ckpt, path)
        return agent

    def _setup(self, rules: Any) -> None:  # pragma: no cover - abstract
        """Prepare for games of ``rules`` (encoder, checks); sets ``_rules`` last."""
        raise NotImplementedError

    def policy_value(self, games: list) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """Per game: legal action ids, the prior over them, the seat's value (see the module docstring)."""
        if any(g.is_over for g in games):
            raise ValueError("policy_value: a game is over")
        if any(g.rules is not games[0].rules for g in games):
            raise ValueError("policy_value: the games of one call must share their rules")
        if games and games[0].rules is not self._rules:
            self._setup(games[0].rules)
        return self._policy_value(games) if games else []

    def _policy_value(self, games: list) -> list[tuple[np.ndarray, np.ndarray, float]]:  # pragma: no cover
        raise NotImplementedError


class FlatPPOAgent(PPOAgent):
    """A network on a game's flat observation; ``rules``, ``layout``: the checkpoint's (others: ``ValueError``)."""

    def __init__(self, net: torch.nn.Module, rules: Any = None, layout: dict | None = None, **kw):
        super().__init__(net, **kw)
        self.train_rules = rules
        self.layout = layout
        if rules is not None:
            self._setup(rules, warn=False)

    @classmethod
    def from_checkpoint_dict(cls, ckpt: dict, net: torch.nn.Module, path="checkpoint", **kw) -> PPOAgent:
        spec = checkpoint_game(ckpt, path)
        kw.setdefault("rules", checkpoint_rules(ckpt, path, spec))
        kw.setdefault("layout", {k: v for k, v in ckpt["layout"].items() if k != "env"})
        return super().from_checkpoint_dict(ckpt, net, path, **kw)

    def check_rules(self, rules: Any) -> None:
        """``ValueError`` if the network cannot play games under ``rules`` (another layout)."""
        if self.layout is None:
            return
        spec = game_of(rules)
        now = network_builder(spec).layout(rules, model_config(self.net))
        diffs = [f"{k} {v!r} (trained) vs {now.get(k)!r}" for k, v in self.layout.items() if now.get(k) != v]
        if diffs:
            raise ValueError(f"{self.name} cannot play these {spec.name} rules: " + "; ".join(diffs))

    def _setup(self, rules: Any, warn: bool = True) -> None:
        self.check_rules(rules)
        if warn:
            self._warn_players(rules.players)
        self.encoder = game_of(rules).make_encoder(rules)
        self._rules = rules  # last: a rules object whose encoder failed is set up again (and fails again)

    @torch.no_grad()
    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> int:
        logits, _ = self.net(torch.as_tensor(np.asarray(obs, dtype=np.float32)).reshape(1, -1))
        dist = MaskedCategorical(logits, torch.as_tensor(mask, dtype=torch.bool).reshape(1, -1))
        a = dist.mode() if self.greedy else dist.sample(self._generator)
        return int(a[0])

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        if game.rules is not self._rules:
            self._setup(game.rules)
        legal = game.legal_actions()
        if len(legal) == 1:
            return game.action_to_string(int(legal[0]))
        mask = legal_mask(game.num_actions, legal)
        return game.action_to_string(self._choose(self.network_input(game, game.current_player), mask))

    def network_input(self, game, seat: int) -> np.ndarray:
        """What the network reads for ``seat``'s decision: the seat's observation (float32, flattened)."""
        return np.asarray(self.encoder.encode(game, seat), dtype=np.float32).reshape(-1)

    def act(self, observation, action_mask=None) -> int:
        """The action for an environment's observation and ``action_mask`` (or its observation dict)."""
        if isinstance(observation, dict):
            observation, action_mask = observation["observation"], observation["action_mask"]
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("no legal action in action_mask")
        return self._choose(np.asarray(observation, dtype=np.float32), mask)

    @torch.no_grad()
    def _policy_value(self, games: list) -> list[tuple[np.ndarray, np.ndarray, float]]:
        obs = np.stack([self.network_input(g, g.current_player) for g in games])
        logits, values = self.net(torch.from_numpy(obs).reshape(len(games), -1))
        logits_np = logits.numpy().astype(np.float64)
        legals = [np.asarray(game.legal_actions(), dtype=np.int64) for game in games]
        return [(legal, softmax(logits_np[row, legal]), float(values[row])) for row, legal in enumerate(legals)]

"""Policy/value networks for Kardinal & König on ``kardinal_koenig_v1`` observations: one logit per action id (the
board's move table) and the seat's value, from the flat observation divided by the encoder's ``scale``.

* ``mlp``: :class:`agents.networks.mlp.MLPNet`.
* ``graph`` (default): :class:`KoenigGraphNet`, ``rounds`` of mean messages between sites (owner) and
  countries (cloisters and advisors per seat slot, this turn's piece, cards of its type in hand and
  display) along roads, membership and alliances, every node seeing the global features; ``K@``/``A@``
  logits from their node, the rest and the value from the pooled graph (any board with as many types).
* ``advised``: :class:`AdvisedGraphNet`, the observation followed by the ``heuristic``'s advice per move
  (:func:`agents.baselines.koenig_heuristic.heuristic_advice`; public facts and the seat's hand), the
  logits plus ``exp(log_advice_scale)`` times it; zero policy layers at first, so untrained it plays
  the heuristic's move. It needs the game (:func:`network_input`); ``advice_weights``: non-default weights.

:data:`build_network`: the builder (layout: observation length, actions, board, kind);
:class:`KoenigPPOAgent` refuses another board.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn as nn

from agents.networks.base import NetworkBuilder, advised, model_config, network_kind
from agents.networks.mlp import MLPNet
from agents.networks.mlp import mlp_layers as _mlp
from agents.networks.ppo_agent import FlatPPOAgent
from kardinal_env.koenig.observation import SEAT_SLOTS, ObservationEncoder

if TYPE_CHECKING:
    from agents.baselines.koenig_heuristic import HeuristicWeights

__all__ = [
    "KoenigGraphNet",
    "AdvisedGraphNet",
    "advised",
    "network_input",
    "advice_weights",
    "KoenigPPOAgent",
    "build_network",
    "layout",
]

#: The advised network's initial weight of the heuristic's advice on the logits (per point of margin).
ADVICE_SCALE = 2.0


def _mean_matrix(rows: int, cols: int, pairs, symmetric: bool) -> torch.Tensor:
    """The 0/1 matrix of ``pairs`` (both ways when ``symmetric``), each row divided by its sum."""
    m = torch.zeros(rows, cols)
    for a, b in pairs:
        m[a, b] = 1.0
        if symmetric:
            m[b, a] = 1.0
    return m / m.sum(1, keepdim=True).clamp(min=1)


class KoenigGraphNet(nn.Module):
    scale: torch.Tensor
    glob_index: torch.Tensor
    site_country: torch.Tensor
    country_type: torch.Tensor
    roads: torch.Tensor
    site_to_country: torch.Tensor
    allied: torch.Tensor

    def __init__(self, rules, hidden: int = 64, rounds: int = 2):
        super().__init__()
        encoder = ObservationEncoder(rules)
        board = rules.compiled
        S, C, T, P = board.num_sites, board.num_countries, board.num_types, SEAT_SLOTS
        self.config = {"kind": "graph", "hidden": hidden, "rounds": rounds}
        self.S, self.C, self.T, self.P = S, C, T, P
        self.pay = board.pay_stride
        self.num_actions = board.num_moves
        self.register_buffer("scale", torch.as_tensor(encoder.scale).float())
        seg = encoder.segments
        keys = ("site_owner", "cloisters", "advisors", "turn_country")
        self._owner, self._cl, self._ad, self._turn_country = (slice(seg[k].start, seg[k].stop) for k in keys)
        self._hand = seg["hand"].start
        self._display = seg["display"].start
        glob = [
            i
            for name, s in seg.items()
            if name not in ("site_owner", "cloisters", "advisors")
            for i in range(s.start, s.stop)
        ]
        self.register_buffer("glob_index", torch.tensor(glob, dtype=torch.long))
        self.register_buffer("site_country", torch.tensor(board.site_country, dtype=torch.long))
        self.register_buffer("country_type", torch.tensor(board.country_type, dtype=torch.long))
        # Normalised adjacency matrices (mean aggregation): roads, membership, alliances.
        members = [(c, s) for s, c in enumerate(board.site_country)]
        self.register_buffer("roads", _mean_matrix(S, S, board.roads, symmetric=True))
        self.register_buffer("site_to_country", _mean_matrix(C, S, members, symmetric=False))
        self.register_buffer("allied", _mean_matrix(C, C, board.alliances, symmetric=True))
        self.glob = _mlp([len(glob), hidden, hidden]).append(nn.ReLU())
        self.site_in = nn.Linear(P + 1 + hidden, hidden)  # owner (ego-centric one-hot), globals
        self.country_in = nn.Linear(2 * P + 3 + hidden, hidden)  # cloisters, advisors, turn, hand, display
        self.site_layers = nn.ModuleList(nn.Linear(3 * hidden, hidden) for _ in range(rounds))
        self.country_layers = nn.ModuleList(nn.Linear(4 * hidden, hidden) for _ in range(rounds))
        self.site_policy = nn.Linear(2 * hidden, self.pay)
        self.country_policy = nn.Linear(2 * hidden, self.pay)
        self.other_policy = nn.Linear(3 * hidden, self.num_actions - (S + C) * self.pay)
        self.value = _mlp([3 * hidden, hidden, 1])

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = obs / self.scale
        B = x.shape[0]
        S, C, P = self.S, self.C, self.P
        g = self.glob(x[:, self.glob_index])  # (B, H)
        owner = x[:, self._owner].reshape(B, S, P + 1)
        cl = x[:, self._cl].reshape(B, C, P)
        ad = x[:, self._ad].reshape(B, C, P)
        here = x[:, self._turn_country].reshape(B, C, 1)
        hand = x[:, self._hand : self._hand + self.T][:, self.country_type].unsqueeze(-1)
        shown = x[:, self._display : self._display + self.T][:, self.country_type].unsqueeze(-1)
        gs = g.unsqueeze(1)
        country = torch.relu(self.country_in(torch.cat([cl, ad, here, hand, shown, gs.expand(B, C, -1)], -1)))
        site = torch.relu(self.site_in(torch.cat([owner, gs.expand(B, S, -1)], -1)))
        for site_layer, country_layer in zip(self.site_layers, self.country_layers, strict=True):
            site = site + torch.relu(
                site_layer(torch.cat([site, self.roads @ site, country[:, self.site_country]], -1))
            )
            messages = [country, self.site_to_country @ site, self.allied @ country, gs.expand(B, C, -1)]
            country = country + torch.relu(country_layer(torch.cat(messages, -1)))
        pooled = torch.cat([g, site.mean(1), country.mean(1)], -1)
        site_logits = self.site_policy(torch.cat([site, gs.expand(B, S, -1)], -1)).reshape(B, S * self.pay)
        country_logits = self.country_policy(torch.cat([country, gs.expand(B, C, -1)], -1)).reshape(B, C * self.pay)
        logits = torch.cat([site_logits, country_logits, self.other_policy(pooled)], -1)
        return logits, self.value(pooled).squeeze(-1)


class AdvisedGraphNet(KoenigGraphNet):
    def __init__(
        self,
        rules,
        hidden: int = 64,
        rounds: int = 2,
        advice_scale: float = ADVICE_SCALE,
        advice_weights: Mapping[str, float] | None = None,
    ):
        super().__init__(rules, hidden=hidden, rounds=rounds)
        self.config = {"kind": "advised", "hidden": hidden, "rounds": rounds}
        if advice_weights:  # the heuristic weights the advice is computed with, where not the defaults
            self.config["advice_weights"] = dict(advice_weights)
        self.observation_size = int(self.scale.shape[0])
        self.log_advice_scale = nn.Parameter(torch.tensor(math.log(advice_scale)))
        for layer in (self.site_policy, self.country_policy, self.other_policy):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = self.observation_size
        logits, value = super().forward(obs[:, :n])
        return logits + self.log_advice_scale.exp() * obs[:, n:], value


def _build(rules: Any, options: Mapping[str, Any]) -> nn.Module:
    kind, hidden = network_kind(build_network, options), int(options["hidden"])
    if kind == "mlp":
        encoder = ObservationEncoder(rules)
        return MLPNet(encoder.size, rules.compiled.num_moves, hidden=hidden, scale=encoder.scale)
    if kind == "graph":
        return KoenigGraphNet(rules, hidden, int(options["rounds"]))
    scale = float(options.get("advice_scale", ADVICE_SCALE))
    return AdvisedGraphNet(rules, hidden, int(options["rounds"]), scale, options.get("advice_weights") or {})


def layout(rules: Any, model_config: Mapping[str, Any]) -> dict:
    """The observation/action layout of a K&K network for ``rules`` (recorded in checkpoints)."""
    return {
        "observation_size": int(ObservationEncoder(rules).size),
        "num_actions": int(rules.compiled.num_moves),
        "board": rules.compiled.name,
        "network": model_config.get("kind"),
    }


def advice_weights(model_config: Mapping[str, Any]) -> HeuristicWeights | None:
    """The heuristic weights an advised network of ``model_config`` reads its advice with, else ``None``."""
    if not advised(model_config):
        return None
    from agents.baselines.koenig_heuristic import HeuristicWeights

    return HeuristicWeights.from_dict(dict(model_config.get("advice_weights") or {}))


def network_input(observation: np.ndarray, game, advice: HeuristicWeights | None) -> np.ndarray:
    """The ``observation`` followed, for an advised network (``advice``: its weights), by the heuristic's advice."""
    if advice is None:
        return observation
    from agents.baselines.koenig_heuristic import heuristic_advice

    return np.concatenate([observation, heuristic_advice(game, advice)])


class KoenigPPOAgent(FlatPPOAgent):
    """Plays Kardinal & König (``ValueError`` for another board); an advised network needs the game."""

    _advice_net: Any = None  # the network the cached advice weights were read from
    _advice: HeuristicWeights | None = None

    def network_input(self, game, seat: int) -> np.ndarray:
        obs = super().network_input(game, seat)
        if self._advice_net is not self.net:  # model_config() is a fresh copy: key the cache on the network
            self._advice_net = self.net
            self._advice = advice_weights(model_config(self.net))
        return network_input(obs, game, self._advice)

    def act(self, observation, action_mask=None) -> int:
        if advised(model_config(self.net)):
            raise ValueError(
                f"{self.name}: an 'advised' network reads the heuristic's advice, which needs the game: "
                "use select_move(game)"
            )
        return super().act(observation, action_mask)

    def check_rules(self, rules: Any) -> None:
        trained = self.train_rules.compiled if self.train_rules is not None else None
        if trained is not None and rules.compiled.data != trained.data:
            raise ValueError(
                f"{self.name} was trained on board {trained.name!r} and cannot play board {rules.compiled.name!r}"
            )
        super().check_rules(rules)


#: Kardinal & König's network builder (its agents' entry's ``network``, :mod:`agents.games`).
build_network = NetworkBuilder(
    ("graph", "mlp", "advised"), _build, layout, KoenigPPOAgent, options=("advice_scale", "advice_weights")
)

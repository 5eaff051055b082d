"""The generic policy/value network (kind ``mlp``) of a game whose agents' entry names no ``network``
(and Kardinal & König's ``mlp``): :class:`MLPNet`, two hidden layers on the encoder's flat observation
(divided by its ``scale``), one logit per action id and the seat's value. :data:`build_network` is
its builder (layout: :func:`flat_layout`; agent: :class:`agents.networks.ppo_agent.FlatPPOAgent`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch
import torch.nn as nn

from agents.networks.base import NetworkBuilder, network_kind, num_actions
from kardinal_env.core.registry import game_of

__all__ = ["MLPNet", "mlp_layers", "build_network", "flat_layout"]


def mlp_layers(sizes: list[int]) -> nn.Sequential:
    """Linear layers of ``sizes`` with a ReLU between two (none after the last)."""
    layers: list[nn.Module] = []
    for a, b in zip(sizes, sizes[1:], strict=False):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


class MLPNet(nn.Module):
    """Two hidden layers on the scaled flat observation: ``(logits (B, num_actions), value (B,))``."""

    scale: torch.Tensor

    def __init__(self, obs_size: int, num_actions: int, hidden: int = 256, scale=None):
        super().__init__()
        self.config = {"kind": "mlp", "obs_size": obs_size, "num_actions": num_actions, "hidden": hidden}
        self.register_buffer("scale", torch.ones(obs_size) if scale is None else torch.as_tensor(scale).float())
        self.trunk = mlp_layers([obs_size, hidden, hidden]).append(nn.ReLU())
        self.policy = nn.Linear(hidden, num_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs / self.scale)
        return self.policy(h), self.value(h).squeeze(-1)


def _build(rules: Any, options: Mapping[str, Any]) -> nn.Module:
    network_kind(build_network, options)
    encoder = game_of(rules).make_encoder(rules)
    size = int(math.prod(encoder.shape))
    return MLPNet(size, num_actions(rules), hidden=int(options["hidden"]), scale=getattr(encoder, "scale", None))


def flat_layout(rules: Any, model_config: Mapping[str, Any]) -> dict:
    """The layout of a network on a game's flat observation: observation shape, number of actions, kind."""
    spec = game_of(rules)
    return {
        "observation_shape": [int(n) for n in spec.make_encoder(rules).shape],
        "num_actions": num_actions(rules),
        "network": model_config.get("kind"),
    }


build_network = NetworkBuilder(("mlp",), _build, flat_layout, "agents.networks.ppo_agent:FlatPPOAgent")

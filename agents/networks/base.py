"""What every game's networks share: the masked distribution and the network builder.

A game's agents' entry (:class:`agents.registry.GameAgents`) names its ``network``: a
:class:`NetworkBuilder`, a ``network(rules, options)`` function (the generic flat layout and agent), or
nothing (:mod:`agents.networks.mlp`); :func:`agents.networks.checkpoint.network_builder` finds it.
``options``: ``"kind"`` (absent or ``auto``: the first of ``kinds``) and the sizes a kind reads
(``channels``, ``blocks``, ``hidden``, ``rounds``). A network's ``config`` rebuilds it (checkpoints'
``model_config``); the builder's ``layout(rules, model_config)`` is recorded and checked in checkpoints.

:class:`MaskedCategorical` sets masked logits to ``MASK_VALUE`` (``-1e8``, finite: no NaN), gives
masked actions exactly zero probability and sums the entropy over legal actions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from kardinal_env.core.registry import game_of, resolve

__all__ = [
    "MASK_VALUE",
    "MaskedCategorical",
    "NetworkBuilder",
    "network_kind",
    "model_config",
    "advised",
    "legal_mask",
    "num_actions",
    "softmax",
]

MASK_VALUE = -1e8


class MaskedCategorical:
    """Categorical over the legal actions: ``logits`` ``(B, A)``, ``mask`` ``(B, A)`` bool."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor):
        mask = mask.bool()
        self.mask = mask
        self.logits = torch.where(mask, logits, torch.full_like(logits, MASK_VALUE))
        self.log_probs = torch.log_softmax(self.logits, dim=-1)
        # exp(-1e8 - max) underflows to exactly 0.0; force it anyway so "exactly zero" never depends on it.
        self.probs = torch.where(mask, self.log_probs.exp(), torch.zeros_like(self.logits))

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        return torch.multinomial(self.probs, 1, generator=generator).squeeze(-1)

    def mode(self) -> torch.Tensor:
        return self.logits.argmax(dim=-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        plogp = torch.where(self.mask, self.probs * self.log_probs, torch.zeros_like(self.logits))
        return -plogp.sum(-1)


@dataclass(frozen=True)
class NetworkBuilder:
    """A game's networks: ``kinds`` (default first), ``build``, ``layout``, ``agent``, extra ``options``."""

    kinds: tuple[str, ...]
    build: Callable[[Any, Mapping[str, Any]], torch.nn.Module]
    layout: Callable[[Any, Mapping[str, Any]], dict]
    agent: Any
    options: tuple[str, ...] = ()

    def __call__(self, rules: Any, options: Mapping[str, Any]) -> torch.nn.Module:  # build
        return self.build(rules, options)

    def agent_class(self) -> Any:
        return resolve(self.agent)


def model_config(net: Any) -> dict:
    """A network's ``config`` (the options that rebuild it), as a new dict."""
    return dict(net.config)


def softmax(logits: np.ndarray) -> np.ndarray:
    """The probabilities of ``logits`` (a 1-D array)."""
    z = np.exp(logits - logits.max())
    return z / z.sum()


def network_kind(builder: NetworkBuilder, options: Mapping[str, Any]) -> str:
    """The kind ``options`` ask for (absent or ``auto``: the default); ``ValueError`` otherwise."""
    kind = options.get("kind", "auto")
    if kind == "auto":
        return builder.kinds[0]
    if kind not in builder.kinds:
        raise ValueError(f"network kind must be one of {list(builder.kinds)}, got {kind!r}")
    return str(kind)


def advised(model_config: Mapping[str, Any]) -> bool:
    """Whether a network of ``model_config`` is an ``advised`` one (it reads its baseline's advice)."""
    return model_config.get("kind") == "advised"


def legal_mask(num_actions: int, legal: Any) -> np.ndarray:
    """The bool mask of ``num_actions`` entries, ``True`` at the action ids ``legal``."""
    mask = np.zeros(num_actions, dtype=bool)
    mask[np.asarray(legal, dtype=np.int64)] = True
    return mask


def num_actions(rules: Any) -> int:
    """The size of the action space of the game of ``rules`` (``num_actions`` of a new game)."""
    return int(game_of(rules).new_game(rules, seed=0).num_actions)

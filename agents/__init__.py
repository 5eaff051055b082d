"""Agents that play Kardinal: baselines, search, and (lazily) the trained PPO policy.

``load_agent(spec, **kw)`` builds an agent from a spec string:

=================  ===========================================================================
``random``         uniform over the legal moves (:class:`agents.random_agent.RandomAgent`)
``greedy``         most chips this turn, blocking cardinal (:class:`agents.greedy.GreedyAgent`)
``mcts:N``         UCT with ``N`` simulations per decision (:class:`agents.mcts.MCTSAgent`)
``ppo:PATH``       a PPO checkpoint (``agents.ppo_agent.PPOAgent.from_checkpoint(PATH, **kw)``)
``puct:N:PATH``    PUCT search with N simulations guided by the PPO checkpoint PATH
                   (``agents.puct.PUCTAgent.from_checkpoint(PATH, N, **kw)``)
``rllib:PATH``     an RLlib checkpoint (``agents.rllib_agent.RLlibAgent.from_checkpoint(PATH, **kw)``)
=================  ===========================================================================

Keyword arguments (e.g. ``seed=3``) go to the agent's constructor. Importing this package does not
import torch; only ``ppo:`` and ``puct:`` specs do.
"""

from __future__ import annotations

from .base import Agent, BaseAgent

__all__ = ["Agent", "BaseAgent", "load_agent", "parse_spec", "AgentSpecError", "SPEC_HELP"]

SPEC_HELP = (
    "agent specs: 'random', 'greedy', 'mcts:N' (N simulations, a positive integer), 'ppo:PATH', "
    "'puct:N:PATH' (N simulations guided by checkpoint PATH), 'rllib:PATH'"
)


class AgentSpecError(ValueError):
    """An agent spec that :func:`load_agent` does not understand."""


def _require_file(spec: str, path: str) -> None:
    import os

    if not os.path.isfile(path):
        raise AgentSpecError(f"bad agent spec {spec!r}: no checkpoint file {path!r}")


def _is_positive_int(text: str) -> bool:
    return text.isdigit() and int(text) >= 1 and text == str(int(text))


def parse_spec(spec: str) -> tuple[str, int | None, str | None]:
    """``(kind, simulations, path)`` of an agent spec, checked without building the agent (no torch
    import): the syntax, and that a ``ppo:`` / ``puct:`` checkpoint file exists.
    :class:`AgentSpecError` naming what is wrong otherwise."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"bad agent spec {spec!r}; {SPEC_HELP}")
    spec = spec.strip()
    kind, sep, arg = spec.partition(":")
    if kind in ("random", "greedy") and not sep:
        return kind, None, None
    if kind == "mcts":
        if not sep or not _is_positive_int(arg):
            raise AgentSpecError(
                f"bad agent spec {spec!r}: mcts needs a positive number of simulations, e.g. 'mcts:200'"
            )
        return kind, int(arg), None
    if kind == "ppo":
        if not sep or not arg:
            raise AgentSpecError(f"bad agent spec {spec!r}: ppo needs a checkpoint path, e.g. 'ppo:runs/x/ckpt.pt'")
        _require_file(spec, arg)
        return kind, None, arg
    if kind == "puct":
        sims, sep2, path = arg.partition(":")
        if not sep or not sep2 or not path or not _is_positive_int(sims):
            raise AgentSpecError(
                f"bad agent spec {spec!r}: puct needs a positive number of simulations and a checkpoint path, "
                "e.g. 'puct:64:runs/x/ckpt.pt'"
            )
        _require_file(spec, path)
        return kind, int(sims), path
    if kind == "rllib":
        if not sep or not arg:
            raise AgentSpecError(f"bad agent spec {spec!r}: rllib needs a checkpoint path, e.g. 'rllib:runs/rllib/checkpoint'")
        return kind, None, arg
    raise AgentSpecError(f"unknown agent spec {spec!r}; {SPEC_HELP}")


def load_agent(spec: str, **kw):
    """Build the agent named by ``spec`` (see the module docstring); :class:`AgentSpecError` if bad."""
    kind, simulations, path = parse_spec(spec)
    if kind == "random":
        from .random_agent import RandomAgent

        return RandomAgent(**kw)
    if kind == "greedy":
        from .greedy import GreedyAgent

        return GreedyAgent(**kw)
    if kind == "mcts":
        from .mcts import MCTSAgent

        return MCTSAgent(simulations, **kw)
    if kind == "ppo":
        from .ppo_agent import PPOAgent  # imports torch; only here

        return PPOAgent.from_checkpoint(path, **kw)
    if kind == "puct":
        from .puct import PUCTAgent  # imports torch; only here

        return PUCTAgent.from_checkpoint(path, simulations, **kw)
    from .rllib_agent import RLlibAgent  # kind == "rllib"; imports ray and torch; only here

    return RLlibAgent.from_checkpoint(path, **kw)

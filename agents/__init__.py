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

__all__ = ["Agent", "BaseAgent", "load_agent", "AgentSpecError", "SPEC_HELP"]

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


def load_agent(spec: str, **kw):
    """Build the agent named by ``spec`` (see the module docstring); :class:`AgentSpecError` if bad."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"bad agent spec {spec!r}; {SPEC_HELP}")
    spec = spec.strip()
    kind, sep, arg = spec.partition(":")
    if kind == "random" and not sep:
        from .random_agent import RandomAgent

        return RandomAgent(**kw)
    if kind == "greedy" and not sep:
        from .greedy import GreedyAgent

        return GreedyAgent(**kw)
    if kind == "mcts":
        if not sep or not arg.isdigit() or int(arg) < 1 or arg != str(int(arg)):
            raise AgentSpecError(
                f"bad agent spec {spec!r}: mcts needs a positive number of simulations, e.g. 'mcts:200'"
            )
        from .mcts import MCTSAgent

        return MCTSAgent(int(arg), **kw)
    if kind == "ppo":
        if not sep or not arg:
            raise AgentSpecError(f"bad agent spec {spec!r}: ppo needs a checkpoint path, e.g. 'ppo:runs/x/ckpt.pt'")
        _require_file(spec, arg)
        from .ppo_agent import PPOAgent  # imports torch; only here

        return PPOAgent.from_checkpoint(arg, **kw)
    if kind == "puct":
        sims, sep2, path = arg.partition(":")
        if not sep or not sep2 or not path or not sims.isdigit() or int(sims) < 1 or sims != str(int(sims)):
            raise AgentSpecError(
                f"bad agent spec {spec!r}: puct needs a positive number of simulations and a checkpoint path, "
                "e.g. 'puct:64:runs/x/ckpt.pt'"
            )
        _require_file(spec, path)
        from .puct import PUCTAgent  # imports torch; only here

        return PUCTAgent.from_checkpoint(path, int(sims), **kw)
    if kind == "rllib":
        if not sep or not arg:
            raise AgentSpecError(f"bad agent spec {spec!r}: rllib needs a checkpoint path, e.g. 'rllib:runs/rllib/checkpoint'")
        from .rllib_agent import RLlibAgent  # imports ray and torch; only here

        return RLlibAgent.from_checkpoint(arg, **kw)
    raise AgentSpecError(f"unknown agent spec {spec!r}; {SPEC_HELP}")

"""Agents that play both games: baselines, search, and (lazily) the trained PPO policy.

``load_agent(spec, **kw)`` builds an agent from a spec string:

=================  ===========================================================================
``random``         uniform over the legal moves (:class:`agents.baselines.random.RandomAgent`)
``greedy``         most chips this turn, blocking cardinal (:class:`agents.baselines.kardinal_greedy.GreedyAgent`)
``mcts:N``         UCT with ``N`` simulations per decision (:class:`agents.search.mcts.MCTSAgent`)
``ppo:PATH``       a PPO checkpoint (``agents.networks.ppo_agent.PPOAgent.from_checkpoint(PATH, **kw)``)
``puct:N:PATH``    PUCT search with N simulations guided by the PPO checkpoint PATH
                   (``agents.search.puct.PUCTAgent.from_checkpoint(PATH, N, **kw)``)
``rllib:PATH``     an RLlib checkpoint (``agents.networks.rllib_agent.RLlibAgent.from_checkpoint(PATH, **kw)``)
``ismcts:N``       information-set MCTS with N simulations, for Kardinal & König
                   (:class:`agents.search.ismcts.ISMCTSAgent`)
=================  ===========================================================================

``random`` and ``greedy`` play both games (``greedy`` is :mod:`agents.baselines.koenig_greedy` on a Kardinal &
König game); ``mcts``, ``puct`` and ``rllib`` play Kardinal, ``ismcts`` Kardinal & König;
``ppo:PATH`` plays the game its checkpoint was trained on. :func:`check_spec` with ``game=``
refuses a spec for the wrong game.

Keyword arguments (e.g. ``seed=3``) go to the agent's constructor. Importing this package does not
import torch; only ``ppo:`` and ``puct:`` specs do.

A bad spec raises :class:`AgentSpecError` naming it: bad syntax, a missing checkpoint file, or a
file that is not a kardinal-env checkpoint (``ppo:PATH: not a kardinal-env checkpoint (...)``,
see :mod:`agents.networks.checkpoint`). :func:`check_spec` runs the same checks without building the agent
(the checkpoint is read once) and returns warnings, e.g. a checkpoint trained for another number of
players than the game it will play.

Library entry points: :func:`agents.training.trainer.train` / :func:`agents.training.trainer.main` (self-play PPO),
:func:`agents.evaluation.tournament.evaluate` / :func:`agents.evaluation.tournament.main` (tournaments),
:func:`agents.serving.play.main` (terminal play).
"""

from __future__ import annotations

from agents.base import Agent, BaseAgent

__all__ = ["Agent", "BaseAgent", "load_agent", "parse_spec", "check_spec", "AgentSpecError", "SPEC_HELP"]

SPEC_HELP = (
    "agent specs: 'random', 'greedy', 'mcts:N' (N simulations, a positive integer), 'ppo:PATH', "
    "'puct:N:PATH' (N simulations guided by checkpoint PATH), 'rllib:PATH', "
    "'ismcts:N' (Kardinal & König)"
)
#: Spec kinds that play only one of the games.
_ONLY = {"mcts": "kardinal", "puct": "kardinal", "rllib": "kardinal", "ismcts": "kardinal_koenig"}


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
    if kind in ("mcts", "ismcts"):
        if not sep or not _is_positive_int(arg):
            raise AgentSpecError(
                f"bad agent spec {spec!r}: {kind} needs a positive number of simulations, e.g. '{kind}:200'"
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
            raise AgentSpecError(
                f"bad agent spec {spec!r}: rllib needs a checkpoint path, e.g. 'rllib:runs/rllib/checkpoint'"
            )
        return kind, None, arg
    raise AgentSpecError(f"unknown agent spec {spec!r}; {SPEC_HELP}")


def _read_checkpoint(spec: str, path: str):
    from agents.networks.checkpoint import CheckpointError, read_checkpoint  # imports torch; only here

    try:
        return read_checkpoint(path)
    except CheckpointError as exc:
        raise AgentSpecError(exc.named(spec.strip())) from None


def check_spec(spec: str, players: int | None = None, game: str | None = None) -> list[str]:
    """Check ``spec`` like :func:`load_agent` without building the agent: the syntax, that it plays
    ``game`` (``"kardinal"`` or ``"kardinal_koenig"``; ``None``: not checked) and, for ``ppo:`` /
    ``puct:``, the checkpoint (read once; torch is imported only then). Returns warnings (a
    checkpoint trained for another number of players than ``players``); :class:`AgentSpecError` if
    the spec is bad."""
    kind, _simulations, path = parse_spec(spec)
    only = _ONLY.get(kind)
    if game is not None and only is not None and only != game:
        other = "ismcts:N" if game == "kardinal_koenig" else "mcts:N"
        raise AgentSpecError(f"agent spec {spec.strip()!r} plays {only}, not {game}; try {other!r}")
    if kind not in ("ppo", "puct"):
        return []
    from agents.networks.checkpoint import player_count_warning, trained_players

    ckpt, _net = _read_checkpoint(spec, path)
    if game is not None:
        from agents.games import game_kind

        env = ckpt.get("env", "kardinal_v0")
        if env != game_kind(game).env_name:
            raise AgentSpecError(f"{spec.strip()}: the checkpoint was trained on {env}, not {game_kind(game).env_name}")
    msg = player_count_warning(spec.strip(), trained_players(ckpt), players) if players else None
    return [msg] if msg else []


def load_agent(spec: str, **kw):
    """Build the agent named by ``spec`` (see the module docstring); :class:`AgentSpecError` if bad."""
    kind, simulations, path = parse_spec(spec)
    if kind in ("ppo", "puct"):
        from agents.networks.checkpoint import CheckpointError

        try:
            return _load_network_agent(kind, simulations, path, spec.strip(), kw)
        except CheckpointError as exc:
            raise AgentSpecError(exc.named(spec.strip())) from None
    if kind == "random":
        from agents.baselines.random import RandomAgent

        return RandomAgent(**kw)
    if kind == "greedy":
        from agents.baselines.kardinal_greedy import GreedyAgent

        return GreedyAgent(**kw)
    if kind == "mcts":
        from agents.search.mcts import MCTSAgent

        return MCTSAgent(simulations, **kw)
    if kind == "ismcts":
        from agents.search.ismcts import ISMCTSAgent

        return ISMCTSAgent(simulations, **kw)
    from agents.networks.rllib_agent import RLlibAgent  # kind == "rllib"; imports ray and torch; only here

    return RLlibAgent.from_checkpoint(path, **kw)


def _load_network_agent(kind: str, simulations: int | None, path: str, spec: str, kw: dict):
    if kind == "ppo":
        from agents.networks.ppo_agent import PPOAgent  # imports torch; only here

        return PPOAgent.from_checkpoint(path, **kw)
    from agents.search.puct import PUCTAgent  # imports torch; only here

    return PUCTAgent.from_checkpoint(path, simulations, **kw)

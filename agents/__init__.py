"""Agents that play the games of the suite: baselines, search, and (lazily) trained networks.

``load_agent(spec, game=None, **kw)`` builds an agent from a spec string:

=================  ===========================================================================
``random``,        a baseline of the game (``GameAgents.baseline_kinds``, :mod:`agents.registry`):
``greedy``, ...    ``random`` (a uniformly random legal move) on every game, and the kinds its entry
                   lists (both built-in games have ``greedy``)
``mcts:N``         UCT, ``N`` simulations per decision (:class:`agents.search.mcts.MCTSAgent`); perfect information
``ismcts:N``       information-set MCTS on ``game.determinize`` worlds
                   (:class:`agents.search.ismcts.ISMCTSAgent`); any game
``gismcts:N``      ``ismcts:N`` guided by the game's heuristic (``GameAgents.search_guide``;
                   ``rollout="guide"``): each node searches the mover's 3 best moves, every
                   simulation a heuristic playout
``pismcts:N``      ``gismcts:N`` with a paired root (``paired=True, batch=16, widen_visits=8``): rounds of
                   one world in which every root child is played, the guide's move kept unless a paired
                   test (after every 16 rounds) finds a better one; below the root a node offers one
                   more of the guide's moves every 8 visits
``rollout:N``      the game's heuristic playout search, N worlds per candidate move
                   (``GameAgents.rollout_search``)
``ppo:PATH``       a PPO checkpoint of the game it was trained on (:mod:`agents.networks.ppo_agent`)
``puct:N:PATH``    PUCT search, N simulations guided by the PPO checkpoint PATH
                   (``agents.search.puct.PUCTAgent.from_checkpoint``, with the checkpoint's own
                   ``search_defaults`` where it records any)
``zoo:NAME``       a network shipped with the package (:mod:`agents.zoo`): its policy, as ``ppo:``
                   plays it; ``puct:N:zoo:NAME`` searches with it
``rllib:PATH``     an RLlib checkpoint (:mod:`agents.networks.rllib_agent`; the agent checks the game it
                   is asked to move in)
=================  ===========================================================================

``game`` (a registered game's name or :class:`~kardinal_env.core.registry.GameSpec`) picks the baseline class,
refuses a spec that cannot play it and is given to search agents (``game=``); with ``game=None`` a baseline kind may be
any game's (:class:`BaselineAgent` picks the class from the game it first moves in). Keyword arguments (``seed=3``) go
to the agent's constructor. Only ``ppo:`` and ``puct:`` specs import torch.

A bad spec raises :class:`AgentSpecError` naming it: bad syntax, an unknown kind, a kind the game cannot play
(``mcts:N`` on a game with hidden information: the message suggests ``ismcts:N``), a missing checkpoint file, or a file
that is not a kardinal-env checkpoint. :func:`check_spec` runs the same checks without building the agent and returns
warnings (a checkpoint trained for another seat count).

Entry points: :func:`agents.training.run.main` (self-play training), :func:`agents.evaluation.tournament.main`
(tournaments), :func:`agents.serving.play.main` (terminal play).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents import games as _builtin_games  # noqa: F401  (registers the built-in games' agents)
from agents.base import Agent, BaseAgent
from agents.registry import game_agents
from kardinal_env.core import limits
from kardinal_env.core.registry import GameSpec, game_of, games, get_game

__all__ = [
    "Agent",
    "BaseAgent",
    "BaselineAgent",
    "load_agent",
    "parse_spec",
    "check_spec",
    "AgentSpecError",
    "SPEC_HELP",
    "Kind",
    "KINDS",
]

SPEC_HELP = (
    "agent specs: a baseline of the game ('random' on every game, 'greedy', ...), 'mcts:N' (N simulations, a positive "
    "integer; games of perfect information), 'ismcts:N' (any game), 'gismcts:N' (ismcts guided by the "
    "game's heuristic; Kardinal & König), 'pismcts:N' (gismcts with a paired root), 'rollout:N' (N worlds of heuristic "
    "playouts; Kardinal & König), 'ppo:PATH', 'puct:N:PATH' "
    "(N simulations guided by checkpoint PATH), 'zoo:NAME' (a network shipped with the package; "
    "'puct:N:zoo:NAME' searches with it), 'rllib:PATH'"
)


class AgentSpecError(ValueError):
    """An agent spec that :func:`load_agent` does not understand, or one that cannot play the game."""


@dataclass(frozen=True)
class Kind:
    """A spec kind other than a baseline: whether it carries ``:N`` (``simulations``) and a ``PATH``, and
    ``needs(spec, game_spec)``: why it cannot play that game, or ``None``."""

    name: str
    example: str
    simulations: bool = False
    path: bool = False
    needs: Callable[[str, GameSpec], str | None] | None = None


def _needs(plays: Callable[[GameSpec], bool], why: str) -> Callable[[str, GameSpec], str | None]:
    """The ``needs`` of a kind that plays the games ``plays`` accepts; ``why`` names the others (``{game}``)."""

    def needs(spec: str, game: GameSpec) -> str | None:
        return None if plays(game) else f"{why.format(game=game.name)}: try {'ismcts:' + spec.partition(':')[2]!r}"

    return needs


def _needs_entry(field: str, what: str) -> Callable[[str, GameSpec], str | None]:
    plays = lambda game: getattr(game_agents(game), field) is not None  # noqa: E731
    return _needs(plays, f"needs a game with {what} (GameAgents.{field}); {{game}} has none")


_HIDDEN = "needs a game of perfect information; {game} hides information from the seats"
#: The spec kinds besides the baselines, by name.
KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("mcts", "mcts:200", True, needs=_needs(lambda game: game.perfect_information, _HIDDEN)),
        Kind("ismcts", "ismcts:200", simulations=True),
        Kind("gismcts", "gismcts:200", simulations=True, needs=_needs_entry("search_guide", "a search guide")),
        Kind("pismcts", "pismcts:200", simulations=True, needs=_needs_entry("search_guide", "a search guide")),
        Kind("rollout", "rollout:16", True, needs=_needs_entry("rollout_search", "a heuristic playout search")),
        Kind("ppo", "ppo:runs/x/checkpoint.pt", path=True),
        Kind("puct", "puct:64:runs/x/checkpoint.pt", simulations=True, path=True),
        Kind("rllib", "rllib:runs/rllib/checkpoint", path=True),
        Kind("zoo", "zoo:kardinal-2p", path=True),
    )
}
#: Kinds whose PATH is a torch checkpoint of :mod:`agents.networks.checkpoint` (read by :func:`check_spec`).
_CHECKPOINT_KINDS = ("ppo", "puct", "zoo")


def _baseline_kinds(game: GameSpec | None) -> list[str]:
    """The baseline kinds of ``game`` (``random`` and its entry's), or of any registered game."""
    if game is not None:
        return game_agents(game).baseline_kinds
    return sorted({kind for spec in games().values() for kind in game_agents(spec).baseline_kinds})


def parse_spec(spec: str, game: str | GameSpec | None = None) -> tuple[str, int | None, str | None]:
    """``(kind, simulations, path)`` of an agent spec, checked without torch: the syntax, that a baseline
    is one of ``game`` (``None``: of any game) and that a checkpoint file exists; else :class:`AgentSpecError`."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"bad agent spec {spec!r}; {SPEC_HELP}")
    spec = spec.strip()
    kind_name, sep, arg = spec.partition(":")
    kind = KINDS.get(kind_name)
    if kind is None:
        game_spec = None if game is None else get_game(game)
        baselines = _baseline_kinds(game_spec)
        if kind_name in baselines and not sep:
            return kind_name, None, None
        if kind_name in baselines:
            raise AgentSpecError(f"bad agent spec {spec!r}: the baseline {kind_name!r} takes no argument")
        if game_spec is not None and kind_name in _baseline_kinds(None) and not sep:
            raise AgentSpecError(
                f"agent spec {spec!r} is not a baseline of {game_spec.name}; its baselines: {baselines}"
            )
        raise AgentSpecError(f"unknown agent spec {spec!r}; {SPEC_HELP}")
    simulations = None
    if kind.simulations:
        sims, sep2, rest = arg.partition(":")
        positive = sims.isdigit() and int(sims) >= 1 and sims == str(int(sims))
        path_given = bool(sep2 and rest) if kind.path else not sep2  # a PATH where the kind takes one, else none
        if not sep or not positive or not path_given:
            what = "a positive number of simulations" + (" and a checkpoint path" if kind.path else "")
            raise AgentSpecError(f"bad agent spec {spec!r}: {kind.name} needs {what}, e.g. {kind.example!r}")
        simulations = int(sims)
        most = limits.WORLDS if kind.name == "rollout" else limits.SIMULATIONS
        if simulations > most:
            what = "worlds per move" if kind.name == "rollout" else "simulations"
            raise AgentSpecError(
                f"bad agent spec {spec!r}: {kind.name} takes at most {most:,} {what} (kardinal_env.core.limits)"
            )
        arg = rest
    elif not sep or not arg:
        if kind.name == "zoo":
            from agents.zoo import names

            known = ", ".join(names()) or "no models"
            raise AgentSpecError(f"bad agent spec {spec!r}: no zoo model named; the zoo has: {known}")
        raise AgentSpecError(f"bad agent spec {spec!r}: {kind.name} needs a checkpoint path, e.g. {kind.example!r}")
    path = arg if kind.path else None
    if path is not None and (kind.name == "zoo" or path.startswith("zoo:")):
        from agents.zoo import ZooError, model_path

        try:
            path = model_path(path)
        except ZooError as exc:
            raise AgentSpecError(f"bad agent spec {spec!r}: {exc}") from None
    if path is not None and kind.name in _CHECKPOINT_KINDS and not os.path.isfile(path):
        raise AgentSpecError(f"bad agent spec {spec!r}: no checkpoint file {path!r}")
    return kind.name, simulations, path


def check_spec(spec: str, players: int | None = None, game: str | GameSpec | None = None) -> list[str]:
    """Check ``spec`` like :func:`load_agent` without building the agent: the syntax, that it plays
    ``game`` (``None``: not checked) and a checkpoint (read once, with torch; with ``game``, trained on
    the game's ``env_name``). Returns warnings (a checkpoint trained for other than ``players`` seats)."""
    game_spec = _game_spec(game)
    kind_name, _simulations, path = parse_spec(spec, game_spec)
    text = spec.strip()  # parse_spec refused anything but a string
    kind = KINDS.get(kind_name)
    if kind is None:  # a baseline of the game (parse_spec checked it)
        return []
    if game_spec is not None and kind.needs is not None:
        reason = kind.needs(text, game_spec)
        if reason:
            raise AgentSpecError(f"agent spec {text!r} {reason}")
    if kind_name not in _CHECKPOINT_KINDS:
        return []
    from agents.networks import checkpoint  # imports torch; only here

    assert path is not None
    try:
        ckpt, _net = checkpoint.read_checkpoint(path)
    except checkpoint.CheckpointError as exc:
        raise AgentSpecError(exc.named(text)) from None
    if game_spec is not None:
        try:
            env = checkpoint.checkpoint_game(ckpt, path).env_name  # the game it was trained on
        except checkpoint.CheckpointError as exc:
            raise AgentSpecError(str(exc)) from None
        if env != game_spec.env_name:
            raise AgentSpecError(
                f"{text}: the checkpoint was trained on {env}, not {game_spec.env_name} ({game_spec.name})"
            )
    msg = checkpoint.player_count_warning(text, checkpoint.trained_players(ckpt), players) if players else None
    return [msg] if msg else []


def _game_spec(game: str | GameSpec | None) -> GameSpec | None:
    if game is None:
        return None
    try:
        return get_game(game)
    except ValueError as exc:
        raise AgentSpecError(str(exc)) from None


def load_agent(spec: str, game: str | GameSpec | None = None, **kw: Any) -> Any:
    """Build the agent of ``spec`` (the module docstring) for ``game`` (``None``: any game)."""
    game_spec = _game_spec(game)
    kind, simulations, path = parse_spec(spec, game_spec)
    text = spec.strip()
    if kind not in KINDS:
        return BaselineAgent(kind, **kw) if game_spec is None else game_agents(game_spec).baseline(kind)(**kw)
    if game_spec is not None:
        check_spec(text, game=game_spec)
    if kind in _CHECKPOINT_KINDS:
        from agents.networks.checkpoint import CheckpointError

        assert path is not None
        if kind == "puct" and game_spec is not None:
            kw.setdefault("game", game_spec)
        if kind == "zoo" or ":zoo:" in text:
            kw.setdefault("name", text)  # the model's name, not the installed file's path
        try:
            if kind == "puct":
                from agents.search.puct import PUCTAgent  # its from_checkpoint imports torch

                assert simulations is not None
                return PUCTAgent.from_checkpoint(path, simulations, **kw)
            from agents.networks.ppo_agent import PPOAgent  # ppo: or zoo:; imports torch; only here

            return PPOAgent.from_checkpoint(path, **kw)
        except CheckpointError as exc:
            raise AgentSpecError(exc.named(text)) from None
    if kind == "mcts":
        from agents.search.mcts import MCTSAgent

        assert simulations is not None
        return MCTSAgent(simulations, game=game_spec, **kw)
    if kind in ("ismcts", "gismcts", "pismcts"):
        from agents.search.ismcts import ISMCTSAgent

        assert simulations is not None
        if kind == "ismcts":
            return ISMCTSAgent(simulations, game=game_spec, **kw)
        if kind == "pismcts":
            kw = {"paired": True, "batch": 16, "widen_visits": 8, **kw}
        return ISMCTSAgent(simulations, game=game_spec or _only_game_with("search_guide", text), rollout="guide", **kw)
    if kind == "rollout":
        game_spec = game_spec or _only_game_with("rollout_search", text)
        return game_agents(game_spec).load("rollout_search")(simulations, game=game_spec, **kw)
    from agents.networks.rllib_agent import RLlibAgent  # kind == "rllib"; imports ray and torch; only here

    assert path is not None
    return RLlibAgent.from_checkpoint(path, **kw)


def _only_game_with(entry: str, text: str) -> GameSpec:
    """The one registered game whose agents' ``entry`` is set; :class:`AgentSpecError` unless one has it."""
    able = [spec for spec in games().values() if getattr(game_agents(spec), entry) is not None]
    if len(able) != 1:
        raise AgentSpecError(f"agent spec {text!r}: name the game (games with it: {[g.name for g in able]})")
    return able[0]


class BaselineAgent(BaseAgent):
    """The baseline ``kind`` of whatever game it moves in: built on the first ``select_move`` on a game
    class (``game_agents(game_of(game)).baseline(kind)(seed=..., **kw)``), then delegated to.
    ``reset(seed)`` reaches every agent built so far; one built later gets the last seed."""

    def __init__(self, kind: str, seed: int | None = None, **kw: Any):
        super().__init__(seed)
        self.kind = self.name = kind
        self._kw = kw
        self._agents: dict[type, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        for agent in self._agents.values():
            if hasattr(agent, "reset"):
                agent.reset(seed)

    def agent_for(self, game: Any) -> Any:
        agent = self._agents.get(type(game))
        if agent is None:
            found = game_agents(game_of(game))
            if not found.has_baseline(self.kind):
                raise ValueError(
                    f"{self.kind!r} is not a baseline of {found.game}; its baselines: {found.baseline_kinds}"
                )
            agent = self._agents[type(game)] = found.baseline(self.kind)(seed=self.seed, **self._kw)
        return agent

    def select_move(self, game: Any) -> str:
        return self.agent_for(game).select_move(game)

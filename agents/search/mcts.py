"""Multi-player UCT Monte Carlo tree search (``mcts:N``: N simulations per decision) for every game of perfect
information (``game=`` or the registry's entry; a game that hides information is refused: use ``ismcts:N``), over the
game protocol (:mod:`kardinal_env.core.protocol`).

Search runs on ``game.clone()``, one tree level per decision, edges the action ids of ``legal_actions()`` (played with
``apply_action``; the root's named by ``action_to_string``). Each node keeps its visits and per-seat reward sums;
selection maximises UCB1 for the seat deciding there (max^n-style).

**Reward** (per seat, at the end of a simulated game, in ``[0, 1]``)::

    r = (1 - margin_weight) * win + margin_weight * (1 + clip((score - best_other_score) / 10, -1, 1)) / 2

``win`` is 1 for every seat in ``game.winners()``, else 0; ``margin_weight`` (default 0.25) gives a gradient in
positions already won or lost. A playout cut short by ``playout_moves`` is valued on ``game.projected_scores()`` (the
winners: the seats of the highest projected score).

**Playouts** run to the end or for ``playout_moves`` moves: ``rollout="policy"`` (default) with the game's playout
policy (``GameAgents.rollout``: ``rollout(game, rng) -> move``; uniform random without one), ``rollout="random"``
uniform random. A policy may offer:

* ``policy.order(game, actions) -> list[int]``: the legal action ids, most promising first. A node's actions are
  shuffled with the agent's generator, then put in that order; a node with ``v`` visits has at most
  ``widen_base + sqrt(v)`` children (progressive widening). Without ``order`` (or with ``widen_base=None``): plain UCT
  over all actions in the shuffled order.
* ``policy.play_out(game, rng)``: the game played to its end with the moves and draws of repeated
  ``policy(game, rng)`` calls, but faster.

The move is the most visited root child (ties: higher mean reward, then the first expanded). All randomness comes from
the agent's seeded ``random.Random``.

**Compiled search.** A game whose agents' entry names ``GameAgents.compiled_search`` (Kardinal:
:func:`agents.search.kardinal_compiled.mcts_root`: the same algorithm in C++, seeded from one draw of the agent's
generator) is searched by it when ``rollout="policy"``, ``playout_moves=None`` and ``compiled``; where it answers
``None`` (core not used) this module searches.
"""

from __future__ import annotations

import math
from typing import Any

from agents.base import BaseAgent
from agents.registry import game_agents
from agents.search.common import (
    action_list,
    backup,
    check_count,
    check_finite,
    check_uct,
    forced_root,
    most_visited,
    play_out,
    spec_of,
    ucb,
)
from kardinal_env.core.registry import GameSpec
from kardinal_env.core.rewards import margins

__all__ = ["MCTSAgent"]


class _Node:
    __slots__ = ("player", "untried", "children", "visits", "totals")

    def __init__(self, game, agent: MCTSAgent, n_players: int):
        self.player = game.current_player  # None at a terminal node
        untried = action_list(game)
        if len(untried) > 1:
            agent.rng.shuffle(untried)
            if agent._order is not None:
                untried = agent._order(game, untried)
        untried.reverse()  # pop() takes the most promising action first
        self.untried = untried
        self.children: list[list[Any]] = []  # [action id, node]
        self.visits = 0
        self.totals = [0.0] * n_players


class MCTSAgent(BaseAgent):
    """UCT search for games of perfect information."""

    def __init__(
        self,
        simulations: int = 200,
        seed: int | None = None,
        exploration: float = 0.7,
        margin_weight: float = 0.25,
        rollout: str = "policy",
        widen_base: float | None = 2.0,
        playout_moves: int | None = None,
        game: GameSpec | None = None,
        compiled: bool = True,
    ):
        super().__init__(seed)
        check_uct("mcts", simulations, exploration, margin_weight, rollout, ("policy", "random"))
        if widen_base is not None:
            check_finite("mcts: widen_base", widen_base)
        check_count("mcts: playout_moves", playout_moves, minimum=0, allow_none=True)
        self.simulations, self.exploration, self.margin_weight = simulations, exploration, margin_weight
        self.rollout, self.widen_base, self.playout_moves = rollout, widen_base, playout_moves
        self.compiled, self.game, self.name = compiled, game, f"mcts:{simulations}"
        self._game_class: type | None = None
        self._policy: Any = None
        self._order: Any = None
        self._compiled: Any = None

    def select_move(self, game) -> str:
        return most_visited(self.root_statistics(game))

    def root_statistics(self, game) -> list[tuple[str, int, float]]:
        """The root's children in expansion order, ``(move, visits, mean reward of the deciding seat)`` (one legal move:
        that move, unsearched); search trainers take the visits as a policy target."""
        forced = forced_root(game)
        if forced is not None:
            return forced
        self._setup(game)
        if self._compiled is not None:
            children = self._compiled(
                game,
                self.rng,
                simulations=self.simulations,
                exploration=self.exploration,
                widen_base=self.widen_base,
                margin_weight=self.margin_weight,
            )
            if children is not None:
                return children
        n = game.num_players
        root = _Node(game, self, n)
        for _ in range(self.simulations):
            self._simulate(game, root, n)
        p = root.player
        name = game.action_to_string
        return [(name(a), child.visits, child.totals[p] / child.visits) for a, child in root.children]

    def _setup(self, game) -> None:
        """The game's playout policy and its optional helpers, once per game class."""
        if type(game) is self._game_class:
            return
        spec = spec_of(self.game, game)
        if not spec.perfect_information:
            raise ValueError(
                f"{self.name}: mcts searches games of perfect information; {spec.name} hides information "
                "from the seats (use ismcts:N)"
            )
        wiring = game_agents(spec)
        policy = wiring.load("rollout")
        self._policy = policy if self.rollout == "policy" else None
        self._order = getattr(policy, "order", None) if self.widen_base is not None else None
        plain = self.rollout == "policy" and self.playout_moves is None
        self._compiled = wiring.load("compiled_search") if self.compiled and plain else None
        self._game_class = type(game)

    def _simulate(self, root_game, root: _Node, n: int) -> None:
        g = root_game.clone()
        node = root
        path = [root]
        c = self.exploration
        base = self.widen_base if self._order is not None else None
        while node.player is not None:
            if node.untried and (
                base is None or not node.children or len(node.children) < base + math.sqrt(node.visits)
            ):
                action = node.untried.pop()
                g.apply_action(action)
                child = _Node(g, self, n)
                node.children.append([action, child])
                path.append(child)
                break
            log_n, p = math.log(node.visits), node.player
            best = max(node.children, key=lambda pair: ucb(pair[1], p, c, log_n))
            g.apply_action(best[0])
            node = best[1]
            path.append(node)
        play_out(g, self._policy, self.rng, self.playout_moves)
        backup(path, self._rewards(g, n))

    def _rewards(self, g, n: int) -> list[float]:
        if g.is_over:
            scores = g.scores()
            winners = g.winners()
        else:
            scores = g.projected_scores()
            winners = [s for s in range(n) if scores[s] == max(scores)]
        mw = self.margin_weight
        wins = [1.0 if s in winners else 0.0 for s in range(n)]
        if not mw:
            return wins
        clipped = [max(-1.0, min(1.0, m / 10.0)) for m in margins(scores)]
        return [(1.0 - mw) * win + mw * (1.0 + m) / 2.0 for win, m in zip(wins, clipped, strict=True)]

"""Multi-player UCT Monte Carlo tree search (``mcts:N``: N simulations per decision).

Search runs on ``game.clone()``; the real game is never touched. Every decision of the game (build,
chip choice, cardinal) is one tree level, and a turn's decisions all belong to the seat on turn.

**Statistics.** Each node keeps the visit count and, per seat, the sum of that seat's rewards over
the simulations through it. Selection at a node maximises UCB1 from the perspective of the seat
deciding at that node (max^n-style multi-player UCT), so in 3- and 4-player games each seat pursues
its own reward; there is no assumption that opponents minimise.

**Reward** (per seat, at the end of a simulated game, in ``[0, 1]``)::

    r = (1 - margin_weight) * win + margin_weight * (1 + clip((score - best_other_score) / 10, -1, 1)) / 2

``win`` is 1 for every seat in ``game.winners()`` (a shared win counts as a win for each winner) and
0 otherwise; ``best_other_score`` is the highest score among the other seats. The small margin term
(default weight 0.25) gives the search a gradient in positions that are already won or lost, which
a pure 0/1 reward lacks; with ``margin_weight=0`` it is pure win/loss.

**Rollouts.** ``rollout="greedy"`` (default): on build decisions, with probability
``1 - epsilon`` the build taking the most chips this turn (random among ties), otherwise a random
build; chip and cardinal decisions are random. ``rollout="random"``: uniform random moves.
Greedy-ish rollouts cost about twice as much as random ones but judge positions far better.

The final move is the most visited root child (ties: higher mean reward). All randomness comes from
the agent's own seeded ``random.Random``.
"""

from __future__ import annotations

import math

from kardinal_env.notation import BUILD, format_move

from .base import BaseAgent
from .heuristics import build_chips

__all__ = ["MCTSAgent"]


class _Node:
    __slots__ = ("player", "untried", "children", "visits", "totals")

    def __init__(self, game, rng, n_players):
        self.player = game.current_player  # None at a terminal node
        untried = list(game.legal_move_codes())
        rng.shuffle(untried)
        self.untried = untried
        self.children = []  # [code, node]
        self.visits = 0
        self.totals = [0.0] * n_players


class MCTSAgent(BaseAgent):
    """UCT search; see the module docstring for rewards and rollouts."""

    def __init__(
        self,
        simulations: int = 200,
        seed: int | None = None,
        exploration: float = 0.7,
        margin_weight: float = 0.25,
        rollout: str = "greedy",
        epsilon: float = 0.25,
    ):
        super().__init__(seed)
        if not isinstance(simulations, int) or isinstance(simulations, bool) or simulations < 1:
            raise ValueError(f"mcts: simulations must be a positive integer, got {simulations!r}")
        if rollout not in ("greedy", "random"):
            raise ValueError(f"mcts: rollout must be 'greedy' or 'random', got {rollout!r}")
        self.simulations = simulations
        self.exploration = exploration
        self.margin_weight = margin_weight
        self.rollout = rollout
        self.epsilon = epsilon
        self.name = f"mcts:{simulations}"

    # ------------------------------------------------------------------ public
    def select_move(self, game) -> str:
        return format_move(self.select_code(game))

    def select_code(self, game) -> tuple:
        codes = game.legal_move_codes()
        if not codes:
            raise ValueError("no legal move: the game is over")
        if len(codes) == 1:
            return codes[0]
        rng = self.rng
        n = game.num_players
        root = _Node(game, rng, n)
        for _ in range(self.simulations):
            self._simulate(game, root, rng, n)
        best = max(root.children, key=lambda cn: (cn[1].visits, cn[1].totals[root.player] / cn[1].visits))
        return best[0]

    # ------------------------------------------------------------------ search
    def _simulate(self, root_game, root, rng, n):
        g = root_game.clone()
        node = root
        path = [root]
        c = self.exploration
        # Selection: descend while the node is fully expanded and not terminal.
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            p = node.player
            best_child = None
            best_value = -1.0
            for code, child in node.children:
                v = child.totals[p] / child.visits + c * math.sqrt(log_n / child.visits)
                if v > best_value:
                    best_value = v
                    best_child = (code, child)
            g.play_code(best_child[0])
            node = best_child[1]
            path.append(node)
        # Expansion.
        if node.untried:
            code = node.untried.pop()
            g.play_code(code)
            child = _Node(g, rng, n)
            node.children.append([code, child])
            node = child
            path.append(node)
        # Rollout.
        self._rollout(g, rng)
        rewards = self._rewards(g, n)
        for nd in path:
            nd.visits += 1
            t = nd.totals
            for s in range(n):
                t[s] += rewards[s]

    def _rollout(self, g, rng):
        greedy = self.rollout == "greedy"
        eps = self.epsilon
        while not g.is_over:
            codes = g.legal_move_codes()
            if greedy and codes[0][0] == BUILD and len(codes) > 1 and rng.random() >= eps:
                best = -1
                top = []
                for code in codes:
                    v = build_chips(g, code)
                    if v > best:
                        best = v
                        top = [code]
                    elif v == best:
                        top.append(code)
                code = top[rng.randrange(len(top))]
            else:
                code = codes[rng.randrange(len(codes))]
            g._apply(code)  # codes come from the engine's own legal list

    def _rewards(self, g, n):
        scores = g.scores()
        winners = g.winners()
        mw = self.margin_weight
        out = []
        for s in range(n):
            win = 1.0 if s in winners else 0.0
            if mw:
                best_other = max(scores[o] for o in range(n) if o != s)
                m = max(-1.0, min(1.0, (scores[s] - best_other) / 10.0))
                out.append((1.0 - mw) * win + mw * (1.0 + m) / 2.0)
            else:
                out.append(win)
        return out

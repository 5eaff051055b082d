"""Multi-player UCT Monte Carlo tree search (``mcts:N``: N simulations per decision).

Search runs on ``game.clone()``; the real game is never touched. Every decision of the game (build,
chip choice, cardinal) is one tree level; a turn's decisions all belong to the seat on turn.

**Statistics.** Each node keeps its visit count and, per seat, the sum of that seat's rewards over
the simulations through it. Selection at a node maximises UCB1 from the perspective of the seat
deciding at that node (max^n-style multi-player UCT), so in 3- and 4-player games each seat pursues
its own reward; opponents are not assumed to minimise.

**Reward** (per seat, at the end of a simulated game, in ``[0, 1]``)::

    r = (1 - margin_weight) * win + margin_weight * (1 + clip((score - best_other_score) / 10, -1, 1)) / 2

``win`` is 1 for every seat in ``game.winners()`` (a shared win counts as a win for each winner) and
0 otherwise; ``best_other_score`` is the highest score among the other seats. The margin term
(default weight 0.25) gives the search a gradient in positions that are already won or lost, which
a pure 0/1 reward lacks; ``margin_weight=0`` gives pure win/loss.

**Move ordering and progressive widening.** A node's moves are ordered by a cheap heuristic
(builds: value of the chips they take for the builder, see :func:`_seat_weights`; chips: the same
colour value; cardinal: how few chips the next builder could then take, as the greedy agent
computes it). A node with ``v`` visits may have at most ``widen_base + sqrt(v)`` children, expanded
in that order, so 200 simulations are spent on the promising moves instead of on one visit each to
fifty builds. ``widen_base=None`` disables widening (plain UCT over all moves).

**Rollouts** (``rollout="greedy"``, default): on build decisions, with probability
``1 - epsilon`` the build of highest chip value for the builder (random among ties), otherwise a
random build; with probability ``cardinal_block`` the cardinal is placed as the greedy agent places
it, otherwise randomly; chips by colour value. ``rollout="random"``: uniform random moves.

The final move is the most visited root child (ties: higher mean reward). All randomness comes from
the agent's own seeded ``random.Random``.
"""

from __future__ import annotations

import math

from agents.base import BaseAgent
from agents.baselines.kardinal_heuristics import build_chips, cardinal_block_values, next_builder
from kardinal_env.kardinal.notation import BUILD, CHIP, format_move

__all__ = ["MCTSAgent"]


def _seat_weights(game, seat: int) -> list[float]:
    """Value of one chip of each colour (index 4: a substitute chip of free choice) for ``seat``.

    A chip of the seat's own colour is worth little (its leftovers come to it at the end anyway); a
    chip of another seat's colour is worth one chip plus the leftover it denies that seat.
    """
    rules = game.rules
    n = game.num_players
    own = rules.owned_colours(seat)
    w = []
    for c in range(4):
        if c in own:
            w.append(0.3)
        elif any(c in rules.owned_colours(o) for o in range(n) if o != seat):
            w.append(1.0 + 1.0 / (n - 1))
        else:
            w.append(1.0)
    w.append(max(w))
    return w


def _build_value(game, code, weights) -> float:
    colours: list = []
    build_chips(game, code, colours)
    return sum(weights[c] for c in colours)  # -1 (substitute) indexes the free-choice weight


_ONES = [1.0, 1.0, 1.0, 1.0, 1.0]


def _fast_values(g, codes, w):
    """Chip value of each build for weights ``w`` (index 4: a substitute chip), from the engine's
    ``build_chips``; the chips a build takes depend only on its squares (and, for the neutral
    put-aside rule, on whether its colour is the neutral one), so results are cached per key."""
    cache = {}
    out = []
    for code in codes:
        key = (code[3], code[4], code[2] == 3)
        v = cache.get(key)
        if v is None:
            gain = g.build_chips(code)
            v = 0.0 if gain.set_aside else sum(w[c] for c in gain.colours) + w[4] * gain.substitutes
            cache[key] = v
        out.append(v)
    return out


def _top_build(g, codes, w, rng):
    values = _fast_values(g, codes, w)
    best = max(values)
    top = [i for i, v in enumerate(values) if v == best]
    return codes[top[0] if len(top) == 1 else top[rng.randrange(len(top))]]


def _quick_block(g, codes, rng):
    """Cheap greedy-like cardinal for rollouts: stand on the square shared by most of the next
    builder's best builds (by raw chip count); ``C-`` if the cardinal already stands there."""
    _seat, builds = next_builder(g)
    if not builds:
        return codes[rng.randrange(len(codes))]
    values = _fast_values(g, builds, _ONES)
    best = max(values)
    counts = {}
    for v, b in zip(values, builds, strict=False):
        if v == best:
            counts[b[3]] = counts.get(b[3], 0) + 1
            if b[4] >= 0:
                counts[b[4]] = counts.get(b[4], 0) + 1
    most = max(counts.values())
    squares = [k for k, m in counts.items() if m == most]
    target = squares[0] if len(squares) == 1 else squares[rng.randrange(len(squares))]
    if target == g.cardinal_key:
        return codes[0]  # C- is listed first whenever the cardinal stands somewhere
    for code in codes:
        if code[3] == target:
            return code
    return codes[rng.randrange(len(codes))]


class _Node:
    __slots__ = ("player", "untried", "children", "visits", "totals")

    def __init__(self, game, agent, n_players):
        self.player = game.current_player  # None at a terminal node
        untried = list(game.legal_move_codes())
        if len(untried) > 1:
            agent.rng.shuffle(untried)
            if agent.widen_base is not None:
                untried = agent._order(game, untried)
        untried.reverse()  # pop() takes the most promising move first
        self.untried = untried
        self.children = []  # [code, node]
        self.visits = 0
        self.totals = [0.0] * n_players


class MCTSAgent(BaseAgent):
    """UCT search; see the module docstring for rewards, ordering and rollouts."""

    def __init__(
        self,
        simulations: int = 200,
        seed: int | None = None,
        exploration: float = 0.7,
        margin_weight: float = 0.25,
        rollout: str = "greedy",
        epsilon: float = 0.2,
        cardinal_block: float = 1.0,
        widen_base: float | None = 2.0,
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
        self.cardinal_block = cardinal_block
        self.widen_base = widen_base
        self.name = f"mcts:{simulations}"
        self._weights: list[list[float]] = []

    # ------------------------------------------------------------------ public
    def select_move(self, game) -> str:
        return format_move(self.select_code(game))

    def select_code(self, game) -> tuple:
        codes = game.legal_move_codes()
        if not codes:
            raise ValueError("no legal move: the game is over")
        if len(codes) == 1:
            return codes[0]
        n = game.num_players
        self._weights = [_seat_weights(game, s) for s in range(n)]
        root = _Node(game, self, n)
        for _ in range(self.simulations):
            self._simulate(game, root, n)
        p = root.player
        best = max(root.children, key=lambda cn: (cn[1].visits, cn[1].totals[p] / cn[1].visits))
        return best[0]

    # ------------------------------------------------------------------ heuristics
    def _order(self, game, codes):
        kind = codes[0][0]
        if kind == BUILD:
            w = self._weights[game.current_player]
            return sorted(codes, key=lambda c: _build_value(game, c, w), reverse=True)
        if kind == CHIP:
            w = self._weights[game.current_player]
            return sorted(codes, key=lambda c: w[c[2]], reverse=True)
        keys = {code: (best, count) for code, best, count in cardinal_block_values(game)}
        return sorted(codes, key=lambda c: keys[c])

    # ------------------------------------------------------------------ search
    def _simulate(self, root_game, root, n):
        g = root_game.clone()
        node = root
        path = [root]
        c = self.exploration
        base = self.widen_base
        rng = self.rng
        while True:
            if node.player is None:
                break
            if node.untried and (
                base is None or not node.children or len(node.children) < base + math.sqrt(node.visits)
            ):
                code = node.untried.pop()
                g.apply_legal_code(code)  # codes come from the engine's own legal list
                child = _Node(g, self, n)
                node.children.append([code, child])
                path.append(child)
                node = child
                break
            log_n = math.log(node.visits)
            p = node.player
            best = None
            best_value = -1.0
            for pair in node.children:
                child = pair[1]
                v = child.totals[p] / child.visits + c * math.sqrt(log_n / child.visits)
                if v > best_value:
                    best_value = v
                    best = pair
            g.apply_legal_code(best[0])
            node = best[1]
            path.append(node)
        self._rollout(g, rng)
        rewards = self._rewards(g, n)
        for nd in path:
            nd.visits += 1
            t = nd.totals
            for s in range(n):
                t[s] += rewards[s]

    def _rollout(self, g, rng):
        if self.rollout == "random":
            while not g.is_over:
                codes = g.legal_move_codes()
                g.apply_legal_code(codes[rng.randrange(len(codes))])
            return
        eps = self.epsilon
        block = self.cardinal_block
        weights = self._weights
        while not g.is_over:
            codes = g.legal_move_codes()
            if len(codes) == 1:
                code = codes[0]
            else:
                kind = codes[0][0]
                if kind == BUILD and rng.random() >= eps:
                    code = _top_build(g, codes, weights[g.current_player], rng)
                elif kind == CHIP:
                    w = weights[g.current_player]
                    code = max(codes, key=lambda c: w[c[2]])
                elif kind not in (BUILD, CHIP) and block and rng.random() < block:
                    code = _quick_block(g, codes, rng)
                else:
                    code = codes[rng.randrange(len(codes))]
            g.apply_legal_code(code)

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

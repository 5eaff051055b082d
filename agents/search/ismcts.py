"""Information-set MCTS (``ismcts:N``: N simulations per decision) for every game of the suite, over the game protocol
(:mod:`kardinal_env.core.protocol`).

The agent never looks at hidden information: each simulation starts from ``game.determinize(seat, rng)``, a full state
the searching seat cannot tell from the real one. One tree is shared by all worlds (single-observer ISMCTS, Cowling,
Powley & Whitehouse 2012); with perfect information ``determinize`` is ``clone()`` and this is plain MCTS.

**Search.** Nodes are keyed by action id (``legal_actions()``, played with ``apply_action``); a node's statistics are
from the point of view of the seat that made the move. Selection maximises UCB1 with *availability* counts (how often
the move was legal when its parent was visited), expansion adds one untried move chosen at random, then a playout of at
most ``rollout_moves`` decisions (default 0: none) with the game's playout policy (``GameAgents.rollout``; uniform
random without one or with ``rollout="random"``). Values per seat in ``[0, 1]``: a finished game gives ``1/k`` to each
of ``k`` winners, else ``sigmoid((projected score − best other projected score) / scale)``. The move is the most visited
root child (ties: the higher mean value, then the first expanded).

**Guided search** (``rollout="guide"``, ``gismcts:N``): with the game's search guide (``GameAgents.search_guide``;
Kardinal & König: :class:`agents.search.heuristic_rollouts.HeuristicGuide`) a node offers only the mover's ``widen``
(default 3) best moves in the simulation's world (``guide.ranked(world, widen)``, action ids), the best untried one is
expanded (no random draw), and every simulation ends with ``guide.play_out(world)``, valued
``(1 - margin_weight) × win share + margin_weight × sigmoid(final margin / scale)``. With ``widen_visits = W > 0`` a
node offers only its ``1 + visits // W`` best moves.

**Paired root** (``paired=True`` with the guide, ``pismcts:N``): the root's children are
``guide.root_moves(game, widen, rng, compiled)`` when the guide has it (Kardinal & König: the ``heuristic`` agent's move
and its next best), else the guide's best moves in the first world. Each round deals one world and plays every child in
it, each followed by one guided simulation below it. The move is the first child unless another passes the paired test
of ``rollout:N`` (:func:`agents.search.common.choose`: ``z`` 2.5, ``win_bonus`` 10). Rounds go on while the next fits in
N simulations; with ``batch = B > 0`` the test also runs every ``B`` rounds: a passing alternative ends the search, and
alternatives at most ``t_continue`` (0.5) standard errors above zero are dropped.

**Randomness.** Each decision seeds a :class:`~kardinal_env.core.shuffle.ShuffleRng` with one ``getrandbits(64)`` of the
agent's ``random.Random``; per simulation it deals the world, then draws the expansion choice (``below(len(untried))``).
Playouts draw from the agent's ``random.Random``.

**Compiled search.** A game whose agents' entry names ``GameAgents.compiled_ismcts`` (Kardinal & König:
:func:`agents.search.koenig_compiled.ismcts_root`) is searched by it when ``rollout_moves=0`` and ``compiled`` is true:
the same worlds, draws and move, 10-20 times faster. It answers ``None`` (then this module searches) where the core is
not used or for a subclass of the game.
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
    choose,
    forced_root,
    most_visited,
    paired_test,
    play_out,
    seat_result,
    spec_of,
    ucb,
)
from kardinal_env.core.registry import GameSpec, UnknownGameError
from kardinal_env.core.rewards import margins, win_share
from kardinal_env.core.shuffle import ShuffleRng

__all__ = ["ISMCTSAgent"]


class _Node:
    __slots__ = ("mover", "children", "avail", "visits", "totals")

    def __init__(self, mover: int, n: int):
        self.mover = mover  # the seat whose move led here
        self.children: dict[int, _Node] = {}  # by action id
        self.avail: dict[int, int] = {}
        self.visits = 0
        self.totals = [0.0] * n


class ISMCTSAgent(BaseAgent):
    """Single-observer information-set MCTS over ``game.determinize``."""

    def __init__(
        self,
        simulations: int = 200,
        seed: int | None = None,
        exploration: float = 0.7,
        rollout_moves: int = 0,
        scale: float = 8.0,
        rollout: str = "policy",
        game: GameSpec | None = None,
        compiled: bool = True,
        widen: int = 3,
        guide: Any = None,
        margin_weight: float = 0.0,
        paired: bool = False,
        z: float = 2.5,
        win_bonus: float = 10.0,
        batch: int = 0,
        t_continue: float = 0.5,
        widen_visits: int = 0,
    ):
        super().__init__(seed)
        check_uct("ismcts", simulations, exploration, margin_weight, rollout, ("policy", "random", "guide"))
        check_finite("ismcts: scale", scale, positive=True)
        counts = (("rollout_moves", rollout_moves, 0), ("widen", widen, 1), ("batch", batch, 0))
        for what, value, minimum in (*counts, ("widen_visits", widen_visits, 0)):
            check_count(f"ismcts: {what}", value, minimum=minimum)
        guided = dict(guide=guide is not None, margin_weight=margin_weight, paired=paired, widen_visits=widen_visits)
        for what, given in guided.items():
            if given and rollout != "guide":
                raise ValueError(f"ismcts: {what} needs rollout='guide', got rollout={rollout!r}")
        if batch and not paired:
            raise ValueError("ismcts: batch (rounds between paired tests) needs paired=True")
        for what, number in (("z", z), ("win_bonus", win_bonus), ("t_continue", t_continue)):
            check_finite(f"ismcts: {what}", number)
        if rollout == "guide" and rollout_moves:
            raise ValueError(
                "ismcts: rollout='guide' plays every simulation to the game's end; leave rollout_moves at 0"
            )
        self.simulations, self.exploration, self.scale = simulations, exploration, scale
        self.rollout, self.rollout_moves, self.widen, self.widen_visits = rollout, rollout_moves, widen, widen_visits
        self.margin_weight, self.paired, self.batch = margin_weight, bool(paired), batch
        self.z, self.win_bonus, self.t_continue = float(z), float(win_bonus), float(t_continue)
        kind = "pismcts" if paired else "gismcts" if rollout == "guide" else "ismcts"
        self.name, self.game, self.compiled = f"{kind}:{simulations}", game, compiled
        self._game_class: type | None = None
        self._policy: Any = guide  # the guide itself with rollout="guide" (None: the game's, built at the first search)
        self._compiled: Any = None

    def select_move(self, game) -> str:
        children = self._search(game)
        if self.paired and len(children) > 1:  # tested: the alternatives the rounds did not drop
            rounds = len(children[0][3])
            values = [(move, shares, margins) for move, _, _, shares, margins in children if len(shares) == rounds]
            return choose(values, self.z, self.win_bonus)
        return most_visited(children)

    def root_statistics(self, game) -> list[tuple[str, int, float]]:
        """The root's children in expansion order, ``(move, visits, mean value of the deciding seat)`` (one legal move:
        that move, unsearched); search trainers take the visits as a policy target."""
        return [child[:3] for child in self._search(game)]

    def _search(self, game) -> list[tuple]:
        """:meth:`root_statistics`' children, with the paired root also the seat's win shares and margins per round."""
        forced = forced_root(game)
        if forced is not None:
            return forced
        self._setup(game)
        seat = game.current_player
        guide = self._policy if self.rollout == "guide" else None
        first = None  # the paired root's children, from the guide on the real game when it offers them
        root_moves = getattr(guide, "root_moves", None) if self.paired else None
        if root_moves is not None:
            first = root_moves(game, self.widen, self.rng, self.compiled)
            if len(first) == 1:
                return [(game.action_to_string(first[0]), 0, 0.0, [], [])]
        if self._compiled is not None:
            extra: dict[str, Any] = dict(simulations=self.simulations, exploration=self.exploration, scale=self.scale)
            if guide is not None:
                test = (self.batch, self.z, self.t_continue, self.win_bonus)
                extra.update(guide=guide, widen=self.widen, margin_weight=self.margin_weight, paired=self.paired)
                extra.update(test=test, widen_visits=self.widen_visits, root_moves=first)
            children = self._compiled(game, self.rng, **extra)
            if children is not None:
                return children
        n = game.num_players
        root = _Node(-1, n)
        search_rng = ShuffleRng(self.rng.getrandbits(64))
        name = game.action_to_string
        if self.paired:
            return [(name(a), *rest) for a, *rest in self._search_paired(game, root, n, search_rng, first)]
        for _ in range(self.simulations):
            self._simulate(game.determinize(seat, search_rng), root, n, search_rng)
        children = root.children.items()
        return [(name(a), child.visits, child.totals[seat] / max(1, child.visits)) for a, child in children]

    def _setup(self, game) -> None:
        """Once per game class: the game's playout policy (with ``rollout="guide"``: its search guide, once) and its
        compiled search."""
        if type(game) is self._game_class:
            return
        if self.rollout == "guide" and self._policy is None:
            spec = spec_of(self.game, game)
            wiring = game_agents(spec)
            if wiring.search_guide is None:
                raise ValueError(
                    f"ismcts: rollout='guide' needs a game with a search guide (GameAgents.search_guide); "
                    f"{spec.name} has none"
                )
            self._policy = wiring.load("search_guide")()
        elif self.rollout_moves and self.rollout != "random":
            self._policy = game_agents(spec_of(self.game, game)).load("rollout")
        if self.compiled and self.rollout_moves == 0:
            try:
                self._compiled = game_agents(spec_of(self.game, game)).load("compiled_ismcts")
            except UnknownGameError:  # a game object of no registered game (a wrapper): search in Python
                self._compiled = None
        self._game_class = type(game)

    def _search_paired(self, game, root: _Node, n: int, search_rng: ShuffleRng, first: list[int] | None) -> list[tuple]:
        seat = game.current_player
        world = game.determinize(seat, search_rng)
        if first is None:
            first = self._policy.ranked(world, self.widen)
        for move in first:
            root.children[move] = _Node(seat, n)
        played: dict[int, tuple[list[float], list[int]]] = {move: ([], []) for move in first}
        alive = first[1:]
        used = rounds = 0
        while True:
            if rounds:
                world = game.determinize(seat, search_rng)
            for move in (first[0], *alive):
                child = root.children[move]
                g = world.clone()
                g.apply_action(move)
                self._simulate(g, root, n, search_rng, child, [child])
                share, margin = seat_result(g, seat)
                played[move][0].append(share)
                played[move][1].append(margin)
            used += 1 + len(alive)
            rounds += 1
            if self.batch and rounds % self.batch == 0 and alive:
                choice, alive = paired_test(first[0], alive, played, self.z, self.t_continue, self.win_bonus)
                if choice != first[0] or not alive:
                    break
            if used + 1 + len(alive) > self.simulations:
                break
        children = [(move, root.children[move]) for move in first]
        return [(move, child.visits, child.totals[seat] / child.visits, *played[move]) for move, child in children]

    def _simulate(
        self, world, root: _Node, n: int, rng: ShuffleRng, node: _Node | None = None, path: list | None = None
    ) -> None:
        """One simulation in ``world`` from ``node`` (default: the root; ``path``: the nodes below the root to it)."""
        c = self.exploration
        guide = self._policy if self.rollout == "guide" else None
        node = root if node is None else node
        path = [] if path is None else path
        while not world.is_over:
            if guide is None:
                moves = action_list(world)
            else:
                moves = guide.ranked(world, self.widen)
                if self.widen_visits:  # progressive widening: one more move every widen_visits visits
                    moves = moves[: 1 + node.visits // self.widen_visits]
            mover = world.current_player
            avail = node.avail
            for m in moves:
                avail[m] = avail.get(m, 0) + 1
            untried = [m for m in moves if m not in node.children]
            if untried:
                m = untried[0] if guide is not None else untried[rng.below(len(untried))]
                child = node.children[m] = _Node(mover, n)
                world.apply_action(m)
                path.append(child)
                break
            children = node.children
            best = max(moves, key=lambda m: ucb(children[m], mover, c, math.log(avail[m])))
            world.apply_action(best)
            node = node.children[best]
            path.append(node)
        if guide is not None:
            guide.play_out(world)
        else:
            play_out(world, self._policy if self.rollout == "policy" else None, self.rng, self.rollout_moves)
        root.visits += 1  # the root's totals are never read: it is not on the path
        backup(path, self._values(world, n))

    def _values(self, world, n: int) -> list[float]:
        def sigmoids(scores) -> list[float]:
            return [1.0 / (1.0 + math.exp(-m / self.scale)) for m in margins(scores)]

        if not world.is_over:
            return sigmoids(world.projected_scores())
        winners = world.winners()
        values = [win_share(winners, s) for s in range(n)]
        mw = self.margin_weight
        if mw > 0:  # guided playouts only (the constructor's check)
            values = [(1.0 - mw) * v + mw * m for v, m in zip(values, sigmoids(world.scores()), strict=True)]
        return values

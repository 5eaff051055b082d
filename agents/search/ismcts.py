"""Information-set MCTS (``ismcts:N``: N simulations per decision) for every game of the suite, over
the game protocol (:mod:`kardinal_env.core.protocol`).

A game may hide information (Kardinal & König hides the other seats' hands and the deck order). This
agent never looks at it: each simulation starts from a *determinization*,
``game.determinize(seat, rng)`` — a full game state that the searching seat cannot tell apart from
the real one, its hidden parts dealt with the agent's generator consistently with everything the
seat has seen (the game decides what that is: for Kardinal & König ``kardinal_env.koenig.knowledge``).
The tree is shared by all determinizations (single-observer ISMCTS, Cowling, Powley & Whitehouse
2012). On a game of perfect information ``determinize`` is ``clone()`` and the search is plain MCTS
on clones (availability counts then equal visit counts). ``tests/test_ismcts.py`` checks that two
games differing only in hidden state give the same move under the same seed.

**Search.** Nodes are keyed by action id (``legal_actions()``, played with ``apply_action``; the
root's are named with ``action_to_string``); a node's statistics are from the point of view of the
seat that made the move. Selection maximises UCB1 with *availability* counts
(how often the move was legal when its parent was visited), expansion adds one untried move chosen
at random, then a playout of at most ``rollout_moves`` decisions (default 0: none) with the game's
playout policy (``GameAgents.rollout`` of the agents' entry of ``game=`` or, by default, of
:func:`kardinal_env.core.registry.game_of`; uniform random moves for a game without one or with
``rollout="random"``), and a value per seat in ``[0, 1]``: for a finished game ``1/k`` for each of
``k`` winners (0 for the others); otherwise ``sigmoid((projected score − best other projected
score) / scale)`` with ``game.projected_scores()``. The final move is the most visited root child
(ties: the higher mean value, then the first expanded).

**Guided search** (``rollout="guide"``, the spec ``gismcts:N``): for a game with a search guide
(``GameAgents.search_guide``; Kardinal & König:
:class:`agents.search.heuristic_rollouts.HeuristicGuide`, the ``heuristic`` baseline as a playout seat
sees a dealt world) a node offers only the mover's ``widen`` (default 3) best moves by the guide in the
simulation's world (``guide.ranked(world, widen)``, action ids: the moves its availability counts), the
best untried one is expanded (no random draw), and every simulation ends with ``guide.play_out(world)``
to the game's end, valued ``(1 - margin_weight) × win share + margin_weight × sigmoid(final margin /
scale)`` (``margin_weight`` default 0: the win share alone). ``rollout_moves`` must stay 0. With
``widen_visits = W > 0`` (progressive widening; default 0: off) a node offers only its ``1 + visits // W``
best moves (at most ``widen``), so a rarely visited node plays the guide's own move.

**Paired root** (``paired=True`` with the guide, the spec ``pismcts:N``): the root is searched in
rounds, not by UCB1. Its children are ``guide.root_moves(game, widen, rng, compiled)`` when the guide
has that method — read on the real game from the seat's own view (Kardinal & König: the ``heuristic``
agent's own move and its next best, :func:`agents.search.heuristic_rollouts.heuristic_root_moves`, one
draw of the agent's ``random.Random`` on an exact tie, before the search's seed) — else the guide's
``widen`` best moves in the first world (the same in every world: the seat's unseen cards are). Each
round deals one world and plays every child in it, each followed by one simulation of the guided
search below that child (the shared tree, as above). The move is the first child unless another
child's paired difference to it over the rounds — a world's value: the seat's final margin plus
``win_bonus`` (default 10) times its win share — has its mean above ``z`` (default 2.5) standard errors
(:func:`agents.search.common.paired_statistics` and ``significant_move``, the test of ``rollout:N``):
the same deal under every child cancels most of the luck that unpaired ISMCTS compares children on.
Rounds go on while the next fits in the N simulations; with ``batch = B > 0`` (the spec's 16) the test
also runs after every ``B`` rounds: an alternative that passes it ends the search, and the alternatives
whose mean paired difference is at most ``t_continue`` (default 0.5) standard errors stop being played
(``rollout:N``'s rounds); the search ends when none is left.

**Randomness.** Each decision draws one ``getrandbits(64)`` from the agent's seeded ``random.Random``
and seeds with it a :class:`~kardinal_env.core.shuffle.ShuffleRng` (SplitMix64, the suite's shared
generator, implemented identically in the compiled core); every random number of the search comes
from it, in this order per simulation: the world (``game.determinize(seat, search_rng)``, which for
Kardinal & König takes one 64-bit draw as the world's seed), then the expansion choice
(``search_rng.below(len(untried))``). Playouts (``rollout_moves > 0``) draw from the agent's
``random.Random``.

**Compiled search.** A game whose agents' entry names a ``GameAgents.compiled_ismcts`` (Kardinal &
König: :func:`agents.search.koenig_compiled.ismcts_root`, the compiled core) is searched by it when the
search plays no playouts (``rollout_moves=0``, the default) and ``compiled`` is true (the default): it
is handed the seat's knowledge (computed once, in Python) and the decision's 64-bit seed, deals every
world in C++ with the same algorithm on the same generator and draws the expansion choices from it in
the same order, so it chooses the same move as this module's (``tests/test_core_koenig.py``), an order
of magnitude faster. The guided search goes to the core too (the guide's weights and ``replan``
with it; ``tests/test_gismcts.py``): there a playout costs ~10 ms, in Python ~20 times more. It
answers ``None`` (and this module searches) when the core is not built, under
``KARDINAL_ENV_BACKEND=python``, or for a subclass of the game. ``compiled=False`` always searches in
Python.

**Version history.** 3: the paired root (``paired``, ``z``, ``win_bonus``, ``batch``, ``t_continue``;
spec ``pismcts:N``), progressive widening of the guide's moves (``widen_visits``).
2: the guided search (``rollout="guide"``, ``widen``, ``guide``,
``margin_weight``). 1: UCB1 with availability counts, random expansion, the game's playout policy or
none.
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
    check_fraction,
    choose,
    paired_statistics,
    play_out,
    seat_result,
    significant_move,
)
from kardinal_env.core import limits
from kardinal_env.core.registry import GameSpec, UnknownGameError, game_of
from kardinal_env.core.shuffle import ShuffleRng

__all__ = ["ISMCTSAgent"]

_ROLLOUTS = ("policy", "random", "guide")


class _Node:
    __slots__ = ("mover", "children", "avail", "visits", "totals")

    def __init__(self, mover: int, n: int):
        self.mover = mover  # the seat whose move led here
        self.children: dict[int, _Node] = {}  # by action id
        self.avail: dict[int, int] = {}
        self.visits = 0
        self.totals = [0.0] * n


class ISMCTSAgent(BaseAgent):
    """Single-observer information-set MCTS over ``game.determinize`` (see the module docstring)."""

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
        check_count("ismcts: simulations", simulations, maximum=limits.SIMULATIONS)
        check_finite("ismcts: exploration", exploration)
        check_finite("ismcts: scale", scale, positive=True)
        check_count("ismcts: rollout_moves", rollout_moves, minimum=0)
        check_count("ismcts: widen", widen)
        check_fraction("ismcts: margin_weight", margin_weight)
        if margin_weight and rollout != "guide":
            raise ValueError("ismcts: margin_weight values guided playouts; it needs rollout='guide'")
        if rollout not in _ROLLOUTS:
            raise ValueError(f"ismcts: rollout must be one of {list(_ROLLOUTS)}, got {rollout!r}")
        if guide is not None and rollout != "guide":
            raise ValueError(f"ismcts: a guide is used only with rollout='guide', got rollout={rollout!r}")
        if paired and rollout != "guide":
            raise ValueError("ismcts: paired (the paired root) needs rollout='guide'")
        check_count("ismcts: batch", batch, minimum=0)
        check_count("ismcts: widen_visits", widen_visits, minimum=0)
        if widen_visits and rollout != "guide":
            raise ValueError("ismcts: widen_visits (progressive widening of the guide's moves) needs rollout='guide'")
        if batch and not paired:
            raise ValueError("ismcts: batch (rounds between paired tests) needs paired=True")
        for what, value in (("z", z), ("win_bonus", win_bonus), ("t_continue", t_continue)):
            check_finite(f"ismcts: {what}", value)
        if rollout == "guide" and rollout_moves:
            raise ValueError(
                "ismcts: rollout='guide' plays every simulation to the game's end; leave rollout_moves at 0"
            )
        self.simulations = simulations
        self.exploration = exploration
        self.rollout_moves = rollout_moves
        self.scale = scale
        self.rollout = rollout
        self.widen = widen
        self.margin_weight = margin_weight
        self.paired = bool(paired)
        self.z = float(z)
        self.win_bonus = float(win_bonus)
        self.batch = batch
        self.widen_visits = widen_visits
        self.t_continue = float(t_continue)
        kind = "pismcts" if paired else "gismcts" if rollout == "guide" else "ismcts"
        self.name = f"{kind}:{simulations}"
        self.game = game
        self.compiled = compiled
        self._game_class: type | None = None
        self._policy: Any = guide  # the guide itself with rollout="guide" (None: the game's, built at the first search)
        self._compiled_class: type | None = None
        self._compiled: Any = None

    def select_move(self, game) -> str:
        children = self._search(game)
        if self.paired and len(children) > 1:
            # the test on the alternatives played in every round (those the rounds did not drop)
            rounds = len(children[0][3])
            values = [(move, shares, margins) for move, _, _, shares, margins in children if len(shares) == rounds]
            return choose(values, self.z, self.win_bonus)
        return max(children, key=lambda child: (child[1], child[2]))[0]

    def root_statistics(self, game) -> list[tuple[str, int, float]]:
        """Search ``game``'s current decision (``simulations`` simulations from the deciding seat's
        determinizations) and return the root's children in expansion order: ``(move, visits, mean value
        of the deciding seat)``. The move :meth:`select_move` plays is the most visited (ties: the higher
        mean, then the first expanded); with the paired root, the paired test's choice (module
        docstring). Search trainers (:mod:`agents.training.search_training`, ``search: ismcts``) take
        the visits as a policy target. A decision with one legal move is not searched: that move, with no
        visits."""
        return [child[:3] for child in self._search(game)]

    def _search(self, game) -> list[tuple]:
        """:meth:`root_statistics`' children; with the paired root each also carries the deciding seat's
        win shares and final margins, one per round."""
        moves = game.legal_moves()
        if not moves:
            raise ValueError("no legal move: the game is over")
        if len(moves) == 1:
            return [(moves[0], 0, 0.0)]
        self._setup(game)
        seat = game.current_player
        guide = self._policy if self.rollout == "guide" else None
        first = None  # the paired root's children, from the guide on the real game when it offers them
        root_moves = getattr(guide, "root_moves", None) if self.paired else None
        if root_moves is not None:
            first = root_moves(game, self.widen, self.rng, self.compiled)
            if len(first) == 1:
                return [(game.action_to_string(first[0]), 0, 0.0, [], [])]
        if self.compiled and self.rollout_moves == 0:
            if type(game) is not self._compiled_class:
                try:
                    spec = self.game if self.game is not None else game_of(game)
                except UnknownGameError:  # a game object of no registered game (a wrapper): search in Python
                    spec = None
                self._compiled = game_agents(spec).load("compiled_ismcts") if spec is not None else None
                self._compiled_class = type(game)
            if self._compiled is not None:
                extra = (
                    {}
                    if guide is None
                    else {
                        "guide": guide,
                        "widen": self.widen,
                        "margin_weight": self.margin_weight,
                        "paired": self.paired,
                        "test": (self.batch, self.z, self.t_continue, self.win_bonus),
                        "widen_visits": self.widen_visits,
                        "root_moves": first,
                    }
                )
                children = self._compiled(
                    game,
                    self.rng,
                    simulations=self.simulations,
                    exploration=self.exploration,
                    scale=self.scale,
                    **extra,
                )
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
        """The playout policy of the game (looked up in the registry once per game class, and only
        when the search plays out at all), or with ``rollout="guide"`` its search guide (built once,
        unless one was given)."""
        if self.rollout == "guide":
            if self._policy is None:
                spec = self.game if self.game is not None else game_of(game)
                wiring = game_agents(spec)
                if wiring.search_guide is None:
                    raise ValueError(
                        f"ismcts: rollout='guide' needs a game with a search guide (GameAgents.search_guide); "
                        f"{spec.name} has none"
                    )
                self._policy = wiring.load("search_guide")()
            return
        if self.rollout_moves == 0 or self.rollout == "random" or type(game) is self._game_class:
            return
        spec = self.game if self.game is not None else game_of(game)
        self._policy = game_agents(spec).load("rollout")
        self._game_class = type(game)

    def _search_paired(self, game, root: _Node, n: int, search_rng: ShuffleRng, first: list[int] | None) -> list[tuple]:
        """The paired root (module docstring): rounds of one world, the guide's first move and every
        alternative still in play played in each; with ``batch``, the paired test after every ``batch``
        rounds ends the search (an alternative passes it) or drops the alternatives no longer promising."""
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
                stats = paired_statistics([(m, *played[m]) for m in (first[0], *alive)], self.win_bonus)
                if significant_move(first[0], stats, self.z) != first[0]:
                    break
                alive = [m for m, mean, se in stats if mean > self.t_continue * se]
                if not alive:
                    break
            if used + 1 + len(alive) > self.simulations:
                break
        children = [(move, root.children[move]) for move in first]
        return [(move, child.visits, child.totals[seat] / child.visits, *played[move]) for move, child in children]

    def _simulate(
        self, world, root: _Node, n: int, rng: ShuffleRng, node: _Node | None = None, path: list | None = None
    ) -> None:
        """One simulation in ``world``, from ``node`` (default: the root; ``path``: the nodes below the
        root walked to it): selection, expansion, playout, backup."""
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
            best_value = -1.0
            best = moves[0]
            for m in moves:
                ch = node.children[m]
                value = ch.totals[mover] / ch.visits + c * math.sqrt(math.log(avail[m]) / ch.visits)
                if value > best_value:
                    best_value = value
                    best = m
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
        if world.is_over:
            winners = world.winners()
            values = [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]
            mw = self.margin_weight
            if mw > 0:  # guided playouts only (the constructor's check)
                margins = self._margin_values(world.scores(), n)
                values = [(1.0 - mw) * v + mw * m for v, m in zip(values, margins, strict=True)]
            return values
        return self._margin_values(world.projected_scores(), n)

    def _margin_values(self, scores, n: int) -> list[float]:
        """Per seat ``sigmoid((its score - the best other seat's) / scale)``."""
        out = []
        for s in range(n):
            margin = scores[s] - max(scores[o] for o in range(n) if o != s)
            out.append(1.0 / (1.0 + math.exp(-margin / self.scale)))
        return out

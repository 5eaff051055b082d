"""Information-set MCTS for Kardinal & König (``ismcts:N``: N simulations per decision).

Kardinal & König hides the other seats' hands and the deck order. This agent never looks at
them: each simulation starts from a *determinization* — a world in which the cards the searching
seat cannot see are dealt at random, consistently with everything it has seen — and the tree is
shared by all determinizations (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012).

**What the searching seat knows** (all public, or its own):

* the whole deck's composition (the rules), its own hand, the display, the discard pile, the
  hand sizes, the deck size — so the multiset of *unseen* cards (the others' hands plus the deck)
  is known exactly;
* from the public decision log (``Game.decision_log``): cards another seat took from the display
  stay in its hand until it spends a card of that type (paying or discarding), so a lower bound of
  known cards per seat is tracked.

**Sampling.** Each other seat gets its known cards plus a uniform draw from the rest of the unseen
cards (as many as its hand size); the deck is the remainder in a uniformly random order, and future
reshuffles follow a fresh seed (``Game.with_hidden``). The true hidden cards, the true deck order
and the game's own shuffling generator are never read; ``tests/test_ismcts.py`` checks that two
games differing only in hidden state give the same move under the same seed.

**Search.** Nodes are keyed by move (ids of the board's move table); a node's statistics are from
the point of view of the seat that made the move. Selection maximises UCB1 with *availability*
counts (how often the move was legal when its parent was visited), expansion adds one untried move
chosen at random, then a short random rollout of
``rollout_moves`` decisions and a value per seat in ``[0, 1]``: for a finished game ``1/k`` for each
of ``k`` winners (0 for the others); otherwise ``sigmoid((projected score − best other projected
score) / scale)`` with ``Game.projected_scores`` (the scorings still to come, on the board as it is).
The final move is the most visited root child (ties: the higher mean value).
"""

from __future__ import annotations

import math

from agents.base import BaseAgent

__all__ = ["ISMCTSAgent", "HiddenCardSampler"]


class HiddenCardSampler:
    """Deals the cards ``seat`` cannot see, consistently with what it has seen (module docstring)."""

    def __init__(self, game, seat: int):
        self.game = game
        self.seat = seat
        rules = game.rules
        unseen: dict[int, int] = {}
        for t in rules.deck_cards:
            unseen[t] = unseen.get(t, 0) + 1
        for t in game.hand(seat) + game.display() + game.discard_pile():
            unseen[t] -= 1
        known: dict[int, dict[int, int]] = {s: {} for s in range(game.num_players) if s != seat}
        for who, move in game.decision_log():
            if who == seat:
                continue
            if move.startswith("draw:") and move != "draw:deck":
                t = int(move[5:])
                known[who][t] = known[who].get(t, 0) + 1
            else:
                for t in _cards_spent(move):
                    if known[who].get(t, 0) > 0:
                        known[who][t] -= 1
        self.known = {s: [t for t, k in sorted(cards.items()) for _ in range(k)] for s, cards in known.items()}
        pool = dict(unseen)
        for cards in self.known.values():
            for t in cards:
                pool[t] -= 1
        if any(k < 0 for k in pool.values()):  # pragma: no cover - would be an engine bug
            raise AssertionError("inconsistent public information")
        self.pool = [t for t, k in sorted(pool.items()) for _ in range(k)]
        self.sizes = {s: game.hand_size(s) for s in self.known}
        self.deck_size = game.deck_size()

    def sample(self, rng):
        """A determinized copy of the game (``Game.with_hidden``) drawn with ``rng``."""
        pool = list(self.pool)
        rng.shuffle(pool)
        hands = {}
        for s, cards in self.known.items():
            need = self.sizes[s] - len(cards)
            hands[s] = cards + pool[:need]
            del pool[:need]
        if len(pool) != self.deck_size:  # pragma: no cover - would be an engine bug
            raise AssertionError("unseen cards do not match the hand sizes and the deck")
        return self.game.with_hidden(hands, pool, seed=rng.getrandbits(64))


def _cards_spent(move: str) -> list[int]:
    """Card types a placement or discard spends (``K@FR3/4`` -> [4], ``A@IT/22`` -> [2, 2])."""
    if move.startswith("discard:"):
        return [int(move[8:])]
    if move.startswith(("K@", "A@")):
        return [int(c) for c in move.rsplit("/", 1)[1]]
    return []


class _Node:
    __slots__ = ("mover", "children", "avail", "visits", "totals")

    def __init__(self, mover: int, n: int):
        self.mover = mover  # the seat whose move led here
        self.children: dict[int, _Node] = {}
        self.avail: dict[int, int] = {}
        self.visits = 0
        self.totals = [0.0] * n


class ISMCTSAgent(BaseAgent):
    """Single-observer information-set MCTS for Kardinal & König (see the module docstring)."""

    def __init__(
        self,
        simulations: int = 200,
        seed: int | None = None,
        exploration: float = 0.7,
        rollout_moves: int = 0,
        scale: float = 8.0,
    ):
        super().__init__(seed)
        if not isinstance(simulations, int) or isinstance(simulations, bool) or simulations < 1:
            raise ValueError(f"ismcts: simulations must be a positive integer, got {simulations!r}")
        self.simulations = simulations
        self.exploration = exploration
        self.rollout_moves = rollout_moves
        self.scale = scale
        self.name = f"ismcts:{simulations}"

    def select_move(self, game) -> str:
        if not hasattr(game, "decision_log"):
            raise ValueError("ismcts plays Kardinal & König (a kardinal_env.koenig.Game)")
        moves = game.legal_move_ids()
        if not moves:
            raise ValueError("no legal move: the game is over")
        if len(moves) == 1:
            return game.board.moves[moves[0]]
        seat = game.current_player
        sampler = HiddenCardSampler(game, seat)
        n = game.num_players
        root = _Node(-1, n)
        for _ in range(self.simulations):
            self._simulate(sampler.sample(self.rng), root, n)
        best = max(
            root.children.items(),
            key=lambda item: (item[1].visits, item[1].totals[seat] / max(1, item[1].visits)),
        )
        return game.board.moves[best[0]]

    def _simulate(self, world, root: _Node, n: int) -> None:
        rng = self.rng
        c = self.exploration
        node = root
        path = []
        while not world.is_over:
            moves = world.legal_move_ids()
            mover = world.current_player
            avail = node.avail
            for m in moves:
                avail[m] = avail.get(m, 0) + 1
            untried = [m for m in moves if m not in node.children]
            if untried:
                m = untried[rng.randrange(len(untried))]
                child = node.children[m] = _Node(mover, n)
                world.apply_legal_id(m)
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
            world.apply_legal_id(best)
            node = node.children[best]
            path.append(node)
        for _ in range(self.rollout_moves):
            if world.is_over:
                break
            moves = world.legal_move_ids()
            world.apply_legal_id(moves[rng.randrange(len(moves))])
        values = self._values(world, n)
        root.visits += 1
        for nd in path:
            nd.visits += 1
            totals = nd.totals
            for s in range(n):
                totals[s] += values[s]

    def _values(self, world, n: int) -> list[float]:
        if world.is_over:
            winners = world.winners()
            return [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]
        proj = world.projected_scores()
        out = []
        for s in range(n):
            margin = proj[s] - max(proj[o] for o in range(n) if o != s)
            out.append(1.0 / (1.0 + math.exp(-margin / self.scale)))
        return out

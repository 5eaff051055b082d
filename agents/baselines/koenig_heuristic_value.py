"""The value of a board for the Kardinal & König ``heuristic`` (:mod:`agents.baselines.koenig_heuristic`), from public
information only.

**Value of a board** (:class:`~agents.baselines.koenig_heuristic_weights.HeuristicWeights` names the
weights). For every seat an estimate of its final score::

    banked scores
    + cloister points of every country x the scorings still to come (2 before the interim, then 1)
      + fill * phi * free sites          (the top seat also scores the cloisters still to come)
      + contest * phi * scorings * loss  (what the strongest rival takes with two more cloisters there)
    + alliance points (final scoring: top advisors in both countries, ties score)
      + phi * alliance_one * worth       (one advisor short of scoring it: e.g. an open alliance whose
      + phi * alliance_two * worth        other country has no advisor yet; two advisors short)
    + chain points (chains of 4 or more)
      + phi * 4 * chain_three / chain_two  (a group whose longest chain is 3 / 2 and that can still grow)

``phi`` (urgency) is ``min(1, turns the seat still has after this one / horizon)``: potential counts less as the
run-outs near and nothing in the last round, realised points count in full. The *margin* is the seat's own estimate
minus ``rival_max`` x the best other estimate minus ``1 - rival_max`` x their mean. On the game's very last turn (seat
n-1's in the last round) the scores after it are final, and the value adds ``FINAL_WIN`` x the win share the turn ends
with.

:class:`_Position` is the public board valued for one seat; the planner tries pieces on it (valued incrementally) and
asks it for the seat's opportunities. Turns left and the chance of another turn are estimated from public counts
(:data:`CARDS_PER_TURN`).
"""

from __future__ import annotations

import copy
import functools
import itertools

from agents.baselines.koenig_heuristic_weights import HeuristicWeights
from kardinal_env.koenig import scoring

__all__ = ["CARDS_PER_TURN", "FINAL_WIN"]

#: Cards drawn or spent per turn on average (measured over games of this agent and ``greedy``).
CARDS_PER_TURN = 2.0
#: On the game's last turn the value adds this much times the win share the turn gives.
FINAL_WIN = 1000.0


class _Static:
    """Per-board constants (cached by the board object)."""

    def __init__(self, board) -> None:
        self.board = board
        self.C = C = len(board.country_ids)
        self.alliances_of: list[list[int]] = [[] for _ in range(C)]
        for i, (a, b) in enumerate(board.alliances):
            self.alliances_of[a].append(i)
            self.alliances_of[b].append(i)
        self.groups = functools.lru_cache(maxsize=100_000)(self._groups)

    def _groups(self, sites: frozenset) -> list[tuple[int, tuple[int, ...]]]:
        """``(longest chain, sites next to the group)`` of every connected group of 2+ of one seat's cloister sites."""
        adj = self.board.adjacency
        out = []
        seen: set[int] = set()
        for root in sorted(sites):
            if root in seen:
                continue
            group = [root]
            seen.add(root)
            border: set[int] = set()
            for v in group:
                for u in adj[v]:
                    if u in sites:
                        if u not in seen:
                            seen.add(u)
                            group.append(u)
                    else:
                        border.add(u)
            if len(group) >= 2:
                length = len(group) if len(group) == 2 else scoring.longest_paths(group, adj)[0]
                out.append((length, tuple(sorted(border))))
        return out


_static = functools.cache(_Static)  # by board object (boards compare by identity)


def _turns_left(view, n: int) -> float:
    if view.last_round:
        return 0.0
    draws = view.deck_size if view.runouts else 2 * view.deck_size + len(view.pile)
    return draws / (CARDS_PER_TURN * n)


def _next_turn_chance(view, n: int, seat: int) -> float:
    if view.last_round:
        return 0.0
    if view.runouts == 0:
        return 1.0
    # the game ends after seat n-1's turn once the deck ran out: the deck must outlast the turns up to it
    spare = view.deck_size - CARDS_PER_TURN * (n - seat)
    return min(1.0, max(0.0, 0.5 + spare / (2 * CARDS_PER_TURN)))


class _Position:
    """The public board, valued for one seat; pieces can be tried on it and taken back."""

    def __init__(self, game, seat: int, w: HeuristicWeights, st: _Static) -> None:
        view = game.live_view()
        b = st.board
        self.st = st
        self.w = w
        n = self.n = game.num_players
        self.me = seat
        self.owner = list(view.owner)
        self.cl = [list(r) for r in view.cloisters]
        self.ad = [list(r) for r in view.advisors]
        self.free = [sum(1 for x in sites if self.owner[x] < 0) for sites in b.country_sites]
        self.cl_left = list(view.cloisters_left)
        self.ad_left = list(view.advisors_left)
        self.banked = [float(s) for s in view.scores]
        self.times = 2 if view.runouts == 0 and not view.last_round else 1
        self.phi = min(1.0, _turns_left(view, n) / w.horizon)
        self.final = view.last_round and seat == n - 1
        self.memo: dict[tuple, list[float]] = {}  # (cloister counts, free sites) -> cloister component
        self._sites: list[set[int]] = [set() for _ in range(n)]
        for x, o in enumerate(self.owner):
            if o >= 0:
                self._sites[o].add(x)
        self._init_components()

    def _init_components(self) -> None:
        st = self.st
        self.clc = [self._cl_comp(c) for c in range(st.C)]
        self.alc = [self._al_comp(a) for a in range(len(st.board.alliances))]
        self.chc = [self._ch_comp(s) for s in range(self.n)]
        ef = list(self.banked)
        for comp in (*self.clc, *self.alc, self.chc):
            for s in range(self.n):
                ef[s] += comp[s]
        self.ef = ef
        self.value = self._margin(ef)

    def copy_with(self, pieces: tuple[int, ...]) -> _Position:
        """A new position with the seat's ``pieces`` placed (encoded as for :meth:`try_pieces`)."""
        p = copy.copy(self)  # the constants and the memo shared
        p.owner, p.free = list(self.owner), list(self.free)
        p.cl_left, p.ad_left = list(self.cl_left), list(self.ad_left)
        p.cl, p.ad = [list(r) for r in self.cl], [list(r) for r in self.ad]
        p._sites = [set(s) for s in self._sites]
        for piece in pieces:
            p._place(piece)
        p._init_components()
        return p

    def _margin(self, ef: list[float]) -> float:
        me = self.me
        others = [v for s, v in enumerate(ef) if s != me]
        a = self.w.rival_max
        best = max(others)
        margin = ef[me] - a * best - (1 - a) * sum(others) / len(others)
        if self.final and ef[me] >= best:  # the game's last turn: the win share itself
            margin += FINAL_WIN / (1 + sum(1 for v in others if v == ef[me]))
        return margin

    def _cl_comp(self, c: int) -> list[float]:
        key = (tuple(self.cl[c]), self.free[c])
        out = self.memo.get(key)
        if out is None:
            out = self.memo[key] = self._cl_value(list(key[0]), key[1])
        return out

    def _cl_value(self, row: list[int], f: int) -> list[float]:
        pts = scoring.cloister_points(row)
        times = self.times
        out = [float(times * p) for p in pts]
        phi = self.phi
        if f and phi > 0:
            w = self.w
            top = max(row)
            if top and w.fill:
                bonus = w.fill * phi * f
                for s, k in enumerate(row):
                    if k == top:
                        out[s] += bonus
            if w.contest:
                add = min(2, f)
                scale = w.contest * phi * times
                n = self.n
                for s in range(n):
                    if not row[s]:
                        continue
                    worst = 0
                    for o in range(n):
                        if o != s:
                            row[o] += add
                            worst = min(worst, scoring.cloister_points(row)[s] - pts[s])
                            row[o] -= add
                    out[s] += scale * worst
        return out

    def _al_comp(self, i: int) -> list[float]:
        a, b = self.st.board.alliances[i]
        ca, cb = self.ad[a], self.ad[b]
        need_a, need_b = max(max(ca), 1), max(max(cb), 1)
        worth = sum(ca) + sum(cb)
        factor = (1.0, self.phi * self.w.alliance_one, self.phi * self.w.alliance_two)  # by pieces short
        out = [0.0] * self.n
        for s in range(self.n):
            need = need_a - ca[s] + need_b - cb[s]
            if need <= 2:
                out[s] = factor[need] * (worth + need)
        return out

    def _ch_comp(self, seat: int) -> float:
        sites = self._sites[seat]
        if len(sites) < 2:
            return 0.0
        owner = self.owner
        potential = {3: 4 * self.phi * self.w.chain_three, 2: 4 * self.phi * self.w.chain_two}  # by chain length
        total = 0.0
        for length, border in self.st.groups(frozenset(sites)):
            if length >= 4:
                total += length
            elif any(owner[u] < 0 for u in border):
                total += potential[length]
        return total

    def _place(self, piece: int, d: int = 1) -> None:
        """Place the seat's ``piece`` (``d=1``) or take it back (``d=-1``)."""
        me = self.me
        if piece >= 0:
            c = self.st.board.site_country[piece]
            self.owner[piece] = me if d > 0 else -1
            self.cl[c][me] += d
            self.free[c] -= d
            self.cl_left[me] -= d
            (self._sites[me].add if d > 0 else self._sites[me].discard)(piece)
        else:
            self.ad[-1 - piece][me] += d
            self.ad_left[me] -= d

    def try_pieces(self, pieces: tuple[int, ...]) -> float:
        """The margin after the seat places ``pieces`` (site index: cloister, ``-1 - country``: advisor), undone."""
        st = self.st
        b = st.board
        me = self.me
        countries: set[int] = set()
        alliances: set[int] = set()
        chains: set[int] = set()
        for piece in pieces:
            self._place(piece)
            if piece >= 0:
                countries.add(b.site_country[piece])
                chains.add(me)
                chains.update(self.owner[u] for u in b.adjacency[piece] if self.owner[u] >= 0)
            else:
                alliances.update(st.alliances_of[-1 - piece])
        ef = list(self.ef)
        # ascending order, as the compiled heuristic sums (bitwise equal values)
        changed = [(self._cl_comp(c), self.clc[c]) for c in sorted(countries)]
        for new, old in changed + [(self._al_comp(i), self.alc[i]) for i in sorted(alliances)]:
            for s in range(self.n):
                ef[s] += new[s] - old[s]
        for s in sorted(chains):
            ef[s] += self._ch_comp(s) - self.chc[s]
        for piece in reversed(pieces):
            self._place(piece, -1)
        return self._margin(ef)

    def advisor_room(self, c: int, extra_cloister: bool = False, extra_advisors: int = 0) -> bool:
        """Whether the seat may place an advisor in ``c`` (supply, limit) after ``extra_advisors`` more and, if
        ``extra_cloister``, one more cloister there."""
        me = self.me
        if self.ad_left[me] <= extra_advisors:
            return False
        row = self.cl[c]
        top = max(max(row), row[me] + 1 if extra_cloister else 0)
        return sum(self.ad[c]) + extra_advisors + 1 <= top

    def opportunities(self) -> tuple[list[float], list[float]]:
        """``(g1, g2)`` per country: the best gain in margin of one / two of the seat's pieces there."""
        st = self.st
        b = st.board
        me = self.me
        base = self.value
        owner = self.owner
        g1 = [0.0] * st.C
        g2 = [0.0] * st.C
        can_cloister = self.cl_left[me] > 0
        for c in range(st.C):
            empty = not any(self.cl[c])
            country_sites = b.country_sites[c] if can_cloister else ()
            singles = [(self.try_pieces((x,)), x) for x in country_sites if owner[x] < 0]
            advisor = -1 - c
            if not empty and self.advisor_room(c):
                singles.append((self.try_pieces((advisor,)), advisor))
            if not singles:
                continue
            singles.sort(reverse=True)
            best1 = singles[0][0] - base
            g1[c] = max(0.0, best1)
            if empty:
                g2[c] = g1[c]
                continue
            sites = [x for _, x in singles if x >= 0][:4]
            pairs = list(itertools.combinations(sites, 2)) if self.cl_left[me] >= 2 else []
            if self.advisor_room(c, extra_cloister=True):
                pairs += [(x, advisor) for x in sites]
            if self.advisor_room(c, extra_advisors=1):
                pairs.append((advisor, advisor))
            g2[c] = max(g1[c], best1, *(self.try_pieces(pair) - base for pair in pairs))
        return g1, g2

"""A strong heuristic baseline for Kardinal & König (``heuristic``): it plans its whole turn one ply
deep with a value that estimates the final score margin, from public information and its own hand.

**What it sees.** The board (cloisters, advisors, free sites), the scores, the display, the discard
pile, the deck size, the run-outs, the hand sizes, the public decision log and its own hand — all
through public engine queries (``Game.live_view``, ``Game.hand_counts`` for its own seat,
``Game.legal_move_ids``) and :class:`kardinal_env.koenig.knowledge.SeatKnowledge` (the decision log,
the deck cards the seat saw taken). It never reads another seat's hand, the deck order
or the game's generator; ``tests/test_koenig_heuristic.py`` checks that two games differing only in
those give the same moves.

**Value of a board** (:class:`HeuristicWeights` names the weights). For every seat an estimate of its
final score::

    banked scores
    + cloister points of every country x the scorings still to come (2 before the interim, then 1)
      + fill * phi * free sites          (the top seat also scores the cloisters still to come)
      + contest * phi * scorings * loss  (what the strongest rival takes with two more cloisters there)
    + alliance points (final scoring: top advisors in both countries, ties score)
      + phi * alliance_one * worth       (one advisor short of scoring it: e.g. an open alliance whose
      + phi * alliance_two * worth        other country has no advisor yet; two advisors short)
    + chain points (chains of 4 or more)
      + phi * 4 * chain_three / chain_two  (a group whose longest chain is 3 / 2 and that can still grow)

``phi`` (urgency) is ``min(1, turns the seat still has after this one / horizon)``: potential counts
less as the run-outs near and nothing in the last round, realised points count in full. The *margin*
is the seat's own estimate minus ``rival_max`` x the best other estimate minus ``1 - rival_max`` x
their mean. On the game's very last turn (seat n-1's in the last round) the scores after it are
final, and the value adds ``FINAL_WIN`` x the win share the turn ends with.

**Value of a hand.** For its next turn: per country, the best gain in margin one piece there brings
(``g1``) and two pieces (``g2``), on the board after the planned turn; a hand pays for a country with
a card naming it or a pair (a joker); two pieces need two cards naming it, or one and a pair. The
hand's value is the best country it pays for plus ``hand_second`` x the second best. Drawing is an
expectimax: a display card is known, a deck card follows :func:`deck_probabilities` (what the seat
knows of the deck: ``kardinal_env.koenig.knowledge``). The hand counts with weight ``hand`` times the chance of
another turn (none in the last round; after the first run-out it depends on the deck left).

**A decision** enumerates every plan for the rest of the turn — a discard (``discard="any"``: any
set of up to three cards), one piece, or two pieces in one country (with every payment) — and values
each as board value + hand value. Board values are computed incrementally (a piece changes one
country, the alliances of that country and the chains next to it); hand values are first estimated
with the opportunities of the board before the turn, then the ``replan`` best plans are valued again
with the opportunities of the board after them, and the best of those (or of the discards) gives the
move. Draw decisions take the expectimax's best source. Ties are broken by the agent's own
generator (``seed``).

**Compiled.** Where the compiled core is built (``bash scripts/setup.sh``), the candidates' values
(everything above before the tie-break) are computed by the core (``cpp/src/koenig/heuristic.hpp``,
:func:`kardinal_env.koenig.compiled.heuristic_values`): the same moves and the same values, operation
for operation (``tests/test_core_koenig_heuristic.py`` compares them at thousands of positions and
whole games), about ten times faster (``scripts/benchmark.py koenig-heuristic``). The core reads the
public state and the seat's own hand; what the seat knows of the deck (:func:`deck_probabilities`) is
computed here and passed in; the tie-break stays in Python for both paths. ``compiled=False``
(:class:`KoenigHeuristicAgent`, :func:`heuristic_move`) always plans in Python, as do
``KARDINAL_ENV_BACKEND=python``, a subclass of ``Game`` and a determinized world.

The weights were tuned by coordinate search over head-to-head tournaments of candidate against
incumbent weights (``agents.baselines.koenig_tuning``); ``docs/koenig-heuristic.md`` has the method,
every comparison and the strength against ``greedy`` and ``random``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np

from agents.base import BaseAgent
from kardinal_env.core import limits
from kardinal_env.core.checks import is_int, is_number
from kardinal_env.koenig import compiled as _compiled
from kardinal_env.koenig import scoring
from kardinal_env.koenig.knowledge import SeatKnowledge, UnknownDrawsError, deck_counts

__all__ = [
    "HeuristicWeights",
    "KoenigHeuristicAgent",
    "heuristic_move",
    "heuristic_candidates",
    "deck_probabilities",
    "estimated_final_scores",
    "heuristic_advice",
    "unseen_deck_probabilities",
    "ADVICE_CLIP",
    "DEFAULT_WEIGHTS",
]

#: Cards drawn or spent per turn on average (measured over games of this agent and ``greedy``): turns
#: left are estimated from the cards left to draw.
CARDS_PER_TURN = 2.0
#: On the game's last turn (seat n-1's in the last round) the scores after it are final: the value
#: adds this much times the win share the turn gives.
FINAL_WIN = 1000.0


@dataclass(frozen=True)
class HeuristicWeights:
    """Weights of the heuristic's value (module docstring). Every weight is a finite number >= 0;
    ``rival_max`` is at most 1 and ``horizon`` positive."""

    rival_max: float = 0.5
    fill: float = 0.25
    contest: float = 0.3
    alliance_one: float = 0.5
    alliance_two: float = 0.15
    chain_three: float = 0.5
    chain_two: float = 0.15
    hand: float = 0.6
    hand_second: float = 0.25
    horizon: float = 6.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not is_number(value) or not value == value:
                raise ValueError(f"HeuristicWeights.{f.name} must be a number, got {value!r}")
            if value < 0 or value == float("inf"):
                raise ValueError(f"HeuristicWeights.{f.name} must be finite and >= 0, got {value!r}")
        if self.rival_max > 1:
            raise ValueError(f"HeuristicWeights.rival_max must be at most 1, got {self.rival_max!r}")
        if self.horizon <= 0:
            raise ValueError(f"HeuristicWeights.horizon must be positive, got {self.horizon!r}")

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> HeuristicWeights:
        """Weights from a dict of (some of) the fields; an unknown name is an error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"HeuristicWeights: unknown weight(s) {unknown}; known: {sorted(known)}")
        return cls(**data)

    @classmethod
    def parse(cls, text: str) -> HeuristicWeights:
        """Weights from ``"name=value,name=value"`` (the others at their defaults; ``""``: the defaults),
        as configs write them (e.g. the ``advice_weights`` of the trainer's advised network)."""
        data: dict[str, float] = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            name, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"HeuristicWeights: expected name=value, got {item!r} in {text!r}")
            try:
                data[name.strip()] = float(value)
            except ValueError:
                raise ValueError(f"HeuristicWeights.{name.strip()}: expected a number, got {value!r}") from None
        return cls.from_dict(data)

    def changed(self) -> dict[str, float]:
        """The weights that differ from the defaults (``{}`` for the defaults)."""
        return {k: v for k, v in self.as_dict().items() if v != getattr(DEFAULT_WEIGHTS, k)}


DEFAULT_WEIGHTS = HeuristicWeights()


class _Static:
    """Per-board constants (cached by the board object)."""

    def __init__(self, board) -> None:
        self.board = board
        C = len(board.country_ids)
        self.C = C
        self.T = len(board.types)
        self.alliances_of: list[list[int]] = [[] for _ in range(C)]
        for i, (a, b) in enumerate(board.alliances):
            self.alliances_of[a].append(i)
            self.alliances_of[b].append(i)
        self.group_memo: dict[frozenset, list[tuple[int, tuple[int, ...]]]] = {}

    def groups(self, sites: frozenset) -> list[tuple[int, tuple[int, ...]]]:
        """``(longest chain, sites next to the group)`` of every connected group of two or more of
        ``sites`` (one seat's cloisters), cached."""
        out = self.group_memo.get(sites)
        if out is None:
            if len(self.group_memo) > 100_000:
                self.group_memo.clear()
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
            self.group_memo[sites] = out
        return out


_STATICS: dict[int, _Static] = {}


def _static(board) -> _Static:
    st = _STATICS.get(id(board))
    if st is None or st.board is not board:
        st = _STATICS[id(board)] = _Static(board)
    return st


def _turns_left(view, n: int, seat: int) -> float:
    """Turns the seat still gets after the current one (an estimate from public counts)."""
    if view.last_round:
        return 0.0
    draws = view.deck_size if view.runouts else 2 * view.deck_size + len(view.pile)
    return draws / (CARDS_PER_TURN * n)


def _next_turn_chance(view, n: int, seat: int) -> float:
    """The chance that the seat gets another turn after this one."""
    if view.last_round:
        return 0.0
    if view.runouts == 0:
        return 1.0
    # The game ends when the deck has run out and seat n-1's turn is over: the seat plays again only
    # if the deck outlasts the turns up to seat n-1's (about CARDS_PER_TURN cards each).
    spare = view.deck_size - CARDS_PER_TURN * (n - seat)
    return min(1.0, max(0.0, 0.5 + spare / (2 * CARDS_PER_TURN)))


class _Position:
    """The public board, valued for one seat; pieces can be tried on it and taken back."""

    __slots__ = (
        "st",
        "w",
        "n",
        "me",
        "owner",
        "cl",
        "ad",
        "free",
        "cl_left",
        "ad_left",
        "banked",
        "times",
        "phi",
        "final",
        "clc",
        "alc",
        "chc",
        "ef",
        "value",
        "memo",
        "_sites",
    )

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
        self.times = 2 if view.runouts == 0 else 1
        if view.last_round:
            self.times = 1
        self.phi = min(1.0, _turns_left(view, n, seat) / w.horizon)
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
        for comp in self.clc:
            for s in range(self.n):
                ef[s] += comp[s]
        for comp in self.alc:
            for s in range(self.n):
                ef[s] += comp[s]
        for s in range(self.n):
            ef[s] += self.chc[s]
        self.ef = ef
        self.value = self._margin(ef)

    def copy_with(self, pieces: tuple[int, ...]) -> _Position:
        """A new position with the seat's pieces placed (see :meth:`try_pieces` for the encoding)."""
        p = _Position.__new__(_Position)
        p.st, p.w, p.n, p.me = self.st, self.w, self.n, self.me
        p.owner = list(self.owner)
        p.cl = [list(r) for r in self.cl]
        p.ad = [list(r) for r in self.ad]
        p.free = list(self.free)
        p.cl_left = list(self.cl_left)
        p.ad_left = list(self.ad_left)
        p.banked, p.times, p.phi, p.final = self.banked, self.times, self.phi, self.final
        p.memo = self.memo
        p._sites = [set(s) for s in self._sites]
        for piece in pieces:
            p._place(piece)
        p._init_components()
        return p

    # ------------------------------------------------------------------ components
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
        """The cloister component of one country with cloister counts ``row`` and ``f`` free sites."""
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
                            loss = scoring.cloister_points(row)[s] - pts[s]
                            row[o] -= add
                            if loss < worst:
                                worst = loss
                    out[s] += scale * worst
        return out

    def _al_comp(self, i: int) -> list[float]:
        a, b = self.st.board.alliances[i]
        ca, cb = self.ad[a], self.ad[b]
        need_a, need_b = max(max(ca), 1), max(max(cb), 1)
        worth = sum(ca) + sum(cb)
        w = self.w
        one = self.phi * w.alliance_one
        two = self.phi * w.alliance_two
        out = [0.0] * self.n
        for s in range(self.n):
            need = need_a - ca[s] + need_b - cb[s]
            if need == 0:
                out[s] = float(worth)
            elif need == 1:
                out[s] = one * (worth + 1)
            elif need == 2:
                out[s] = two * (worth + 2)
        return out

    def _ch_comp(self, seat: int) -> float:
        sites = self._sites[seat]
        if len(sites) < 2:
            return 0.0
        owner = self.owner
        w = self.w
        pot3 = 4 * self.phi * w.chain_three
        pot2 = 4 * self.phi * w.chain_two
        total = 0.0
        for length, border in self.st.groups(frozenset(sites)):
            if length >= 4:
                total += length
            elif any(owner[u] < 0 for u in border):
                total += pot3 if length == 3 else pot2
        return total

    # ------------------------------------------------------------------ trying pieces
    def _place(self, piece: int) -> None:
        me = self.me
        if piece >= 0:
            c = self.st.board.site_country[piece]
            self.owner[piece] = me
            self.cl[c][me] += 1
            self.free[c] -= 1
            self.cl_left[me] -= 1
            self._sites[me].add(piece)
        else:
            c = -1 - piece
            self.ad[c][me] += 1
            self.ad_left[me] -= 1

    def _unplace(self, piece: int) -> None:
        me = self.me
        if piece >= 0:
            c = self.st.board.site_country[piece]
            self.owner[piece] = -1
            self.cl[c][me] -= 1
            self.free[c] += 1
            self.cl_left[me] += 1
            self._sites[me].discard(piece)
        else:
            c = -1 - piece
            self.ad[c][me] -= 1
            self.ad_left[me] += 1

    def try_pieces(self, pieces: tuple[int, ...]) -> float:
        """The margin after the seat places ``pieces`` (a site index for a cloister, ``-1 - country``
        for an advisor); the position is unchanged afterwards."""
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
                owner = self.owner
                for u in b.adjacency[piece]:
                    if owner[u] >= 0:
                        chains.add(owner[u])
            else:
                alliances.update(st.alliances_of[-1 - piece])
        ef = list(self.ef)
        n = self.n
        # ascending order (the compiled heuristic sums in the same order: the same values to the last bit)
        for c in sorted(countries):
            new, old = self._cl_comp(c), self.clc[c]
            for s in range(n):
                ef[s] += new[s] - old[s]
        for i in sorted(alliances):
            new, old = self._al_comp(i), self.alc[i]
            for s in range(n):
                ef[s] += new[s] - old[s]
        for s in sorted(chains):
            ef[s] += self._ch_comp(s) - self.chc[s]
        for piece in reversed(pieces):
            self._unplace(piece)
        return self._margin(ef)

    def advisor_room(self, c: int, extra_cloister: bool = False, extra_advisors: int = 0) -> bool:
        """Whether the seat may place an advisor in country ``c`` (supply and advisor limit), after
        ``extra_advisors`` of its own advisors and, if ``extra_cloister``, one of its cloisters there."""
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
            singles: list[tuple[float, int]] = []
            if can_cloister:
                for x in b.country_sites[c]:
                    if owner[x] < 0:
                        singles.append((self.try_pieces((x,)), x))
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
            best2 = best1
            sites = [x for _, x in singles if x >= 0][:4]
            if self.cl_left[me] >= 2:
                for i, x in enumerate(sites):
                    for y in sites[i + 1 :]:
                        best2 = max(best2, self.try_pieces((x, y)) - base)
            for x in sites:
                if self.advisor_room(c, extra_cloister=True):
                    best2 = max(best2, self.try_pieces((x, advisor)) - base)
            if self.advisor_room(c, extra_advisors=1):
                best2 = max(best2, self.try_pieces((advisor, advisor)) - base)
            g2[c] = max(g1[c], best2)
        return g1, g2


class _HandValuer:
    """Values hands for the seat's next turn given per-country opportunities (module docstring)."""

    def __init__(self, board, opportunities: tuple[list[float], list[float]], second: float) -> None:
        self.country_type = board.country_type
        self.g1, self.g2 = opportunities
        self.second = second
        self.memo: dict[tuple[int, ...], float] = {}

    def __call__(self, hand: tuple[int, ...]) -> float:
        v = self.memo.get(hand)
        if v is None:
            v = self.memo[hand] = self._value(hand)
        return v

    def _value(self, hand: tuple[int, ...]) -> float:
        pairs = [t for t, k in enumerate(hand) if k >= 2]
        best = second = 0.0
        g1, g2 = self.g1, self.g2
        for c, t in enumerate(self.country_type):
            k = hand[t]
            if k >= 2 or (k and any(u != t for u in pairs)):
                v = g2[c]
            elif k or pairs:
                v = g1[c]
            else:
                continue
            if v > best:
                best, second = v, best
            elif v > second:
                second = v
        return best + self.second * second


class _Draws:
    """Expectimax over the draws that refill the hand: display cards are known, deck cards follow ``probs``."""

    def __init__(self, q: _HandValuer, probs: list[float], deck_size: int) -> None:
        self.q = q
        self.probs = [(t, p) for t, p in enumerate(probs) if p > 0]
        self.deck_size = deck_size
        self.memo: dict[tuple, float] = {}

    def value(self, hand: tuple[int, ...], display: tuple[int, ...], taken: int = 0) -> float:
        """The hand's value after refilling it to three cards with the best draws."""
        key = (hand, display, taken)
        v = self.memo.get(key)
        if v is None:
            v = self.memo[key] = max(self.options(hand, display, taken).values(), default=self.q(hand))
        return v

    def options(self, hand: tuple[int, ...], display: tuple[int, ...], taken: int = 0) -> dict[int, float]:
        """Value per draw source (a type index for the display, -1 for the deck); empty if the hand is full."""
        out: dict[int, float] = {}
        if sum(hand) >= 3:
            return out
        for t in sorted(set(display)):
            rest = list(display)
            rest.remove(t)
            out[t] = self.value(_add(hand, t), tuple(rest), taken)
        if taken < self.deck_size and self.probs:
            out[-1] = sum(p * self.value(_add(hand, t), display, taken + 1) for t, p in self.probs)
        return out


def _add(hand: tuple[int, ...], t: int, k: int = 1) -> tuple[int, ...]:
    h = list(hand)
    h[t] += k
    return tuple(h)


def deck_probabilities(game, seat: int) -> list[float]:
    """Per type index, the chance that the deck's next card is of that type, from what the seat
    knows (:class:`kardinal_env.koenig.knowledge.SeatKnowledge`: public information and its own
    cards): before the first run-out, the unseen cards less those known to be in other hands (taken
    from the display and not spent since); after it, the new deck's make-up (the reshuffled pile less
    the cards the seat saw taken from it; other seats' unseen draws from it take each type in
    proportion). All zero when the deck is empty."""
    k = SeatKnowledge(game, seat)
    if k.new_deck is not None:
        counts = list(k.new_deck)
    else:
        counts = list(k.unseen)
        for row in k.known_counts.values():
            for t, held in enumerate(row):
                counts[t] -= held
    total = sum(counts)
    if not k.deck_size or total <= 0:
        return [0.0] * len(counts)
    return [c / total for c in counts]


def unseen_deck_probabilities(game, seat: int) -> list[float]:
    """Per card type index, what a playout seat assumes of the deck's next card: the cards it cannot
    see (the whole deck's cards less its hand, the display and the discard pile), normalised; all zero
    when the deck is empty."""
    if game.deck_size() == 0:
        return [0.0] * len(game.board.types)
    counts = deck_counts(game.rules)
    index = game.board.type_index
    for t, k in enumerate(game.hand_counts(seat)):
        counts[t] -= k
    for digit in game.display() + game.discard_pile():
        counts[index[digit]] -= 1
    total = sum(counts)
    return [c / total for c in counts]


class _Planner:
    """Plans the rest of the seat's turn (module docstring) and returns the move that starts the best plan."""

    def __init__(self, game, w: HeuristicWeights, replan: int, deck_probs: list[float] | None = None) -> None:
        self.game = game
        self.w = w
        self.replan = replan
        self.seat = seat = game.current_player
        self.st = _static(game.board)
        self.b = game.board
        self.pos = _Position(game, seat, w, self.st)
        view = game.live_view()
        self.view = view
        self.hand = tuple(game.hand_counts(seat))
        self.display = tuple(sorted(view.display))
        self.next_turn = _next_turn_chance(view, game.num_players, seat)
        if self.next_turn <= 0:
            self.probs: list[float] = []
        else:
            self.probs = deck_probabilities(game, seat) if deck_probs is None else list(deck_probs)
        self._boards: dict[tuple[int, ...], float] = {}
        self._after: dict[tuple[int, ...], _Draws] = {}

    # -------------------------------------------------------------- pieces
    def decode(self, m: int) -> tuple[int, int, tuple[int, ...]]:
        """(piece, country, cards as type indices) of a placement move id."""
        b = self.b
        P = b.pay_stride
        if m < b.advisor_base:
            site, j = divmod(m, P)
            c = b.site_country[site]
            piece = site
        else:
            c, j = divmod(m - b.advisor_base, P)
            piece = -1 - c
        cards = (j - 1, j - 1) if j else (b.country_type[c],)
        return piece, c, cards

    def board_value(self, pieces: tuple[int, ...]) -> float:
        key = tuple(sorted(pieces))
        v = self._boards.get(key)
        if v is None:
            v = self._boards[key] = self.pos.try_pieces(key) if key else self.pos.value
        return v

    def draws_after(self, pieces: tuple[int, ...]) -> _Draws:
        key = tuple(sorted(pieces))
        d = self._after.get(key)
        if d is None:
            pos = self.pos.copy_with(key) if key else self.pos
            q = _HandValuer(self.b, pos.opportunities(), self.w.hand_second)
            d = self._after[key] = _Draws(q, self.probs, self.view.deck_size)
        return d

    def hand_value(self, hand: tuple[int, ...], draws: _Draws) -> float:
        if self.next_turn <= 0:
            return 0.0
        return self.w.hand * self.next_turn * draws.value(hand, self.display)

    def second_pieces(
        self, piece: int, c: int, hand: tuple[int, ...], budget: int
    ) -> list[tuple[int, tuple[int, ...]]]:
        """Second pieces in country ``c`` after ``piece`` (this turn's first), with the cards each costs."""
        b = self.b
        pos = self.pos
        me = self.seat
        pays: list[tuple[int, ...]] = []
        tc = b.country_type[c]
        if hand[tc]:
            pays.append((tc,))
        if budget >= 2:
            pays += [(t, t) for t, k in enumerate(hand) if k >= 2]
        if not pays:
            return []
        out: list[tuple[int, tuple[int, ...]]] = []
        cloisters_left = pos.cl_left[me] - (1 if piece >= 0 else 0)
        if cloisters_left > 0:
            for x in b.country_sites[c]:
                if pos.owner[x] < 0 and x != piece:
                    out += [(x, pay) for pay in pays]
        if pos.advisor_room(c, extra_cloister=piece >= 0, extra_advisors=0 if piece >= 0 else 1):
            out += [(-1 - c, pay) for pay in pays]
        return out

    # -------------------------------------------------------------- plans
    def candidates(self) -> list[tuple[int, float]]:
        """``(move id, value)`` of the decision's candidates, before the tie-break (:func:`_tie_break`):
        the draw moves' values for a draw decision (:meth:`_draw`), else the plans without pieces valued
        exactly and the ``replan`` best placed plans valued again (a move may appear several times)."""
        game = self.game
        legal = game.legal_move_ids()
        phase = game.phase
        if phase == "draw":
            return self._draw(legal)
        b = self.b
        plans: list[tuple[float, int, tuple[int, ...], tuple[int, ...]]] = []  # (estimate, move, pieces, hand)
        base = self.draws_after(())
        budget = 3 - self.view.cards
        hand = self.hand
        for m in legal:
            if m == b.end_id:
                plans.append((self._score((), hand, base), m, (), hand))
            elif m >= b.discard_base:
                t = m - b.discard_base
                for rest in self._discard_sets(_add(hand, t, -1), t, budget - 1):
                    plans.append((self._score((), rest, base), m, (), rest))
            else:
                piece, c, cards = self.decode(m)
                h1 = list(hand)
                for t in cards:
                    h1[t] -= 1
                hand1 = tuple(h1)
                plans.append((self._score((piece,), hand1, base), m, (piece,), hand1))
                if phase == "place" and any(self.pos.cl[c]):
                    for piece2, cards2 in self.second_pieces(piece, c, hand1, budget - len(cards)):
                        h2 = list(hand1)
                        for t in cards2:
                            h2[t] -= 1
                        hand2 = tuple(h2)
                        pair = (piece, piece2)
                        plans.append((self._score(pair, hand2, base), m, pair, hand2))
        # Plans without pieces are valued exactly; the best plans with pieces again, with the
        # opportunities of the board after them.
        final: list[tuple[int, float]] = [(m, v) for v, m, pieces, _ in plans if not pieces]
        placed = sorted((p for p in plans if p[2]), key=lambda p: -p[0])
        seen: set[tuple] = set()
        for _, m, pieces, h in placed:
            key = (tuple(sorted(pieces)), h)
            if key in seen:
                continue
            seen.add(key)
            final.append((m, self._score(pieces, h, self.draws_after(pieces))))
            if len(seen) >= self.replan:
                break
        return final

    def _score(self, pieces: tuple[int, ...], hand: tuple[int, ...], draws: _Draws) -> float:
        return self.board_value(pieces) + self.hand_value(hand, draws)

    def _discard_sets(self, hand: tuple[int, ...], first: int, more: int) -> list[tuple[int, ...]]:
        """Hands left after discarding ``first`` (already taken off ``hand``) and, with
        ``discard="any"``, up to ``more`` further cards."""
        if self.game.rules.discard != "any" or more <= 0:
            return [hand]
        out = {hand}
        frontier = [hand]
        for _ in range(more):
            nxt = []
            for h in frontier:
                for t, k in enumerate(h):
                    if k:
                        h2 = _add(h, t, -1)
                        if h2 not in out:
                            out.add(h2)
                            nxt.append(h2)
            frontier = nxt
        return sorted(out)

    def _draw(self, legal: list[int]) -> list[tuple[int, float]]:
        b = self.b
        if self.next_turn <= 0:  # no further turn: the first draw
            return [(legal[0], 0.0)]
        draws = self.draws_after(())
        options = draws.options(self.hand, self.display)
        scored = []
        for m in legal:
            src = -1 if m == b.deck_id else m - b.draw_base
            scored.append((m, options.get(src, 0.0)))
        return scored


def _tie_break(candidates: list[tuple[int, float]], rng) -> int:
    """The move id of the best candidate; exact ties (within ``1e-9``) broken by ``rng`` among the
    tied move ids in ascending order (one ``rng.randrange`` only when several tie)."""
    best = max(v for _, v in candidates)
    top = sorted({m for m, v in candidates if v >= best - 1e-9})
    return top[0] if len(top) == 1 else top[rng.randrange(len(top))]


def heuristic_candidates(
    game, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6, compiled: bool = True
) -> list[tuple[int, float]]:
    """The heuristic's ``(move id, value)`` candidates for the current decision, before the tie-break
    (:meth:`_Planner.candidates`): from the compiled core when ``compiled`` and it is used
    (:func:`kardinal_env.koenig.compiled.heuristic_values`), else from the Python planner. The two
    agree to about 1e-12 (``tests/test_core_koenig_heuristic.py``)."""
    seat = game.current_player
    if seat is None:
        raise ValueError("no legal move: the game is over")
    if compiled and _compiled.heuristic_core() is not None:
        if _next_turn_chance(game.live_view(), game.num_players, seat) > 0:
            probs = deck_probabilities(game, seat)
        else:  # not read: the planner asks what the deck holds only when the seat may play again
            probs = [0.0] * len(game.board.types)
        values = _compiled.heuristic_values(game, weights, replan, probs)
        if values is not None:
            return values
    return _Planner(game, weights, replan).candidates()


#: :func:`heuristic_advice` clips the gaps at this many points of estimated margin (the value's unit).
ADVICE_CLIP = 8.0


def heuristic_advice(
    game, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6, clip: float = ADVICE_CLIP
) -> np.ndarray:
    """The heuristic's view of every move of the current decision, for a network to start from
    (:mod:`agents.networks.koenig_net`, kind ``advised``): a float32 array over the board's move table
    (``game.board.moves``), for each move the value of the heuristic's best plan that starts with it
    less the value of its best plan overall, clipped to ``[-clip, 0]`` — 0 for the move the heuristic
    plays (every move of an exact tie), ``-clip`` for the legal moves it did not value (placements
    outside its ``replan`` best plans) and for the illegal ones. A decision with a single legal move
    gives 0 for it. Public information and the seat's own hand only, as :func:`heuristic_candidates`.
    In a world a search dealt for another seat (``game.determinize``), where this seat's draws after the
    first run-out are not recorded, the deck is taken to hold the cards the seat cannot see
    (:func:`unseen_deck_probabilities`, as the playouts of ``rollout:N`` assume)."""
    legal = game.legal_move_ids()
    if not legal:
        raise ValueError("no legal move: the game is over")
    out = np.full(len(game.board.moves), -clip, dtype=np.float32)
    if len(legal) == 1:
        out[legal[0]] = 0.0
        return out
    try:
        candidates = heuristic_candidates(game, weights, replan)
    except UnknownDrawsError:  # another seat's decision inside a world a search dealt for its own seat
        probs = unseen_deck_probabilities(game, game.current_player)
        candidates = _Planner(game, weights, replan, probs).candidates()
    best: dict[int, float] = {}
    for m, v in candidates:
        if v > best.get(m, -np.inf):
            best[m] = v
    top = max(best.values())
    for m, v in best.items():
        out[m] = max(-clip, v - top)
    return out


def estimated_final_scores(game, weights: HeuristicWeights = DEFAULT_WEIGHTS) -> list[float]:
    """Every seat's estimated final score on the board as it is (the first part of the module
    docstring: banked points, the scorings still to come and the weighted potentials), from public
    information only — no hand is read. A leaf value for searches; equals ``game.scores()`` once the
    game is over."""
    if game.is_over:
        return [float(v) for v in game.scores()]
    seat = game.current_player
    return list(_Position(game, seat, weights, _static(game.board)).ef)


def heuristic_move(
    game, rng, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6, compiled: bool = True
) -> str:
    """The heuristic's move for the current decision of a ``kardinal_env.koenig.Game`` (module
    docstring); ``rng`` (a ``random.Random``) breaks exact ties. ``compiled``: value the candidates in
    the compiled core when it is used (the same move; ``False`` forces the Python planner)."""
    legal = game.legal_move_ids()
    if not legal:
        raise ValueError("no legal move: the game is over")
    if len(legal) == 1:
        return game.board.moves[legal[0]]
    return game.board.moves[_tie_break(heuristic_candidates(game, weights, replan, compiled), rng)]


class KoenigHeuristicAgent(BaseAgent):
    """``heuristic``: the tuned one-ply planner of this module, public information and its own hand only."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        weights: HeuristicWeights | None = None,
        replan: int = 6,
        compiled: bool = True,
    ):
        super().__init__(seed)
        if not is_int(replan) or not 1 <= replan <= limits.KNOB:
            raise ValueError(f"replan must be an integer from 1 to {limits.KNOB}, got {replan!r}")
        self.weights = DEFAULT_WEIGHTS if weights is None else weights
        self.replan = replan
        self.compiled = bool(compiled)

    def select_move(self, game) -> str:
        return heuristic_move(game, self.rng, self.weights, self.replan, self.compiled)

"""Kardinal & König scoring, table by table: cloisters with shared ranks, alliances with ties, chains with
branches and cycles, winners with ties; and the engine's final scoring against an independent reference."""

from __future__ import annotations

import itertools
import random

import pytest
from koenig_helpers import DEFAULT_BOARD, random_game

from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig.scoring import alliance_points, chain_points, cloister_points, longest_paths, winners

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]


# ------------------------------------------------------------------------------------------ cloisters
@pytest.mark.parametrize(
    "counts, points",
    [
        ([3, 2, 2, 1], [8, 3, 3, 2]),  # shared second rank
        ([3, 2, 1], [6, 3, 2]),  # the review's example: 3, 2, 1 cloisters score 6, 3, 2
        ([2, 2, 1], [5, 5, 2]),  # shared top rank: both score the total
        ([1, 0, 1, 0], [2, 0, 2, 0]),
        ([4, 0, 0], [4, 0, 0]),
        ([0, 0, 0], [0, 0, 0]),
        ([5, 1, 1, 1, 1], [9, 5, 5, 5, 5]),
        ([1, 2, 3, 4, 5], [2, 3, 4, 5, 15]),
        ([2, 0, 2, 0, 2], [6, 0, 6, 0, 6]),
    ],
)
def test_cloister_points(counts, points):
    assert cloister_points(counts) == points


# ------------------------------------------------------------------------------------------ alliances
A, B, C = 0, 1, 2
PAIRS = [(A, B), (B, C)]


@pytest.mark.parametrize(
    "advisors, points",
    [
        # A rules-page example: green holds the majority in Franconia (4 advisors) and Bavaria (2).
        ([[3, 1, 0], [2, 0, 0], [0, 0, 0]], [6, 0, 0]),
        # A tie for the top in both countries: both tied seats score the total.
        ([[2, 2, 0], [1, 1, 1], [0, 0, 0]], [7, 7, 0]),
        # Majority in one country only scores nothing; second places score nothing.
        ([[2, 1, 0], [0, 3, 0], [0, 0, 0]], [0, 0, 0]),
        # A country with no advisor: the alliance scores nothing.
        ([[1, 0, 0], [0, 0, 0], [0, 0, 1]], [0, 0, 0]),
        # One country in two alliances: seat 0 scores A-B and B-C.
        ([[1, 0, 0], [2, 1, 0], [1, 0, 0]], [4 + 4, 0, 0]),
        # Every seat at zero in A, seat 1 alone in B and C.
        ([[0, 0, 0], [0, 2, 0], [0, 1, 0]], [0, 3, 0]),
    ],
)
def test_alliance_points(advisors, points):
    assert alliance_points(advisors, PAIRS) == points


# ---------------------------------------------------------------------------------------------- chains
def graph(edges, size=None):
    size = size or (max(max(e) for e in edges) + 1)
    adj = [[] for _ in range(size)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    return adj


PATH5 = graph([(0, 1), (1, 2), (2, 3), (3, 4)])
STAR = graph([(0, 1), (1, 2), (0, 3), (3, 4), (0, 5), (5, 6)])  # three arms of two from a centre
CYCLE6 = graph([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])
CYCLE_TAIL = graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)])
# Two 5-cycles joined by an edge from c2 to d0, and a leaf on c0: the longest path starts on a cycle.
TWO_CYCLES = graph([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (2, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 5), (0, 10)])


@pytest.mark.parametrize(
    "adj, sites, lengths",
    [
        (PATH5, [0, 1, 2, 3, 4], [5]),
        (PATH5, [0, 1, 3, 4], [2, 2]),  # a gap splits the chain
        (STAR, list(range(7)), [5]),  # branches do not count
        (CYCLE6, list(range(6)), [6]),
        (CYCLE6, [0, 1, 2, 4], [3, 1]),
        (CYCLE_TAIL, list(range(5)), [5]),
        (TWO_CYCLES, list(range(11)), [10]),
        (TWO_CYCLES, [0, 10], [2]),
    ],
)
def test_longest_paths(adj, sites, lengths):
    assert sorted(longest_paths(sites, adj), reverse=True) == sorted(lengths, reverse=True)


@pytest.mark.parametrize(
    "owner, points",
    [
        ([0, 0, 0, 0, 0, 1, 1], [5, 0]),  # five in a row; two in a row score nothing
        ([0, 0, 0, -1, -1, 1, 1], [0, 0]),  # three in a row score nothing
        ([0, 0, 0, 0, 1, 1, 1], [4, 0]),
    ],
)
def test_chain_points_threshold(owner, points):
    adj = graph([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)])
    assert chain_points(owner, adj, 2) == points


def test_two_groups_score_two_chains():
    adj = graph([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8)])
    owner = [0, 0, 0, 0, 1, 0, 0, 0, 0]
    assert chain_points(owner, adj, 2) == [8, 0]


# --------------------------------------------------------------------------------------------- winners
@pytest.mark.parametrize(
    "scores, won",
    [([5, 7, 6], [1]), ([5, 7, 7], [1, 2]), ([3, 3, 3, 3], [0, 1, 2, 3]), ([0, 0, 1, 0, 0], [2])],
)
def test_winners(scores, won):
    assert winners(scores) == won


# ------------------------------------------------------------------ the engine against a reference
def reference_longest(sites, edges):
    """Brute force: the longest ordering of a subset of ``sites`` along roads (small groups only)."""
    best = 1 if sites else 0
    sites = list(sites)
    for k in range(2, len(sites) + 1):
        found = False
        for perm in itertools.permutations(sites, k):
            if all(frozenset(p) in edges for p in zip(perm, perm[1:])):
                found = True
                break
        if not found:
            break
        best = k
    return best


def reference_final(game: Game) -> list[int]:
    board = DEFAULT_BOARD if game.board.name == "default" else game.rules.board
    n = game.num_players
    site_ids = [s for c in board["countries"] for s in c["sites"]]
    edges = {frozenset(r) for r in board["roads"]}
    owners = dict(zip(site_ids, game.owners()))
    country_ids = [c["id"] for c in board["countries"]]
    cl, ad = game.cloister_counts(), game.advisor_counts()
    points = [0] * n
    for row in cl:
        present = sorted({k for k in row if k}, reverse=True)
        for s, k in enumerate(row):
            if k:
                i = present.index(k)
                points[s] += sum(row) if i == 0 else present[i - 1]
    for a, b in board["alliances"]:
        ra, rb = ad[country_ids.index(a)], ad[country_ids.index(b)]
        for s in range(n):
            if ra[s] and rb[s] and ra[s] == max(ra) and rb[s] == max(rb):
                points[s] += sum(ra) + sum(rb)
    for s in range(n):
        mine = {site for site, o in owners.items() if o == s}
        while mine:  # connected groups by flood fill
            group, todo = set(), [mine.pop()]
            while todo:
                v = todo.pop()
                group.add(v)
                for w in list(mine):
                    if frozenset((v, w)) in edges:
                        mine.discard(w)
                        todo.append(w)
            if len(group) >= 4:
                length = reference_longest(group, edges) if len(group) <= 8 else None
                if length is None:
                    return None  # too large for the brute force
                if length >= 4:
                    points[s] += length
    return points


def test_final_scoring_matches_reference():
    checked = 0
    for seed in range(40):
        game = random_game(players=3 + seed % 3, discard=("one", "any")[seed % 2], seed=seed)
        ref = reference_final(game)
        if ref is None:
            continue
        final = game.final_breakdown()
        assert [sum(v) for v in zip(*final.values())] == ref, seed
        assert [i + f for i, f in zip(game.interim_scores(), ref)] == game.scores()
        assert game.winners() == [s for s, v in enumerate(game.scores()) if v == max(game.scores())]
        checked += 1
    assert checked >= 20


def test_projected_scores():
    game = Game(Rules(players=4), seed=11)
    rng = random.Random(11)
    assert game.projected_scores() == [0, 0, 0, 0]
    while game.runouts == 0:
        now = game.scoring_now()
        expected = [2 * c + a + ch for c, a, ch in zip(now["cloisters"], now["alliances"], now["chains"])]
        assert game.projected_scores() == expected  # the interim and the final scoring still to come
        game.play(rng.choice(game.legal_moves()))
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    assert game.projected_scores() == game.scores()

"""The three scorings of Kardinal & König as pure functions (the engine calls them; tests use them directly).

* :func:`cloister_points` — one country, both scorings. The players with at least one cloister there are ranked by
  count, equal counts sharing a rank. The top rank scores the country's total number of cloisters; every later rank
  scores the count of the rank directly above it. Counts 3, 2, 2, 1 score 8, 3, 3, 2.
* :func:`alliance_points` — final scoring. For an alliance of countries A and B, every player whose advisor count in A
  is the highest there and at least 1, and likewise in B, scores all advisors in A plus all in B. Ties at the top all
  score; second places score nothing.
* :func:`chain_points` — final scoring. In each connected group of one player's cloisters (joined by roads), the chain
  is the longest path visiting no site twice; a chain of 4 or more scores its length. One chain per group; branches do
  not count.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["cloister_points", "alliance_points", "longest_paths", "seat_chain_points", "chain_points", "winners"]


def cloister_points(counts: Sequence[int]) -> list[int]:
    """Points per seat for one country, from each seat's cloister count there."""
    levels = sorted({c for c in counts if c > 0}, reverse=True)
    value = {0: 0, **dict(zip(levels[1:], levels))}  # a later rank scores the count of the rank above it
    if levels:
        value[levels[0]] = sum(counts)
    return [value[c] for c in counts]


def alliance_points(advisors: Sequence[Sequence[int]], alliances: Sequence[tuple[int, int]]) -> list[int]:
    """Points per seat from advisors: ``advisors[country][seat]``, ``alliances`` as country index pairs."""
    n = len(advisors[0]) if advisors else 0
    points = [0] * n
    for a, b in alliances:
        ca, cb = advisors[a], advisors[b]
        top_a, top_b = max(ca), max(cb)
        if top_a < 1 or top_b < 1:
            continue
        worth = sum(ca) + sum(cb)
        for s in range(n):
            if ca[s] == top_a and cb[s] == top_b:
                points[s] += worth
    return points


def longest_paths(sites: Sequence[int], adjacency: Sequence[Sequence[int]]) -> list[int]:
    """For each connected group of ``sites`` (joined by roads), the number of sites on its longest simple path."""
    members = set(sites)
    nbrs = {v: [u for u in adjacency[v] if u in members] for v in members}
    seen: set[int] = set()
    out = []
    for root in sorted(members):
        if root in seen:
            continue
        comp = [root]
        seen.add(root)
        for v in comp:
            for u in nbrs[v]:
                if u not in seen:
                    seen.add(u)
                    comp.append(u)
        out.append(_longest_in_component(comp, nbrs))
    return out


def _longest_in_component(comp: list[int], nbrs: dict[int, list[int]]) -> int:
    size = len(comp)
    if all(len(nbrs[v]) <= 2 for v in comp):  # a path or a cycle: every site is on one chain
        return size
    best = 1

    def dfs(v: int, length: int) -> bool:
        nonlocal best
        if length > best:
            best = length
            if best == size:
                return True
        for u in nbrs[v]:
            if u not in visited:
                visited.add(u)
                if dfs(u, length + 1):
                    return True
                visited.discard(u)
        return False

    for v in comp:
        visited = {v}
        if dfs(v, 1):
            break
    return best


def seat_chain_points(owner: Sequence[int], adjacency: Sequence[Sequence[int]], seat: int) -> int:
    """Points of one seat from its cloister chains; ``owner[site]`` is a seat or -1."""
    mine = [s for s, o in enumerate(owner) if o == seat]
    if len(mine) < 4:
        return 0
    return sum(length for length in longest_paths(mine, adjacency) if length >= 4)


def chain_points(owner: Sequence[int], adjacency: Sequence[Sequence[int]], players: int) -> list[int]:
    """Points per seat from cloister chains; ``owner[site]`` is a seat or -1."""
    return [seat_chain_points(owner, adjacency, seat) for seat in range(players)]


def winners(scores: Sequence[int]) -> list[int]:
    """Seats with the highest score (all of them when tied)."""
    best = max(scores)
    return [s for s, v in enumerate(scores) if v == best]

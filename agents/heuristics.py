"""Cheap position heuristics shared by the greedy agent and MCTS rollouts.

These read the engine's incremental state (``Game._cells``, ``_bcolour``, ``_supply``, ``_held``,
``_cardinal``, ``_builds_for``) instead of cloning and replaying, because the greedy cardinal
decision looks at dozens of hypothetical builds. They never modify the game. ``tests/test_agents.py``
checks :func:`build_chips` against the engine's actual scoring on random positions, so a change of
the engine's internals shows up as a failing test rather than as a silently weaker agent.
"""

from __future__ import annotations

from kardinal_env.notation import BUILD, CARDINAL, NEIGHBOUR_STEPS

__all__ = ["build_chips", "chip_weight", "builds_ignoring_cardinal", "next_builder"]

_CATHEDRAL_IDS = 1  # building ids 0 (nave) and 1 (clock tower) score nothing


def build_chips(game, code, colours_out: list | None = None) -> int:
    """Chips the builder of ``code`` takes this turn (RULES.md Scoring), not counting the
    compensation chip of the game's first build (the same for every first build).

    Chips that go to nobody (a neutral build under ``neutral_build_chips="put_aside"``) and touches
    that give nothing (exhausted colour without substitutes, neutral touches under
    ``neutral_touch_chips="none"``) count 0. Substitute chips count 1 each while the supply lasts.
    When ``colours_out`` is a list, the colours of the regular chips are appended to it and a
    substitute chip appends ``-1`` (the builder chooses its colour later).
    """
    _, _shape, colour, k1, k2 = code
    rules = game.rules
    neutral = rules.has_neutral
    if neutral and colour == 3 and rules.neutral_build_chips == "put_aside":
        return 0
    cells = game._cells
    touched = set()
    for k in (k1, k2) if k2 >= 0 else (k1,):
        for step in NEIGHBOUR_STEPS:
            b = cells.get(k + step)
            if b is not None and b > _CATHEDRAL_IDS:
                touched.add(b)
    if not touched:
        return 0
    bcolour = game._bcolour
    supply = list(game._supply)
    skip_neutral = neutral and rules.neutral_touch_chips == "none"
    count = 0
    substitutes = 0
    for b in touched:
        c = bcolour[b]
        if skip_neutral and c == 3:
            continue
        if supply[c]:
            supply[c] -= 1
            count += 1
            if colours_out is not None:
                colours_out.append(c)
        else:
            substitutes += 1
    if substitutes and rules.exhausted_colour == "substitute":
        extra = min(substitutes, sum(supply))
        count += extra
        if colours_out is not None:
            colours_out.extend([-1] * extra)
    return count


def chip_weight(game, seat: int, colour: int) -> float:
    """How much one chip of ``colour`` is worth to ``seat`` beyond its face value of one chip.

    A chip of the seat's own colour would mostly come to it at the end anyway (leftovers), so it is
    worth less; a chip of another seat's colour also denies that seat a leftover; a chip of the
    colour the seat holds most of counts double at the end.
    """
    rules = game.rules
    held = game._held[seat]
    n = game._n
    w = 1.0
    if colour in rules.owned_colours(seat):
        w -= 0.5
    else:
        for other in range(n):
            if other != seat and colour in rules.owned_colours(other):
                w += 1.0 / (n - 1)
                break
    # Projected holdings (own leftovers included) decide the doubled colour.
    proj = list(held)
    for c in rules.owned_colours(seat):
        proj[c] += game._supply[c]
    if proj[colour] >= max(proj):
        w += 0.5
    return w


def builds_ignoring_cardinal(game, seat: int) -> list[tuple]:
    """Legal builds of ``seat`` in the current position as if the cardinal stood nowhere."""
    saved = game._cardinal
    try:
        game._cardinal = -1
        return game._builds_for(seat)
    finally:
        game._cardinal = saved


def next_builder(game) -> tuple[int | None, list[tuple]]:
    """The seat that will build after the current seat's turn (cardinal ignored) and its builds."""
    n = game._n
    cur = game._current
    for i in range(1, n + 1):
        seat = (cur + i) % n
        builds = builds_ignoring_cardinal(game, seat)
        if builds:
            return seat, builds
    return None, []


def cardinal_block_values(game) -> list[tuple[tuple, int, int]]:
    """For each legal cardinal move: ``(code, best, count)`` where ``best`` is the most chips the next
    builder could take after that move (``-1``: it would have no build at all) and ``count`` how many
    of its builds reach ``best``. Call only in the cardinal phase."""
    moves = game.legal_move_codes()
    _seat, builds = next_builder(game)
    scored = sorted(((build_chips(game, b), b[3], b[4]) for b in builds), reverse=True)
    current = game._cardinal
    out = []
    for code in moves:
        assert code[0] == CARDINAL
        blocked = code[3] if code[3] >= 0 else current
        best = -1
        count = 0
        for v, a, b in scored:
            if a == blocked or b == blocked:
                continue
            if best < 0:
                best = v
            if v == best:
                count += 1
            else:
                break
        out.append((code, best, count))
    return out


assert BUILD == 0  # the helpers index move codes as (kind, shape, colour, sq1, sq2)

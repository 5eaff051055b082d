"""Cheap Kardinal position heuristics shared by the greedy agent and its playout policy
(:mod:`agents.baselines.kardinal_greedy`).

Every rule fact comes from the engine's public queries (``Game.build_chips``, ``builds_for``, ``next_builder``,
``projected_holdings``); nothing here reads private state or modifies the game.
"""

from __future__ import annotations

from kardinal_env.kardinal.notation import CARDINAL

__all__ = [
    "build_chips",
    "chip_weight",
    "seat_weights",
    "chip_values",
    "build_value",
    "cardinal_block_values",
    "cardinal_advice",
    "ADVICE_COUNT_WEIGHT",
    "ADVICE_CLIP",
]


def build_chips(game, code, colours_out: list | None = None) -> int:
    """Chips the builder of ``code`` takes this turn (not the first build's compensation chip; 0 for chips set aside);
    ``colours_out`` gets the regular chips' colours and ``-1`` per substitute chip."""
    gain = game.build_chips(code)
    if gain.set_aside:
        return 0
    if colours_out is not None:
        colours_out.extend(gain.colours)
        colours_out.extend([-1] * gain.substitutes)
    return len(gain.colours) + gain.substitutes


def chip_weight(game, seat: int, colour: int) -> float:
    """One chip of ``colour`` to ``seat``: less for its own colour (its leftovers come anyway), more for another seat's
    (denying a leftover) and for the colour it holds most of (projected; doubled at the end)."""
    rules = game.rules
    n = game.num_players
    w = 1.0
    if colour in rules.owned_colours(seat):
        w -= 0.5
    elif any(colour in rules.owned_colours(other) for other in range(n) if other != seat):
        w += 1.0 / (n - 1)
    proj = game.projected_holdings(seat)
    if proj[colour] >= max(proj):
        w += 0.5
    return w


def seat_weights(rules, seat: int) -> list[float]:
    """The playout policy's fixed chip values per colour for ``seat``: :func:`chip_weight` without the holdings (index
    4: a substitute, worth the best colour)."""
    n = rules.players
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


def chip_values(game, codes, weights) -> list[float]:
    """Per build of ``codes``, its builder's value of the chips it takes (colour ``c``: ``weights[c]``, substitute:
    ``weights[4]``)."""
    cache: dict = {}
    out = []
    for code in codes:
        key = (code[3], code[4], code[2] == 3)
        v = cache.get(key)
        if v is None:
            gain = game.build_chips(code)
            v = 0.0 if gain.set_aside else sum(weights[c] for c in gain.colours) + weights[4] * gain.substitutes
            cache[key] = v
        out.append(v)
    return out


def build_value(game, code, weights) -> float:
    """:func:`chip_values` of one build."""
    colours: list = []
    build_chips(game, code, colours)
    return sum(weights[c] for c in colours)  # -1 (a substitute) indexes the free-choice weight


def cardinal_block_values(game) -> list[tuple[tuple, int, int]]:
    """Per legal cardinal move ``(code, best, count)``: the most chips the next builder could take after it (``-1``: no
    build at all) and how many of its builds reach that. Cardinal phase only."""
    moves = game.legal_move_codes()
    _seat, builds = game.next_builder(ignore_cardinal=True)
    scored = sorted(((build_chips(game, b), b[3], b[4]) for b in builds), reverse=True)
    current = game.cardinal_key
    out = []
    for code in moves:
        assert code[0] == CARDINAL
        blocked = code[3] if code[3] >= 0 else current
        left = [v for v, a, b in scored if blocked not in (a, b)]  # best first
        best = left[0] if left else -1
        out.append((code, best, left.count(best)))
    return out


#: :func:`cardinal_advice`: one build more reaching the next builder's best (the greedy tie-break) against one chip
#: more; the count's part is clipped at 9 of these, below one chip, keeping the greedy agent's order.
ADVICE_COUNT_WEIGHT = 0.1
#: :func:`cardinal_advice` clips the shortfall at this many chips.
ADVICE_CLIP = 8.0


def cardinal_advice(game) -> list[tuple[tuple, float]]:
    """Per legal cardinal move ``(code, advice)``, its shortfall from the greedy choice:
    ``-((best - b) + ADVICE_COUNT_WEIGHT * min(9, count - c[best]))`` clipped at ``-ADVICE_CLIP`` (``b``: fewest chips
    any move leaves, ``c[best]``: fewest builds among moves leaving ``best``): 0 for the greedy agent's choices, never
    more for a move it ranks lower (unless both clipped). Cardinal phase only."""
    values = cardinal_block_values(game)
    b = min(best for _code, best, _count in values)
    fewest: dict[int, int] = {}
    for _code, best, count in values:
        fewest[best] = min(count, fewest.get(best, count))
    shortfall = [
        (code, (best - b) + ADVICE_COUNT_WEIGHT * min(9, count - fewest[best])) for code, best, count in values
    ]
    return [(code, -min(ADVICE_CLIP, float(s))) for code, s in shortfall]

"""Cheap Kardinal position heuristics shared by the greedy agent and its playout policy
(:mod:`agents.baselines.kardinal_greedy`).

Every rule fact comes from the engine's public queries: the chips a build takes
(``Game.build_chips``), the builds a seat has (``Game.builds_for``), the next builder
(``Game.next_builder``) and the projected holdings (``Game.projected_holdings``). Nothing here reads
or changes the engine's private state; these functions never modify the game.
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
    """Chips the builder of ``code`` takes this turn (``Game.build_chips``; not the first build's
    compensation chip; 0 for chips that go to nobody). With ``colours_out``, the regular chips' colours
    are appended to it and ``-1`` for each substitute chip (its colour chosen later)."""
    gain = game.build_chips(code)
    if gain.set_aside:
        return 0
    if colours_out is not None:
        colours_out.extend(gain.colours)
        colours_out.extend([-1] * gain.substitutes)
    return len(gain.colours) + gain.substitutes


def chip_weight(game, seat: int, colour: int) -> float:
    """What one chip of ``colour`` is worth to ``seat``: less for its own colour (its leftovers come to
    it anyway), more for another seat's (denying it a leftover) and for the colour it holds most of
    (counted double at the end)."""
    rules = game.rules
    n = game.num_players
    w = 1.0
    if colour in rules.owned_colours(seat):
        w -= 0.5
    elif any(colour in rules.owned_colours(other) for other in range(n) if other != seat):
        w += 1.0 / (n - 1)
    # Projected holdings (own leftovers included) decide the doubled colour.
    proj = game.projected_holdings(seat)
    if proj[colour] >= max(proj):
        w += 0.5
    return w


def seat_weights(rules, seat: int) -> list[float]:
    """A fixed value of one chip of each colour for ``seat`` from the rules alone, as :func:`chip_weight`
    without the holdings (index 4: a substitute chip, worth the best colour); the playout policy's."""
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
    """The value for its builder of the chips each build of ``codes`` takes, a chip of colour ``c``
    worth ``weights[c]`` and a substitute ``weights[4]``; shared per squares (and neutral colour)."""
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
    """:func:`chip_values` of one build (summed chip by chip)."""
    colours: list = []
    build_chips(game, code, colours)
    return sum(weights[c] for c in colours)  # -1 (a substitute) indexes the free-choice weight


def cardinal_block_values(game) -> list[tuple[tuple, int, int]]:
    """For each legal cardinal move: ``(code, best, count)`` where ``best`` is the most chips the next
    builder could take after that move (``-1``: it would have no build at all) and ``count`` how many
    of its builds reach ``best``. Call only in the cardinal phase."""
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


#: :func:`cardinal_advice`: the weight of one build more reaching the next builder's best (the
#: greedy agent's tie-break) against one chip more in that best; the count's part is clipped at 9 of
#: these, below one chip, so the advice keeps the greedy agent's order.
ADVICE_COUNT_WEIGHT = 0.1
#: :func:`cardinal_advice` clips the shortfall at this many chips.
ADVICE_CLIP = 8.0


def cardinal_advice(game) -> list[tuple[tuple, float]]:
    """For each legal cardinal move: ``(code, advice)``, how far it falls short of the greedy agent's
    choice in its own order (:func:`cardinal_block_values`): ``-((best - b) + ADVICE_COUNT_WEIGHT *
    min(9, count - c[best]))``, ``b`` the fewest chips any move leaves and ``c[best]`` the fewest builds
    among the moves that leave ``best``, clipped at ``-ADVICE_CLIP``: 0 for the moves the greedy agent
    chooses among, never more for a move it ranks lower (unless both are clipped). Cardinal phase only."""
    values = cardinal_block_values(game)
    b = min(best for _code, best, _count in values)
    fewest: dict[int, int] = {}
    for _code, best, count in values:
        fewest[best] = min(count, fewest.get(best, count))
    shortfall = [
        (code, (best - b) + ADVICE_COUNT_WEIGHT * min(9, count - fewest[best])) for code, best, count in values
    ]
    return [(code, -min(ADVICE_CLIP, float(s))) for code, s in shortfall]

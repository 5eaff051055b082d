"""Cheap position heuristics shared by the greedy agent and MCTS rollouts.

Every rule fact comes from the engine's public queries: the chips a build takes
(``Game.build_chips``), the builds a seat has (``Game.builds_for``), the next builder
(``Game.next_builder``) and the projected holdings (``Game.projected_holdings``). Nothing here reads
or changes the engine's private state; these functions never modify the game.
"""

from __future__ import annotations

from kardinal_env.kardinal.notation import CARDINAL

__all__ = ["build_chips", "chip_weight", "builds_ignoring_cardinal", "next_builder", "cardinal_block_values"]


def build_chips(game, code, colours_out: list | None = None) -> int:
    """Chips the builder of ``code`` takes this turn (``Game.build_chips``), not counting the
    compensation chip of the game's first build (the same for every first build).

    Chips that go to nobody (a neutral build under ``neutral_build_chips="put_aside"``) count 0.
    When ``colours_out`` is a list, the colours of the regular chips are appended to it and each
    substitute chip appends ``-1`` (the builder chooses its colour later).
    """
    gain = game.build_chips(code)
    if gain.set_aside:
        return 0
    if colours_out is not None:
        colours_out.extend(gain.colours)
        colours_out.extend([-1] * gain.substitutes)
    return len(gain.colours) + gain.substitutes


def chip_weight(game, seat: int, colour: int) -> float:
    """How much one chip of ``colour`` is worth to ``seat`` beyond its face value of one chip.

    A chip of the seat's own colour would mostly come to it at the end anyway (leftovers), so it is
    worth less; a chip of another seat's colour also denies that seat a leftover; a chip of the
    colour the seat holds most of counts double at the end.
    """
    rules = game.rules
    n = game.num_players
    w = 1.0
    if colour in rules.owned_colours(seat):
        w -= 0.5
    else:
        for other in range(n):
            if other != seat and colour in rules.owned_colours(other):
                w += 1.0 / (n - 1)
                break
    # Projected holdings (own leftovers included) decide the doubled colour.
    proj = game.projected_holdings(seat)
    if proj[colour] >= max(proj):
        w += 0.5
    return w


def builds_ignoring_cardinal(game, seat: int) -> list[tuple]:
    """Legal builds of ``seat`` in the current position as if the cardinal stood nowhere."""
    return game.builds_for(seat, ignore_cardinal=True)


def next_builder(game) -> tuple[int | None, list[tuple]]:
    """The seat that will build after the current seat's turn (cardinal ignored) and its builds."""
    return game.next_builder(ignore_cardinal=True)


def cardinal_block_values(game) -> list[tuple[tuple, int, int]]:
    """For each legal cardinal move: ``(code, best, count)`` where ``best`` is the most chips the next
    builder could take after that move (``-1``: it would have no build at all) and ``count`` how many
    of its builds reach ``best``. Call only in the cardinal phase."""
    moves = game.legal_move_codes()
    _seat, builds = next_builder(game)
    scored = sorted(((build_chips(game, b), b[3], b[4]) for b in builds), reverse=True)
    current = game.cardinal_key
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

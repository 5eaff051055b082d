"""Why the default window is 53 x 53: the bound on where any legal game can build.

Claim. In every legal game (any player count, preset or option) every edifice square lies in ``|x| <= 25, |y| <= 25``
and the cardinal always stands in ``|x| <= 26, |y| <= 26``. So the smallest window centred on the nave that holds them
all is ``W = 53``, and no smaller centred square window is lossless: the bounds are reached (below).

Proof (direction −x; the others alike). Let the *frontier* ``f`` be the least ``x`` of any building square, initially
``0`` (the nave). An edifice lowering it has a square in column ``f - 1`` and must touch an existing building, all in
columns ``>= f``: what it touches lies in column ``f`` (a horizontal yard in ``f-1, f-2`` touches only through ``f-1``).

* A house lowers the frontier by 1.
* A tower or a yard must touch a house when it is built (rules II and III), so a house (the nave counts) must stand in
  the frontier column then. After the advance the frontier column holds only the new edifice, so each house serves at
  most one tower/yard advance: 8 houses plus the nave, at most 9 tower/yard advances, at most 8 of them yards
  (advancing 2) and the rest towers (advancing 1).

So the frontier moves at most ``8 (houses) + 8·2 (yards) + 1 (a tower) = 25`` columns: ``x >= -25``. Towards +x the
frontier starts at column 1, the clock tower (no house), so only the 8 houses serve: ``x <= 1 + 8 + 16 = 25``. Towards
±y row 0 holds the nave, as for −x: ``|y| <= 25``. The cardinal stands on a site, next to a building: one more.

The bound is reached: going left from the nave, the line ``Y H Y H … Y H T`` (a yard on ``-2,0:-1,0`` touching the
nave, then house/yard pairs, then the last house and a tower) reaches ``x = -25`` with all 8 yards, 8 houses and one
tower, and the cardinal can then be placed on ``-26,0``. ``tests/test_window_bound.py`` replays such a game.

A smaller odd ``window`` (``Rules(window=W)``, ``kardinal_v0.env(window=W)``) is a *variant*, a different game: the
engine forbids building or the cardinal outside it (rule "window").
"""

from kardinal_env.core.checks import is_int

#: Every edifice square satisfies |x| <= EDIFICE_REACH and |y| <= EDIFICE_REACH.
EDIFICE_REACH = 25
#: The cardinal always satisfies |x| <= CARDINAL_REACH and |y| <= CARDINAL_REACH.
CARDINAL_REACH = EDIFICE_REACH + 1
#: Side of the smallest lossless window centred on the nave.
LOSSLESS_WINDOW = 2 * CARDINAL_REACH + 1


def check_window(window: object, error: type[Exception] = ValueError, allow_none: bool = False) -> int | None:
    """``window`` if it is an odd integer from 3 to :data:`LOSSLESS_WINDOW` (or None when ``allow_none``): the one
    window check of the package. ``error`` naming the value and the allowed range otherwise."""
    if window is None and allow_none:
        return None
    if not is_int(window) or window % 2 == 0 or not 3 <= window <= LOSSLESS_WINDOW:
        allowed = "None or an odd integer" if allow_none else "an odd integer"
        raise error(f"window must be {allowed} from 3 to {LOSSLESS_WINDOW}, got {window!r}")
    return window

"""Type tests for checking arguments, configs and records: one place for "an integer, not a bool".

Every check of a count, seat, seed, score or action id asks one of these, so ``True``/``False`` are refused the same way
everywhere (each caller keeps its own message). :func:`check_action` refuses anything but an action id of
``Discrete(n)`` with :class:`~kardinal_env.core.errors.IllegalMoveError` (rule ``"action"``, naming the value and the
range); nothing is rounded or clipped.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, TypeGuard

from kardinal_env.core.errors import IllegalMoveError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["check_action", "is_finite_number", "is_int", "is_integral", "is_number"]


def is_int(value: object) -> TypeGuard[int]:
    """``value`` is an ``int`` and not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_integral(value: object) -> TypeGuard[int | np.integer]:
    """``value`` is an ``int`` or a NumPy integer and not a ``bool`` (without importing NumPy)."""
    if isinstance(value, int):
        return not isinstance(value, bool)
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.integer)


def is_number(value: object) -> TypeGuard[int | float]:
    """``value`` is an ``int`` or a ``float`` and not a ``bool``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """:func:`is_number` and neither NaN nor infinite."""
    return is_number(value) and math.isfinite(value)


def check_action(action: object, num_actions: int) -> int:
    """``action`` as an ``int`` if it is an integer in ``[0, num_actions)``; IllegalMoveError otherwise."""
    if type(action) is int and 0 <= action < num_actions:  # the common case, at once
        return action
    if not is_integral(action):
        shape = getattr(action, "shape", None)
        if shape == () and getattr(getattr(action, "dtype", None), "kind", "") in "iu":  # 0-d integer array
            action = int(action.item())  # type: ignore[attr-defined]
        else:
            raise IllegalMoveError(
                f"action: expected an integer in [0, {num_actions}), got {action!r} ({type(action).__name__})",
                "action",
                action,
            )
    value = int(action)
    if not 0 <= value < num_actions:
        raise IllegalMoveError(f"action: {value} is outside Discrete({num_actions})", "action", action)
    return value

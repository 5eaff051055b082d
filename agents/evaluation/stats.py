"""Statistics of win shares: :func:`wilson_interval`, the one interval every table, ladder, tuning run
and script reports (pure Python, no third-party import)."""

from __future__ import annotations

import math

__all__ = ["wilson_interval"]


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson interval of ``successes`` (fractional: shared wins) out of ``n``; ``(0, 1)`` when ``n == 0``."""
    if n < 0:
        raise ValueError(f"wilson_interval: n must not be negative, got {n!r}")
    if not 0 <= successes <= n:
        raise ValueError(f"wilson_interval: successes must lie in [0, n={n}], got {successes!r}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))

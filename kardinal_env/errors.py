"""Error types shared by several modules (kept apart so ``python -m kardinal_env.record`` is not
imported twice by the package ``__init__``)."""

from __future__ import annotations

__all__ = ["RecordError"]


class RecordError(ValueError):
    """A malformed or inconsistent game record; the message says what and where."""

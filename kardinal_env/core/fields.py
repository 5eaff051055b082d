"""Copying an engine's fields onto a clone: :func:`copy_fields`, one loop instead of one line per field."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["copy_fields"]


def copy_fields(
    source: object, target: object, same: Iterable[str] = (), lists: Iterable[str] = (), nested: Iterable[str] = ()
) -> None:
    """Set the named attributes of ``target`` from ``source``: ``same`` as they are (values never changed in place),
    ``lists`` as new lists, ``nested`` as new lists of new lists."""
    for name in same:
        setattr(target, name, getattr(source, name))
    for name in lists:
        setattr(target, name, list(getattr(source, name)))
    for name in nested:
        setattr(target, name, [list(row) for row in getattr(source, name)])

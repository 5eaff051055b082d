"""Provenance and seeding shared by training and evaluation (a leaf module): :func:`git_revision`, the checkout's commit
written into checkpoints and results, and :func:`game_seed`, the seed of game ``index`` of a run seeded with ``seed``
(``seed * SEED_STRIDE + index``), so the evaluator and the trainer's periodic evaluation deal the same games.
"""

from __future__ import annotations

import os
import subprocess

__all__ = ["SEED_STRIDE", "game_seed", "git_revision"]

SEED_STRIDE = 1_000_003

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded with ``seed``."""
    return seed * SEED_STRIDE + index


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_revision() -> str:
    """The checkout's commit, ``"<sha>-dirty"`` when tracked files changed, ``"unknown"`` outside git."""
    commit = _git("rev-parse", "HEAD")
    if not commit:
        return "unknown"
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return commit + ("-dirty" if dirty else "")

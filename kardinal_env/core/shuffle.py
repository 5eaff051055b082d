"""The suite's shared generator, identical here and in the compiled core (``cpp/src/koenig/engine.hpp``), so seeded
deals and searches (``ismcts:N``) draw the same on both backends. Standard library only.

**Generator.** SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state ``s``; each draw adds ``0x9E3779B97F4A7C15`` to
``s`` (mod 2**64) and returns ``z = s; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) *
0x94D049BB133111EB; z ^ (z >> 31)`` (every operation mod 2**64).

**Bounded integers.** ``below(n)`` (``1 <= n < 2**32``): Lemire's multiply-and-shift with rejection, on the low 32 bits
of a draw: ``m = (draw mod 2**32) * n``; while ``m mod 2**32 < (2**32 - n) mod n``, draw again; the result is ``m >>
32`` (uniform on ``0..n-1``).

**Shuffle.** Fisher–Yates from the end, like ``random.shuffle``: for ``i`` from ``len - 1`` down to ``1``, swap items
``i`` and ``below(i + 1)``.

**Bits.** ``getrandbits(k)`` (``1 <= k <= 64``): the top ``k`` bits of one draw, ``draw >> (64 - k)`` (as
:meth:`random.Random.getrandbits`: a ``ShuffleRng`` may stand in where a seed is drawn from a ``random.Random``).

**Weighted choice.** ``weighted(weights)`` (non-negative integers, total ``1 <= W < 2**32``): ``r = below(W)``; the
result is the first index ``i`` with ``r < weights[0] + ... + weights[i]`` (probability ``weights[i] / W``; integers
only, so both languages agree).

**Seeds.** ``seed_state(seed)`` turns a game seed into the initial state: an ``int`` (``bool`` included) is taken mod
2**64 (so ``-1`` is ``2**64 - 1``); a ``str`` is hashed with 64-bit FNV-1a over its UTF-8 bytes (offset
``0xCBF29CE484222325``, prime ``0x100000001B3``); ``None`` draws a state from the operating system's entropy (an
unseeded game). Anything else is a ``TypeError``.

Dealing hidden cards (:mod:`kardinal_env.koenig.knowledge`) draws from it too; ``tests/test_koenig_shuffle.py`` pins
known vectors.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

__all__ = ["ShuffleRng", "seed_state", "fnv1a64"]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


def fnv1a64(text: str) -> int:
    """64-bit FNV-1a of ``text``'s UTF-8 bytes."""
    h = _FNV_OFFSET
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * _FNV_PRIME) & _MASK
    return h


def seed_state(seed: int | str | None) -> int:
    """The generator's initial 64-bit state for a game seed (module docstring)."""
    if seed is None:
        return random.SystemRandom().getrandbits(64)
    if isinstance(seed, int):
        return seed & _MASK
    if isinstance(seed, str):
        return fnv1a64(seed)
    raise TypeError(f"seed must be an int, a str or None, got {type(seed).__name__}")


class ShuffleRng:
    """SplitMix64 with ``below``, ``getrandbits``, ``weighted`` and ``shuffle`` (the module docstring); ``state`` is the
    whole state (``ShuffleRng.from_state(rng.state)`` copies a generator)."""

    __slots__ = ("state",)

    def __init__(self, seed: int | str | None = None):
        self.state = seed_state(seed)

    @classmethod
    def from_state(cls, state: int) -> ShuffleRng:
        rng = cls.__new__(cls)
        rng.state = state & _MASK
        return rng

    def next(self) -> int:
        s = self.state = (self.state + _GAMMA) & _MASK
        z = ((s ^ (s >> 30)) * _M1) & _MASK
        z = ((z ^ (z >> 27)) * _M2) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in ``0..n-1`` (``1 <= n < 2**32``)."""
        if not 1 <= n < 1 << 32:
            raise ValueError(f"below: n must be in 1..2**32-1, got {n}")
        while True:
            m = (self.next() & 0xFFFFFFFF) * n
            low = m & 0xFFFFFFFF
            if low >= n or low >= ((1 << 32) - n) % n:  # Lemire's rejection
                return m >> 32

    def getrandbits(self, k: int) -> int:
        """The top ``k`` bits of one draw (``1 <= k <= 64``)."""
        if not 1 <= k <= 64:
            raise ValueError(f"getrandbits: k must be in 1..64, got {k}")
        return self.next() >> (64 - k)

    def weighted(self, weights: Sequence[int]) -> int:
        """An index drawn in proportion to ``weights`` (non-negative ints, total in 1..2**32-1)."""
        if any(w < 0 for w in weights):
            raise ValueError(f"weighted: weights must be >= 0, got {list(weights)}")
        r = self.below(sum(weights))  # ValueError for a total of 0 or of 2**32 and more
        for i, w in enumerate(weights):
            if r < w:
                return i
            r -= w
        raise AssertionError("unreachable")  # pragma: no cover

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle ``items`` in place: :meth:`next` and :meth:`below` written out (the hot path of dealing)."""
        s = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            while True:
                s = (s + _GAMMA) & _MASK
                z = ((s ^ (s >> 30)) * _M1) & _MASK
                z = ((z ^ (z >> 27)) * _M2) & _MASK
                m = ((z ^ (z >> 31)) & 0xFFFFFFFF) * n
                low = m & 0xFFFFFFFF
                if low >= n or low >= ((1 << 32) - n) % n:  # Lemire's rejection
                    break
            j = m >> 32
            items[i], items[j] = items[j], items[i]
        self.state = s

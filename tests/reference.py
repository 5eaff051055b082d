"""A deliberately naive second implementation of docs/rules.md, written from the text alone.

It shares nothing with ``kardinal_env.kardinal.engine`` except the move notation strings: buildings are kept
as plain sets of ``(x, y)`` squares and every legal move is found by brute force. The property
tests play random games through both and compare every decision, so that a shortcut in the fast
engine (incremental site summaries, cached move lists) cannot silently drift from the rules.
"""

from __future__ import annotations

import re

TOTAL = 12
N4 = ((1, 0), (-1, 0), (0, 1), (0, -1))


def neighbours(sq):
    x, y = sq
    return [(x + dx, y + dy) for dx, dy in N4]


class RefGame:
    def __init__(
        self,
        players,
        preset="english",
        shared_pool=False,
        exhausted_colour=None,
        neutral_build_chips=None,
        neutral_touch_chips=None,
        window=None,
    ):
        presets = {
            "english": ("none", "put_aside", "score"),
            "german": ("substitute", "keep", "none"),
        }
        ex, nb, nt = presets[preset]
        self.n = players
        self.shared = shared_pool
        self.exhausted = exhausted_colour or ex
        self.neutral_build = neutral_build_chips or nb
        self.neutral_touch = neutral_touch_chips or nt
        self.neutral = players == 3 and not shared_pool
        self.half = None if window is None else window // 2
        # buildings: (shape letter, colour or None, frozenset of squares, builder or None)
        self.buildings = [("H", None, frozenset({(0, 0)}), None), ("T", None, frozenset({(1, 0)}), None)]
        self.left = {(c, s): 2 for c in range(4) for s in "HTY"}
        self.supply = [TOTAL] * 4
        self.held = [[0] * 4 for _ in range(players)]
        self.aside = [0] * 4
        self.last = None  # (shape, colour)
        self.cardinal = None
        self.seat = 0
        self.phase = "build"
        self.pending = 0
        self.chip_to_aside = False
        self.touch_cathedral = [0] * players
        self.scores = self.winners = None

    # ---------------------------------------------------------------- geometry
    def owner(self):
        return {sq: i for i, b in enumerate(self.buildings) for sq in b[2]}

    def inside(self, sq):
        return self.half is None or (abs(sq[0]) <= self.half and abs(sq[1]) <= self.half)

    def sites(self):
        occ = self.owner()
        return {nb for sq in occ for nb in neighbours(sq) if nb not in occ and self.inside(nb)}

    def colours(self, seat):
        if self.shared:
            return [0, 1, 2, 3]
        if self.n == 2:
            return [2 * seat, 2 * seat + 1]
        if self.n == 3:
            return [seat, 3]
        return [seat]

    def touched(self, squares, occ):
        return {occ[nb] for sq in squares for nb in neighbours(sq) if nb in occ and nb not in squares}

    def builds(self, seat):
        occ = self.owner()
        sites = self.sites()
        shapes = []
        for sq in sites:
            if sq != self.cardinal:
                shapes.append(("H", (sq,)))
                shapes.append(("T", (sq,)))
                for nb in neighbours(sq):
                    if nb not in occ and nb != self.cardinal and self.inside(nb):
                        shapes.append(("Y", tuple(sorted((sq, nb)))))
        out = set()
        for shape, squares in set(shapes):
            touched = self.touched(squares, occ)
            if not touched:
                continue
            kinds = {self.buildings[b][0] for b in touched}
            cols = {self.buildings[b][1] for b in touched}
            if shape in "TY" and "H" not in kinds:  # II, III
                continue
            if shape in kinds:  # IV
                continue
            for c in self.colours(seat):
                if self.left[(c, shape)] == 0 or c in cols:  # placement, V
                    continue
                if self.last is not None and (shape == self.last[0] or c == self.last[1]):  # VI, VII
                    continue
                sq = ":".join(f"{x},{y}" for x, y in squares)
                out.add(f"{shape}{c}@{sq}")
        return out

    # ---------------------------------------------------------------- moves
    def legal(self):
        if self.phase == "build":
            return self.builds(self.seat)
        if self.phase == "chip":
            return {f"chip:{c}" for c in range(4) if self.supply[c]}
        if self.phase == "cardinal":
            moves = {f"C@{x},{y}" for x, y in self.sites() if (x, y) != self.cardinal}
            if self.cardinal is not None:
                moves.add("C-")
            return moves
        return set()

    def play(self, move):
        assert move in self.legal(), move
        if self.phase == "build":
            m = re.fullmatch(r"([HTY])(\d)@(.*)", move)
            shape, c = m.group(1), int(m.group(2))
            squares = frozenset(tuple(int(v) for v in part.split(",")) for part in m.group(3).split(":"))
            occ = self.owner()
            touched = self.touched(squares, occ)
            first = len(self.buildings) == 2
            self.buildings.append((shape, c, squares, self.seat))
            self.left[(c, shape)] -= 1
            self.last = (shape, c)
            to_aside = self.neutral and c == 3 and self.neutral_build == "put_aside"
            dest = self.aside if to_aside else self.held[self.seat]
            subs = 0
            if touched & {0, 1}:
                self.touch_cathedral[self.seat] += 1
            for b in sorted(touched):
                col = self.buildings[b][1]
                if col is None or (self.neutral and col == 3 and self.neutral_touch == "none"):
                    continue
                if self.supply[col]:
                    self.supply[col] -= 1
                    dest[col] += 1
                elif self.exhausted == "substitute":
                    subs += 1
            self.pending = 1 if first else subs
            self.chip_to_aside = to_aside
            self.phase = "chip" if self.pending and any(self.supply) else "cardinal"
        elif self.phase == "chip":
            c = int(move[5:])
            self.supply[c] -= 1
            (self.aside if self.chip_to_aside else self.held[self.seat])[c] += 1
            self.pending -= 1
            if not self.pending or not any(self.supply):
                self.phase = "cardinal"
        else:
            if move != "C-":
                self.cardinal = tuple(int(v) for v in move[2:].split(","))
            for i in range(1, self.n + 1):
                nxt = (self.seat + i) % self.n
                if self.builds(nxt):
                    self.seat, self.phase = nxt, "build"
                    return
            self.finish()

    def finish(self):
        for seat in range(self.n):
            if self.shared:
                break
            own = [2 * seat, 2 * seat + 1] if self.n == 2 else [seat]
            for c in own:
                self.held[seat][c] += self.supply[c]
                self.supply[c] = 0
        if self.neutral:
            self.aside[3] += self.supply[3]
            self.supply[3] = 0
        self.scores = [sum(h) + max(h) for h in self.held]
        best = max(self.scores)
        tied = [s for s in range(self.n) if self.scores[s] == best]
        top = max(self.touch_cathedral[s] for s in tied)
        self.winners = [s for s in tied if self.touch_cathedral[s] == top]
        self.phase = "over"
        self.seat = None

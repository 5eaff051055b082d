"""Search a legal game that builds on x = -25 and then puts the cardinal on x = -26 (or the +x mirror).

    .venv/bin/python tests/golden/make_window_bound.py [players] [west|east|north|south]

West: a line along row 0 going left from the nave, Y H Y H ... Y H T (8 yards, 8 houses, 1 tower;
the yards advance 2, houses and the tower 1: 16 + 8 + 1 = 25). East: from the clock tower,
H Y H Y ... H Y (8 houses, 8 yards: 8 + 16 = 25, the last yard ending on x = 26... see LINES).
Turn order, rules VI/VII and colour ownership are satisfied by depth-first search over which seat
builds which line piece, interleaving off-line towers (each next to the nave or a line house, never
next to a future line square). The cardinal is parked on a site away from the line and stays there
("C-") until the line is complete; then it goes to the far end. Writes
tests/golden/window_bound_<players>p_<direction>.json (the game played to its end with first-listed
moves, keeping the cardinal put).
"""

import json
import sys
from pathlib import Path

from kardinal_env.kardinal import Game, Rules

HERE = Path(__file__).parent


def west_line():
    pieces = []
    x = -1
    for _ in range(8):
        pieces.append(("Y", ((x - 1, 0), (x, 0))))
        pieces.append(("H", ((x - 2, 0),)))
        x -= 3
    pieces.append(("T", ((x, 0),)))  # x == -25
    return pieces, (x - 1, 0), (2, 0)


def east_line():
    pieces = []
    x = 2
    for _ in range(8):
        pieces.append(("H", ((x, 0),)))
        pieces.append(("Y", ((x + 1, 0), (x + 2, 0))))
        x += 3
    # houses at 2, 5, ..., 23; yards up to (24, 0):(25, 0)
    return pieces, (x, 0), (-1, 0)


def rotated(line, turn):
    """The west line turned so that it runs north (turn=1: (x, y) -> (0, -x)) or south (turn=-1)."""
    pieces, end, park = line

    def rot(sq):
        return (0, -sq[0] * turn)

    return [(shape, tuple(rot(sq) for sq in sqs)) for shape, sqs in pieces], rot(end), (2, 0)


LINES = {
    "west": west_line,
    "east": east_line,
    "north": lambda: rotated(west_line(), 1),
    "south": lambda: rotated(west_line(), -1),
}


def text(shape, colour, squares):
    return f"{shape}{colour}@" + ":".join(f"{x},{y}" for x, y in sorted(squares))


def search(players, direction):
    pieces, cardinal_end, cardinal_park = LINES[direction]()
    line_squares = [sq for _, sqs in pieces for sq in sqs]
    game = Game(Rules(players=players))
    best = [0]
    ex, ey = cardinal_end  # off-line towers stay off the line's ray from the cathedral
    ray = {(ex * k // abs(ex or ey), ey * k // abs(ex or ey)) for k in range(0, abs(ex or ey) + 1)}

    def future_adjacent(sq, done):
        future = set(line_squares[sum(len(s) for _, s in pieces[:done]) :])
        x, y = sq
        return sq in future or any((x + dx, y + dy) in future for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))

    def finish_turn(g):
        while g.phase == "chip":
            g.play(g.legal_moves()[0])
        if g.phase == "cardinal":
            park = f"C@{cardinal_park[0]},{cardinal_park[1]}"
            g.play("C-" if "C-" in g.legal_moves() else park)

    def dfs(g, done):
        if done == len(pieces):
            return g
        best[0] = max(best[0], done)
        legal = set(g.legal_moves()) if g.phase == "build" else set()
        if not legal:
            return None
        shape, squares = pieces[done]
        options = []
        for c in g.seat_colours(g.current_player):
            m = text(shape, c, squares)
            if m in legal:
                options.append((m, done + 1))
        for m in sorted(legal):
            if m[0] == "T" and not any(m == o for o, _ in options):
                x, y = map(int, m[3:].split(","))
                if not future_adjacent((x, y), done) and (x, y) not in ray:
                    options.append((m, done))
        for m, nd in options:
            h = g.clone()
            h.play(m)
            finish_turn(h)
            if h.is_over and nd < len(pieces):
                continue
            r = dfs(h, nd)
            if r is not None:
                return r
        return None

    g = dfs(game, 0)
    if g is None:
        print("no game found; deepest line piece", best[0])
        return None
    return g, cardinal_end


def main():
    players = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    direction = sys.argv[2] if len(sys.argv) > 2 else "west"
    found = search(players, direction)
    if found is None:
        sys.exit(1)
    g, end = found
    # g is at the start of a turn after the last line piece was built with C-; replay with the
    # final cardinal move instead of that C-
    moves = g.history
    last_c = len(moves) - 1
    assert moves[last_c] == "C-"
    g = Game(Rules(players=players))
    for m in moves[:last_c]:
        g.play(m)
    g.play(f"C@{end[0]},{end[1]}")
    while not g.is_over:
        legal = g.legal_moves()
        g.play("C-" if "C-" in legal else legal[0])
    path = HERE / f"window_bound_{players}p_{direction}.json"
    path.write_text(json.dumps(g.to_record(), indent=1) + "\n")
    print(path, len(g.history), "moves; scores", g.scores())


if __name__ == "__main__":
    main()

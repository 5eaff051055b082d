"""The window bound: no legal game builds outside |x|, |y| <= 25 or puts the cardinal outside 26.

The golden records tests/golden/window_bound_*.json (found by tests/golden/make_window_bound.py)
reach the bound in each direction: a line of 8 yards, 8 houses and a tower going west (or north,
south) from the nave ends on 25, a line of 8 houses and 8 yards going east from the clock tower
ends on 25, and the cardinal then stands on 26. So the bound is tight, and ``Rules(window=53)``
(|x|, |y| <= 26) is the smallest window that contains every legal game.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kardinal_env import IllegalMoveError, RecordError
from kardinal_env.kardinal import Game, Rules

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("window_bound_*.json"))
DIRECTIONS = {"west": (-1, 0), "east": (1, 0), "north": (0, 1), "south": (0, -1)}


def test_bound_files_exist():
    assert {f.stem.rsplit("_", 1)[1] for f in FILES} == set(DIRECTIONS)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_window_bound_game(path):
    record = json.loads(path.read_text())
    assert record["rules"]["window"] is None
    game = Game.from_record(record)  # a legal game of the unbounded rules
    dx, dy = DIRECTIONS[path.stem.rsplit("_", 1)[1]]
    # an edifice stands 25 squares out, none further
    reach = max(x * dx + y * dy for b in game.buildings() for x, y in b.squares)
    assert reach == 25
    for b in game.buildings():
        assert all(abs(x) <= 25 and abs(y) <= 25 for x, y in b.squares)
    # the cardinal was put on 26 right after the edifice on 25 was built
    far = f"C@{26 * dx},{26 * dy}"
    assert far in record["moves"]
    i = record["moves"].index(far)
    replay = Game(Rules(**record["rules"]))
    for move in record["moves"][: i + 1]:
        replay.play(move)
    assert replay.cardinal == (26 * dx, 26 * dy)
    # the same game is legal in the 53 x 53 window, and breaks the 51 x 51 window at exactly that move
    in_window = Game.from_record(dict(record, rules=dict(record["rules"], window=53)))
    assert in_window.history == game.history and in_window.scores() == game.scores()
    with pytest.raises(RecordError, match=rf"move {i} \('{far}'\) is illegal: window"):
        Game.from_record(dict(record, rules=dict(record["rules"], window=51)))
    # and the 49 x 49 window already refuses the edifice on 25
    with pytest.raises(RecordError) as info:
        Game.from_record(dict(record, rules=dict(record["rules"], window=49)))
    assert ": window:" in str(info.value)
    j = int(str(info.value).split("move ")[1].split(" ")[0])
    assert j < i and record["moves"][j][0] in "HTY"


def test_window_refuses_the_far_cardinal_in_play():
    path = GOLDEN / "window_bound_4p_west.json"
    moves = json.loads(path.read_text())["moves"]
    i = moves.index("C@-26,0")
    game = Game(Rules(players=4, window=51))
    for move in moves[:i]:
        game.play(move)
    assert "C@-26,0" not in game.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        game.play("C@-26,0")
    assert info.value.rule == "window"


def test_random_games_stay_inside_the_bound():
    rng = random.Random(2024)
    for i in range(150):
        rules = Rules(players=2 + i % 3, preset=("english", "german")[i % 2], shared_pool=(i % 5 == 0 and i % 3 != 0))
        game = Game(rules)
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
            if game.cardinal is not None:
                assert max(map(abs, game.cardinal)) <= 26
        assert all(max(abs(x), abs(y)) <= 25 for b in game.buildings() for x, y in b.squares)

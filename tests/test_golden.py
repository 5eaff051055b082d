"""Replay every golden record in tests/golden/ and check key facts against independent recomputation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reference import RefGame

from kardinal_env.kardinal import Game

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.json"))

# Hand-checked facts: final scores, winners and the cathedral tie-break counts.
FACTS = {
    "english_2p_tiebreak": ([33, 33], [0], [3, 1]),  # tie on 33, seat 0 built 3 edifices at the cathedral
    "english_2p_shared_win": ([32, 32], [0, 1], [2, 2]),  # tie on score and on the cathedral: both win
    "english_3p_tiebreak": ([20, 21, 21], [1], [1, 2, 0]),
    "german_3p": ([19, 14, 21], [2], [2, 2, 1]),
    "english_4p_three_winners": ([20, 20, 20, 16], [0, 1, 2], [1, 1, 1, 0]),
    "english_4p_shared_pool": ([6, 5, 7, 4], [2], [2, 1, 0, 1]),
    "german_3p_shared_pool": ([9, 13, 10], [1], [2, 0, 1]),
    "english_3p_window9": ([18, 12, 29], [2], [2, 1, 2]),
}


def test_every_golden_file_has_facts():
    names = {f.stem for f in FILES}
    assert set(FACTS) <= names
    assert len(FILES) >= len(FACTS)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_golden_replays(path):
    record = json.loads(path.read_text())
    game = Game.from_record(record)
    assert game.history == record["moves"]
    assert record["result"] is not None, "golden records are finished games"
    assert game.is_over
    chips = game.chips()
    # a score is the chips held plus the best colour once more
    assert game.scores() == [sum(h) + max(h) for h in chips] == record["result"]["scores"]
    # every chip is somewhere
    assert sum(game.supply()) + sum(map(sum, chips)) + sum(game.set_aside()) == 48
    # the tie-break counts, recomputed from the board
    cathedral = {(0, 0), (1, 0)}
    touches = [0] * game.num_players
    for b in game.buildings()[2:]:
        if any((x + dx, y + dy) in cathedral for x, y in b.squares for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
            touches[b.builder] += 1
    assert game.cathedral_touches() == touches
    scores = game.scores()
    tied = [s for s in range(game.num_players) if scores[s] == max(scores)]
    best = max(touches[s] for s in tied)
    assert game.winners() == [s for s in tied if touches[s] == best] == record["result"]["winners"]
    # final chips: leftovers of own colours were taken
    rules = game.rules
    if rules.shared_pool:
        assert game.set_aside() == [0, 0, 0, 0]
    else:
        assert game.supply() == [0, 0, 0, 0]
    if not rules.has_neutral:
        assert game.set_aside() == [0, 0, 0, 0]
    # an independent, brute-force implementation of docs/rules.md agrees on everything
    ref = RefGame(**rules.to_dict())
    for move in record["moves"]:
        assert move in ref.legal(), move
        ref.play(move)
    assert ref.phase == "over"
    assert ref.held == chips and ref.supply == game.supply() and ref.aside == game.set_aside()
    assert ref.scores == scores and ref.winners == game.winners()
    if path.stem in FACTS:
        exp_scores, exp_winners, exp_touches = FACTS[path.stem]
        assert scores == exp_scores
        assert game.winners() == exp_winners
        assert touches == exp_touches


def test_golden_variants_cover_the_brief():
    seen = set()
    for path in FILES:
        rules = json.loads(path.read_text())["rules"]
        seen.add((rules["players"], rules["preset"], rules["shared_pool"]))
    assert {(2, "english", False), (3, "german", False), (4, "english", True)} <= seen

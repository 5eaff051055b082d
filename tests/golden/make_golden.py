"""Regenerate the random-play golden records (not run by the tests; the JSON files are the truth).

    .venv/bin/python tests/golden/make_golden.py

Each record is a seeded random game: at every decision the player keeps the cardinal where it is
when allowed ("C-") and otherwise picks uniformly from ``legal_moves()``. The seeds were chosen for
the facts ``tests/test_golden.py`` checks (a score tie broken by the cathedral, a shared win, ...).
"""

import json
import random
from pathlib import Path

from kardinal_env.kardinal import Game, Rules

HERE = Path(__file__).parent

GAMES = {
    "english_2p_tiebreak": (dict(players=2), 42),
    "english_2p_shared_win": (dict(players=2), 12),
    "english_3p_tiebreak": (dict(players=3), 43),
    "german_3p": (dict(players=3, preset="german"), 5),
    "english_4p_three_winners": (dict(players=4), 17),
    "english_4p_shared_pool": (dict(players=4, shared_pool=True), 8),
    "german_3p_shared_pool": (dict(players=3, preset="german", shared_pool=True), 9),
    "english_3p_window9": (dict(players=3, window=9), 10),
}


def play(options, seed):
    rng = random.Random(seed)
    game = Game(Rules(**options))
    while not game.is_over:
        moves = game.legal_moves()
        game.play("C-" if "C-" in moves else rng.choice(moves))
    return game


def main():
    for name, (options, seed) in GAMES.items():
        game = play(options, seed)
        (HERE / f"{name}.json").write_text(json.dumps(game.to_record(), indent=1) + "\n")
        print(name, game.scores(), game.winners(), game.cathedral_touches())


if __name__ == "__main__":
    main()

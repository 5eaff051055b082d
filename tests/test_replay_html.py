"""HTML replays without a browser (tests/test_browser.py opens the pages in Chromium): every game's page is
self-contained, embeds its replay data and is written by the game's writer and by ``kardinal-replay FILE -o
game.html``; then Kardinal's own (kardinal_env.kardinal.replay_html: positions, the command line) and its
``rgb_array`` frame (kardinal_env.kardinal.render.game_image). K&K's own: tests/test_koenig_replay_html.py."""

from __future__ import annotations

import importlib
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from koenig_helpers import random_game as koenig_random_game

from kardinal_env import RecordError
from kardinal_env.core.registry import get_game
from kardinal_env.core.replay import write_html
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal import render as render_mod
from kardinal_env.kardinal.render import IMAGE_SIZE, game_image
from kardinal_env.kardinal.replay_html import embed_json, replay_data, replay_html

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_FILES = sorted(GOLDEN.glob("*.json"))


def _record(name: str = "german_3p") -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


def _random_game(players: int, seed: int, moves: int | None = None, **options) -> Game:
    rng = random.Random(seed)
    game = Game(Rules(players=players, **options))
    while not game.is_over and (moves is None or game.move_count < moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def _embedded(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert match, "no embedded replay data"
    return json.loads(match.group(1))


# ---------------------------------------------------------------- every game's replay page
#: Per game: a record, the page's game-specific element ids and text, and a move that makes it illegal.
PAGES = {
    "kardinal": (
        lambda: _record("english_4p_shared_pool"),
        ('id="chips"', "4 players, english rules, shared pool"),
        (5, "H0@9,9"),
    ),
    "kardinal_koenig": (
        lambda: koenig_random_game(players=5, seed=11).to_record(),
        (
            'id="seats"',
            "Kardinal &amp; König replay: 5 players, discard one, board default",
            "the record reveals every hand",
        ),
        (2, "K@FR1/9"),
    ),
}


def _page_module(game: str):
    return importlib.import_module(get_game(game).renderers.html_replay.partition(":")[0])


@pytest.mark.parametrize("game", sorted(PAGES))
def test_not_a_dict_is_refused(game):
    with pytest.raises(RecordError, match="format"):
        _page_module(game).replay_data(["not", "a", "record"])


@pytest.mark.parametrize("game", sorted(PAGES))
def test_page_is_self_contained_and_embeds_the_data(game):
    make, own, _ = PAGES[game]
    module, record = _page_module(game), make()
    page = module.replay_html(record)
    assert page.startswith("<!DOCTYPE html>")
    assert "http://" not in page and "https://" not in page and "//cdn" not in page
    assert not re.search(r"<script[^>]*\bsrc=", page), "external script"
    assert not re.search(r"<link[^>]*stylesheet", page), "external stylesheet"
    assert not re.search(r"\burl\(", page), "external resource in CSS"
    assert _embedded(page) == json.loads(json.dumps(module.replay_data(record)))
    for marker in ('id="board"', 'id="position"', 'id="scores"', 'id="moves"', 'id="slider"', *own):
        assert marker in page
    assert page.count("<script") == 2


@pytest.mark.parametrize("game", sorted(PAGES))
def test_write_replay_html_and_write_html(game, tmp_path):
    """The game's writer, and kardinal_env.core.replay.write_html, which finds the game by the record's
    format; an illegal move is refused naming the file and the move, and no page is written."""
    make, _, (index, move) = PAGES[game]
    module, record = _page_module(game), make()
    out = module.write_replay_html(record, tmp_path / "a.html")
    assert out == str(tmp_path / "a.html")
    assert Path(out).read_text(encoding="utf-8") == module.replay_html(record)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert write_html(str(path), str(tmp_path / "b.html")) == str(tmp_path / "b.html")
    assert (tmp_path / "b.html").read_text(encoding="utf-8") == module.replay_html(record, source=str(path))
    bad = tmp_path / "bad.json"
    record["moves"][index] = move
    bad.write_text(json.dumps(record))
    with pytest.raises(RecordError, match=re.escape(f"{bad}: move {index} ({move!r}) is illegal")):
        write_html(str(bad), str(tmp_path / "c.html"))
    assert not (tmp_path / "c.html").exists()


# ---------------------------------------------------------------- positions


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_every_position_matches_the_engine(path):
    record = json.loads(path.read_text())
    data = replay_data(record)
    moves = record["moves"]
    assert len(data["positions"]) == len(moves) + 1
    assert data["moves"] == moves and data["result"] == record["result"]
    game = Game(Rules.from_dict(record["rules"]))
    for k, pos in enumerate(data["positions"]):
        if k:
            game.play(moves[k - 1])
        shown = [
            (b["id"], b["shape"], b["colour"], [tuple(sq) for sq in b["squares"]], b["builder"])
            for b in data["buildings"][: pos["nb"]]
        ]
        assert shown == [(b.id, b.shape, b.colour, list(b.squares), b.builder) for b in game.buildings()], k
        assert pos["cardinal"] == (None if game.cardinal is None else list(game.cardinal)), k
        assert pos["sites"] == [list(sq) for sq in game.sites()], k
        assert pos["chips"] == game.chips() and pos["supply"] == game.supply() and pos["aside"] == game.set_aside()
        assert pos["phase"] == game.phase and pos["seat"] == game.current_player, k
        assert pos["projected"] == game.projected_scores(), k
        assert pos["last"] == (moves[k - 1] if k else None)
    assert data["positions"][-1]["projected"] == record["result"]["scores"]


def test_last_move_and_mover_and_last_edifice():
    record = _record()
    data = replay_data(record)
    game = Game(Rules.from_dict(record["rules"]))
    last_built = -1
    for k, move in enumerate(record["moves"], start=1):
        seat = game.current_player
        count = len(game.buildings())
        game.play(move)
        if len(game.buildings()) > count:
            last_built = count
        pos = data["positions"][k]
        assert pos["mover"] == seat and pos["last"] == move
        assert pos["last_id"] == last_built
    assert data["positions"][0]["last_id"] == -1 and data["positions"][0]["mover"] is None


def test_unfinished_record_replays():
    game = _random_game(4, seed=5, moves=17)
    data = replay_data(game.to_record())
    assert data["result"] is None and len(data["positions"]) == 18
    assert data["positions"][-1]["phase"] == game.phase
    page = replay_html(game.to_record())
    assert _embedded(page)["result"] is None


@pytest.mark.parametrize(
    "change,fragment",
    [
        (lambda r: r["moves"].__setitem__(3, "H1@-1,0"), "record: move 3 ('H1@-1,0') is illegal: rule IV"),
        (lambda r: r.__setitem__("format", "x"), "field 'format' must be 'kardinal-record/1'"),
        (lambda r: r["result"].update(scores=[0, 0, 0]), "result.scores [0, 0, 0] != replayed scores"),
        (lambda r: r.pop("rules"), "missing field 'rules'"),
    ],
    ids=["illegal", "format", "result", "rules"],
)
def test_bad_records_raise_record_error(change, fragment):
    record = _record()
    change(record)
    with pytest.raises(RecordError, match=re.escape(fragment)):
        replay_html(record)


# ---------------------------------------------------------------- the page


def test_embed_json_cannot_close_the_script_element():
    value = {"text": "</script><script>alert(1)</script> & <!--"}
    text = embed_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


@pytest.fixture
def replay(cli):
    """``kardinal-replay`` in-process: ``replay(*args)`` gives its exit status, stdout and stderr."""
    from kardinal_env.core.replay import main

    return lambda *args: cli(main, args)


def test_cli_output_option(tmp_path, replay):
    out = tmp_path / "game.html"
    result = replay(str(GOLDEN / "german_3p.json"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "record OK: 47 moves replayed" in result.stdout
    assert f"wrote HTML replay: {out}" in result.stdout
    assert out.read_text(encoding="utf-8") == replay_html(_record(), source=str(GOLDEN / "german_3p.json"))


def test_cli_output_errors(tmp_path, replay):
    result = replay(str(GOLDEN / "german_3p.json"), "-o", str(tmp_path))
    assert result.returncode == 2 and "not a directory" in result.stderr
    result = replay(str(GOLDEN / "german_3p.json"), "-o", str(tmp_path / "missing" / "x.html"))
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: {tmp_path / 'missing' / 'x.html'}: cannot write the HTML replay")
    bad = tmp_path / "bad.json"
    record = _record()
    record["result"]["winners"] = [0]
    bad.write_text(json.dumps(record))
    result = replay(str(bad), "-o", str(tmp_path / "x.html"))
    assert result.returncode == 1 and "result.winners [0] != replayed winners" in result.stderr
    assert not (tmp_path / "x.html").exists() and result.stdout == ""


# ---------------------------------------------------------------- the rgb_array frame


def _colour_count(img: np.ndarray, rgb) -> int:
    return int((img == np.array(rgb, dtype=np.uint8)).all(axis=2).sum())


def test_frame_size_is_fixed_whatever_the_position():
    assert IMAGE_SIZE == (640, 640)
    for game in (Game(Rules(players=2)), _random_game(4, seed=1, moves=20), _random_game(3, seed=2)):
        img = game_image(game)
        assert img.dtype == np.uint8 and img.shape == (640, 640, 3)
    img = game_image(_random_game(2, seed=3), size=(320, 200))
    assert img.shape == (200, 320, 3)


@pytest.mark.parametrize("size", [(50, 640), (640,), "640x640", (640.0, 640), (True, 640)])
def test_frame_bad_size(size):
    with pytest.raises(ValueError, match="game_image: size"):
        game_image(Game(Rules(players=2)), size=size)


def test_frame_zooms_to_the_castle():
    """The opening cathedral fills far more than the old 12 px per square (2 x 24 x 24 px)."""
    img = game_image(Game(Rules(players=2)))
    assert _colour_count(img, render_mod._CATHEDRAL) > 3000
    late = game_image(_random_game(4, seed=7))
    for c in range(4):  # every colour is on the board at the end of a 4-player game
        assert _colour_count(late, render_mod._PALETTE[c]) > 200


def test_frame_panel_shows_text_legend_and_winners():
    game = _random_game(4, seed=11)
    img = game_image(game)
    board_h = 640 - ((4 + 3) * 18 + 4 + 4)
    panel = img[board_h:]
    assert _colour_count(panel, render_mod._TEXT) > 2000  # the text lines
    assert _colour_count(panel, render_mod._WINNER) > 100  # the winner's row
    assert _colour_count(panel, render_mod._CARDINAL) > 20  # legend icon
    # the winner's row is drawn in the winner colour, the others are not
    line = 18
    top = board_h + 2 + 2 + line
    for seat in range(4):
        row = panel[top - board_h + seat * line : top - board_h + (seat + 1) * line]
        assert (_colour_count(row, render_mod._WINNER) > 50) == (seat in game.winners()), seat


def test_frame_text_changes_with_the_chips():
    """The same board with different chips held draws a different panel (the numbers are drawn)."""
    a = _random_game(2, seed=4, moves=2)  # first build + compensation chip taken
    b = Game(Rules(players=2))
    b.play(a.history[0])
    img_a, img_b = game_image(a), game_image(b)
    board_h = 640 - ((2 + 3) * 18 + 4 + 4)
    assert (img_a[board_h:] != img_b[board_h:]).any()


def test_frame_marks_last_edifice_and_window():
    game = _random_game(3, seed=2, moves=10, window=7)
    img = game_image(game, window=7)
    assert _colour_count(img, render_mod._LAST) > 100
    assert _colour_count(img, render_mod._OUTSIDE) > 0  # the view (at least 7 x 7) reaches past the 7 x 7 window
    full = _random_game(3, seed=2, moves=10)
    assert _colour_count(game_image(full), render_mod._OUTSIDE) == 0


def test_env_rgb_array_frame():
    from kardinal_env import kardinal_v0

    env = kardinal_v0.raw_env(players=3, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.shape == (640, 640, 3) and img.dtype == np.uint8

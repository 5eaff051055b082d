"""The Kardinal & König HTML replay (kardinal_env.koenig.replay_html) in a real headless Chromium, driven
by Playwright for Python.

Marked ``browser`` (deselect with ``-m "not browser"``); the fixtures ``browser``, ``tab`` and ``shots``
are in tests/conftest.py (Debian's /usr/bin/chromium, installed by scripts/setup_browser.sh when
missing). Screenshots go to the test's tmp directory (``KARDINAL_SCREENSHOTS=DIR`` keeps them).
"""

from __future__ import annotations

import json

import pytest
from koenig_helpers import random_game

from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig.notation import parse_move
from kardinal_env.koenig.replay_html import write_replay_html

pytestmark = pytest.mark.browser


def _engine(record: dict, k: int) -> Game:
    """The record's game after its first ``k`` moves (the record's deck and reshuffle fix every card)."""
    game = Game(Rules.from_dict(record["rules"]), deck=record["deck"], reshuffle=record["reshuffle"])
    for move in record["moves"][:k]:
        game.play(move)
    return game


def _expected(record: dict, k: int) -> dict:
    game = _engine(record, k)
    board = game.board
    return {
        "owners": {sid: ("" if o is None else str(o)) for sid, o in zip(board.site_ids, game.owners(), strict=True)},
        "advisors": dict(zip(board.country_ids, game.advisor_counts(), strict=True)),
        "hands": [game.hand(s) for s in range(game.num_players)],
        "display": game.display(),
        "deck": str(game.deck_size()),
        "scores": game.scores(),
    }


def _shown(page) -> dict:
    owners = page.eval_on_selector_all("circle.site", "els => els.map(e => [e.dataset.site, e.dataset.owner])")
    seals = page.eval_on_selector_all("g.seal", "els => els.map(e => [e.dataset.country, e.dataset.advisors])")
    return {
        "owners": dict(owners),
        "advisors": {c: json.loads(a) for c, a in seals},
        "hands": json.loads(page.get_attribute("#seats", "data-hands")),
        "display": json.loads(page.get_attribute("#cards", "data-display")),
        "deck": page.get_attribute("#cards", "data-deck"),
        "scores": json.loads(page.get_attribute("#seats", "data-scores")),
    }


def _last_marked(page) -> dict | None:
    script = "els => els.map(e => ({site: e.dataset.site, country: e.dataset.country}))"
    marks = page.eval_on_selector_all(".last", script)
    assert len(marks) <= 1
    if not marks:
        return None
    return {key: value for key, value in marks[0].items() if value is not None}


def _touched(move: str) -> dict | None:
    parsed = parse_move(move)
    return {"K": {"site": parsed.target}, "A": {"country": parsed.target}}.get(parsed.kind)


def _open(tab, tmp_path, record, name="kk.html", hash_part=""):
    path = tmp_path / name
    write_replay_html(record, path)
    tab.page.goto(path.as_uri() + hash_part)
    tab.page.wait_for_selector("body[data-ready='1']")
    return path


@pytest.fixture(scope="module")
def record() -> dict:
    return random_game(players=4, seed=3).to_record()


def test_koenig_replay_loads_and_shows_the_final_scores(tab, tmp_path, shots, record):
    _open(tab, tmp_path, record)
    page = tab.page
    n = len(record["moves"])
    assert page.text_content("#position") == f"0 / {n}"
    assert _shown(page) == _expected(record, 0)
    assert json.loads(page.get_attribute("#scores", "data-scores")) == record["result"]["scores"]
    assert json.loads(page.get_attribute("#scores", "data-winners")) == record["result"]["winners"]
    cells = page.eval_on_selector_all("#scores tr[data-seat]", "rows => rows.map(r => +r.children[1].textContent)")
    assert cells == record["result"]["scores"]
    winners = page.eval_on_selector_all("#scores tr.winner", "rows => rows.map(r => +r.dataset.seat)")
    assert winners == record["result"]["winners"]
    # the move list: every move with the seat that made it
    listed = page.eval_on_selector_all("#moves li", "lis => lis.map(li => [+li.dataset.seat, li.textContent])")
    log = Game.from_record(record).decision_log()
    assert listed == [[seat, f"{seat}{move}"] for seat, move in log]
    assert "the record reveals every hand" in page.text_content("aside")
    page.keyboard.press("End")
    assert page.get_attribute("#position", "data-k") == str(n)
    assert _shown(page) == _expected(record, n)
    assert json.loads(page.get_attribute("#seats", "data-projected")) == record["result"]["scores"]
    assert page.text_content("#status") == "game over"
    page.screenshot(path=str(shots / "koenig_end.png"))
    assert tab.problems == []


def test_koenig_position_k_shows_the_engine_position(tab, tmp_path, shots, record):
    n = len(record["moves"])
    _open(tab, tmp_path, record)
    page = tab.page
    for k in range(1, 9):  # step with the keyboard
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("#position", "data-k") == str(k)
        assert _shown(page) == _expected(record, k), k
        assert _last_marked(page) == _touched(record["moves"][k - 1]), k
    page.keyboard.press("ArrowLeft")
    assert _shown(page) == _expected(record, 7)
    # click moves in the list: the position after each, with the site or seal it touched outlined
    places = [i for i, m in enumerate(record["moves"]) if m[0] in "KA"]
    for index in (places[5], places[len(places) // 2], n - 1):
        page.click(f"#moves li[data-index='{index}']")
        assert page.get_attribute("#position", "data-k") == str(index + 1)
        assert _shown(page) == _expected(record, index + 1), index
        assert _last_marked(page) == _touched(record["moves"][index]), index
    page.click(f"#moves li[data-index='{places[len(places) // 2]}']")
    page.screenshot(path=str(shots / "koenig_middle.png"))
    # the slider, Home and the buttons
    page.locator("#slider").fill("57")
    assert page.get_attribute("#position", "data-k") == "57"
    assert _shown(page) == _expected(record, 57)
    page.keyboard.press("Home")
    assert _shown(page) == _expected(record, 0) and _last_marked(page) is None
    page.click("#last-btn")
    page.click("#prev")
    assert _shown(page) == _expected(record, n - 1)
    # a position in the address
    _open(tab, tmp_path, record, "again.html", "#90")
    assert page.get_attribute("#position", "data-k") == "90"
    assert _shown(page) == _expected(record, 90)
    assert tab.problems == []


def test_koenig_replay_of_an_unfinished_game(tab, tmp_path, shots):
    game = random_game(players=5, seed=4)
    partial = _engine(game.to_record(), 30).to_record()
    _open(tab, tmp_path, partial)
    page = tab.page
    assert page.get_attribute("#scores", "data-scores") == "[]"
    assert "unfinished game (30 moves recorded)" in page.text_content("#scores")
    page.keyboard.press("End")
    assert _shown(page) == _expected(partial, 30)
    assert page.text_content("#status").startswith(f"seat {_engine(partial, 30).current_player} to decide")
    page.screenshot(path=str(shots / "koenig_unfinished_5p.png"))
    assert tab.problems == []

"""The HTML replay and the play page in a real headless Chromium, driven by Playwright for Python.

Marked ``browser`` (deselect with ``-m "not browser"``). Chromium is Debian's ``chromium`` package at
/usr/bin/chromium (Playwright's own browser download is not used); when it or the ``playwright``
package is missing, the module fixture runs ``scripts/setup_browser.sh`` to install them, and
fails with that script's output if it cannot. Screenshots go to the test's tmp directory
(``KARDINAL_SCREENSHOTS=DIR`` keeps them in DIR instead).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.serving.webplay import make_server
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.replay_html import write_replay_html

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"


# The fixtures ``browser`` (headless Chromium via Playwright, installed by scripts/setup_browser.sh
# where missing), ``shots`` and ``tab`` live in tests/conftest.py (shared with test_browser_koenig.py).


def _record(name="german_3p") -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


def _engine_edifices(record: dict, k: int) -> tuple[list[tuple], tuple | None, list]:
    game = Game(Rules.from_dict(record["rules"]))
    for move in record["moves"][:k]:
        game.play(move)
    buildings = sorted(
        (b.shape, "" if b.colour is None else str(b.colour), " ".join(f"{x},{y}" for x, y in b.squares))
        for b in game.buildings()
    )
    return buildings, game.cardinal, game.chips()


def _shown(page) -> tuple[list[tuple], tuple | None, list]:
    buildings = page.eval_on_selector_all(
        "rect.building", "els => els.map(e => [e.dataset.shape, e.dataset.colour, e.dataset.squares])"
    )
    cardinal = page.eval_on_selector_all("#cardinal", "els => els.map(e => [+e.dataset.x, +e.dataset.y])")
    chips = json.loads(page.get_attribute("#chips", "data-chips"))
    return sorted(tuple(b) for b in buildings), (tuple(cardinal[0]) if cardinal else None), chips


def _open_replay(tab, tmp_path, record, name="game.html", hash_part=""):
    path = tmp_path / name
    write_replay_html(record, path)
    tab.page.goto(path.as_uri() + hash_part)
    tab.page.wait_for_selector("body[data-ready='1']")
    return path


# ---------------------------------------------------------------- replay page


def test_replay_page_loads_and_shows_the_final_scores(tab, tmp_path, shots):
    record = _record("english_4p_three_winners")
    _open_replay(tab, tmp_path, record)
    page = tab.page
    n = len(record["moves"])
    assert page.text_content("#position") == f"0 / {n}"
    assert json.loads(page.get_attribute("#scores", "data-scores")) == record["result"]["scores"]
    assert json.loads(page.get_attribute("#scores", "data-winners")) == record["result"]["winners"]
    cells = page.eval_on_selector_all("#scores tr[data-seat]", "rows => rows.map(r => +r.children[1].textContent)")
    assert cells == record["result"]["scores"]
    winners = page.eval_on_selector_all("#scores tr.winner", "rows => rows.map(r => +r.dataset.seat)")
    assert winners == record["result"]["winners"]
    assert page.locator("#moves li").count() == n
    page.keyboard.press("End")
    assert page.get_attribute("#position", "data-k") == str(n)
    # at the end the chips table's scores are the final ones
    projected = json.loads(page.get_attribute("#chips", "data-projected"))
    assert projected == record["result"]["scores"]
    page.screenshot(path=str(shots / "replay_end.png"))
    assert tab.problems == []


def test_replay_position_k_shows_the_engine_position(tab, tmp_path, shots):
    record = _record("german_3p")
    n = len(record["moves"])
    _open_replay(tab, tmp_path, record)
    page = tab.page
    assert _shown(page) == _engine_edifices(record, 0)
    # step with the keyboard
    for k in range(1, 6):
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("#position", "data-k") == str(k)
        assert _shown(page) == _engine_edifices(record, k), k
    page.keyboard.press("ArrowLeft")
    assert _shown(page) == _engine_edifices(record, 4)
    # click a move in the list: the position after it
    for index in (9, 30, n - 1):
        page.click(f"#moves li[data-index='{index}']")
        assert page.get_attribute("#position", "data-k") == str(index + 1)
        assert _shown(page) == _engine_edifices(record, index + 1), index
    page.screenshot(path=str(shots / "replay_click.png"))
    # the slider
    page.locator("#slider").fill("17")
    assert page.get_attribute("#position", "data-k") == "17"
    assert _shown(page) == _engine_edifices(record, 17)
    # Home, End and the buttons
    page.keyboard.press("Home")
    assert _shown(page) == _engine_edifices(record, 0)
    page.click("#last-btn")
    assert _shown(page) == _engine_edifices(record, n)
    page.click("#prev")
    assert _shown(page) == _engine_edifices(record, n - 1)
    # a position in the address
    _open_replay(tab, tmp_path, record, "again.html", "#23")
    assert page.get_attribute("#position", "data-k") == "23"
    assert _shown(page) == _engine_edifices(record, 23)
    last = page.eval_on_selector_all("rect.last", "els => els.length")
    assert last == 1  # the edifice built last is outlined
    page.screenshot(path=str(shots / "replay_23.png"))
    assert tab.problems == []


def test_replay_of_an_unfinished_window_game(tab, tmp_path):
    record = _record("english_3p_window9")
    record = {**record, "moves": record["moves"][:20], "result": None}
    _open_replay(tab, tmp_path, record)
    page = tab.page
    assert page.get_attribute("#scores", "data-scores") == "[]"
    assert "unfinished game" in page.text_content("#scores")
    page.keyboard.press("End")
    assert _shown(page) == _engine_edifices(record, 20)
    assert tab.problems == []


# ---------------------------------------------------------------- play page


def _click_one_decision(page) -> None:
    """One decision of the person, by clicking what the page offers (always the first choice)."""
    phase = page.get_attribute("body", "data-phase")
    if phase == "build":
        page.click("#actions button.pick >> nth=0")
        page.click("rect.target >> nth=0")
        if page.locator("rect.target.chosen").count():  # a yard: its second square
            page.click("rect.target.final >> nth=0")
    elif phase == "chip":
        page.click("#actions button.chip >> nth=0")
    elif page.locator("rect.target.final").count():
        page.click("rect.target.final >> nth=0")
    else:
        page.click("#actions button.keep")


def _wait_idle(page, moves_before: str) -> None:
    page.wait_for_function(
        "m => document.body.dataset.moves !== m && document.body.dataset.busy === '0'", arg=moves_before
    )


def test_play_a_full_game_by_clicking_and_download_it(tab, tmp_path, shots):
    with make_server(["random"], players=2, human_seat=1, port=0, seed=4) as server:
        page = tab.page
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1']")
        page.screenshot(path=str(shots / "play_start.png"))
        decisions = 0
        while page.get_attribute("body", "data-phase") != "over":
            assert page.get_attribute("body", "data-your-turn") == "1"
            before = page.get_attribute("body", "data-moves")
            _click_one_decision(page)
            _wait_idle(page, before)
            decisions += 1
            if decisions == 10:
                page.screenshot(path=str(shots / "play_middle.png"))
            assert decisions < 200
        page.screenshot(path=str(shots / "play_end.png"))
        state = server.session.state()
        assert state["result"] is not None and decisions >= 10
        shown = json.loads(page.get_attribute("#scores", "data-scores"))
        assert shown == state["result"]["scores"]
        assert "Game over" in page.text_content("#status")
        with page.expect_download() as download:
            page.click("#download")
        path = tmp_path / "downloaded.json"
        download.value.save_as(path)
        game = Game.load(str(path))  # replays every move and checks the recorded result
        assert game.scores() == shown and game.winners() == state["result"]["winners"]
        assert game.history == state["history"]
        assert 1 in state["movers"] and 0 in state["movers"]
    assert tab.problems == []


def test_play_page_refuses_a_forged_illegal_request(tab, shots):
    with make_server(["random"], players=2, human_seat=0, port=0, seed=1) as server:
        page = tab.page
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1']")
        for _ in range(3):  # a few moves in, so the forged move has a position to break
            before = page.get_attribute("body", "data-moves")
            _click_one_decision(page)
            _wait_idle(page, before)
        state = server.session.state()
        shown_before = page.eval_on_selector_all("rect.building", "els => els.map(e => e.dataset.squares)")
        forged = ["H0@0,1", "H0@40,40", "chip:2", "C-", "Y0@0,1:0,3", "<script>"]
        for move in forged:
            assert move not in state["legal"]
            reply = page.evaluate(
                """async move => {
                    const r = await fetch("/api/move", {method: "POST", headers: {"Content-Type": "application/json"},
                                                        body: JSON.stringify({session: S.session, move: move})});
                    return {status: r.status, body: await r.json()};
                }""",
                move,
            )
            assert reply["status"] == 400, (move, reply)
            assert reply["body"]["rule"] and reply["body"]["error"].startswith(f"illegal move {move!r}")
            assert server.session.state() == state  # nothing changed
        # a stale request (an old move count) is refused too
        reply = page.evaluate(
            """async move => (await fetch("/api/move", {method: "POST",
                                                        body: JSON.stringify({session: S.session, move: move, at: 0})}))
                .status""",
            state["legal"][0],
        )
        assert reply == 409 and server.session.state() == state
        # so is a legal move without this server's session token (as another site's page would send it)
        for body in ({"move": state["legal"][0]}, {"session": "guessed", "move": state["legal"][0]}):
            reply = page.evaluate(
                """async body => {
                    const r = await fetch("/api/move", {method: "POST", body: JSON.stringify(body)});
                    return {status: r.status, body: await r.json()};
                }""",
                body,
            )
            assert reply["status"] == 403 and reply["body"]["rule"] == "session"
            assert server.session.state() == state
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert page.get_attribute("body", "data-moves") == str(state["move_count"])
        assert page.eval_on_selector_all("rect.building", "els => els.map(e => e.dataset.squares)") == shown_before
        page.screenshot(path=str(shots / "play_after_forgery.png"))

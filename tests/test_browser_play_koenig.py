"""Kardinal & König's play page (agents.serving.webplay with agents.serving.koenig_page) in a real
headless Chromium, driven by Playwright for Python: a whole game against ``random`` played by clicking
the map, the payment buttons, the discard / end buttons and the display and deck; the downloaded
record replays to the result shown; forged requests are refused and change nothing.

Marked ``browser`` (deselect with ``-m "not browser"``); the fixtures ``browser``, ``tab`` and ``shots``
are in tests/conftest.py (Debian's /usr/bin/chromium, installed by scripts/setup_browser.sh when
missing). Screenshots go to the test's tmp directory (``KARDINAL_SCREENSHOTS=DIR`` keeps them).
"""

from __future__ import annotations

import json
import random

import pytest

from agents.serving.webplay import make_server
from kardinal_env.koenig import Game

pytestmark = pytest.mark.browser

#: What the person may click on a decision of the page.
CHOICES = ".site.target, .seal.target, #actions button.discard, #actions button.end, button.draw"

FETCH = """async ([body, raw]) => {
    const r = await fetch("/api/move", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: raw === null ? JSON.stringify(body) : raw});
    return {status: r.status, body: await r.json()};
}"""


def _open(tab, server) -> None:
    tab.page.goto(server.url)
    tab.page.wait_for_selector("body[data-ready='1']")


def _click_one_decision(page, rng: random.Random) -> str:
    """One decision of the person by clicking what the page offers (a seeded random choice); what was clicked."""
    choices = page.locator(CHOICES)
    count = choices.count()
    assert count, "the page offers nothing to click on the person's turn"
    choice = choices.nth(rng.randrange(count))
    what = choice.evaluate("e => e.dataset.site ? 'site' : e.dataset.country ? 'seal' : e.dataset.move")
    choice.click()
    payments = page.locator("#actions button.pay")
    if what in ("site", "seal") and payments.count():  # several ways to pay: a button each
        assert page.locator(".ring.chosen").count() == 1
        payments.nth(rng.randrange(payments.count())).click()
    return what


def _wait_idle(page, moves_before: str) -> None:
    page.wait_for_function(
        "m => document.body.dataset.moves !== m && document.body.dataset.busy === '0'", arg=moves_before
    )


def test_play_a_full_koenig_game_by_clicking_and_download_it(tab, tmp_path, shots):
    with make_server(["random"], human_seat=1, port=0, seed=6, game="kardinal_koenig") as server:
        page = tab.page
        _open(tab, server)
        page.screenshot(path=str(shots / "koenig_play_start.png"))
        # the download is refused while the game runs (the record holds every hand and the deck order)
        assert "disabled" in page.get_attribute("#download", "class")
        rng = random.Random(1)
        clicked: set[str] = set()
        decisions = 0
        while page.get_attribute("body", "data-over") != "1":
            assert page.get_attribute("body", "data-your-turn") == "1"
            state = server.session.state()
            # the page shows the person's hand, the display and the deck as the server has them
            assert json.loads(page.get_attribute("#hand", "data-hand")) == state["hand"]
            assert json.loads(page.get_attribute("#cards", "data-display")) == state["display"]
            assert page.get_attribute("#cards", "data-deck") == str(state["deck_size"])
            before = page.get_attribute("body", "data-moves")
            what = _click_one_decision(page, rng)
            clicked.add(what if what in ("site", "seal", "end") else what.split(":")[0])
            _wait_idle(page, before)
            decisions += 1
            if decisions == 25:
                page.screenshot(path=str(shots / "koenig_play_middle.png"))
            assert decisions < 250
        page.screenshot(path=str(shots / "koenig_play_end.png"))
        state = server.session.state()
        assert state["result"] is not None and decisions >= 20
        assert {"site", "draw"} <= clicked
        shown = json.loads(page.get_attribute("#scores", "data-scores"))
        assert shown == state["result"]["scores"]
        assert json.loads(page.get_attribute("#scores", "data-winners")) == state["result"]["winners"]
        assert "Game over" in page.text_content("#status")
        # the other seats' cards never appear: the seats table shows card backs and counts
        rows = page.eval_on_selector_all("#seats tr[data-seat]", "rows => rows.map(r => r.innerHTML)")
        for seat, row in enumerate(rows):
            assert ('class="card' in row) == (seat == 1 and bool(state["hand"])), row
        with page.expect_download() as download:
            page.click("#download")
        path = tmp_path / "downloaded.json"
        download.value.save_as(path)
        game = Game.load(str(path))  # replays every move (the record's deck) and checks the recorded result
        assert game.scores() == shown and game.winners() == state["result"]["winners"]
        assert game.history == state["history"] and game.hand(1) == state["hand"]
        assert [seat for seat, _ in game.decision_log()] == state["movers"]
    assert tab.problems == []


def test_koenig_play_page_refuses_forged_requests(tab, shots):
    with make_server(["random"], players=3, port=0, seed=2, game="kardinal_koenig") as server:
        page = tab.page
        _open(tab, server)
        rng = random.Random(0)
        for _ in range(4):  # a few decisions in
            before = page.get_attribute("body", "data-moves")
            _click_one_decision(page, rng)
            _wait_idle(page, before)
        state = server.session.state()
        token = page.evaluate("S.session")
        assert token == state["session"]
        forged = [
            ({"session": token, "move": "K@XX1/0"}, 400, "unknown id"),
            ({"session": token, "move": "discard:9"}, 400, "unknown id"),
            ({"session": token, "move": "hello"}, 400, "malformed move"),
            ({"session": token, "move": "A@IT/2", "at": state["move_count"] + 5}, 409, "stale"),
            ({"session": token, "move": "draw:deck", "seat": 2}, 400, "request"),
            ({"move": state["legal"][0]}, 403, "session"),
            ({"session": "guessed", "move": state["legal"][0]}, 403, "session"),
        ]
        for body, status, rule in forged:
            reply = page.evaluate(FETCH, [body, None])
            assert reply["status"] == status and reply["body"]["rule"] == rule, (body, reply)
            assert server.session.state() == state
        reply = page.evaluate(FETCH, [None, "{not json"])
        assert reply["status"] == 400 and "not JSON" in reply["body"]["error"]
        reply = page.evaluate("async () => (await fetch('/api/record')).status")
        assert reply == 403 and server.session.state() == state
        # a move while another seat decides (its agent has failed) is refused: "turn"
        server.session.agents[2].select_move = lambda game: (_ for _ in ()).throw(RuntimeError("stuck"))
        while server.session.state()["your_turn"]:
            before = page.get_attribute("body", "data-moves")
            _click_one_decision(page, rng)
            _wait_idle(page, before)
        assert "agent random (seat 2) failed: RuntimeError: stuck" in page.text_content("#status")
        stuck = server.session.state()
        assert stuck["phase"] is None and stuck["legal"] == []  # another seat's phase is not shown
        reply = page.evaluate(FETCH, [{"session": token, "move": server.session.game.legal_moves()[0]}, None])
        assert reply["status"] == 400 and reply["body"]["rule"] == "turn"
        assert server.session.state() == stuck
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert page.locator(CHOICES).count() == 0  # nothing to click while it is not your turn
        page.screenshot(path=str(shots / "koenig_play_after_forgery.png"))
    # the browser logs each refused request; nothing else went wrong on the page
    assert [p for p in tab.problems if "Failed to load resource" not in p] == []
    assert len(tab.problems) == len(forged) + 3

"""Both games' HTML replays and play pages in a real headless Chromium, driven by Playwright for Python,
parametrized over the games where they test the same thing.

Marked ``browser`` (deselect with ``-m "not browser"``); the fixtures ``browser``, ``tab`` and ``shots``
are in tests/conftest.py (Debian's /usr/bin/chromium, installed by scripts/setup_browser.sh when
missing). Screenshots go to the test's tmp directory (``KARDINAL_SCREENSHOTS=DIR`` keeps them in DIR).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from koenig_helpers import random_game

from agents.serving.webplay import make_server
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.replay_html import write_replay_html
from kardinal_env.koenig import Game as KoenigGame
from kardinal_env.koenig import Rules as KoenigRules
from kardinal_env.koenig.notation import parse_move
from kardinal_env.koenig.replay_html import write_replay_html as write_koenig_replay_html

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).parent / "golden"
GAMES = ["kardinal", "kardinal_koenig"]

FETCH = """async ([body, raw]) => {
    const r = await fetch("/api/move", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: raw === null ? JSON.stringify(body) : raw});
    return {status: r.status, body: await r.json()};
}"""


def _golden(name: str) -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


# ---------------------------------------------------------------- what each game's pages show
class Kardinal:
    """Kardinal's pages: the edifices, the cardinal and the chips shown against the engine's."""

    name, shot = "kardinal", ""
    write_replay = staticmethod(write_replay_html)
    projected = "#chips"  # the panel whose data-projected holds the scores at the end
    #: A play page's clickable choices (a whole decision is _click_one_decision's).
    choices = "#actions button, rect.target"

    @staticmethod
    def records() -> tuple[dict, dict, dict]:
        """A finished record, one to step through, an unfinished one."""
        unfinished = _golden("english_3p_window9")
        unfinished = {**unfinished, "moves": unfinished["moves"][:20], "result": None}
        return _golden("english_4p_three_winners"), _golden("german_3p"), unfinished

    @staticmethod
    def expected(record: dict, k: int) -> tuple:
        game = Game(Rules.from_dict(record["rules"]))
        for move in record["moves"][:k]:
            game.play(move)
        buildings = sorted(
            (b.shape, "" if b.colour is None else str(b.colour), " ".join(f"{x},{y}" for x, y in b.squares))
            for b in game.buildings()
        )
        return buildings, game.cardinal, game.chips()

    @staticmethod
    def shown(page) -> tuple:
        buildings = page.eval_on_selector_all(
            "rect.building", "els => els.map(e => [e.dataset.shape, e.dataset.colour, e.dataset.squares])"
        )
        cardinal = page.eval_on_selector_all("#cardinal", "els => els.map(e => [+e.dataset.x, +e.dataset.y])")
        chips = json.loads(page.get_attribute("#chips", "data-chips"))
        return sorted(tuple(b) for b in buildings), (tuple(cardinal[0]) if cardinal else None), chips

    @staticmethod
    def last_marked(page, record: dict, k: int) -> bool:
        """The edifice built last is outlined (none before the first move)."""
        return page.eval_on_selector_all("rect.last", "els => els.length") == (1 if k else 0)

    @staticmethod
    def play_shown(page) -> list:
        return page.eval_on_selector_all("rect.building", "els => els.map(e => e.dataset.squares)")

    @staticmethod
    def click_one_decision(page, rng: random.Random) -> str:
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
        return phase


class Koenig:
    """Kardinal & König's pages: the map's owners and advisors, the hands, display, deck and scores."""

    name, shot = "kardinal_koenig", "koenig_"
    write_replay = staticmethod(write_koenig_replay_html)
    projected = "#seats"
    choices = ".site.target, .seal.target, #actions button.discard, #actions button.end, button.draw"

    @staticmethod
    def records() -> tuple[dict, dict, dict]:
        record = random_game(players=4, seed=3).to_record()
        return record, record, Koenig.engine(random_game(players=5, seed=4).to_record(), 30).to_record()

    @staticmethod
    def engine(record: dict, k: int) -> KoenigGame:
        """The record's game after its first ``k`` moves (the record's deck and reshuffle fix every card)."""
        game = KoenigGame(KoenigRules.from_dict(record["rules"]), deck=record["deck"], reshuffle=record["reshuffle"])
        for move in record["moves"][:k]:
            game.play(move)
        return game

    @staticmethod
    def expected(record: dict, k: int) -> dict:
        game = Koenig.engine(record, k)
        board = game.board
        return {
            "owners": {
                sid: ("" if o is None else str(o)) for sid, o in zip(board.site_ids, game.owners(), strict=True)
            },
            "advisors": dict(zip(board.country_ids, game.advisor_counts(), strict=True)),
            "hands": [game.hand(s) for s in range(game.num_players)],
            "display": game.display(),
            "deck": str(game.deck_size()),
            "scores": game.scores(),
        }

    @staticmethod
    def shown(page) -> dict:
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

    @staticmethod
    def last_marked(page, record: dict, k: int) -> bool:
        """The site or seal the last move touched is outlined, nothing else."""
        script = "els => els.map(e => ({site: e.dataset.site, country: e.dataset.country}))"
        marks = page.eval_on_selector_all(".last", script)
        shown = {key: value for key, value in marks[0].items() if value is not None} if marks else None
        parsed = parse_move(record["moves"][k - 1]) if k else None
        touched = {"K": {"site": parsed.target}, "A": {"country": parsed.target}}.get(parsed.kind) if parsed else None
        return len(marks) <= 1 and shown == touched

    @staticmethod
    def play_shown(page) -> list:
        owners = page.eval_on_selector_all("circle.site", "els => els.map(e => [e.dataset.site, e.dataset.owner])")
        return [owners, *(page.get_attribute(at, name) for at, name in Koenig.play_data)]

    #: The play page's data attributes that hold the person's hand, the display, the deck and the scores.
    play_data = (("#hand", "data-hand"), ("#cards", "data-display"), ("#cards", "data-deck"), ("#seats", "data-scores"))

    @staticmethod
    def click_one_decision(page, rng: random.Random) -> str:
        """One decision of the person by clicking what the page offers (a seeded random choice); what was clicked."""
        choices = page.locator(Koenig.choices)
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


PAGES = {"kardinal": Kardinal, "kardinal_koenig": Koenig}


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    """The game's page adapter with its three records (finished, to step through, unfinished)."""
    pages = PAGES[request.param]
    return pages, pages.records()


def _open_replay(tab, tmp_path, pages, record, name="game.html", hash_part=""):
    path = tmp_path / name
    pages.write_replay(record, path)
    tab.page.goto(path.as_uri() + hash_part)
    tab.page.wait_for_selector("body[data-ready='1']")


def _wait_idle(page, moves_before: str) -> None:
    page.wait_for_function(
        "m => document.body.dataset.moves !== m && document.body.dataset.busy === '0'", arg=moves_before
    )


def _decide(page, pages, rng: random.Random) -> str:
    before = page.get_attribute("body", "data-moves")
    what = pages.click_one_decision(page, rng)
    _wait_idle(page, before)
    return what


# ---------------------------------------------------------------- replay pages
def test_replay_loads_and_shows_the_final_scores(tab, tmp_path, shots, game):
    pages, (record, _, _) = game
    _open_replay(tab, tmp_path, pages, record)
    page = tab.page
    n = len(record["moves"])
    assert page.text_content("#position") == f"0 / {n}"
    assert pages.shown(page) == pages.expected(record, 0)
    assert json.loads(page.get_attribute("#scores", "data-scores")) == record["result"]["scores"]
    assert json.loads(page.get_attribute("#scores", "data-winners")) == record["result"]["winners"]
    cells = page.eval_on_selector_all("#scores tr[data-seat]", "rows => rows.map(r => +r.children[1].textContent)")
    assert cells == record["result"]["scores"]
    winners = page.eval_on_selector_all("#scores tr.winner", "rows => rows.map(r => +r.dataset.seat)")
    assert winners == record["result"]["winners"]
    assert page.locator("#moves li").count() == n
    page.keyboard.press("End")
    assert page.get_attribute("#position", "data-k") == str(n)
    assert pages.shown(page) == pages.expected(record, n)
    # at the end the scores of the seats' panel are the final ones
    assert json.loads(page.get_attribute(pages.projected, "data-projected")) == record["result"]["scores"]
    page.screenshot(path=str(shots / f"{pages.shot}replay_end.png"))
    assert tab.problems == []


def test_koenig_replay_lists_the_seats_moves_and_says_it_reveals_every_hand(tab, tmp_path):
    record = PAGES["kardinal_koenig"].records()[0]
    _open_replay(tab, tmp_path, Koenig, record)
    page = tab.page
    listed = page.eval_on_selector_all("#moves li", "lis => lis.map(li => [+li.dataset.seat, li.textContent])")
    log = KoenigGame.from_record(record).decision_log()
    assert listed == [[seat, f"{seat}{move}"] for seat, move in log]
    assert "the record reveals every hand" in page.text_content("aside")
    page.keyboard.press("End")
    assert page.text_content("#status") == "game over"
    assert tab.problems == []


def test_replay_position_k_shows_the_engine_position(tab, tmp_path, shots, game):
    pages, (_, record, _) = game
    n = len(record["moves"])
    _open_replay(tab, tmp_path, pages, record)
    page = tab.page
    assert pages.shown(page) == pages.expected(record, 0) and pages.last_marked(page, record, 0)
    for k in range(1, 9):  # step with the keyboard
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("#position", "data-k") == str(k)
        assert pages.shown(page) == pages.expected(record, k), k
        assert pages.last_marked(page, record, k), k
    page.keyboard.press("ArrowLeft")
    assert pages.shown(page) == pages.expected(record, 7)
    # click moves in the list: the position after each, with what the move touched outlined
    for index in (9, n // 2, n - 1):
        page.click(f"#moves li[data-index='{index}']")
        assert page.get_attribute("#position", "data-k") == str(index + 1)
        assert pages.shown(page) == pages.expected(record, index + 1), index
        assert pages.last_marked(page, record, index + 1), index
    page.screenshot(path=str(shots / f"{pages.shot}replay_click.png"))
    # the slider, Home, End and the buttons
    page.locator("#slider").fill(str(n // 3))
    assert page.get_attribute("#position", "data-k") == str(n // 3)
    assert pages.shown(page) == pages.expected(record, n // 3)
    page.keyboard.press("Home")
    assert pages.shown(page) == pages.expected(record, 0)
    page.click("#last-btn")
    assert pages.shown(page) == pages.expected(record, n)
    page.click("#prev")
    assert pages.shown(page) == pages.expected(record, n - 1)
    # a position in the address
    _open_replay(tab, tmp_path, pages, record, "again.html", f"#{n // 2 + 1}")
    assert page.get_attribute("#position", "data-k") == str(n // 2 + 1)
    assert pages.shown(page) == pages.expected(record, n // 2 + 1) and pages.last_marked(page, record, n // 2 + 1)
    page.screenshot(path=str(shots / f"{pages.shot}replay_address.png"))
    assert tab.problems == []


def test_replay_of_an_unfinished_game(tab, tmp_path, shots, game):
    pages, (_, _, record) = game
    _open_replay(tab, tmp_path, pages, record)
    page = tab.page
    k = len(record["moves"])
    assert page.get_attribute("#scores", "data-scores") == "[]"
    assert "unfinished game" in page.text_content("#scores")
    page.keyboard.press("End")
    assert pages.shown(page) == pages.expected(record, k)
    if pages is Koenig:
        assert f"unfinished game ({k} moves recorded)" in page.text_content("#scores")
        assert page.text_content("#status").startswith(f"seat {Koenig.engine(record, k).current_player} to decide")
    page.screenshot(path=str(shots / f"{pages.shot}replay_unfinished.png"))
    assert tab.problems == []


# ---------------------------------------------------------------- play pages
def test_play_a_full_game_by_clicking_and_download_it(tab, tmp_path, shots, game):
    pages = game[0]
    koenig = pages is Koenig
    settings = {"seed": 6, "game": "kardinal_koenig"} if koenig else {"players": 2, "seed": 4}
    with make_server(["random"], human_seat=1, port=0, **settings) as server:
        page = tab.page
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1']")
        page.screenshot(path=str(shots / f"{pages.shot}play_start.png"))
        # K&K: the download is refused while the game runs (the record holds every hand and the deck order)
        assert ("disabled" in (page.get_attribute("#download", "class") or "")) == koenig
        rng = random.Random(1)
        clicked: set[str] = set()
        decisions = 0
        while page.get_attribute("body", "data-over") != "1":
            assert page.get_attribute("body", "data-your-turn") == "1"
            if koenig:  # the page shows the person's hand, the display and the deck as the server has them
                state = server.session.state()
                assert json.loads(page.get_attribute("#hand", "data-hand")) == state["hand"]
                assert json.loads(page.get_attribute("#cards", "data-display")) == state["display"]
                assert page.get_attribute("#cards", "data-deck") == str(state["deck_size"])
            what = _decide(page, pages, rng)
            clicked.add(what if what in ("site", "seal", "end") else what.split(":")[0])
            decisions += 1
            if decisions == (25 if koenig else 10):
                page.screenshot(path=str(shots / f"{pages.shot}play_middle.png"))
            assert decisions < 250
        page.screenshot(path=str(shots / f"{pages.shot}play_end.png"))
        state = server.session.state()
        assert state["result"] is not None and decisions >= 10
        assert {"site", "draw"} <= clicked or not koenig
        shown = json.loads(page.get_attribute("#scores", "data-scores"))
        assert shown == state["result"]["scores"]
        assert json.loads(page.get_attribute("#scores", "data-winners")) == state["result"]["winners"]
        assert "Game over" in page.text_content("#status")
        if koenig:  # the other seats' cards never appear: the seats table shows card backs and counts
            rows = page.eval_on_selector_all("#seats tr[data-seat]", "rows => rows.map(r => r.innerHTML)")
            for seat, row in enumerate(rows):
                assert ('class="card' in row) == (seat == 1 and bool(state["hand"])), row
        with page.expect_download() as download:
            page.click("#download")
        path = tmp_path / "downloaded.json"
        download.value.save_as(path)
        played = (KoenigGame if koenig else Game).load(str(path))  # replays every move, checks the result
        assert played.scores() == shown and played.winners() == state["result"]["winners"]
        assert played.history == state["history"] and set(state["movers"]) == set(range(state["players"]))
        if koenig:
            assert played.hand(1) == state["hand"]
            assert [seat for seat, _ in played.decision_log()] == state["movers"]
    assert tab.problems == []


#: Per game: illegal moves a forged request sends, each refused with 400 and the rule it breaks (None: any).
FORGED = {
    "kardinal": [("H0@0,1", None), ("H0@40,40", None), ("chip:2", None), ("C-", None), ("Y0@0,1:0,3", None)]
    + [("<script>", None)],
    "kardinal_koenig": [("K@XX1/0", "unknown id"), ("discard:9", "unknown id"), ("hello", "malformed move")],
}


def test_play_page_refuses_forged_requests(tab, shots, game):
    pages = game[0]
    koenig = pages is Koenig
    settings = {"players": 3, "seed": 2, "game": "kardinal_koenig"} if koenig else {"players": 2, "seed": 1}
    with make_server(["random"], port=0, **settings) as server:
        page = tab.page
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1']")
        rng = random.Random(0)
        for _ in range(4 if koenig else 3):  # a few decisions in, so the forged moves have a position to break
            _decide(page, pages, rng)
        state = server.session.state()
        token = page.evaluate("S.session")
        assert token == state["session"]
        drawn = pages.play_shown(page)
        for move, rule in FORGED[pages.name]:
            assert move not in state["legal"]
            reply = page.evaluate(FETCH, [{"session": token, "move": move}, None])
            assert reply["status"] == 400 and reply["body"]["error"].startswith(f"illegal move {move!r}"), reply
            assert reply["body"]["rule"] == rule if rule else reply["body"]["rule"]
            assert server.session.state() == state  # nothing changed
        legal = state["legal"][0]
        refused = [
            ({"session": token, "move": legal, "at": state["move_count"] + 5}, 409, "stale"),
            ({"session": token, "move": legal, "seat": 2}, 400, "request"),
            # a legal move without this server's session token (as another site's page would send it)
            ({"move": legal}, 403, "session"),
            ({"session": "guessed", "move": legal}, 403, "session"),
        ]
        for body, status, rule in refused:
            reply = page.evaluate(FETCH, [body, None])
            assert reply["status"] == status and reply["body"]["rule"] == rule, (body, reply)
            assert server.session.state() == state
        reply = page.evaluate(FETCH, [None, "{not json"])
        assert reply["status"] == 400 and "not JSON" in reply["body"]["error"]
        reply = page.evaluate("async () => (await fetch('/api/record')).status")
        assert reply == (403 if koenig else 200) and server.session.state() == state
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert page.get_attribute("body", "data-moves") == str(state["move_count"])
        assert pages.play_shown(page) == drawn
        page.screenshot(path=str(shots / f"{pages.shot}play_after_forgery.png"))
    # the browser logs each refused request; nothing else went wrong on the page
    assert [p for p in tab.problems if "Failed to load resource" not in p] == []
    assert len(tab.problems) == len(FORGED[pages.name]) + len(refused) + 1 + koenig


def test_koenig_play_page_refuses_a_move_while_another_seat_decides(tab, shots):
    with make_server(["random"], players=3, port=0, seed=2, game="kardinal_koenig") as server:
        page = tab.page
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1']")
        rng = random.Random(0)
        # a move while another seat decides (its agent has failed) is refused: "turn"
        server.session.agents[2].select_move = lambda game: (_ for _ in ()).throw(RuntimeError("stuck"))
        while server.session.state()["your_turn"]:
            _decide(page, Koenig, rng)
        assert "agent random (seat 2) failed: RuntimeError: stuck" in page.text_content("#status")
        stuck = server.session.state()
        assert stuck["phase"] is None and stuck["legal"] == []  # another seat's phase is not shown
        reply = page.evaluate(
            FETCH, [{"session": stuck["session"], "move": server.session.game.legal_moves()[0]}, None]
        )
        assert reply["status"] == 400 and reply["body"]["rule"] == "turn"
        assert server.session.state() == stuck
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert page.locator(Koenig.choices).count() == 0  # nothing to click while it is not your turn
        page.screenshot(path=str(shots / "koenig_play_stuck.png"))
    assert [p for p in tab.problems if "Failed to load resource" not in p] == []

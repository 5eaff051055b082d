"""Kardinal & König in the web play server (agents.serving.webplay with agents.serving.koenig_page),
through its HTTP API and its session object, without a browser (tests/test_browser_play_koenig.py
clicks through a game in Chromium).

The person's seat sees only what it may know: the state JSON holds no other seat's cards and no
deck order — checked on the JSON itself (no such field anywhere) and by changing only what the seat
cannot see (``game.determinize``: other hands and the deck dealt anew) — the JSON stays identical.
Every server is stopped by its test."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request

import pytest

from agents.serving.webplay import PlayError, PlaySession, make_server
from kardinal_env.koenig import Game, IllegalMoveError

#: Fields that would hold hidden cards (anywhere in the JSON, at any depth).
HIDDEN_FIELDS = {"hands", "deck", "deck_order", "reshuffle", "reshuffle_order", "initial_deck", "snapshot", "pile"}


def _call(srv, method: str, path: str, body=None, raw: bytes | None = None):
    """(status, headers, parsed JSON or text) of one request."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(srv.url.rstrip("/") + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            status, hdrs, payload = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        status, hdrs, payload = err.code, err.headers, err.read()
    text = payload.decode("utf-8")
    if hdrs.get("Content-Type", "").startswith("application/json"):
        return status, hdrs, json.loads(text)
    return status, hdrs, text


def _move(srv, state: dict, move: str, at=None):
    body = {"session": state["session"], "move": move}
    if at is not None:
        body["at"] = at
    return _call(srv, "POST", "/api/move", body)


def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _hidden(game: Game, seat: int) -> tuple:
    """What ``seat`` cannot see: the other hands and the deck order."""
    snap = game.snapshot()
    return tuple(tuple(h) for s, h in enumerate(snap["hands"]) if s != seat), tuple(snap["deck"])


def _other_world(game: Game, seat: int, rng: random.Random) -> Game:
    """A game that differs from ``game`` only in what ``seat`` cannot see (different hidden cards)."""
    for _ in range(50):
        other = game.determinize(seat, rng)
        if _hidden(other, seat) != _hidden(game, seat):
            return other
    raise AssertionError("determinize dealt the same hidden cards 50 times")


@pytest.fixture
def server():
    srv = make_server(["random"], port=0, seed=5, game="kardinal_koenig")
    srv.start()
    yield srv
    srv.stop()


def test_state_shows_the_seat_its_own_cards_and_only_public_facts(server):
    status, _, state = _call(server, "GET", "/api/state")
    assert status == 200
    game = server.session.game
    me = state["human_seat"]
    assert state["game"] == "kardinal_koenig" and state["players"] == 4 and state["your_turn"]
    assert state["hand"] == game.hand(me) and state["legal"] == game.legal_moves()
    assert state["hand_sizes"] == [game.hand_size(s) for s in range(4)]
    assert state["display"] == game.display() and state["deck_size"] == game.deck_size()
    assert state["owners"] == game.owners() and state["advisors"] == game.advisor_counts()
    assert state["pieces"] == [list(game.pieces_left(s)) for s in range(4)]
    assert state["scores"] == game.scores() and state["projected"] == game.projected_scores()
    assert state["phase"] == "place" and state["record_available"] is False
    assert [s["id"] for s in state["map"]["sites"]] == list(game.board.site_ids)
    assert [c["id"] for c in state["map"]["countries"]] == list(game.board.country_ids)
    assert not _keys(state) & HIDDEN_FIELDS
    # no other seat's cards as a field of any name: the only card lists are the own hand, the display
    # and the discard pile
    card_lists = {k for k, v in state.items() if isinstance(v, list) and v and all(isinstance(t, int) for t in v)}
    assert card_lists <= {"hand", "display", "discard_pile", "hand_sizes", "scores", "projected", "owners", "movers"}


def test_the_state_does_not_change_when_only_hidden_cards_do():
    """At every decision of the person in a whole game (before and after the first run-out): deal the
    other hands and the deck anew, consistently with what the person's seat has seen — the JSON for
    that seat is identical."""
    session = PlaySession(["random"], players=3, human_seat=1, seed=2, game="kardinal_koenig")
    rng, pick = random.Random(7), random.Random(8)
    checked, runouts_seen = 0, set()
    state = session.state()
    while state["result"] is None:
        real = session.game
        try:
            session.game = _other_world(real, 1, rng)
            assert session.state() == state, state["move_count"]
        finally:
            session.game = real
        checked += 1
        runouts_seen.add(state["runouts"])
        state = session.play(pick.choice(state["legal"]))
    assert checked >= 30 and {0, 1} <= runouts_seen


def test_another_seats_phase_is_hidden():
    """While another seat decides (here: an agent that failed), the state has no phase: a 'second'
    phase would tell that it can pay for a second piece."""
    session = PlaySession(["random"], players=3, seed=1, game="kardinal_koenig")
    real_move = session.agents[2].select_move

    def fails_on_second(game):
        if game.phase == "second":
            raise RuntimeError("stop here")
        return real_move(game)

    session.agents[2].select_move = fails_on_second
    pick = random.Random(3)
    state = session.state()
    while state["agent_error"] is None and state["result"] is None:
        state = session.play(pick.choice(state["legal"]))
    if state["result"] is not None:
        pytest.skip("seat 2 never reached a second piece in this game")
    assert session.game.phase == "second" and state["seat"] == 2
    assert state["phase"] is None and state["legal"] == [] and not state["your_turn"]
    # the same position with the other cards dealt anew (seat 2 perhaps without a second piece): same JSON
    session.game = _other_world(session.game, 0, random.Random(0))
    assert session.state() == state


def test_full_game_over_http_and_the_record(server):
    status, _, state = _call(server, "GET", "/api/state")
    rng = random.Random(0)
    # the record holds every hand and the deck order: refused while the game runs
    status, _, err = _call(server, "GET", "/api/record")
    assert status == 403 and err["rule"] == "hidden" and "once the game is over" in err["error"]
    moves = 0
    while state["result"] is None:
        move = rng.choice(state["legal"])
        status, _, state = _move(server, state, move, state["move_count"])
        assert status == 200, state
        moves += 1
    assert moves >= 20 and state["phase"] == "over" and state["record_available"]
    assert state["breakdown"] is not None and set(state["breakdown"]) == {"cloisters", "alliances", "chains"}
    status, headers, record = _call(server, "GET", "/api/record")
    assert status == 200
    assert headers["Content-Disposition"] == f'attachment; filename="kardinal_koenig-game-{state["game_id"]}.json"'
    game = Game.from_record(record)  # replays every move and checks the recorded result
    assert game.scores() == state["result"]["scores"] and game.winners() == state["result"]["winners"]
    assert game.history == state["history"] and len(state["movers"]) == len(state["history"])
    assert [seat for seat, _ in game.decision_log()] == state["movers"]
    status, _, err = _move(server, state, "draw:deck")
    assert status == 400 and err["rule"] == "game over"
    # a new game: dealt with the next seed, the record hidden again
    status, _, fresh = _call(server, "POST", "/api/new", {"session": state["session"]})
    assert status == 200 and fresh["game_id"] == state["game_id"] + 1 and fresh["record_available"] is False
    assert server.session.game.initial_deck == Game(server.session.rules, seed=5 + 1).initial_deck


@pytest.mark.parametrize(
    "move,rule",
    [
        ("hello", "malformed move"),
        ("K@SW2", "malformed move"),
        ("draw:deck", "phase"),
        ("end", "end"),
        ("K@XX1/0", "unknown id"),
        ("discard:9", "unknown id"),
        ("K@IT1/22", "payment"),
    ],
)
def test_illegal_moves_are_refused_with_the_rule_and_change_nothing(server, move, rule):
    before = _call(server, "GET", "/api/state")[2]
    assert move not in before["legal"]
    with pytest.raises(IllegalMoveError) as engine:
        server.session.game.clone().play(move)
    status, _, err = _move(server, before, move, before["move_count"])
    assert status == 400 and err["rule"] == rule == engine.value.rule
    assert err["error"].startswith(f"illegal move {move!r}: {rule}")
    assert _call(server, "GET", "/api/state")[2] == before


@pytest.mark.parametrize(
    "body,status,rule",
    [
        (b"{not json", 400, "request"),
        (b"[]", 400, "request"),
        (b'{"session": "%s", "move": "end", "cards": [1]}', 400, "request"),
        (b'{"session": "%s", "move": ["end"]}', 400, "request"),
        (b'{"session": "%s", "move": "draw:deck", "at": 12345}', 409, "stale"),
        (b'{"move": "draw:deck"}', 403, "session"),
        (b'{"session": "another", "move": "draw:deck"}', 403, "session"),
    ],
)
def test_forged_requests_are_refused(server, body, status, rule):
    before = _call(server, "GET", "/api/state")[2]
    got, _, err = _call(server, "POST", "/api/move", raw=body.replace(b"%s", before["session"].encode()))
    assert got == status and err["rule"] == rule and err["error"]
    assert _call(server, "GET", "/api/state")[2] == before


def test_a_move_when_it_is_not_your_turn_is_refused():
    session = PlaySession(["random"], players=3, seed=4, game="kardinal_koenig")

    def broken(game):
        raise RuntimeError("no idea")

    session.agents[1].select_move = broken
    state = session.state()
    while state["your_turn"]:
        state = session.play(state["legal"][0])
    assert state["agent_error"] == "agent random (seat 1) failed: RuntimeError: no idea"
    before = session.state()
    for move in ("draw:deck", "end", session.game.legal_moves()[0]):  # even seat 1's own legal move
        with pytest.raises(PlayError, match="turn: seat 1 is on turn, you play seat 0") as info:
            session.play(move)
        assert info.value.status == 400 and info.value.rule == "turn"
    assert session.state() == before


def test_agents_before_the_person_and_options():
    options = {"players": 3, "human_seat": 2, "port": 0, "game": "kardinal_koenig", "discard": "any"}
    with make_server(["greedy", "random"], **options) as srv:
        state = _call(srv, "GET", "/api/state")[2]
        assert state["names"] == ["greedy", "random", "you"] and state["your_turn"]
        assert state["rules"] == {"players": 3, "discard": "any", "board": "default"}
        assert state["movers"][0] == 0 and set(state["movers"]) <= {0, 1}
        page = _call(srv, "GET", "/")[2]
    assert "http://" not in page and "https://" not in page and "<script src" not in page
    assert 'id="board"' in page and 'id="hand"' in page and 'id="download"' in page and "function drawMap" in page


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"players": 2}, "kardinal_koenig plays 3-5 players, got 2"),
        ({"discard": "all"}, "discard"),
        ({"preset": "german"}, "kardinal_koenig has no rule option(s) ['preset']"),
        ({"agents": ["mcts:5"]}, "needs a game of perfect information"),
        ({"board": "no-such-board"}, "no-such-board"),
    ],
)
def test_bad_settings(kwargs, fragment):
    settings = {"agents": ["random"], "port": 0, "game": "kardinal_koenig", **kwargs}
    with pytest.raises(ValueError) as info:
        make_server(**settings)
    assert fragment in str(info.value)


def test_command_line_options_of_the_game(capsys):
    from agents.serving.webplay import main

    with pytest.raises(SystemExit):
        main(["--game", "kardinal_koenig", "--players", "2"])
    assert "argument --players: invalid choice: 2 (choose from 3, 4, 5)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "kardinal_koenig", "--preset", "german"])
    assert "unrecognized arguments: --preset german" in capsys.readouterr().err
    assert main(["--game", "kardinal_koenig", "--agents", "mcts:5", "--port", "0"]) == 2
    assert "needs a game of perfect information" in capsys.readouterr().err

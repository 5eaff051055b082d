"""The local play server (agents.serving.webplay) through its HTTP API and its session object, without a
browser, for both games where they behave alike (tests/test_browser.py plays the pages in Chromium).

Kardinal & König: the person's seat sees only what it may know: the state JSON holds no other seat's
cards and no deck order — checked on the JSON itself (no such field anywhere) and by changing only what
the seat cannot see (``game.determinize``: other hands and the deck dealt anew) — the JSON stays
identical. Every server is stopped by its test."""

from __future__ import annotations

import json
import random
import re
import socket
import threading
import urllib.error
import urllib.request

import pytest

from agents import AgentSpecError
from agents.serving.webplay import PlayError, PlaySession, main, make_server
from kardinal_env.kardinal import Game
from kardinal_env.koenig import Game as KoenigGame

#: Each game's test server: make_server's settings besides the agents ["random"] and port 0.
GAMES = {"kardinal": {"players": 2, "human_seat": 0, "seed": 3}, "kardinal_koenig": {"seed": 5}}

#: Fields that would hold hidden cards (anywhere in the JSON, at any depth).
HIDDEN_FIELDS = {"hands", "deck", "deck_order", "reshuffle", "reshuffle_order", "initial_deck", "snapshot", "pile"}


def _serve(game: str):
    srv = make_server(["random"], port=0, game=game, **GAMES[game])
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def server():
    yield from _serve("kardinal")


@pytest.fixture
def koenig_server():
    yield from _serve("kardinal_koenig")


@pytest.fixture(params=list(GAMES))
def any_server(request):
    yield from _serve(request.param)


def _call(srv, method: str, path: str, body=None, raw: bytes | None = None, headers=None):
    """(status, headers, parsed JSON or text) of one request."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(srv.url.rstrip("/") + path, data=data, method=method, headers=headers or {})
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


def _token(srv) -> str:
    return _call(srv, "GET", "/api/state")[2]["session"]


def _move(srv, move, at=None, session=None):
    """(status, headers, JSON) of POST /api/move with this server's session token."""
    body = {"session": session or _token(srv), "move": move}
    if at is not None:
        body["at"] = at
    return _call(srv, "POST", "/api/move", body)


# ---------------------------------------------------------------------------------------- both games
def test_full_game_over_http_and_the_record(any_server):
    srv, name = any_server, any_server.session.spec.name
    hidden = name == "kardinal_koenig"  # its record holds every hand and the deck order: refused while it runs
    status, _, state = _call(srv, "GET", "/api/state")
    status, _, err = _call(srv, "GET", "/api/record")
    assert status == (403 if hidden else 200) and state["record_available"] is not hidden
    if hidden:
        assert err["rule"] == "hidden" and "once the game is over" in err["error"]
    rng, moves = random.Random(0), 0
    while state["result"] is None:
        assert state["your_turn"] and state["legal"], state
        move = rng.choice(state["legal"])
        status, _, state = _move(srv, move, state["move_count"], state["session"])
        assert status == 200 and move in state["history"], state
        moves += 1
    assert moves >= 20 and state["phase"] == "over" and state["record_available"]
    assert not state["your_turn"] and state["legal"] == []
    status, headers, record = _call(srv, "GET", "/api/record")
    assert status == 200
    assert headers["Content-Disposition"] == f'attachment; filename="{name}-game-{state["game_id"]}.json"'
    game = (KoenigGame if hidden else Game).from_record(record)  # replays every move, checks the result
    assert game.scores() == state["result"]["scores"] and game.winners() == state["result"]["winners"]
    assert list(game.history) == state["history"] and len(state["movers"]) == len(state["history"])
    assert set(state["movers"]) == set(range(state["players"]))
    status, _, err = _move(srv, "end")
    assert status == 400 and err["rule"] == "game over"
    # a new game: dealt with the next seed (the record hidden again where it was)
    status, _, fresh = _call(srv, "POST", "/api/new", {"session": state["session"]})
    assert status == 200 and fresh["game_id"] == state["game_id"] + 1 and fresh["record_available"] is not hidden
    if hidden:
        assert state["breakdown"] is not None and set(state["breakdown"]) == {"cloisters", "alliances", "chains"}
        assert [seat for seat, _ in game.decision_log()] == state["movers"]
        assert srv.session.game.initial_deck == KoenigGame(srv.session.rules, seed=5 + 1).initial_deck


ILLEGAL = [
    ("kardinal", "H0@0,1", "rule IV"),  # a house next to the nave
    ("kardinal", "H0@5,5", "rule 0 (placement)"),  # touches nothing
    ("kardinal", "chip:0", "phase"),
    ("kardinal", "C@0,1", "phase"),
    ("kardinal", "H0@0,01", "malformed move"),
    ("kardinal", "hello", "malformed move"),
    ("kardinal", "H2@2,0", "rule 0 (placement)"),  # seat 0 does not build colour 2 in the 2-player game
    ("kardinal_koenig", "hello", "malformed move"),
    ("kardinal_koenig", "K@SW2", "malformed move"),
    ("kardinal_koenig", "draw:deck", "phase"),
    ("kardinal_koenig", "end", "end"),
    ("kardinal_koenig", "K@XX1/0", "unknown id"),
    ("kardinal_koenig", "discard:9", "unknown id"),
    ("kardinal_koenig", "K@IT1/22", "payment"),
]


@pytest.mark.parametrize("any_server,move,rule", ILLEGAL, indirect=["any_server"])
def test_illegal_moves_are_refused_with_the_rule_and_change_nothing(any_server, move, rule):
    before = _call(any_server, "GET", "/api/state")[2]
    assert move not in before["legal"]
    with pytest.raises(ValueError) as engine:
        any_server.session.game.clone().play(move)
    status, _, err = _move(any_server, move, before["move_count"])
    assert status == 400 and err["rule"] == rule == getattr(engine.value, "rule", "malformed move")
    assert err["error"].startswith(f"illegal move {move!r}: {rule}")
    assert _call(any_server, "GET", "/api/state")[2] == before


@pytest.mark.parametrize("game", GAMES)
def test_a_failing_agent_is_reported_and_a_move_out_of_turn_refused(game):
    session = PlaySession(["random"], players=3, seed=4, game=game)

    def broken(game):
        raise RuntimeError("no idea")

    session.agents[1].select_move = broken
    state = session.state()
    while state["your_turn"]:
        state = session.play(state["legal"][0])
    assert state["agent_error"] == "agent random (seat 1) failed: RuntimeError: no idea"
    assert state["seat"] == 1 and state["legal"] == []
    before = session.state()
    for move in ("draw:deck", "end", "C-", session.game.legal_moves()[0]):  # even seat 1's own legal move
        with pytest.raises(PlayError, match="turn: seat 1 is on turn, you play seat 0") as info:
            session.play(move)
        assert info.value.status == 400 and info.value.rule == "turn"
    assert session.state() == before


@pytest.mark.parametrize("game", GAMES)
def test_agents_before_the_person_new_game_and_the_page(game):
    with make_server(["greedy", "random"], players=3, human_seat=2, port=0, game=game) as srv:
        state = _call(srv, "GET", "/api/state")[2]
        assert srv.server_address[0] == "127.0.0.1"
        assert state["move_count"] > 0 and state["movers"][0] == 0 and set(state["movers"]) <= {0, 1}
        assert state["names"] == ["greedy", "random", "you"] and state["your_turn"]
        first = state["history"]
        move = state["legal"][0]
        state = _move(srv, move)[2]
        assert state["history"][len(first)] == move
        status, _, fresh = _call(srv, "POST", "/api/new", {"session": state["session"]})
        assert status == 200 and fresh["game_id"] == state["game_id"] + 1
        if game == "kardinal":
            assert fresh["history"] == first  # agents are re-seeded: the same opening again (nothing dealt)
        status, headers, page = _call(srv, "GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "http://" not in page and "https://" not in page and "<script src" not in page
    assert 'id="board"' in page and 'id="download"' in page
    assert ("function drawBoard" if game == "kardinal" else "function drawMap") in page


@pytest.mark.parametrize(
    "kwargs,error,fragment",
    [
        ({"human_seat": 2}, ValueError, "human_seat must be 0..1"),
        ({"port": 70000}, ValueError, "port must be 0..65535"),
        ({"agents": ["nobody"]}, AgentSpecError, "unknown agent spec 'nobody'"),
        ({"agents": ["random", "greedy"]}, ValueError, "2 agent specs for 1 other seats"),
        ({"agents": []}, ValueError, "at least one agent spec"),
        ({"players": 5}, ValueError, "kardinal plays 2-4 players, got 5"),
        ({"seed": -1}, ValueError, "seed must be an integer >= 0"),
        ({"preset": "swiss"}, ValueError, "preset"),
        ({"discard": "any"}, ValueError, "kardinal has no rule option(s) ['discard']"),
        ({"game": "chess"}, ValueError, "unknown game 'chess'"),
        ({"game": "kardinal_koenig", "players": 2}, ValueError, "kardinal_koenig plays 3-5 players, got 2"),
        ({"game": "kardinal_koenig", "discard": "all"}, ValueError, "discard"),
        ({"game": "kardinal_koenig", "preset": "german"}, ValueError, "kardinal_koenig has no rule option(s)"),
        ({"game": "kardinal_koenig", "agents": ["mcts:5"]}, AgentSpecError, "needs a game of perfect information"),
        ({"game": "kardinal_koenig", "board": "no-such-board"}, ValueError, "no-such-board"),
    ],
)
def test_bad_settings(kwargs, error, fragment):
    settings = {"agents": ["random"], "port": 0, **({} if "game" in kwargs else {"players": 2}), **kwargs}
    with pytest.raises(error, match=re.escape(fragment)):
        make_server(**settings)


# ---------------------------------------------------------------------------------------- Kardinal
def test_state_matches_the_engine(server):
    status, _, state = _call(server, "GET", "/api/state")
    game = Game.from_record(_call(server, "GET", "/api/record")[2])
    assert state["legal"] == game.legal_moves()
    assert state["chips"] == game.chips() and state["supply"] == game.supply()
    assert state["sites"] == [list(sq) for sq in game.sites()]
    assert [b["squares"] for b in state["buildings"]] == [[list(q) for q in b.squares] for b in game.buildings()]
    assert state["names"] == ["you", "random"] and state["human_seat"] == 0


@pytest.mark.parametrize(
    "body,status,fragment,rule",
    [
        (b"{not json", 400, "the request body is not JSON", "request"),
        (b"[1, 2]", 400, "must be a JSON object, got list", "request"),
        (b'{"session": "%s", "move": "H0@2,0", "extra": 1}', 400, "unknown field(s) ['extra']", "request"),
        (b'{"session": "%s", "at": 0}', 400, "missing field 'move'", "request"),
        (b'{"session": "%s", "move": 7}', 400, "field 'move' must be a move string", "request"),
        (b'{"session": "%s", "move": "H0@2,0", "at": "0"}', 400, "field 'at' must be the move count", "request"),
        (b'{"session": "%s", "move": "H0@2,0", "at": 99}', 409, "stale: you saw move count 99", "stale"),
        (b"\xff\xfe", 400, "not JSON", "request"),
        (b" " * 5000, 413, "over the limit", "request"),
        # the session token: missing, another one, not a string
        (b'{"move": "H0@2,0"}', 403, "missing field 'session'", "session"),
        (b'{"session": "forged", "move": "H0@2,0"}', 403, "unknown session", "session"),
        (b'{"session": 1, "move": "H0@2,0"}', 403, "unknown session", "session"),
    ],
)
def test_bad_requests(server, body, status, fragment, rule):
    before = _call(server, "GET", "/api/state")[2]
    if b"%s" in body:
        body = body.replace(b"%s", before["session"].encode())
    got, _, err = _call(server, "POST", "/api/move", raw=body)
    assert got == status and fragment in err["error"] and err["rule"] == rule
    assert _call(server, "GET", "/api/state")[2] == before


def test_new_game_needs_the_session(server):
    before = _call(server, "GET", "/api/state")[2]
    for body in ({}, {"session": "forged"}):
        status, _, err = _call(server, "POST", "/api/new", body)
        assert status == 403 and err["rule"] == "session"
    status, _, err = _call(server, "POST", "/api/new", {"session": before["session"], "move": "H0@2,0"})
    assert status == 400 and "unknown field(s) ['move']" in err["error"]
    assert _call(server, "GET", "/api/state")[2] == before
    status, _, fresh = _call(server, "POST", "/api/new", {"session": before["session"]})
    assert status == 200 and fresh["game_id"] == before["game_id"] + 1


def test_each_server_has_its_own_session():
    with make_server(["random"], port=0) as a, make_server(["random"], port=0) as b:
        token_a, token_b = _token(a), _token(b)
        assert token_a != token_b and len(token_a) >= 16
        move = _call(a, "GET", "/api/state")[2]["legal"][0]
        status, _, err = _move(a, move, session=token_b)
        assert status == 403 and err["error"].startswith("unknown session")
        assert _move(a, move, session=token_a)[0] == 200


def test_wrong_paths_and_methods(server):
    assert _call(server, "GET", "/nope")[0] == 404
    assert _call(server, "POST", "/nope", {})[0] == 404
    status, _, err = _call(server, "GET", "/api/move")
    assert status == 405 and "takes POST" in err["error"]
    assert _call(server, "POST", "/api/state", {})[0] == 405


def test_same_seed_same_agent_replies():
    a = PlaySession(["random"], players=2, seed=5)
    b = PlaySession(["random"], players=2, seed=5)
    c = PlaySession(["random"], players=2, seed=6)
    moves = []
    for session in (a, b, c):
        rng = random.Random(1)
        state = session.state()
        for _ in range(6):
            state = session.play(rng.choice(state["legal"]))
        moves.append(state["history"])
    assert moves[0] == moves[1] and moves[0] != moves[2]


def test_stop_closes_the_socket_and_thread():
    srv = make_server(["random"], port=0).start()
    host, port = srv.server_address[:2]
    assert _call(srv, "GET", "/api/state")[0] == 200
    srv.stop()
    assert not any(t.name == "kardinal-webplay" and t.is_alive() for t in threading.enumerate())
    with pytest.raises(OSError), socket.create_connection((host, port), timeout=2):
        pass


def test_main_errors(capsys):
    assert main(["--agents", "random", "--seat", "3"]) == 2
    assert "--seat must be 0..1" in capsys.readouterr().err
    assert main(["--agents", "bogus"]) == 2
    assert "unknown agent spec 'bogus'" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["--agents", "random", "--port", str(port)]) == 2
        assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err


def test_command_line_serves_until_ctrl_c():
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.serving.webplay", "--agents", "random", "--port", "0", "--seat", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("Kardinal play page: http://127.0.0.1:") and "you are seat 1" in line
        url = line.split()[3]
        with urllib.request.urlopen(url + "api/state", timeout=30) as resp:
            state = json.loads(resp.read())
        assert state["human_seat"] == 1 and state["your_turn"]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def test_play_web_flag_reaches_the_play_server(monkeypatch):
    """``kardinal-play --web`` hands its options to ``agents.serving.webplay.main`` (no server is started here)."""
    import agents.serving.play
    import agents.serving.webplay

    seen = {}
    monkeypatch.setattr(agents.serving.webplay, "main", lambda argv: seen.setdefault("argv", argv) and 0)
    assert (
        agents.serving.play.main(["--web", "--agents", "random", "--port", "0", "--players", "3", "--seat", "1"]) == 0
    )
    argv = seen["argv"]
    assert argv[argv.index("--port") + 1] == "0" and argv[argv.index("--players") + 1] == "3"
    assert argv[argv.index("--agents") + 1] == "random" and argv[argv.index("--host") + 1] == "127.0.0.1"
    assert argv[argv.index("--game") + 1] == "kardinal" and argv[argv.index("--preset") + 1] == "english"
    assert "--shared-pool" not in argv
    # another game: its own rule options travel too, and the web server's parser takes them back
    seen.clear()
    agents.serving.play.main(["--web", "--game", "kardinal_koenig", "--discard", "any", "--agents", "random"])
    argv = seen["argv"]
    assert argv[argv.index("--game") + 1] == "kardinal_koenig" and argv[argv.index("--discard") + 1] == "any"
    assert argv[argv.index("--players") + 1] == "4" and "--preset" not in argv
    parser, spec = agents.serving.webplay.build_parser(argv)
    args = parser.parse_args(argv)
    assert spec.name == "kardinal_koenig" and args.discard == "any" and args.players == 4


def test_play_web_refuses_save(capsys):
    import agents.serving.play

    with pytest.raises(SystemExit):
        agents.serving.play.main(["--web", "--save", "x.json"])
    assert "--save is for terminal play" in capsys.readouterr().err


def test_each_game_finds_its_play_page_through_the_registry():

    from agents.registry import GameAgents, register_agents, unregister_agents
    from agents.serving.kardinal_page import KardinalPage
    from agents.serving.koenig_page import KoenigPage
    from agents.serving.pages import TextPage, page_for
    from kardinal_env.core.registry import GameSpec, get_game

    assert isinstance(page_for(get_game("kardinal")), KardinalPage)
    assert isinstance(page_for(get_game("kardinal_koenig")), KoenigPage)
    # a page object, a class that makes one, or a "module:attribute" string naming either
    page = object()
    kardinal = get_game("kardinal")
    spec = GameSpec(**{**{f: getattr(kardinal, f) for f in GameSpec.__dataclass_fields__}, "name": "paged"})
    try:
        for given in (page, KoenigPage, "agents.serving.koenig_page:KoenigPage"):
            register_agents(GameAgents(game="paged", play_page=given), replace=True)
            found = page_for(spec)
            assert found is page if given is page else isinstance(found, KoenigPage)
    finally:
        unregister_agents("paged")
    # without a page of its own a game gets the generic text page
    assert isinstance(page_for(spec), TextPage)


# ---------------------------------------------------------------------------------------- Kardinal & König
def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _hidden(game: KoenigGame, seat: int) -> tuple:
    """What ``seat`` cannot see: the other hands and the deck order."""
    snap = game.snapshot()
    return tuple(tuple(h) for s, h in enumerate(snap["hands"]) if s != seat), tuple(snap["deck"])


def _other_world(game: KoenigGame, seat: int, rng: random.Random) -> KoenigGame:
    """A game that differs from ``game`` only in what ``seat`` cannot see (different hidden cards)."""
    for _ in range(50):
        other = game.determinize(seat, rng)
        if _hidden(other, seat) != _hidden(game, seat):
            return other
    raise AssertionError("determinize dealt the same hidden cards 50 times")


def test_state_shows_the_seat_its_own_cards_and_only_public_facts(koenig_server):
    status, _, state = _call(koenig_server, "GET", "/api/state")
    assert status == 200
    game = koenig_server.session.game
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


def test_rule_options_reach_the_game():
    with make_server(["random"], players=3, port=0, game="kardinal_koenig", discard="any") as srv:
        assert _call(srv, "GET", "/api/state")[2]["rules"] == {"players": 3, "discard": "any", "board": "default"}


def test_command_line_options_of_the_game(capsys):
    with pytest.raises(SystemExit):
        main(["--game", "kardinal_koenig", "--players", "2"])
    assert "argument --players: invalid choice: 2 (choose from 3, 4, 5)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "kardinal_koenig", "--preset", "german"])
    assert "unrecognized arguments: --preset german" in capsys.readouterr().err
    assert main(["--game", "kardinal_koenig", "--agents", "mcts:5", "--port", "0"]) == 2
    assert "needs a game of perfect information" in capsys.readouterr().err

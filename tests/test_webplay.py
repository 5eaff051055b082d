"""The local play server (agents.serving.webplay) through its HTTP API with Kardinal, without a browser
(tests/test_browser.py plays it by clicking in Chromium; tests/test_webplay_koenig.py is Kardinal & König's
page). Every server is stopped by its test."""

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
from agents.serving.webplay import PlaySession, main, make_server
from kardinal_env.kardinal import Game


@pytest.fixture
def server():
    srv = make_server(["random"], players=2, human_seat=0, port=0, seed=3)
    srv.start()
    yield srv
    srv.stop()


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


def _play_out(srv, rng: random.Random) -> dict:
    status, _, state = _call(srv, "GET", "/api/state")
    assert status == 200
    while state["result"] is None:
        assert state["your_turn"] and state["legal"], state
        move = rng.choice(state["legal"])
        status, _, state = _move(srv, move, state["move_count"], state["session"])
        assert status == 200, state
        assert move in state["history"]
    return state


def test_full_game_and_record_download(server):
    state = _play_out(server, random.Random(0))
    assert state["phase"] == "over" and not state["your_turn"] and state["legal"] == []
    status, headers, record = _call(server, "GET", "/api/record")
    assert status == 200
    assert headers["Content-Disposition"] == f'attachment; filename="kardinal-game-{state["game_id"]}.json"'
    game = Game.from_record(record)  # replays and checks the recorded result
    assert game.scores() == state["result"]["scores"] and game.winners() == state["result"]["winners"]
    assert record["moves"] == state["history"]
    assert len(state["movers"]) == len(state["history"])
    assert set(state["movers"]) == {0, 1}
    # after the end every move is refused
    status, _, err = _move(server, "C-")
    assert status == 400 and err["rule"] == "game over"


def test_state_matches_the_engine(server):
    status, _, state = _call(server, "GET", "/api/state")
    game = Game.from_record(_call(server, "GET", "/api/record")[2])
    assert state["legal"] == game.legal_moves()
    assert state["chips"] == game.chips() and state["supply"] == game.supply()
    assert state["sites"] == [list(sq) for sq in game.sites()]
    assert [b["squares"] for b in state["buildings"]] == [[list(q) for q in b.squares] for b in game.buildings()]
    assert state["names"] == ["you", "random"] and state["human_seat"] == 0


@pytest.mark.parametrize(
    "move,rule",
    [
        ("H0@0,1", "rule IV"),  # a house next to the nave
        ("H0@5,5", "rule 0 (placement)"),  # touches nothing
        ("chip:0", "phase"),
        ("C@0,1", "phase"),
        ("H0@0,01", "malformed move"),
        ("hello", "malformed move"),
        ("H2@2,0", "rule 0 (placement)"),  # seat 0 does not build colour 2 in the 2-player game
    ],
)
def test_illegal_move_is_refused_and_changes_nothing(server, move, rule):
    before = _call(server, "GET", "/api/state")[2]
    status, _, err = _move(server, move, before["move_count"])
    assert status == 400
    assert err["rule"] == rule and err["error"].startswith(f"illegal move {move!r}: {rule}")
    assert _call(server, "GET", "/api/state")[2] == before


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


def test_page_is_self_contained(server):
    status, headers, page = _call(server, "GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "http://" not in page and "https://" not in page and "<script src" not in page
    assert 'id="board"' in page and 'id="download"' in page and "function drawBoard" in page


def test_new_game_and_agents_moving_first():
    with make_server(["greedy", "random"], players=3, human_seat=2, port=0) as srv:
        state = _call(srv, "GET", "/api/state")[2]
        assert srv.server_address[0] == "127.0.0.1"
        assert state["move_count"] > 0 and state["movers"][0] == 0 and state["your_turn"]
        assert state["names"] == ["greedy", "random", "you"]
        first = state["history"]
        move = state["legal"][0]
        state = _move(srv, move)[2]
        assert state["history"][len(first)] == move
        status, _, fresh = _call(srv, "POST", "/api/new", {"session": state["session"]})
        assert status == 200 and fresh["game_id"] == state["game_id"] + 1
        assert fresh["history"] == first  # agents are re-seeded: the same opening again


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


def test_failing_agent_is_reported_and_blocks_the_turn():
    session = PlaySession(["random"], players=2)

    def broken(game):
        raise RuntimeError("no idea")

    session.agents[1].select_move = broken
    state = session.state()
    while state["your_turn"]:
        state = session.play(state["legal"][0])
    assert state["agent_error"] == "agent random (seat 1) failed: RuntimeError: no idea"
    assert state["seat"] == 1 and state["legal"] == []
    from agents.serving.webplay import PlayError

    with pytest.raises(PlayError, match="turn: seat 1 is on turn, you play seat 0") as info:
        session.play("C-")
    assert info.value.status == 400 and info.value.rule == "turn"


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
    ],
)
def test_bad_settings(kwargs, error, fragment):
    settings = {"agents": ["random"], "players": 2, "port": 0, **kwargs}
    with pytest.raises(error, match=re.escape(fragment)):
        make_server(**settings)


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

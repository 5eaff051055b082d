"""Malformed request bodies at the play server (agents.serving.webplay), sent over raw sockets to a real
server on 127.0.0.1: every one gets a 4xx answer with a JSON error that says what is wrong; no
connection is dropped, no traceback is printed and the game does not change (issue 53)."""

from __future__ import annotations

import http.client
import json
import socket
import sys

import pytest

from agents.serving.webplay import MAX_BODY, make_server

TOKEN = b"%TOKEN%"


@pytest.fixture(scope="module")
def server():
    srv = make_server(["random"], players=2, human_seat=0, port=0, seed=3)
    srv.start()
    yield srv
    srv.stop()


def _exchange(srv, data: bytes, half_close: bool = True) -> tuple[int, dict, bytes]:
    """Send ``data`` on a new connection (then end the sending side unless ``half_close`` is false)
    and read the whole answer: (status, headers, body). An answer cut short fails the test."""
    host, port = srv.server_address[:2]
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer, f"the server closed the connection without an answer to {data[:80]!r}"
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    assert int(headers["content-length"]) == len(body), answer
    return int(status_line.split()[1]), headers, body


def _post(srv, body: bytes, path: str = "/api/move", headers: dict | None = None, **kwargs):
    fields = {"Host": "127.0.0.1", "Content-Type": "application/json", "Content-Length": str(len(body))}
    fields.update(headers or {})
    head = f"POST {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items() if v is not None)
    return _exchange(srv, head.encode("latin-1") + b"\r\n" + body, **kwargs)


def _state(srv) -> dict:
    status, _, body = _exchange(srv, b"GET /api/state HTTP/1.0\r\n\r\n")
    assert status == 200
    return json.loads(body)


def _json_error(status: int, headers: dict, body: bytes, low: int = 400, high: int = 499) -> dict:
    assert low <= status <= high, (status, body)
    assert headers["content-type"].startswith("application/json"), headers
    err = json.loads(body)
    assert set(err) == {"error", "rule"} and isinstance(err["error"], str) and err["error"], err
    return err


DEEP = 2000  # under MAX_BODY as brackets, far over the interpreter's recursion limit as JSON


def _bad(name: str, body: bytes, status: int, fragment: str, path="/api/move", length=None, headers=None):
    """A malformed request: its body, the status and a fragment of the message it gets; ``length`` sets
    the Content-Length header, ``headers`` any (None: the header is left out)."""
    return pytest.param(path, body, {"Content-Length": length} if length else headers, status, fragment, id=name)


MALFORMED = [
    _bad("nested lists (issue 53)", b"[" * DEEP + b"]" * DEEP, 400, "2000 levels deep"),
    _bad("nested objects", b'{"a":' * 600 + b"1" + b"}" * 600, 400, "600 levels deep"),
    _bad(
        "nested in a field", b'{"session": "%TOKEN%", "move": ' + b"[" * 1500 + b"]" * 1500 + b"}", 400, "levels deep"
    ),
    _bad("unclosed nesting", b"{" * 4000, 400, "levels deep"),
    _bad("nested /api/new", b"[" * DEEP + b"]" * DEEP, 400, "levels deep", path="/api/new"),
    _bad("invalid UTF-8", b"\xff\xfe", 400, "not UTF-8"),
    _bad("invalid UTF-8 in a string", b'{"session": "\xc3(", "move": "x"}', 400, "not UTF-8"),
    _bad("lone surrogate session", b'{"session": "\\ud800", "move": "x"}', 400, "lone surrogate"),
    _bad("lone surrogate move", b'{"session": "%TOKEN%", "move": "\\udfff"}', 400, "lone surrogate"),
    _bad("lone surrogate key", b'{"\\ud800": 1}', 400, "lone surrogate"),
    _bad("not JSON", b"{not json", 400, "not JSON"),
    _bad("bare word", b"nul", 400, "not JSON"),
    _bad("trailing data", b'{"session": "%TOKEN%"}}', 400, "not JSON"),
    _bad("trailing comma", b'{"session": "%TOKEN%", "move": "x",}', 400, "not JSON"),
    _bad("single quotes", b"{'session': 'x'}", 400, "not JSON"),
    _bad("NaN", b'{"session": "%TOKEN%", "move": "x", "at": NaN}', 400, "NaN is not a JSON value"),
    _bad("Infinity", b'{"session": -Infinity}', 400, "Infinity is not a JSON value", path="/api/new"),
    _bad("a list", b"[1, 2]", 400, "must be a JSON object, got list"),
    _bad("a string", b'"H0@2,0"', 400, "must be a JSON object, got str"),
    _bad("a number", b"42", 400, "must be a JSON object, got int", path="/api/new"),
    _bad("null", b"null", 400, "must be a JSON object, got NoneType"),
    _bad("a key twice", b'{"session": "forged", "session": "%TOKEN%", "move": "x"}', 400, "'session' appears twice"),
    _bad("unknown field", b'{"session": "%TOKEN%", "move": "x", "extra": 1}', 400, "unknown field(s) ['extra']"),
    _bad("unknown field /api/new", b'{"session": "%TOKEN%", "move": "x"}', 400, "unknown field(s)", path="/api/new"),
    _bad("empty body", b"", 403, "missing field 'session'"),
    _bad("missing session", b'{"move": "x"}', 403, "missing field 'session'"),
    _bad("missing move", b'{"session": "%TOKEN%"}', 400, "missing field 'move'"),
    _bad("session a number", b'{"session": 5}', 403, "unknown session", path="/api/new"),
    _bad("move a number", b'{"session": "%TOKEN%", "move": 7}', 400, "field 'move' must be"),
    _bad("move a list", b'{"session": "%TOKEN%", "move": ["x"]}', 400, "field 'move' must be"),
    _bad("move null", b'{"session": "%TOKEN%", "move": null}', 400, "field 'move' must be"),
    _bad("brackets inside a string", b'{"session": "%TOKEN%", "move": "' + b"[" * 100 + b'"}', 400, "malformed move"),
    _bad("at a string", b'{"session": "%TOKEN%", "move": "x", "at": "0"}', 400, "field 'at' must be"),
    _bad("at a float", b'{"session": "%TOKEN%", "move": "x", "at": 0.5}', 400, "field 'at' must be"),
    _bad("at a bool", b'{"session": "%TOKEN%", "move": "x", "at": true}', 400, "field 'at' must be"),
    _bad("negative Content-Length", b"", 400, "bad Content-Length '-5'", length="-5"),
    _bad("Content-Length 1_0", b'{"a": 1} ', 400, "bad Content-Length '1_0'", length="1_0"),
    _bad("Content-Length +9", b'{"a": 1} ', 400, "bad Content-Length", length="+9"),
    _bad("Content-Length text", b"{}", 400, "bad Content-Length 'two'", length="two"),
    _bad("Content-Length list", b"{}", 400, "bad Content-Length", length="2, 2"),
    _bad("two Content-Lengths", b"{}", 400, "conflicting Content-Length", length="2\r\nContent-Length: 3"),
    _bad("body shorter than Content-Length", b'{"session": "x"}', 400, "ended after 16 of the 100 bytes", length="100"),
    _bad("body longer than Content-Length", b'{"session": "%TOKEN%", "move": "x"}', 400, "not JSON", length="12"),
    _bad("over the limit", b" " * (MAX_BODY + 1), 413, "over the limit of 4096"),
    _bad("over the limit, not sent", b"", 413, "over the limit", length="9" * 40),
    _bad(
        "chunked",
        b"2\r\n{}\r\n0\r\n\r\n",
        411,
        "Transfer-Encoding is not accepted",
        headers={"Content-Length": None, "Transfer-Encoding": "chunked"},
    ),
]


@pytest.mark.parametrize("path,body,headers,status,fragment", MALFORMED)
def test_every_malformed_body_gets_a_json_4xx(server, capfd, path, body, headers, status, fragment):
    before = _state(server)
    body = body.replace(TOKEN, before["session"].encode())
    if headers is None:
        assert len(body) <= MAX_BODY or status == 413  # the point: bodies the size limit lets through
    got, got_headers, payload = _post(server, body, path, headers)
    err = _json_error(got, got_headers, payload)
    assert got == status and fragment in err["error"], (got, err)
    assert _state(server) == before  # nothing played, no new game
    assert "Traceback" not in capfd.readouterr().err


def test_the_issue_body_raised_recursion_error_in_the_parser():
    """The body of issue 53 is refused by the parser itself, without recursing."""
    from agents.serving.webplay import MAX_DEPTH, PlayError, parse_body

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # far below the body's depth: a recursive parse would fail
    try:
        with pytest.raises(PlayError) as info:
            parse_body(b"[" * DEEP + b"]" * DEEP, {"session"}, "{}")
    finally:
        sys.setrecursionlimit(limit)
    assert info.value.status == 400 and info.value.rule == "request" and "2000 levels deep" in info.value.message
    inner = MAX_DEPTH - 1  # arrays inside the object: MAX_DEPTH levels in all, the most accepted
    value = parse_body(b'{"session": ' + b"[" * inner + b"]" * inner + b"}", {"session"}, "{}")["session"]
    for _ in range(inner - 1):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == []
    with pytest.raises(PlayError, match=f"{MAX_DEPTH + 1} levels deep"):
        parse_body(b'{"session": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}", {"session"}, "{}")
    assert parse_body(b'{"session": "[[[{{{\\"]]]"}', {"session"}, "{}") == {"session": '[[[{{{"]]]'}
    assert parse_body(b"  \n", {"session"}, "{}") == {}


def test_an_oversize_body_sent_before_reading_still_gets_its_answer(server, capfd):
    """A client that sends a whole large body before it reads (http.client does) gets the 413, not a
    connection reset: the server drains what it refused before closing."""
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=5)
    try:
        conn.request("POST", "/api/move", body=b"x" * 200_000, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        err = _json_error(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    finally:
        conn.close()
    assert resp.status == 413 and "200000 bytes is over the limit" in err["error"]
    assert "Traceback" not in capfd.readouterr().err


def test_a_body_that_stops_arriving_gets_408(capfd):
    with make_server(["random"], players=2, port=0, seed=3) as srv:
        srv.request_timeout = 0.3
        head = b"POST /api/move HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
        got, headers, payload = _exchange(srv, head + b'{"session"', half_close=False)
        err = _json_error(got, headers, payload)
        assert got == 408 and "stopped arriving after 10 of the 100 bytes" in err["error"]
        assert _state(srv)["game_id"] == 1  # the server still answers
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "request_bytes,status",
    [
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),  # the standard library refuses these
        (b"POST /api/move HTTP/1.1\r\n" + b"X-A: b\r\n" * 120 + b"\r\n", 431),  # too many headers
        (b"PUT /api/move HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}", 501),
        # no HTTP version the server can answer in: the answer is the body alone (HTTP/0.9)
        (b"NONSENSE\r\n\r\n", None),
        (b"GET /api/state HTTP/9.9\r\n\r\n", None),
    ],
)
def test_requests_the_standard_library_refuses_get_the_json_error_shape(server, capfd, request_bytes, status):
    if status is None:
        host, port = server.server_address[:2]
        with socket.create_connection((host, port), timeout=5) as sock:
            sock.sendall(request_bytes)
            sock.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        err = json.loads(answer)
        assert set(err) == {"error", "rule"} and err["error"] and err["rule"] == "request"
    else:
        got, headers, payload = _exchange(server, request_bytes)
        err = _json_error(got, headers, payload, high=599)
        assert got == status and err["rule"] == "request"
    assert "Traceback" not in capfd.readouterr().err


def test_wrong_paths_read_the_body_and_answer_404_or_405(server):
    for path, status in (("/nope", 404), ("/api/state", 405)):
        got, headers, payload = _post(server, b'{"unknown": [[[1]]]}', path)
        assert got == status and _json_error(got, headers, payload)["rule"] == "request"
    got, headers, payload = _post(server, b" " * (MAX_BODY + 1), "/nope")
    assert got == 413 and "over the limit" in _json_error(got, headers, payload)["error"]

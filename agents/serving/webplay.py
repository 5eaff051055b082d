"""Play any registered game in the browser against agents: a local web server with one play page.

Usage (``kardinal-play --web ...`` or)::

    python -m agents.serving.webplay --agents greedy                       # Kardinal, http://127.0.0.1:8000/
    python -m agents.serving.webplay --game kardinal_koenig --agents random   # Kardinal & König, 4 players

Options: :mod:`agents.serving.table`'s plus ``--host``, ``--port`` and ``--verbose``. Library: :func:`serve` (blocks
until Ctrl-C), :func:`make_server` (a :class:`PlayServer`; ``port=0`` picks a free port) and :class:`PlaySession` (the
game logic without HTTP).

The page is the game's play page (:func:`agents.serving.pages.page_for`). The agents reply at once; "New game" starts
again (agents re-seeded, game ``k`` of the session dealt with seed ``seed + k - 1``); "Download record" saves the
record.

**Only what your seat may know.** The page's state for your seat never holds another seat's hidden cards nor the deck
order, and ``/api/record`` of a game with hidden information or chance is refused (403, rule ``hidden``) until the game
is over.

HTTP API (JSON; every error is ``{"error": message, "rule": name or null}``):

====================  =======================================================================
``GET /``             the play page (self-contained: inline SVG, CSS and script, no network)
``GET /api/state``    the game as your seat sees it, with ``session`` (the token every POST
                      sends back), ``legal`` (your legal moves, empty when it is not your
                      turn), ``record_available`` and ``result`` once over
``POST /api/move``    ``{"session": TOKEN, "move": "H0@2,0", "at": N}`` plays your move (``at``,
                      optional: the ``move_count`` you saw; another one is refused with 409),
                      then the agents' replies; returns the new state. An illegal move, a move
                      out of turn (``turn``) or after the end (``game over``) gets 400 naming the
                      rule and changes nothing
``POST /api/new``     ``{"session": TOKEN}``: a new game; its state
``GET /api/record``   the game so far as a record download (see above for hidden information)
====================  =======================================================================

A POST without this server's session token is refused (403, rule ``session``): a page of another site cannot play for
you, and a page of an earlier server run learns that it must reload.

**Malformed requests** get a JSON error (rule ``request``), never a dropped connection or a traceback
(:func:`parse_body`): a body that is not UTF-8, not JSON (``NaN`` included), nested deeper than :data:`MAX_DEPTH`, not
an object, with a key twice, an unknown field or a lone surrogate: 400; a ``Content-Length`` that is not one byte
count: 400, over :data:`MAX_BODY`: 413; a body shorter than its ``Content-Length``: 400 (408 after
:attr:`PlayServer.request_timeout` seconds of silence); a chunked body: 411. A refused body is drained (up to
:data:`DRAIN_LIMIT` bytes) after the answer, so the client reads the answer, not a reset.

The standard library's ``ThreadingHTTPServer`` serves one local person (the agents reply inside the request, serialised
by one lock). It binds ``127.0.0.1`` by default (another host prints a warning) and is not hardened for the internet.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import re
import secrets
import socket
import sys
import threading
import time
import traceback
from collections.abc import Collection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import accumulate
from typing import Any

from agents import AgentSpecError
from agents.serving.pages import page_for
from agents.serving.table import build_agents, default_game, rule_options, seat_specs, table_parser
from kardinal_env.core.checks import is_int
from kardinal_env.core.registry import GameSpec, get_game

__all__ = ["PlaySession", "PlayServer", "PlayError", "parse_body", "make_server", "serve", "main"]

#: Bytes of a request body at most (a longer ``Content-Length`` is refused with 413).
MAX_BODY = 4096
#: Nesting levels of arrays and objects a request body may have (the API's bodies have one).
MAX_DEPTH = 8
#: Bytes of a refused, unread body the server reads and drops after its answer, at most.
DRAIN_LIMIT = 1 << 20


class PlayError(Exception):
    """A refused request: HTTP ``status``, a message, and the rule (or check) it breaks."""

    def __init__(self, status: int, message: str, rule: str | None = None):
        super().__init__(message)
        self.status, self.message, self.rule = status, message, rule


def _request_error(message: str, status: int = 400) -> PlayError:
    return PlayError(status, message, "request")


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)  # a JSON string (to the end if unterminated)


def _nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, without parsing; brackets inside strings do not count."""
    return max(accumulate((c in "[{") - (c in "]}") for c in _STRING.sub("", text)), default=0)


def _no_constant(name: str) -> Any:
    raise _request_error(f"the request body is not JSON: {name} is not a JSON value")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    body: dict = {}
    for key, value in pairs:
        if key in body:
            raise _request_error(f"the request body is not a valid object: field {key!r} appears twice")
        body[key] = value
    return body


def parse_body(raw: bytes, fields: Collection[str], shape: str) -> dict:
    """``raw`` as a JSON object with keys among ``fields`` (``{}`` if empty; values unchecked), else :class:`PlayError`
    (rule ``request``; 413 over :data:`MAX_BODY`, else 400) naming what is wrong and ``shape``, what to send."""
    if len(raw) > MAX_BODY:
        raise _request_error(f"request body of {len(raw)} bytes is over the limit of {MAX_BODY}", 413)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        raise _request_error(
            f"the request body is not JSON: not UTF-8 text ({exc.reason} 0x{bad} at byte {exc.start})"
        ) from None
    if not text.strip():
        return {}
    depth = _nesting_depth(text)
    if depth > MAX_DEPTH:
        raise _request_error(
            f"the request body nests arrays/objects {depth} levels deep (at most {MAX_DEPTH}); send {shape}"
        )
    try:
        body = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise _request_error(f"the request body is not JSON: {exc}; send {shape}") from None
    if not isinstance(body, dict):
        raise _request_error(f"the request body must be a JSON object, got {type(body).__name__}; send {shape}")
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise _request_error(
            f"the request body holds a string that is not Unicode text (a lone surrogate): {bad!r}"
        ) from None
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise _request_error(f"unknown field(s) {unknown}; send {shape}")
    return body


class PlaySession:
    """One game between a person (``human_seat``) and agents, safe to use from several threads.

    ``game``: a registered game's name or spec (``None``: the first registered); ``players``: its seat count (``None``:
    the game's default); ``options``: its rule options (``discard="any"``, ...); ``agents``: specs for the other seats
    in turn order (the last one repeats), seeded ``seed * 16 + seat`` for every game; game ``k`` is dealt with seed
    ``seed + k - 1``. ``session``: the token every POST must carry (random unless given)."""

    def __init__(
        self,
        agents: list[str],
        players: int | None = None,
        human_seat: int = 0,
        seed: int = 0,
        game: str | GameSpec | None = None,
        session: str | None = None,
        **options: Any,
    ):
        self.spec = get_game(game) if game is not None else default_game()
        self.rules = self.spec.rules(players, **options)
        players = self.rules.players if players is None else players
        if not is_int(seed) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
        self.specs = seat_specs(list(agents), players, human_seat, what="human_seat")
        self.human_seat = human_seat
        self.seed = seed
        self.agents, self.warnings = build_agents(self.spec, players, self.specs, seed)
        self.names = ["you" if s == human_seat else str(self.agents[s].name) for s in range(players)]
        self.page = page_for(self.spec)
        self.session = session or secrets.token_urlsafe(16)
        self.hidden_record = not self.spec.perfect_information or self.spec.chance
        self.lock = threading.Lock()
        self.game_id = 0
        self.new_game()

    def new_game(self) -> dict:
        """Start a new game (agents re-seeded; those before the person move at once); its state."""
        with self.lock:
            self.game_id += 1
            self.game: Any = self.spec.new_game(self.rules, seed=self.seed + self.game_id - 1)
            self.movers: list[int] = []  # the seat of each move
            self.agent_error: str | None = None
            for seat, agent in self.agents.items():
                if hasattr(agent, "reset"):
                    agent.reset(self.seed * 16 + seat)
            self._agents_reply()
            return self._state()

    def play(self, move: Any, at: Any = None) -> dict:
        """Play the person's ``move`` and the agents' replies; the new state, or :class:`PlayError` (no change)."""
        with self.lock:
            game = self.game
            if not isinstance(move, str):
                raise _request_error(f"field 'move' must be a move string in notation, got {move!r}")
            if at is not None and not is_int(at):
                raise _request_error(f"field 'at' must be the move count you saw (an integer), got {at!r}")
            if game.is_over:
                raise PlayError(400, f"game over: the game ended after {game.move_count} moves", "game over")
            seat, count = game.current_player, game.move_count
            if seat != self.human_seat:
                raise PlayError(400, f"turn: seat {seat} is on turn, you play seat {self.human_seat}", "turn")
            if at is not None and at != count:
                raise PlayError(
                    409, f"stale: you saw move count {at}, the game is at {count}; reload the state", "stale"
                )
            try:
                game.play(move)
            except ValueError as exc:  # the engine's IllegalMoveError names the rule; else a malformed move
                raise PlayError(400, f"illegal move {move!r}: {exc}", getattr(exc, "rule", "malformed move")) from None
            self.movers.append(self.human_seat)
            self._agents_reply()
            return self._state()

    def state(self) -> dict:
        with self.lock:
            return self._state()

    def record_available(self) -> bool:
        """Always for a game without hidden information or chance, else once the game is over."""
        return not self.hidden_record or self.game.is_over

    def record(self) -> dict:
        """The game so far as a record; :class:`PlayError` (403, rule ``hidden``) unless :meth:`record_available`."""
        with self.lock:
            if not self.record_available():
                hidden = "the record holds every hand and the deck order; it can be downloaded once the game is over"
                raise PlayError(403, f"hidden: {hidden}", "hidden")
            return self.game.to_record()

    def check_session(self, token: Any) -> None:
        """:class:`PlayError` (403, rule ``session``) unless ``token`` is this session's token."""
        if token is None:
            raise PlayError(403, "missing field 'session': send the session token of GET /api/state", "session")
        if not isinstance(token, str) or not secrets.compare_digest(
            token.encode("utf-8", "surrogatepass"), self.session.encode("utf-8")
        ):
            raise PlayError(403, "unknown session: this server plays another session; reload the page", "session")

    def _agents_reply(self) -> None:
        game = self.game
        while not game.is_over and game.current_player != self.human_seat and self.agent_error is None:
            seat = game.current_player
            agent = self.agents[seat]
            try:
                game.play(agent.select_move(game))
            except Exception as exc:  # an agent bug: report it on the page, do not crash the server
                self.agent_error = f"agent {agent.name} (seat {seat}) failed: {type(exc).__name__}: {exc}"
                return
            self.movers.append(seat)

    def _state(self) -> dict:
        game = self.game
        over = game.is_over
        mine = not over and game.current_player == self.human_seat and self.agent_error is None
        state = {
            "game": self.spec.name,
            "title": self.spec.title,
            "session": self.session,
            "game_id": self.game_id,
            "players": game.num_players,
            "human_seat": self.human_seat,
            "names": self.names,
            "seat": game.current_player,
            "move_count": game.move_count,
            "history": game.history,
            "movers": list(self.movers),
            "last": game.history[-1] if game.move_count else None,
            "your_turn": mine,
            "legal": game.legal_moves() if mine else [],
            "result": {"scores": game.scores(), "winners": game.winners()} if over else None,
            "agent_error": self.agent_error,
            "record_available": self.record_available(),
        }
        state.update(self.page.state(game, self.human_seat))
        return state


class _Handler(BaseHTTPRequestHandler):
    server: PlayServer
    server_version = "kardinal-webplay"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_timeout)  # every read and write of the connection
        self._drain = 0  # bytes of a refused body still to read and drop after the answer

    def handle(self) -> None:
        super().handle()
        if self._drain:
            self._linger()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, content_type: str, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value).encode("utf-8"), "application/json; charset=utf-8")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's refusals (bad request line or header, unsupported method) as API errors."""
        text = message or self.responses.get(code, ("error", ""))[0]
        if explain and explain not in text:
            text = f"{text}: {explain}"
        self.log_error("code %d, message %s", code, text)
        self.close_connection = True
        self._json(code, {"error": text, "rule": "request"})

    def _answer(self, action: Any) -> None:
        """Run ``action``; a :class:`PlayError` is answered as is, another exception with 500 (traceback on stderr)."""
        try:
            action()
        except PlayError as err:
            self._json(err.status, {"error": err.message, "rule": err.rule})
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away or stopped: nobody to answer
        except Exception as exc:
            sys.stderr.write(f"kardinal-webplay: error in {self.command} {self.path}:\n{traceback.format_exc()}")
            self._json(500, {"error": f"internal error: {type(exc).__name__}: {exc}", "rule": None})

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._answer(self._get)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self._answer(self._post)

    def _get(self) -> None:
        path = self.path.split("?", 1)[0]
        session = self.server.session
        if path in ("/", "/index.html"):
            self._send(200, self.server.page, "text/html; charset=utf-8")
        elif path == "/api/state":
            self._json(200, session.state())
        elif path == "/api/record":
            body = (json.dumps(session.record(), indent=1) + "\n").encode("utf-8")
            name = f"{session.spec.name}-game-{session.game_id}.json"
            disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
            self._send(200, body, "application/json; charset=utf-8", disposition)
        elif path in ("/api/move", "/api/new"):
            raise PlayError(405, f"{path} takes POST, not GET", "request")
        else:
            raise PlayError(404, f"no such page: {path}", "request")

    def _post(self) -> None:
        path = self.path.split("?", 1)[0]
        session = self.server.session
        if path == "/api/move":
            body = parse_body(self._read_body(), {"session", "move", "at"}, '{"session": ..., "move": ..., "at": ...}')
            session.check_session(body.get("session"))
            if "move" not in body:
                raise _request_error("missing field 'move'")
            self._json(200, session.play(body["move"], body.get("at")))
        elif path == "/api/new":
            body = parse_body(self._read_body(), {"session"}, '{"session": ...}')
            session.check_session(body.get("session"))
            self._json(200, session.new_game())
        else:
            self._read_body()  # read (or refuse) the body before answering
            if path in ("/", "/api/state", "/api/record"):
                raise PlayError(405, f"{path} takes GET, not POST", "request")
            raise PlayError(404, f"no such page: {path}", "request")

    def _read_body(self) -> bytes:
        values = [value.strip() for value in self.headers.get_all("Content-Length") or []]
        self._drain = DRAIN_LIMIT  # until the body is known to be read in full, or absent
        if self.headers.get("Transfer-Encoding") is not None:
            raise _request_error("Transfer-Encoding is not accepted: send the body with a Content-Length", 411)
        if len(set(values)) > 1:
            raise _request_error(f"conflicting Content-Length headers {values}")
        text = values[0] if values else "0"
        if not re.fullmatch("[0-9]+", text):
            raise _request_error(f"bad Content-Length {text!r}: not a byte count")
        length = int(text) if len(text) <= 12 else 10**12
        if length > MAX_BODY:
            self._drain = length
            shown = text if len(text) <= 20 else f"{text[:17]}..."
            raise _request_error(f"request body of {shown} bytes is over the limit of {MAX_BODY}", 413)
        self._drain = 0
        body = bytearray()
        try:
            while len(body) < length and (chunk := self.rfile.read1(length - len(body))):
                body += chunk
        except TimeoutError:
            self.close_connection = True
            raise _request_error(
                f"the request body stopped arriving after {len(body)} of the {length} bytes its Content-Length "
                f"announced ({self.server.request_timeout:g} s without data)",
                408,
            ) from None
        if len(body) < length:
            raise _request_error(
                f"the request body ended after {len(body)} of the {length} bytes its Content-Length announced"
            )
        return bytes(body)

    def _linger(self) -> None:
        """End the answer, then drop the unread body (up to its length, :data:`DRAIN_LIMIT`, one ``request_timeout``),
        so that closing does not reset the connection before the client has read the answer."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            return
        left = min(self._drain, DRAIN_LIMIT)
        deadline = time.monotonic() + self.server.request_timeout
        try:
            while left > 0 and time.monotonic() < deadline and (chunk := self.rfile.read1(min(left, 65536))):
                left -= len(chunk)
        except OSError:  # a timeout or a reset: the client has what it needs, or is gone
            pass


class PlayServer(ThreadingHTTPServer):
    """The play server at ``url``: :meth:`start` serves in a background thread, :meth:`stop` shuts it
    down and closes the socket (also ``with make_server(...) as server``)."""

    daemon_threads = True
    #: Seconds a connection may stay silent while the server waits for (or sends) its bytes.
    request_timeout = 10.0

    def __init__(self, address: tuple[str, int], session: PlaySession, verbose: bool = False):
        if ":" in address[0]:  # an IPv6 address such as ::1
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        self.session = session
        self.verbose = verbose
        self.page = session.page.html().encode("utf-8")
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"

    def start(self) -> PlayServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self.serve_forever, args=(0.05,), name="kardinal-webplay", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()

    def __enter__(self) -> PlayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def make_server(
    agents: list[str],
    players: int | None = None,
    human_seat: int = 0,
    host: str = "127.0.0.1",
    port: int = 8000,
    seed: int = 0,
    verbose: bool = False,
    game: str | GameSpec | None = None,
    **options: Any,
) -> PlayServer:
    """A :class:`PlayServer` on ``host:port`` (``port=0``: a free port), not yet serving, of a :class:`PlaySession`.
    ``ValueError`` / :class:`~agents.AgentSpecError` for bad settings, ``OSError`` if the address cannot be bound."""
    if not is_int(port) or not 0 <= port <= 65535:
        raise ValueError(f"port must be 0..65535 (0 = any free port), got {port!r}")
    session = PlaySession(agents, players, human_seat, seed=seed, game=game, **options)
    return PlayServer((host, port), session, verbose=verbose)


def serve(*args: Any, **kwargs: Any) -> None:
    """Serve the play page until Ctrl-C, printing its address; :func:`make_server`'s arguments."""
    server = make_server(*args, **kwargs)
    host, human_seat = str(server.server_address[0]), server.session.human_seat
    for note in server.session.warnings:
        print(f"warning: {note}", file=sys.stderr)
    if not ipaddress.ip_address(host).is_loopback:
        print(f"warning: serving on {host}: anyone who can reach it can play this game", file=sys.stderr)
    print(
        f"{server.session.spec.title} play page: {server.url}  (you are seat {human_seat}; Ctrl-C stops the server)",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped")
    finally:
        server.server_close()


def build_parser(argv: list[str] | None = None) -> tuple[argparse.ArgumentParser, GameSpec]:
    """The command line (the table options of ``argv``'s game, ``--host``, ``--port``, ``--verbose``), the game."""
    description = (__doc__ or "").split("\n")[0]
    parser, spec = table_parser(argv, prog="python -m agents.serving.webplay", description=description)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    return parser, spec


def main(argv: list[str] | None = None) -> int:
    """Exit status 0 (stopped with Ctrl-C); 2 for bad arguments or an address that cannot be bound."""
    parser, spec = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        seat_specs(list(args.agents), args.players, args.seat)  # the errors in the command line's words
        table = (args.agents, args.players, args.seat, args.host, args.port, args.seed, args.verbose, spec)
        serve(*table, **rule_options(spec, args))
    except (AgentSpecError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

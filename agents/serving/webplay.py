"""Play Kardinal in the browser against agents: a local web server with one play page.

Usage::

    python -m agents.serving.webplay --agents greedy                       # http://127.0.0.1:8000/
    python -m agents.serving.webplay --players 3 --seat 1 --agents ppo:runs/default/checkpoint.pt random --port 8080

Library: :func:`serve` (blocks until Ctrl-C), :func:`make_server` (a :class:`PlayServer` to start and
stop yourself; ``port=0`` picks a free port) and :class:`PlaySession` (the game logic without HTTP).

The page draws the board with the same code as the HTML replays (``kardinal_env.kardinal.replay_html``). On
your decisions the legal moves come from the engine (``game.legal_moves()``): pick an edifice, then
click one of the highlighted squares (a yard: its first square, then its second); chips and
``C-`` are buttons, a cardinal move is a click on a highlighted site. The agents (``agents.load_agent``
specs, one per other seat in turn order, the last repeated) reply at once. "Download record" saves
the game as a ``kardinal-record/1`` file (``python -m kardinal_env.core.replay FILE -o game.html``
replays it); "New game" starts again.

HTTP API (JSON; every error is ``{"error": message, "rule": name or null}``):

====================  =======================================================================
``GET /``             the play page (self-contained: inline SVG, CSS and script, no network)
``GET /api/state``    the game as the page draws it, with ``legal`` (your legal moves, empty
                      when it is not your turn) and ``result`` once over
``POST /api/move``    ``{"move": "H0@2,0", "at": N}`` plays your move (``at``, optional: the
                      ``move_count`` you saw; a different one is refused with 409, nothing
                      played), then the agents' replies; returns the new state. An illegal
                      move gets 400 naming the rule it breaks (``rule IV``, ``phase``, ...) and
                      changes nothing; so does a move when it is not your turn (``turn``) or
                      after the end (``game over``)
``POST /api/new``     a new game (the agents are re-seeded); returns its state
``GET /api/record``   the game so far as a ``kardinal-record/1`` download
====================  =======================================================================

Why the standard library's ``http.server.ThreadingHTTPServer``: the server answers one person on
one machine with a handful of small JSON requests, so it needs no framework, no extra dependency
(nothing to install next to torch in a training environment, no version drift), and no
asynchronous code; agents reply inside the request, serialised by one lock. It binds
``127.0.0.1`` by default: the page is for the local user (another host prints a warning). It is not
hardened for the open internet (no authentication, no TLS), and does not need to be.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import socket
import sys
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agents import AgentSpecError, check_spec, load_agent
from agents.games import add_table_arguments
from agents.networks.checkpoint import PlayerCountWarning
from kardinal_env import IllegalMoveError
from kardinal_env.kardinal import Game, Rules, RulesError
from kardinal_env.kardinal.replay_html import BOARD_CSS, BOARD_JS, fill_page, position_state

__all__ = ["PlaySession", "PlayServer", "PlayError", "make_server", "serve", "main"]

MAX_BODY = 4096  # bytes of a request body


class PlayError(Exception):
    """A refused request: HTTP ``status``, a message, and the rule (or check) it breaks."""

    def __init__(self, status: int, message: str, rule: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.rule = rule

    def payload(self) -> dict:
        return {"error": self.message, "rule": self.rule}


def _other_seats_specs(specs: list[str], players: int, human_seat: int) -> dict[int, str]:
    others = [s for s in range(players) if s != human_seat]
    if not specs:
        raise ValueError("give at least one agent spec for the other seats")
    if len(specs) > len(others):
        raise ValueError(f"{len(specs)} agent specs for {len(others)} other seats")
    filled = list(specs) + [specs[-1]] * (len(others) - len(specs))
    return dict(zip(others, filled))


class PlaySession:
    """One game between a person (``human_seat``) and agents, safe to use from several threads.

    ``agents``: specs for the other seats in turn order (the last one repeats). Agents are seeded
    ``seed * 16 + seat`` (as ``agents.serving.play``) and re-seeded for every new game.
    """

    def __init__(
        self,
        agents: list[str],
        players: int = 2,
        human_seat: int = 0,
        preset: str = "english",
        shared_pool: bool = False,
        seed: int = 0,
    ):
        self.rules = Rules(players=players, preset=preset, shared_pool=shared_pool)
        if isinstance(human_seat, bool) or not isinstance(human_seat, int) or not 0 <= human_seat < players:
            raise ValueError(f"human_seat must be 0..{players - 1}, got {human_seat!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
        self.human_seat = human_seat
        self.seed = seed
        self.specs = _other_seats_specs(list(agents), players, human_seat)
        self.warnings: list[str] = []
        for spec in dict.fromkeys(self.specs.values()):
            self.warnings.extend(check_spec(spec, players))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=PlayerCountWarning)  # collected just above
            self.agents = {seat: load_agent(spec, seed=seed * 16 + seat) for seat, spec in self.specs.items()}
        self.names = ["you" if s == human_seat else f"{self.agents[s].name}" for s in range(players)]
        self.lock = threading.Lock()
        self.game_id = 0
        self.game = Game(self.rules)
        self.movers: list[int] = []
        self.agent_error: str | None = None
        self.new_game()

    # ------------------------------------------------------------------ actions
    def new_game(self) -> dict:
        """Start a new game (agents re-seeded, agents before the person move at once); its state."""
        with self.lock:
            self.game_id += 1
            self.game = Game(self.rules)
            self.movers = []
            self.agent_error = None
            for seat, agent in self.agents.items():
                if hasattr(agent, "reset"):
                    agent.reset(self.seed * 16 + seat)
            self._agents_reply()
            return self._state()

    def play(self, move: Any, at: Any = None) -> dict:
        """Play the person's ``move`` (notation) and the agents' replies; the new state.
        :class:`PlayError` (nothing changed) for a bad or illegal request."""
        with self.lock:
            game = self.game
            if not isinstance(move, str):
                raise PlayError(400, f"field 'move' must be a move string in notation, got {move!r}", "request")
            if at is not None and (isinstance(at, bool) or not isinstance(at, int)):
                raise PlayError(400, f"field 'at' must be the move count you saw (an integer), got {at!r}", "request")
            if game.is_over:
                raise PlayError(400, f"game over: the game ended after {game.move_count} moves", "game over")
            if game.current_player != self.human_seat:
                raise PlayError(
                    400, f"turn: seat {game.current_player} is on turn, you play seat {self.human_seat}", "turn"
                )
            if at is not None and at != game.move_count:
                raise PlayError(
                    409, f"stale: you saw move count {at}, the game is at {game.move_count}; reload the state", "stale"
                )
            try:
                game.play(move)
            except IllegalMoveError as exc:
                raise PlayError(400, f"illegal move {move!r}: {exc}", exc.rule) from None
            except ValueError as exc:  # a malformed move string
                raise PlayError(400, f"illegal move {move!r}: {exc}", "malformed move") from None
            self.movers.append(self.human_seat)
            self._agents_reply()
            return self._state()

    def state(self) -> dict:
        with self.lock:
            return self._state()

    def record(self) -> dict:
        """The game so far as a ``kardinal-record/1`` dict (``result`` null until it is over)."""
        with self.lock:
            return self.game.to_record()

    # ------------------------------------------------------------------ internals
    def _agents_reply(self) -> None:
        game = self.game
        while not game.is_over and game.current_player != self.human_seat and self.agent_error is None:
            seat = game.current_player
            assert seat is not None
            agent = self.agents[seat]
            try:
                move = agent.select_move(game)
                game.play(move)
            except Exception as exc:  # an agent bug: report it on the page, do not crash the server
                self.agent_error = f"agent {agent.name} (seat {seat}) failed: {type(exc).__name__}: {exc}"
                return
            self.movers.append(seat)

    def _state(self) -> dict:
        game = self.game
        buildings = game.buildings()
        last_id = len(buildings) - 1 if len(buildings) > 2 else -1
        mine = not game.is_over and game.current_player == self.human_seat and self.agent_error is None
        over = game.is_over
        n = game.num_players
        state = position_state(game)
        state.update(
            game_id=self.game_id,
            players=n,
            human_seat=self.human_seat,
            names=self.names,
            seat_colours=[list(game.seat_colours(s)) for s in range(n)],
            rules=self.rules.to_dict(),
            window=self.rules.window,
            move_count=game.move_count,
            history=game.history,
            movers=list(self.movers),
            buildings=[
                {
                    "id": b.id,
                    "shape": b.shape,
                    "colour": b.colour,
                    "squares": [list(q) for q in b.squares],
                    "builder": b.builder,
                }
                for b in buildings
            ],
            last_id=last_id,
            last=game.history[-1] if game.move_count else None,
            your_turn=mine,
            legal=game.legal_moves() if mine else [],
            result={"scores": game.scores(), "winners": game.winners()} if over else None,
            agent_error=self.agent_error,
        )
        return state


class _Handler(BaseHTTPRequestHandler):
    server: PlayServer
    server_version = "kardinal-webplay"

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
        self.wfile.write(body)

    def _json(self, status: int, value: Any, extra: dict | None = None) -> None:
        self._send(status, json.dumps(value).encode("utf-8"), "application/json; charset=utf-8", extra)

    def _error(self, err: PlayError) -> None:
        self._json(err.status, err.payload())

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        session = self.server.session
        if path in ("/", "/index.html"):
            self._send(200, self.server.page, "text/html; charset=utf-8")
        elif path == "/api/state":
            self._json(200, session.state())
        elif path == "/api/record":
            record = session.record()
            name = f"kardinal-game-{session.game_id}.json"
            body = (json.dumps(record, indent=1) + "\n").encode("utf-8")
            self._send(
                200, body, "application/json; charset=utf-8", {"Content-Disposition": f'attachment; filename="{name}"'}
            )
        elif path in ("/api/move", "/api/new"):
            self._error(PlayError(405, f"{path} takes POST, not GET", "request"))
        else:
            self._error(PlayError(404, f"no such page: {path}", "request"))

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        session = self.server.session
        try:
            if path == "/api/move":
                body = self._body()
                unknown = sorted(set(body) - {"move", "at"})
                if unknown:
                    raise PlayError(400, f'unknown field(s) {unknown}; send {{"move": ..., "at": ...}}', "request")
                if "move" not in body:
                    raise PlayError(400, "missing field 'move'", "request")
                self._json(200, session.play(body["move"], body.get("at")))
            elif path == "/api/new":
                self._body()
                self._json(200, session.new_game())
            elif path in ("/", "/api/state", "/api/record"):
                raise PlayError(405, f"{path} takes GET, not POST", "request")
            else:
                raise PlayError(404, f"no such page: {path}", "request")
        except PlayError as err:
            self._error(err)

    def _body(self) -> dict:
        length_text = self.headers.get("Content-Length", "0")
        try:
            length = int(length_text)
        except ValueError:
            raise PlayError(400, f"bad Content-Length {length_text!r}", "request") from None
        if length > MAX_BODY:
            raise PlayError(413, f"request body of {length} bytes is over the limit of {MAX_BODY}", "request")
        raw = self.rfile.read(length) if length > 0 else b""
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PlayError(400, f"the request body is not JSON: {exc}", "request") from None
        if not isinstance(body, dict):
            raise PlayError(400, f"the request body must be a JSON object, got {type(body).__name__}", "request")
        return body


class PlayServer(ThreadingHTTPServer):
    """The play server: ``server.url``; :meth:`start` serves in a background thread, :meth:`stop`
    shuts it down and closes the socket (also as a context manager: ``with make_server(...) as s``)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], session: PlaySession, verbose: bool = False):
        if ":" in address[0]:  # an IPv6 address such as ::1
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        self.session = session
        self.verbose = verbose
        self.page = play_page().encode("utf-8")
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        host_text = f"[{host}]" if ":" in host else host
        return f"http://{host_text}:{port}/"

    def start(self) -> PlayServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self.serve_forever, kwargs={"poll_interval": 0.05}, name="kardinal-webplay", daemon=True
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
    players: int = 2,
    human_seat: int = 0,
    host: str = "127.0.0.1",
    port: int = 8000,
    preset: str = "english",
    shared_pool: bool = False,
    seed: int = 0,
    verbose: bool = False,
) -> PlayServer:
    """A :class:`PlayServer` bound to ``host:port`` (``port=0``: a free port), not yet serving.
    ``ValueError`` / :class:`~agents.AgentSpecError` / ``RulesError`` for bad settings, ``OSError``
    when the address cannot be bound."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be 0..65535 (0 = any free port), got {port!r}")
    session = PlaySession(agents, players, human_seat, preset=preset, shared_pool=shared_pool, seed=seed)
    return PlayServer((host, port), session, verbose=verbose)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    agents: list[str],
    players: int = 2,
    human_seat: int = 0,
    host: str = "127.0.0.1",
    port: int = 8000,
    preset: str = "english",
    shared_pool: bool = False,
    seed: int = 0,
    verbose: bool = False,
) -> None:
    """Serve the play page until Ctrl-C (see the module docstring); prints its address."""
    server = make_server(agents, players, human_seat, host, port, preset, shared_pool, seed, verbose)
    for note in server.session.warnings:
        print(f"warning: {note}", file=sys.stderr)
    if not _is_loopback(host):
        print(f"warning: serving on {host}: anyone who can reach it can play this game", file=sys.stderr)
    print(f"Kardinal play page: {server.url}  (you are seat {human_seat}; Ctrl-C stops the server)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped")
    finally:
        server.server_close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agents.serving.webplay", description=__doc__.split("\n")[0])
    add_table_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Exit status 0 (stopped with Ctrl-C); 2 for bad arguments or an address that cannot be bound."""
    args = build_parser().parse_args(argv)
    try:
        serve(
            args.agents,
            args.players,
            args.seat,
            host=args.host,
            port=args.port,
            preset=args.preset,
            shared_pool=args.shared_pool,
            seed=args.seed,
            verbose=args.verbose,
        )
    except (AgentSpecError, RulesError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


# ------------------------------------------------------------------------------------------ the page
def play_page() -> str:
    """The play page: self-contained HTML (the board code of ``kardinal_env.kardinal.replay_html``)."""
    return fill_page(_PAGE, {"CSS": BOARD_CSS + _PLAY_CSS, "JS": BOARD_JS + _PLAY_JS})


_PLAY_CSS = """
#status { font-weight: 600; font-size: 15px; }
#status.mine { color: var(--accent); }
#error { color: #ff8080; min-height: 1.2em; white-space: pre-wrap; }
#actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
#actions button.selected { outline: 2px solid var(--accent); }
#hint { color: var(--muted); font-size: 12px; margin-top: 4px; }
.target { fill: rgba(255, 225, 40, 0.28); stroke: #ffe128; stroke-width: 0.05; cursor: pointer; }
.target:hover { fill: rgba(255, 225, 40, 0.65); }
.target.chosen { fill: rgba(255, 225, 40, 0.8); }
#log { max-height: calc(100vh - 600px); min-height: 80px; overflow-y: auto; margin: 0; padding: 0; list-style: none;
  font: 12px/1.5 ui-monospace, monospace; display: flex; flex-wrap: wrap; gap: 2px 8px; }
#log .who { color: var(--muted); font-size: 10px; margin-right: 2px; }
#log li.mine { color: var(--accent); }
#tools { display: flex; gap: 8px; align-items: center; }
#tools a { color: var(--text); }
#scores .winner { color: var(--accent); font-weight: 600; }
"""

_PLAY_JS = r"""
let S = null;            // the last state from the server
let pick = null;         // chosen edifice kind in the build phase, e.g. "H0", "Y2"
let first = null;        // first square "x,y" of a yard
let busy = false;

const svg = document.getElementById("board");
const SHAPE_NAME = {H: "house", T: "tower", Y: "yard"};

function setBusy(value) {
  busy = value;
  document.body.dataset.busy = value ? "1" : "0";
  document.querySelectorAll("#actions button, #new").forEach(b => { b.disabled = value; });
}

function showError(message, rule) {
  const el = document.getElementById("error");
  el.textContent = message || "";
  el.dataset.rule = rule || "";
}

async function request(method, path, body) {
  setBusy(true);
  try {
    const r = await fetch(path, {method: method, headers: {"Content-Type": "application/json"},
                                 body: body === undefined ? undefined : JSON.stringify(body)});
    const data = await r.json();
    if (!r.ok) { showError(data.error, data.rule); return; }
    showError("");
    S = data;
    render();
  } catch (e) {
    showError(`no answer from the server: ${e}`, "network");
  } finally {
    setBusy(false);
  }
}

function playMove(move) {
  if (busy || !S || !S.legal.includes(move)) return;
  pick = null; first = null;
  request("POST", "/api/move", {move: move, at: S.move_count});
}

// Parse a build move "H0@2,1" / "Y1@-1,0:0,0" into its kind and squares.
function parseBuild(move) {
  const m = /^([HTY])(\d)@(-?\d+),(-?\d+)(?::(-?\d+),(-?\d+))?$/.exec(move);
  if (!m) return null;
  const squares = [[Number(m[3]), Number(m[4])]];
  if (m[5] !== undefined) squares.push([Number(m[5]), Number(m[6])]);
  return {kind: m[1] + m[2], squares: squares, move: move};
}

function buildTargets() {
  const builds = S.legal.map(parseBuild).filter(b => b && b.kind === pick);
  const targets = new Map();
  if (pick[0] !== "Y") {
    for (const b of builds) targets.set(b.squares[0].join(","), {move: b.move});
  } else if (first === null) {
    for (const b of builds) for (const sq of b.squares) targets.set(sq.join(","), {first: true});
  } else {
    for (const b of builds) {
      const keys = b.squares.map(s => s.join(","));
      const i = keys.indexOf(first);
      if (i >= 0) targets.set(keys[1 - i], {move: b.move});
    }
    targets.set(first, {cancel: true});
  }
  return targets;
}

function render() {
  const st = S;
  document.body.dataset.moves = st.move_count;
  document.body.dataset.phase = st.phase;
  document.body.dataset.yourTurn = st.your_turn ? "1" : "0";
  document.body.dataset.gameId = st.game_id;
  const actions = document.getElementById("actions");
  const hint = document.getElementById("hint");
  let targets = new Map();
  let html = "";
  hint.textContent = "";
  if (st.your_turn && st.phase === "build") {
    const kinds = new Map();
    for (const b of st.legal.map(parseBuild)) if (b) kinds.set(b.kind, (kinds.get(b.kind) || 0) + 1);
    if (pick !== null && !kinds.has(pick)) { pick = null; first = null; }
    if (pick === null && kinds.size) pick = kinds.keys().next().value;
    for (const [kind, count] of kinds) {
      const c = Number(kind[1]);
      html += `<button class="pick${kind === pick ? " selected" : ""}" data-kind="${kind}">` +
              `${swatch(c)}${SHAPE_NAME[kind[0]]} ${c} <small>(${count})</small></button>`;
    }
    if (pick !== null) {
      for (const [key, t] of buildTargets()) targets.set(key, t);
      hint.textContent = pick[0] === "Y" ? (first === null ? "click the yard's first square" :
        "click its second square (or the first again to cancel)") : "click a highlighted square to build";
    }
  } else if (st.your_turn && st.phase === "chip") {
    for (const m of st.legal) {
      const c = Number(m.split(":")[1]);
      html += `<button class="chip" data-move="${m}">${swatch(c)}take a chip of colour ${c} ` +
              `<small>(${st.supply[c]} left)</small></button>`;
    }
    hint.textContent = st.pending > 1 ? `${st.pending} chips to take` : "take one chip";
  } else if (st.your_turn && st.phase === "cardinal") {
    for (const m of st.legal) {
      if (m === "C-") html += `<button class="keep" data-move="C-">leave the cardinal where it is (C-)</button>`;
      else {
        const [x, y] = m.slice(2).split(",").map(Number);
        targets.set(`${x},${y}`, {move: m});
      }
    }
    hint.textContent = "click a highlighted site to move the cardinal there";
  }
  actions.innerHTML = html;
  const list = [];
  for (const [key, t] of targets) {
    const [x, y] = key.split(",").map(Number);
    list.push({x: x, y: y, cls: t.cancel ? "chosen" : (t.first ? "first" : "final"),
               title: t.move || (t.cancel ? "cancel this yard" : "first square of the yard")});
  }
  const lastKind = st.last === null ? null : (st.last.startsWith("chip") ? "chip" :
                                               st.last.startsWith("C") ? "cardinal" : "build");
  const view = boardView([st.buildings.flatMap(b => b.squares), st.sites, st.cardinal ? [st.cardinal] : []]);
  drawBoard(svg, view, {buildings: st.buildings, sites: st.sites, cardinal: st.cardinal, lastId: st.last_id,
                        lastKind: lastKind, window: st.window, targets: list});
  svg.querySelectorAll("rect.target").forEach(el => {
    el.addEventListener("click", () => onSquare(`${el.dataset.x},${el.dataset.y}`, targets));
  });
  const status = document.getElementById("status");
  status.classList.toggle("mine", st.your_turn);
  if (st.agent_error) status.textContent = st.agent_error;
  else if (st.phase === "over") {
    const w = st.result.winners;
    status.textContent = w.includes(st.human_seat) ? (w.length > 1 ? "Game over: you share the win" :
      "Game over: you win") : `Game over: ${w.map(s => `seat ${s} (${st.names[s]})`).join(", ")} won`;
  } else if (st.your_turn) status.textContent = `Your turn: ${st.phase}`;
  else status.textContent = `seat ${st.seat} (${st.names[st.seat]}) to play`;
  const names = st.names.map((n, s) => `${s}: ${n}`);
  document.getElementById("chips").innerHTML = chipsTable(st.seat_colours, st, st.result, {names: names});
  document.getElementById("log").innerHTML = st.history.map((m, i) =>
    `<li class="${st.movers[i] === st.human_seat ? "mine" : ""}"><span class="who">${st.movers[i]}</span>${esc(m)}</li>`
  ).join("");
  const log = document.getElementById("log");
  log.scrollTop = log.scrollHeight;
  showResult(document.getElementById("scores"), st.result, names, "the game is running");
  document.getElementById("who").textContent =
    `You are seat ${st.human_seat} (colours ${st.seat_colours[st.human_seat].join(", ")}); ` +
    st.names.map((n, s) => s === st.human_seat ? null : `seat ${s}: ${n}`).filter(Boolean).join(", ");
}

function onSquare(key, targets) {
  const t = targets.get(key);
  if (!t || busy) return;
  if (t.move) playMove(t.move);
  else if (t.cancel) { first = null; render(); }
  else if (t.first) { first = key; render(); }
}

document.getElementById("actions").addEventListener("click", e => {
  const b = e.target.closest("button");
  if (!b || busy) return;
  if (b.dataset.kind) { pick = b.dataset.kind; first = null; render(); }
  else if (b.dataset.move) playMove(b.dataset.move);
});
document.addEventListener("keydown", e => { if (e.key === "Escape" && first !== null) { first = null; render(); } });
document.getElementById("new").onclick = () => { pick = null; first = null; request("POST", "/api/new", {}); };
document.getElementById("legend").innerHTML = legendHTML();
request("GET", "/api/state").then(() => { document.body.dataset.ready = "1"; });
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Kardinal: play</title>
<style>%CSS%</style>
</head>
<body data-busy="0">
<header><h1>Kardinal: play against agents</h1></header>
<main>
<div id="board-wrap"><svg id="board" preserveAspectRatio="xMidYMid meet" role="img" aria-label="the board"></svg></div>
<aside>
<div class="box">
<div id="who"></div>
<div id="status">connecting...</div>
<div id="actions"></div>
<div id="hint"></div>
<div id="error" data-rule=""></div>
</div>
<div class="box"><h2>Chips</h2><div id="chips"></div></div>
<div class="box"><h2>Result</h2><div id="scores"></div></div>
<div class="box"><h2>Moves</h2><ol id="log"></ol></div>
<div class="box" id="tools"><button id="new">New game</button>
<a id="download" href="/api/record" download>Download record</a></div>
<div class="box" id="legend"></div>
</aside>
</main>
<script>%JS%</script>
</body>
</html>
"""

if __name__ == "__main__":
    sys.exit(main())

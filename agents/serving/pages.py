"""The play pages of the web play server (:mod:`agents.serving.webplay`). A play page is an object with

* ``html() -> str`` — the whole self-contained page, whose script uses the server's HTTP API;
* ``state(game, seat) -> dict`` — the game's part of the state JSON for the person at ``seat``: **only what that seat
  may know**. The server adds the common fields (names, moves, legal moves, result, session).

:func:`page_for` finds a game's page through its agents' entry (``GameAgents.play_page``); else :class:`TextPage` (the
text picture for the person's seat and a button per legal move). Kardinal's and Kardinal & König's are
:mod:`agents.serving.kardinal_page` and :mod:`agents.serving.koenig_page`.

Every play page is written by :func:`play_html` on the shared page shell (:mod:`kardinal_env.core.page_shell`): the game
gives its board, panels, styles and script; :func:`play_html` adds the status box, the result, the move list, the tools,
the legend, :data:`PLAY_CSS` and :data:`PLAY_API_JS`. For tests ``body`` carries ``data-moves``, ``data-phase``,
``data-your-turn``, ``data-game-id``, ``data-over``, ``data-busy`` and ``data-ready``.
"""

from __future__ import annotations

from typing import Any

from agents.registry import game_agents
from kardinal_env.core.page_shell import LEGEND_BOX, RESULT_BOX, shell_page
from kardinal_env.core.registry import GameSpec

__all__ = ["TextPage", "page_for", "play_html", "PLAY_API_JS", "PLAY_CSS"]


def page_for(spec: GameSpec) -> Any:
    """The play page of ``spec``'s game (see the module docstring)."""
    page = game_agents(spec).load("play_page")
    return TextPage(spec) if page is None else page() if callable(page) else page


def play_html(
    title: str, css: str, js: str, board: str, panels: list[str], *, heading: str | None = None, drawn: bool = True
) -> str:
    """A play page on the page shell: ``title`` (plain text; the header shows ``heading``, by default the title), the
    game's ``css`` and ``js`` (after the shell's, :data:`PLAY_CSS` and :data:`PLAY_API_JS`; the script defines
    ``render()`` and ends with ``startPlay()``), ``board`` (HTML of ``#board-wrap``) and ``panels`` (boxes between the
    status box and the result). A ``drawn`` page (a game's own) also has ``#who`` and ``#hint`` in the status box, the
    move list ``#log`` and ``#legend``; the :class:`TextPage` has neither."""
    who, hint = ('<div id="who"></div>\n', '<div id="hint"></div>\n') if drawn else ("", "")
    status = (
        f'<div class="box">\n{who}<div id="status">connecting...</div>\n<div id="actions"></div>\n{hint}'
        '<div id="error" data-rule=""></div>\n</div>'
    )
    log, legend = ([_LOG_BOX], [LEGEND_BOX]) if drawn else ([], [])
    aside = [status, *panels, RESULT_BOX, *log, _TOOLS_BOX, *legend]
    return shell_page(title, PLAY_CSS + css, PLAY_API_JS + js, board, aside, heading=heading, body=' data-busy="0"')


_LOG_BOX = '<div class="box"><h2>Moves</h2><ol id="log"></ol></div>'
_TOOLS_BOX = """<div class="box" id="tools"><button id="new">New game</button>
<a id="download" href="/api/record" download>Download record</a></div>"""


#: What every play page's script shares: the last state ``S``, ``request`` (one API call: busy flag,
#: errors in ``#error`` with ``data-rule``, then ``render()``), ``playMove``, the "New game" button, every
#: button with a ``data-move`` (it plays the move), the ``#legend`` (``legendHTML()``), ``showStatus``
#: (``#status``) and ``showLog`` (``#log``). A page defines ``render()`` and calls ``startPlay()`` last.
PLAY_API_JS = r"""
let S = null;            // the last state from the server
let busy = false;

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
    const headers = {"Content-Type": "application/json"};
    const r = await fetch(path, {method: method, headers: headers, body: JSON.stringify(body)});  // GET: no body
    const data = await r.json();
    if (!r.ok) { showError(data.error, data.rule); return; }
    showError("");
    S = data;
    Object.assign(document.body.dataset, {moves: S.move_count, yourTurn: S.your_turn ? "1" : "0", gameId: S.game_id,
                                          phase: S.phase ?? "", over: S.result ? "1" : "0"});
    const link = document.getElementById("download");  // every play page has the tools box
    link.classList.toggle("disabled", !S.record_available);
    link.title = S.record_available ? "the game so far as a record" :
      "the record holds every hand and the deck order: it can be downloaded once the game is over";
    render();
  } catch (e) {
    showError(`no answer from the server: ${e}`, "network");
  } finally {
    setBusy(false);
  }
}

function playMove(move) {
  if (busy || !S || !S.legal.includes(move)) return;
  if (typeof resetChoice === "function") resetChoice();
  request("POST", "/api/move", {session: S.session, move: move, at: S.move_count});
}

function startPlay() {
  document.getElementById("new").onclick = () => {
    if (typeof resetChoice === "function") resetChoice();
    request("POST", "/api/new", {session: S ? S.session : null});
  };
  const link = document.getElementById("download");
  link.addEventListener("click", e => { if (!S || !S.record_available) e.preventDefault(); });
  document.querySelector("aside").addEventListener("click", e => {  // every button with a move plays it
    const b = e.target.closest("button");
    if (b && b.dataset.move && !busy) playMove(b.dataset.move);
  });
  const legend = document.getElementById("legend");
  if (legend) legend.innerHTML = legendHTML();
  request("GET", "/api/state").then(() => { document.body.dataset.ready = "1"; });
}

// #status: the agent's error, the result, `turn` on the person's turn, else who is to play.
function showStatus(st, turn) {
  const status = document.getElementById("status");
  status.classList.toggle("mine", st.your_turn);
  if (st.agent_error) status.textContent = st.agent_error;
  else if (st.result) {
    const w = st.result.winners;
    status.textContent = w.includes(st.human_seat) ? (w.length > 1 ? "Game over: you share the win" :
      "Game over: you win") : `Game over: ${w.map(s => `seat ${s} (${st.names[s]})`).join(", ")} won`;
  } else if (st.your_turn) status.textContent = turn;
  else status.textContent = `seat ${st.seat} (${st.names[st.seat]}) to play`;
}

// #log: the moves so far with the seat that made each (the person's own marked), scrolled to the last.
function showLog(st) {
  const log = document.getElementById("log");
  log.innerHTML = st.history.map((m, i) =>
    `<li class="${st.movers[i] === st.human_seat ? "mine" : ""}"><span class="who">${st.movers[i]}</span>${esc(m)}</li>`
  ).join("");
  log.scrollTop = log.scrollHeight;
}
"""

#: Styles every play page adds to the shared shell.
PLAY_CSS = """
#status { font-weight: 600; font-size: 15px; }
#status.mine { color: var(--accent); }
#error { color: #ff8080; min-height: 1.2em; white-space: pre-wrap; }
#actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
#actions button.selected { outline: 2px solid var(--accent); }
#hint { color: var(--muted); font-size: 12px; margin-top: 4px; }
#tools { display: flex; gap: 8px; align-items: center; }
#tools a { color: var(--text); }
#tools a.disabled { color: var(--muted); cursor: not-allowed; }
#scores .winner { color: var(--accent); font-weight: 600; }
#log { overflow-y: auto; margin: 0; padding: 0; list-style: none; font: 12px/1.5 ui-monospace, monospace;
  display: flex; flex-wrap: wrap; gap: 2px 8px; }
#log .who { color: var(--muted); font-size: 10px; margin-right: 2px; }
#log li.mine { color: var(--accent); }
"""


class TextPage:
    """The page of a game without one: its text picture for the person's seat and a button per legal move."""

    def __init__(self, spec: GameSpec):
        self.spec = spec

    def state(self, game: Any, seat: int) -> dict:
        return {"text": self.spec.game_text(game, seat), "phase": getattr(game, "phase", None)}

    def html(self) -> str:
        return play_html(f"{self.spec.title}: play", _TEXT_CSS, _TEXT_JS, '<pre id="text"></pre>', [], drawn=False)


_TEXT_CSS = """
#text { background: var(--panel); padding: 10px; border-radius: 6px; font: 13px/1.35 ui-monospace, monospace;
  white-space: pre; overflow: auto; }
"""

_TEXT_JS = r"""
function render() {
  const st = S;
  document.getElementById("text").textContent = st.text;
  document.getElementById("actions").innerHTML = st.legal.map(m =>
    `<button class="move" data-move="${esc(m)}">${esc(m)}</button>`).join("");
  showStatus(st, "Your turn");
  showResult(document.getElementById("scores"), st.result, st.names.map((n, s) => `${s}: ${n}`), "the game is running");
}
startPlay();
"""

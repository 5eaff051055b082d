"""The page shell shared by the HTML replays of both games (``kardinal_env.kardinal.replay_html`` for Kardinal,
``kardinal_env.koenig.replay_html`` for Kardinal & König).

A replay page is one self-contained HTML file: inline CSS, the game's positions as JSON in a
``<script type="application/json" id="replay-data">`` element (:func:`embed_json`), and inline
script; nothing is fetched. The shell (:data:`PAGE`, filled by :func:`replay_page`) is a header, the
board (``svg#board``) on the left and a column on the right: the controls box (``#position`` reading
``k / N`` with ``data-k``, the buttons, the ``#slider``, ``#status`` and ``#last``), the game's own
panels, the move list ``#moves`` and ``#legend``.

:data:`REPLAY_JS` does the stepping for both games: the buttons, the slider, the keyboard (left/right
arrows, Home/End, PageUp/PageDown by 10, space to play), clicking a move in the list (the position
after it), ``page.html#12`` to start at position 12, and ``#scores`` (the final result, with
``data-scores`` and ``data-winners``). It needs the embedded data to hold ``players``, ``moves``,
``result`` and ``positions`` (each with ``mover``: the seat that made the move leading to it), and
the game's script to call ``startReplay(drawPosition)`` once its functions are defined;
``drawPosition(p, k)`` draws position ``p = D.positions[k]`` (the board, ``#status``, the panels).
:data:`COMMON_JS` (``esc``, ``showResult``), :data:`SHELL_CSS` and :func:`fill_page` are also used by
the play pages of the web play server (``agents.serving.pages`` and each game's page,
``agents.serving.kardinal_page`` through ``kardinal_env.kardinal.replay_html.BOARD_JS``/``BOARD_CSS``).
"""

from __future__ import annotations

import html
import json
import os
import re
from typing import Any

__all__ = [
    "COMMON_JS",
    "PAGE",
    "REPLAY_CSS",
    "REPLAY_JS",
    "SHELL_CSS",
    "embed_json",
    "fill_page",
    "replay_page",
    "write_page",
]


def embed_json(value: Any) -> str:
    """JSON text safe inside an HTML ``<script type="application/json">`` element."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def fill_page(template: str, parts: dict[str, str]) -> str:
    """Replace each ``%NAME%`` of ``template`` by ``parts[NAME]`` in one pass (inserted text is not scanned again)."""
    return re.sub(r"%([A-Z]+)%", lambda m: parts[m.group(1)], template)


def replay_page(title: str, css: str, data: Any, js: str, panels: str, board_label: str = "the board") -> str:
    """A replay page: ``title`` (plain text, escaped here), the game's ``css`` (after :data:`SHELL_CSS` and
    :data:`REPLAY_CSS`), the embedded ``data``, the game's ``js`` (after :data:`COMMON_JS` and
    :data:`REPLAY_JS`; it must call ``startReplay(drawPosition)``) and its ``panels`` (HTML boxes shown
    between the controls and the move list)."""
    parts = {
        "TITLE": html.escape(title),
        "CSS": SHELL_CSS + REPLAY_CSS + css,
        "DATA": embed_json(data),
        "JS": COMMON_JS + REPLAY_JS + js,
        "PANELS": panels,
        "LABEL": html.escape(board_label),
    }
    return fill_page(PAGE, parts)


def write_page(text: str, path: str | os.PathLike) -> str:
    """Write a page to ``path`` (UTF-8); returns the path written."""
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


#: The page layout, the panels and the buttons (both replays and the play page).
SHELL_CSS = """
:root { --bg: #14181c; --panel: #1f252b; --text: #e6e6e6; --muted: #9aa4ad; --accent: #ffe128; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.4 system-ui, sans-serif; }
header { padding: 8px 16px; background: var(--panel); border-bottom: 1px solid #333; }
header h1 { font-size: 17px; margin: 0; font-weight: 600; }
main { display: flex; gap: 16px; padding: 12px 16px; align-items: flex-start; }
#board-wrap { flex: 1 1 auto; min-width: 300px; }
aside { flex: 0 0 390px; display: flex; flex-direction: column; gap: 10px; }
.box { background: var(--panel); border-radius: 6px; padding: 8px 10px; }
.box h2 { font-size: 13px; margin: 0 0 6px; color: var(--muted); font-weight: 600; text-transform: uppercase; }
table { border-collapse: collapse; width: 100%; }
td, th { padding: 2px 4px; text-align: right; font-variant-numeric: tabular-nums; }
th { color: var(--muted); font-weight: 500; }
td:first-child, th:first-child { text-align: left; }
tr.on-turn td:first-child::before { content: "\\25B6  "; color: var(--accent); }
tr.winner td { color: var(--accent); font-weight: 600; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; color: var(--muted); }
.legend svg { height: 14px; vertical-align: -3px; }
button { background: #2d353d; color: var(--text); border: 1px solid #46505a; border-radius: 4px; padding: 4px 10px;
  font: inherit; cursor: pointer; }
button:hover:not(:disabled) { background: #3a444e; }
button:disabled { opacity: 0.4; cursor: default; }
"""

#: The controls and the move list of the replays.
REPLAY_CSS = """
#controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
#slider { width: 100%; margin: 6px 0 0; }
#position { font-weight: 600; min-width: 90px; }
#moves { max-height: calc(100vh - 560px); min-height: 90px; overflow-y: auto; margin: 0; padding: 0; position: relative;
  list-style: none; display: flex; flex-wrap: wrap; gap: 2px 4px; font: 12px/1.5 ui-monospace, monospace; }
#moves li { padding: 0 4px; border-radius: 3px; cursor: pointer; }
#moves li:hover { background: #3a444e; }
#moves li.current { background: var(--accent); color: #000; }
#moves li.future { color: var(--muted); }
#moves li .seat { color: var(--muted); font-size: 10px; margin-right: 2px; }
#moves li.current .seat { color: #333; }
#scores .winner { color: var(--accent); font-weight: 600; }
"""

#: Helpers of every page: HTML escaping and the final result table.
COMMON_JS = r"""
"use strict";
function esc(text) {
  return String(text).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
}

// Fill the result element: final scores and winners (data-scores / data-winners hold them as JSON).
function showResult(el, result, names, running) {
  if (result) {
    const w = result.winners;
    el.innerHTML = `<table><tr><th>seat</th><th>final score</th><th></th></tr>` + result.scores.map((s, i) =>
      `<tr class="${w.includes(i) ? "winner" : ""}" data-seat="${i}" data-score="${s}"><td>${esc(names[i])}</td>` +
      `<td>${s}</td><td>${w.includes(i) ? "winner" : ""}</td></tr>`).join("") + `</table>`;
    el.dataset.scores = JSON.stringify(result.scores);
    el.dataset.winners = JSON.stringify(w);
  } else {
    el.textContent = running;
    el.dataset.scores = "[]";
    el.dataset.winners = "[]";
  }
}
"""

#: Stepping through the positions (see the module docstring).
REPLAY_JS = r"""
const D = JSON.parse(document.getElementById("replay-data").textContent);
const N = D.moves.length;
let k = 0, timer = null, drawPositionOf = null;
const slider = document.getElementById("slider");
slider.max = N;

function show(target) {
  k = Math.max(0, Math.min(N, target));
  const p = D.positions[k];
  drawPositionOf(p, k);
  const pos = document.getElementById("position");
  pos.textContent = `${k} / ${N}`;
  pos.dataset.k = k;
  slider.value = k;
  document.getElementById("last").textContent = k ? `move ${k}: seat ${p.mover} played ${D.moves[k - 1]}` : "start";
  document.querySelectorAll("#moves li").forEach((li, i) => {
    li.classList.toggle("current", i === k - 1);
    li.classList.toggle("future", i >= k);
  });
  const list = document.getElementById("moves"), cur = list.querySelector("li.current");
  if (cur) {  // keep the current move visible in the list (without scrolling the page)
    if (cur.offsetTop < list.scrollTop) list.scrollTop = cur.offsetTop;
    else if (cur.offsetTop + cur.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = cur.offsetTop + cur.offsetHeight - list.clientHeight;
  }
  document.getElementById("first").disabled = document.getElementById("prev").disabled = k === 0;
  document.getElementById("next").disabled = document.getElementById("last-btn").disabled = k === N;
  if (k === N) stop();
}

function stop() {
  if (timer !== null) { clearInterval(timer); timer = null; }
  document.getElementById("play").textContent = "play";
}
function togglePlay() {
  if (timer !== null) { stop(); return; }
  if (k === N) show(0);
  timer = setInterval(() => show(k + 1), 600);
  document.getElementById("play").textContent = "pause";
}

// Wire the controls and show the first position (the one in the address, e.g. page.html#12).
function startReplay(drawPosition) {
  drawPositionOf = drawPosition;
  const list = document.getElementById("moves");
  list.innerHTML = D.moves.map((m, i) =>
    `<li data-index="${i}" data-seat="${D.positions[i + 1].mover}" title="position ${i + 1}">` +
    `<span class="seat">${D.positions[i + 1].mover}</span>${esc(m)}</li>`).join("");
  list.addEventListener("click", e => {
    const li = e.target.closest("li");
    if (li) { stop(); show(Number(li.dataset.index) + 1); }
  });
  slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
  document.getElementById("first").onclick = () => { stop(); show(0); };
  document.getElementById("prev").onclick = () => { stop(); show(k - 1); };
  document.getElementById("next").onclick = () => { stop(); show(k + 1); };
  document.getElementById("last-btn").onclick = () => { stop(); show(N); };
  document.getElementById("play").onclick = togglePlay;
  document.addEventListener("keydown", e => {
    if (e.target === slider && (e.key === "ArrowLeft" || e.key === "ArrowRight")) return;  // the slider moves itself
    const keys = {ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: N, PageUp: k - 10, PageDown: k + 10};
    if (e.key in keys) { e.preventDefault(); stop(); show(keys[e.key]); }
    else if (e.key === " ") { e.preventDefault(); togglePlay(); }
  });
  const seats = Array.from({length: D.players}, (_, i) => `seat ${i}`);
  showResult(document.getElementById("scores"), D.result, seats, `unfinished game (${N} moves recorded)`);
  const m = /^#(\d+)$/.exec(location.hash);
  show(m ? Number(m[1]) : 0);
  document.body.dataset.ready = "1";
}
"""

#: The page; ``%PANELS%`` are the game's boxes between the controls and the move list.
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>%TITLE%</title>
<style>%CSS%</style>
</head>
<body>
<header><h1>%TITLE%</h1></header>
<main>
<div id="board-wrap"><svg id="board" preserveAspectRatio="xMidYMid meet"
  role="img" aria-label="%LABEL%"></svg></div>
<aside>
<div class="box">
<div id="controls"><span id="position" data-k="0">0 / 0</span>
<button id="first" title="start (Home)">|&#x25C0;</button><button id="prev" title="back (left arrow)">&#x25C0;</button>
<button id="play" title="play / pause (space)">play</button>
<button id="next" title="forward (right arrow)">&#x25B6;</button>
<button id="last-btn" title="end (End)">&#x25B6;|</button>
</div>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="position">
<div id="status"></div><div id="last"></div>
</div>
%PANELS%
<div class="box" id="moves-box"><h2>Moves</h2><ol id="moves"></ol></div>
<div class="box" id="legend"></div>
</aside>
</main>
<script type="application/json" id="replay-data">%DATA%</script>
<script>%JS%</script>
</body>
</html>
"""

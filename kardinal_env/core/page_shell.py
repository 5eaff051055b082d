"""The one shell of every HTML page of the project: the replays (:mod:`kardinal_env.core.replay_page`) and the web play
server's pages (``agents.serving.pages.play_html``).

A page is one self-contained HTML document (nothing fetched) written by :func:`shell_page`: a header, the board
(``#board-wrap``, usually the ``svg#board`` of :func:`board_svg`) on the left, a column (``aside``) of boxes on the
right, then the script. The shell gives the layout, panel and button styles (:data:`SHELL_CSS`) and script helpers
(:data:`COMMON_JS`); the kind of page adds its controls, each game its drawing and panels.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path
from typing import Any

__all__ = [
    "COMMON_JS",
    "LEGEND_BOX",
    "RESULT_BOX",
    "SHELL_CSS",
    "board_svg",
    "embed_json",
    "shell_page",
    "write_page",
]


def embed_json(value: Any) -> str:
    """JSON text safe inside an HTML ``<script type="application/json">`` element."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def write_page(text: str, path: str | os.PathLike) -> str:
    Path(path).write_text(text, encoding="utf-8")
    return os.fspath(path)


def board_svg(label: str) -> str:
    """``svg#board``, the board drawn pages draw into, named ``label``."""
    return f'<svg id="board" preserveAspectRatio="xMidYMid meet" role="img" aria-label="{html.escape(label)}"></svg>'


def shell_page(
    title: str,
    css: str,
    js: str,
    board: str,
    aside: list[str],
    *,
    heading: str | None = None,
    body: str = "",
    data: Any = None,
) -> str:
    """A page: ``title`` (plain text; the header shows ``heading``, default the title), ``css`` and ``js`` after the
    shell's, ``board`` (HTML), the ``aside`` boxes, ``body`` (attributes of ``<body>``) and ``data`` (unless ``None``,
    JSON in ``script#replay-data``)."""
    embedded = "" if data is None else f'<script type="application/json" id="replay-data">{embed_json(data)}</script>\n'
    parts = {
        "TITLE": html.escape(title),
        "HEADING": html.escape(title if heading is None else heading),
        "CSS": SHELL_CSS + css,
        "BODY": body,
        "BOARD": board,
        "ASIDE": "\n".join(aside),
        "DATA": embedded,
        "JS": COMMON_JS + js,
    }
    return re.sub(r"%([A-Z]+)%", lambda m: parts[m.group(1)], _PAGE)  # one pass: inserted text is not scanned


#: The final result box (``#scores``, filled by ``showResult``): on every page, after the game's panels.
RESULT_BOX = '<div class="box"><h2>Result</h2><div id="scores"></div></div>'

#: The legend box (``#legend``, filled by the game's ``legendHTML()``): last in the column of drawn pages.
LEGEND_BOX = '<div class="box" id="legend"></div>'

#: The page layout, the panels and the buttons (every page).
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

#: Helpers of every page: HTML escaping, ``setData`` (data attributes as JSON) and the final result table.
COMMON_JS = r"""
"use strict";
function esc(text) {
  return String(text).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
}

// Set data-NAME of el to each value as JSON.
function setData(el, values) {
  for (const name in values) el.dataset[name] = JSON.stringify(values[name]);
}

// Fill the result element: final scores and winners (data-scores / data-winners hold them as JSON).
function showResult(el, result, names, running) {
  if (result) {
    const w = result.winners;
    el.innerHTML = `<table><tr><th>seat</th><th>final score</th><th></th></tr>` + result.scores.map((s, i) =>
      `<tr class="${w.includes(i) ? "winner" : ""}" data-seat="${i}" data-score="${s}"><td>${esc(names[i])}</td>` +
      `<td>${s}</td><td>${w.includes(i) ? "winner" : ""}</td></tr>`).join("") + `</table>`;
    setData(el, {scores: result.scores, winners: w});
  } else {
    el.textContent = running;
    setData(el, {scores: [], winners: []});
  }
}
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>%TITLE%</title>
<style>%CSS%</style>
</head>
<body%BODY%>
<header><h1>%HEADING%</h1></header>
<main>
<div id="board-wrap">%BOARD%</div>
<aside>
%ASIDE%
</aside>
</main>
%DATA%<script>%JS%</script>
</body>
</html>
"""

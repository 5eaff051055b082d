"""Self-contained HTML replays of Kardinal games: ``replay_html(record) -> str``.

``write_replay_html(record, path)`` writes one HTML file (inline SVG, CSS and script; no network) that steps through a
``kardinal-record/1`` game: the board to scale with the edifice built last outlined, the move list (click to jump), a
slider, buttons and keys (left/right, Home/End, space to play), the chips per seat and colour, the supply, the final
scores and winners. ``game.html#12`` opens position 12. Command line: ``kardinal-replay RECORD.json -o game.html``.

Position ``k`` (the game after its first ``k`` moves) is computed here by replaying the moves through the engine; the
page only draws the embedded JSON (:func:`replay_data`). An invalid record raises
:class:`~kardinal_env.core.errors.RecordError` naming the field, or the move and rule.

For tests and tools the page marks what it shows: every building is an SVG ``rect`` with ``class="building"``
(``edifice`` or ``cathedral``) and ``data-id``, ``data-shape``, ``data-colour`` (``""`` for the cathedral),
``data-squares`` (``"x,y"`` or ``"x1,y1 x2,y2"``), ``data-x``/``data-y`` (its first square), ``data-builder``; the
cardinal is ``#cardinal`` (``data-x``, ``data-y``); ``#position`` reads ``k / N`` with ``data-k``; ``#scores`` holds the
final result with ``data-scores`` and ``data-winners`` (JSON lists; empty for an unfinished game); ``#chips`` the chips
per seat with ``data-chips`` (JSON, per seat per colour) and ``data-projected``.

:data:`BOARD_JS`, :data:`BOARD_CSS` and :data:`CHIPS_BOX` are shared with the play page
``agents.serving.kardinal_page``; the controls and stepping are :mod:`kardinal_env.core.replay_page`'s, on
:mod:`kardinal_env.core.page_shell`.
"""

from __future__ import annotations

import os
from dataclasses import asdict

from kardinal_env.core.errors import RecordError
from kardinal_env.core.records import check_replayed_result, play_record_move
from kardinal_env.core.replay_page import embed_json, replay_page, write_page
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.record import FORMAT, parse_record

__all__ = [
    "replay_data",
    "replay_html",
    "write_replay_html",
    "BOARD_JS",
    "BOARD_CSS",
    "CHIPS_BOX",
    "embed_json",
    "position_state",
    "building_data",
]


def building_data(b) -> dict:
    """One building as the pages draw it (the replay and the play page): JSON-ready."""
    return {**asdict(b), "squares": [list(sq) for sq in b.squares]}


def position_state(game: Game) -> dict:
    """What the pages draw of one position (apart from the buildings): JSON-ready."""
    return {
        "cardinal": None if game.cardinal is None else list(game.cardinal),
        "sites": [list(sq) for sq in game.sites()],
        "chips": game.chips(),
        "supply": game.supply(),
        "aside": game.set_aside(),
        "phase": game.phase,
        "seat": game.current_player,
        "pending": game.pending_chips,
        "projected": game.projected_scores(),
    }


def replay_data(record: dict, source: str = "record") -> dict:
    """The JSON a replay page embeds: the record's rules, moves and result, every building (in build
    order) and one entry per position ``0..len(moves)`` (buildings standing ``nb``, the cardinal,
    sites, chips, supply, phase, seat on turn, the last move and who played it). Checks the record
    as ``Game.from_record`` does (:class:`~kardinal_env.core.errors.RecordError`)."""
    fmt = record.get("format") if isinstance(record, dict) else None
    if fmt != FORMAT:
        raise RecordError(f"{source}: field 'format' must be {FORMAT!r}, got {fmt!r}")
    parts = parse_record(record, source)
    game = Game(parts.rules)
    positions = [{**position_state(game), "nb": len(game.buildings()), "last": None, "mover": None, "last_id": -1}]
    for i, move in enumerate(parts.moves):
        mover, before = game.current_player, len(game.buildings())
        play_record_move(game, i, move, source)
        built = len(game.buildings())
        last_id = before if built > before else positions[-1]["last_id"]
        positions.append({**position_state(game), "nb": built, "last": move, "mover": mover, "last_id": last_id})
    check_replayed_result(parts.result, game, source)
    n = parts.rules.players
    return {
        "format": FORMAT,
        "rules": parts.rules.to_dict(),
        "players": n,
        "seat_colours": [list(game.seat_colours(s)) for s in range(n)],
        "window": parts.rules.window,
        "moves": list(parts.moves),
        "buildings": [building_data(b) for b in game.buildings()],
        "positions": positions,
        "result": parts.result,
    }


def _title(rules: dict) -> str:
    text = f"Kardinal replay: {rules['players']} players, {rules['preset']} rules"
    if rules.get("shared_pool"):
        text += ", shared pool"
    if rules.get("window"):
        text += f", window {rules['window']}"
    return text


def replay_html(record: dict, source: str = "record") -> str:
    """One self-contained HTML page replaying ``record`` (see the module docstring)."""
    data = replay_data(record, source)
    return replay_page(_title(data["rules"]), BOARD_CSS, data, BOARD_JS + _REPLAY_JS, CHIPS_BOX)


def write_replay_html(record: dict, path: str | os.PathLike, source: str | None = None) -> str:
    """Write :func:`replay_html` of ``record`` to ``path`` (UTF-8); returns the path written."""
    return write_page(replay_html(record, source or "record"), path)


# ---------------------------------------------------------------------------------------------
# The board drawing, shared with agents.serving.kardinal_page. Square (x, y) is the SVG unit square at
# (x - x0, y1 - y): one unit per square, top row = highest y.

#: The board drawing's styles (after the page shell's), shared with ``agents.serving.kardinal_page``.
BOARD_CSS = """
#board { width: 100%; height: calc(100vh - 170px); min-height: 320px; display: block; background: #225522;
  border-radius: 6px; }
td.gain { outline: 2px solid var(--accent); border-radius: 3px; }
.sw { display: inline-block; width: 11px; height: 11px; border: 1px solid #000; vertical-align: -1px;
  margin-right: 2px; border-radius: 2px; }
"""

#: The board drawing (after the page shell's ``esc``), shared with ``agents.serving.kardinal_page``: the
#: colours, ``swatch(c)``, ``boardView(squareLists)``, ``drawBoard(svg, view, st)``, ``chipsTable(...)``,
#: ``legendHTML()``.
BOARD_JS = r"""
const PALETTE = ["#ebebeb", "#464646", "#d7a03c", "#466ed2"];
const COLOUR_NAMES = ["white", "grey", "ochre", "blue"];
const CATHEDRAL = "#962ca0", DARK = "#141414", CARDINAL = "#dc141e", SITE = "#3c783c", GRID = "#19411a";
const OUTSIDE = "#142d14", LAST = "#ffe128";

function swatch(c) {
  return `<span class="sw" style="background:${PALETTE[c]}" title="colour ${c} (${COLOUR_NAMES[c]})"></span>`;
}

// The squares to show: the bounding box of everything plus one square of margin, at least 7 x 7.
function boardView(squareLists) {
  let x0 = -1, x1 = 2, y0 = -1, y1 = 1;  // the cathedral and the margin
  for (const list of squareLists) for (const [x, y] of list) {
    x0 = Math.min(x0, x - 1); x1 = Math.max(x1, x + 1); y0 = Math.min(y0, y - 1); y1 = Math.max(y1, y + 1);
  }
  const w = Math.max(7, x1 - x0 + 1), h = Math.max(7, y1 - y0 + 1);
  x0 -= Math.floor((w - (x1 - x0 + 1)) / 2); y0 -= Math.floor((h - (y1 - y0 + 1)) / 2);
  return {x0: x0, y0: y0, x1: x0 + w - 1, y1: y0 + h - 1};
}

// Draw a position into an <svg>. st: {buildings, sites, cardinal, lastId, lastKind, window, targets}
// targets: [{x, y, cls, title}] clickable squares (the play page).
function drawBoard(svg, view, st) {
  const W = view.x1 - view.x0 + 1, H = view.y1 - view.y0 + 1;
  const X = x => x - view.x0, Y = y => view.y1 - y;
  const out = [];
  svg.setAttribute("viewBox", `-0.1 -0.1 ${W + 0.2} ${H + 0.2}`);
  out.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#225522"/>`);
  if (st.window) {
    const half = Math.floor(st.window / 2);
    for (let x = view.x0; x <= view.x1; x++) for (let y = view.y0; y <= view.y1; y++) {
      if (Math.abs(x) > half || Math.abs(y) > half)
        out.push(`<rect x="${X(x)}" y="${Y(y)}" width="1" height="1" fill="${OUTSIDE}"/>`);
    }
  }
  const line = `stroke="${GRID}" stroke-width="0.03"`;
  for (let i = 0; i <= W; i++) out.push(`<line x1="${i}" y1="0" x2="${i}" y2="${H}" ${line}/>`);
  for (let j = 0; j <= H; j++) out.push(`<line x1="0" y1="${j}" x2="${W}" y2="${j}" ${line}/>`);
  for (const [x, y] of st.sites)
    out.push(`<rect class="site" data-x="${x}" data-y="${y}" x="${X(x) + 0.15}" y="${Y(y) + 0.15}" width="0.7" ` +
             `height="0.7" rx="0.06" fill="${SITE}"/>`);
  for (const b of st.buildings) {
    const xs = b.squares.map(s => s[0]), ys = b.squares.map(s => s[1]);
    const left = X(Math.min(...xs)), top = Y(Math.max(...ys));
    const w = Math.max(...xs) - Math.min(...xs) + 1, h = Math.max(...ys) - Math.min(...ys) + 1;
    const cathedral = b.colour === null;
    const fill = cathedral ? CATHEDRAL : PALETTE[b.colour];
    const round = b.shape === "tower" || b.shape === "clock tower";
    const what = cathedral ? `the ${b.shape}` :
      `${b.shape}, colour ${b.colour} (${COLOUR_NAMES[b.colour]}), built by seat ${b.builder}`;
    const attrs = `class="building ${cathedral ? "cathedral" : "edifice"}" data-id="${b.id}" data-shape="${b.shape}" ` +
      `data-colour="${b.colour ?? ""}" data-builder="${b.builder ?? ""}" ` +
      `data-x="${b.squares[0][0]}" data-y="${b.squares[0][1]}" ` +
      `data-squares="${b.squares.map(s => s.join(",")).join(" ")}"`;
    out.push(`<g><title>${esc(what)}</title>`);
    out.push(`<rect ${attrs} x="${left + 0.06}" y="${top + 0.06}" width="${w - 0.12}" height="${h - 0.12}" rx="0.05" ` +
             `fill="${round ? DARK : fill}" stroke="${DARK}" stroke-width="0.05"/>`);
    const cx = left + w / 2, cy = top + h / 2;
    if (round) out.push(`<circle cx="${cx}" cy="${cy}" r="0.34" fill="${fill}"/>`);
    if (b.shape === "nave") out.push(`<circle cx="${cx}" cy="${cy}" r="0.12" fill="${DARK}"/>`);
    if (b.shape === "house")
      out.push(`<path d="M${cx - 0.22} ${cy - 0.02} L${cx} ${cy - 0.24} L${cx + 0.22} ${cy - 0.02}" ` +
               `fill="none" stroke="${DARK}" stroke-width="0.06" opacity="0.55"/>`);
    if (b.shape === "yard") {
      if (w > h) out.push(`<rect x="${left + 0.3}" y="${cy - 0.05}" width="${w - 0.6}" height="0.1" fill="${DARK}"/>`);
      else out.push(`<rect x="${cx - 0.05}" y="${top + 0.3}" width="0.1" height="${h - 0.6}" fill="${DARK}"/>`);
    }
    if (b.id === st.lastId)
      out.push(`<rect class="last" x="${left + 0.02}" y="${top + 0.02}" width="${w - 0.04}" height="${h - 0.04}" ` +
               `fill="none" stroke="${LAST}" stroke-width="${st.lastKind === "build" ? 0.1 : 0.05}"/>`);
    out.push(`</g>`);
  }
  if (st.cardinal) {
    const [x, y] = st.cardinal, cx = X(x) + 0.5, cy = Y(y) + 0.5;
    out.push(`<g><title>the cardinal</title>`);
    if (st.lastKind === "cardinal")
      out.push(`<circle cx="${cx}" cy="${cy}" r="0.44" fill="none" stroke="${LAST}" stroke-width="0.08"/>`);
    out.push(`<circle id="cardinal" data-x="${x}" data-y="${y}" cx="${cx}" cy="${cy}" r="0.3" fill="${CARDINAL}" ` +
             `stroke="${DARK}" stroke-width="0.04"/>`);
    out.push(`<circle cx="${cx}" cy="${cy}" r="0.09" fill="#fff"/></g>`);
  }
  for (const t of st.targets || [])
    out.push(`<rect class="target ${t.cls || ""}" data-x="${t.x}" data-y="${t.y}" x="${X(t.x) + 0.04}" ` +
             `y="${Y(t.y) + 0.04}" width="0.92" height="0.92" rx="0.08"><title>${esc(t.title || "")}</title></rect>`);
  svg.innerHTML = out.join("");
}

// The chips table: one row per seat (colours, chips per colour, total, score).
function chipsTable(seatColours, pos, result, opts) {
  const over = pos.phase === "over";
  let h = `<table><tr><th>seat</th><th>colours</th>`;
  for (let c = 0; c < 4; c++) h += `<th>${swatch(c)}</th>`;
  h += `<th>held</th><th title="${over ? "final score" : "the final score if the game ended now"}">` +
       `${over ? "score" : "score now"}</th></tr>`;
  for (let s = 0; s < seatColours.length; s++) {
    const cls = [pos.seat === s && "on-turn", over && result?.winners.includes(s) && "winner"].filter(Boolean);
    const name = opts?.names ? opts.names[s] : `seat ${s}`;
    h += `<tr class="${cls.join(" ")}" data-seat="${s}"><td>${esc(name)}</td>` +
         `<td>${seatColours[s].map(swatch).join("")}</td>`;
    for (let c = 0; c < 4; c++) h += `<td class="${opts?.gain?.[s]?.[c] > 0 ? "gain" : ""}">${pos.chips[s][c]}</td>`;
    h += `<td>${pos.chips[s].reduce((a, b) => a + b, 0)}</td><td>${pos.projected[s]}</td></tr>`;
  }
  h += `<tr><td>supply</td><td></td>`;
  for (let c = 0; c < 4; c++) h += `<td>${pos.supply[c]}</td>`;
  const aside = pos.aside.reduce((a, b) => a + b, 0);
  h += `<td colspan="2">${aside ? `set aside ${aside}` : ""}</td></tr></table>`;
  return h;
}

function legendHTML() {
  const icon = (inner, w) => `<svg viewBox="0 0 ${w} 1" style="width:${14 * w}px">${inner}</svg>`;
  const item = (inner, w, text) => `<span>${icon(inner, w)} ${text}</span>`;
  const box = (x, w, fill) => `<rect x="${x}" y="0.05" width="${w}" height="0.9" fill="${fill}"/>`;
  const disc = (cx, fill) => `<circle cx="${cx}" cy="0.5" r="0.34" fill="${fill}"/>`;
  return `<div class="legend">` +
    item(box(0.05, 0.9, PALETTE[0]), 1, "house") +
    item(box(0.05, 0.9, DARK) + disc(0.5, PALETTE[0]), 1, "tower") +
    item(box(0.05, 1.9, PALETTE[0]) + `<rect x="0.3" y="0.45" width="1.4" height="0.1" fill="${DARK}"/>`, 2, "yard") +
    item(box(0.05, 0.9, CATHEDRAL) + box(1.05, 0.9, DARK) + disc(1.5, CATHEDRAL), 2, "cathedral") +
    item(`<circle cx="0.5" cy="0.5" r="0.3" fill="${CARDINAL}"/>`, 1, "cardinal") +
    item(`<rect x="0.1" y="0.1" width="0.8" height="0.8" fill="none" stroke="${LAST}" stroke-width="0.1"/>`, 1,
         "built last") +
    item(`<rect x="0.15" y="0.15" width="0.7" height="0.7" fill="${SITE}"/>`, 1, "site") +
    `<span>colours ${[0, 1, 2, 3].map(c => swatch(c) + c).join(" ")}</span></div>`;
}
"""

# The replay's own part of the page (the stepping is kardinal_env.core.replay_page.REPLAY_JS).
_REPLAY_JS = r"""
// Every square ever shown (the cardinal stands on a site).
const VIEW = boardView(D.buildings.map(b => b.squares).concat(D.positions.map(p => p.sites)));
const svg = document.getElementById("board");

function drawPosition(p, k) {
  const kind = !p.last ? null : p.last.startsWith("chip") ? "chip" : p.last.startsWith("C") ? "cardinal" : "build";
  drawBoard(svg, VIEW, {buildings: D.buildings.slice(0, p.nb), sites: p.sites, cardinal: p.cardinal,
                        lastId: p.last_id, lastKind: kind, window: D.window});
  let status = p.phase === "over" ? "game over" : `seat ${p.seat} to play: ${p.phase}`;
  if (p.pending) status += ` (${p.pending} chip${p.pending > 1 ? "s" : ""} to take)`;  // never once over
  document.getElementById("status").textContent = status;
  const q = D.positions[k - 1];  // the position before (none at the start)
  const gain = q ? p.chips.map((row, s) => row.map((v, c) => v - q.chips[s][c])) : null;
  const chips = document.getElementById("chips");
  chips.innerHTML = chipsTable(D.seat_colours, p, D.result, {gain: gain});
  setData(chips, {chips: p.chips, projected: p.projected, supply: p.supply});
}

document.getElementById("legend").innerHTML = legendHTML();
startReplay(drawPosition);
"""

#: The chips box (``#chips``, filled by ``chipsTable``), shared with ``agents.serving.kardinal_page``.
CHIPS_BOX = '<div class="box"><h2>Chips</h2><div id="chips"></div></div>'

"""Self-contained HTML replays of Kardinal & König games: ``replay_html(record) -> str``.

``write_replay_html(record, path)`` writes one HTML file (inline SVG, CSS and script; no network) that steps through a
``kardinal-koenig-record/1`` game: the map as :func:`kardinal_env.koenig.render.game_image` draws it, the site or seal
the last move touched outlined, every seat's hand, pieces left, score and score now, the display, deck size, discard
pile, the move list with each mover (click to jump), a slider, buttons and keys (arrows, Home/End, space), and the
final scores, winners and final scoring by kind. ``game.html#12`` opens at position 12. Command line:
``kardinal-replay RECORD.json -o game.html``.

A record fixes the whole deck, so every hand is known from it: the page shows them all and says so. Position ``k`` (the
game after its first ``k`` moves) is computed here by replaying the moves (:func:`replay_data`); the page only draws
that JSON. An invalid record raises :class:`~kardinal_env.core.errors.RecordError` naming the field, or the move and
the rule it breaks.

Marks for tests and tools: every site is an SVG ``circle.site`` with ``data-site`` and ``data-owner`` (``""`` when
empty); every seal a ``g.seal`` with ``data-country`` and ``data-advisors`` (JSON); the outline of what the last move
touched is ``.last`` (``data-site`` or ``data-country``); ``#position`` reads ``k / N`` with ``data-k``; ``#seats``
carries ``data-hands``, ``data-scores``, ``data-projected`` and ``data-pieces`` (``[cloisters, advisors]`` left);
``#cards`` ``data-display``, ``data-deck`` and ``data-discards``; ``#scores`` the final result with ``data-scores`` and
``data-winners`` (empty for an unfinished game).

:func:`board_data`, :func:`seat_colours`, :func:`touched`, :data:`MAP_CSS` and :data:`MAP_JS` are shared with the play
page ``agents.serving.koenig_page``; the controls are :mod:`kardinal_env.core.replay_page`'s on
:mod:`kardinal_env.core.page_shell`.
"""

from __future__ import annotations

import os
from collections import Counter

from kardinal_env.core.errors import RecordError
from kardinal_env.core.replay_page import replay_page, write_page
from kardinal_env.koenig.engine import Game
from kardinal_env.koenig.notation import parse_move
from kardinal_env.koenig.record import FORMAT, parse_record
from kardinal_env.koenig.render import SEAT_COLOURS, layout_positions

__all__ = [
    "replay_data",
    "replay_html",
    "write_replay_html",
    "board_data",
    "seat_colours",
    "touched",
    "MAP_CSS",
    "MAP_JS",
]


def seat_colours(players: int) -> list[str]:
    """The seats' colours (``render.SEAT_COLOURS``) as CSS hex strings, one per seat."""
    return ["#{:02x}{:02x}{:02x}".format(*SEAT_COLOURS[s % len(SEAT_COLOURS)]) for s in range(players)]


def board_data(game: Game) -> dict:
    """The static map of ``game``'s board (public): countries, sites, roads and alliances."""
    b = game.board
    pos = layout_positions(game)
    return {
        "name": b.name,
        "types": list(b.types),
        "countries": [
            {
                "id": cid,
                "name": b.country_names[c],
                "type": b.types[b.country_type[c]],
                "sites": list(b.country_sites[c]),
                "xy": list(pos[cid]),
            }
            for c, cid in enumerate(b.country_ids)
        ],
        "sites": [{"id": sid, "country": b.site_country[s], "xy": list(pos[sid])} for s, sid in enumerate(b.site_ids)],
        "roads": [list(r) for r in b.roads],
        "alliances": [list(a) for a in b.alliances],
    }


def touched(move: str | None) -> dict | None:
    """``{"site": id}`` (a cloister), ``{"country": id}`` (an advisor) or ``None``: what a move touched."""
    if move is None:
        return None
    parsed = parse_move(move)
    key = {"K": "site", "A": "country"}.get(parsed.kind)
    return None if key is None else {key: parsed.target}


def _position(game: Game) -> dict:
    n = game.num_players
    return {
        "owners": game.owners(),
        "advisors": game.advisor_counts(),
        "hands": [game.hand(s) for s in range(n)],
        "pieces": [list(game.pieces_left(s)) for s in range(n)],
        "display": game.display(),
        "deck": game.deck_size(),
        "discards": len(game.discard_pile()),
        "scores": game.scores(),
        "projected": game.projected_scores(),
        "interim": game.interim_scores(),
        "phase": game.phase,
        "seat": game.current_player,
        "country": game.turn_country,
        "runouts": game.runouts,
    }


def replay_data(record: dict, source: str = "record") -> dict:
    """The JSON a replay page embeds: rules, map, moves and movers, the result with the final scoring,
    and one entry per position ``0..len(moves)`` (the public state, every hand, the last move, its seat,
    what it touched and the cards it brought). Checks the record first (``RecordError``)."""
    fmt = record.get("format") if isinstance(record, dict) else None
    if fmt != FORMAT:
        raise RecordError(f"{source}: field 'format' must be {FORMAT!r}, got {fmt!r}")
    final = Game.from_record(record, source=source)  # validates the deck, every move and the result
    parts = parse_record(record, source)
    # from_record has checked that the moves need the seeded reshuffle nowhere: the deck fixes every card.
    game = Game(parts.rules, seed=0, deck=parts.deck, reshuffle=parts.reshuffle)
    positions = [{**_position(game), "last": None, "mover": None, "touched": None, "gained": []}]
    for move, (seat, _) in zip(parts.moves, final.decision_log()):
        before = Counter(game.hand(seat))
        game.play(move)
        gained = sorted((Counter(game.hand(seat)) - before).elements())
        positions.append({**_position(game), "last": move, "mover": seat, "touched": touched(move), "gained": gained})
    if game.to_record() != final.to_record():  # the step-by-step replay must be the record's game
        raise RuntimeError(f"{source}: the moves replay differently step by step (an engine bug, not the record's)")
    n = parts.rules.players
    return {
        "format": FORMAT,
        "rules": parts.rules.to_dict(),
        "players": n,
        "seat_colours": seat_colours(n),
        "board": board_data(final),
        "moves": list(parts.moves),
        "positions": positions,
        "result": parts.result,
        "breakdown": final.final_breakdown(),
        "interim": final.interim_scores(),
    }


def replay_html(record: dict, source: str = "record") -> str:
    """One self-contained HTML page replaying ``record`` (see the module docstring)."""
    data = replay_data(record, source)
    rules, board = data["rules"], data["board"]["name"]
    title = f"Kardinal & König replay: {rules['players']} players, discard {rules['discard']}, board {board}"
    return replay_page(title, MAP_CSS + _CSS, data, MAP_JS + _JS, _PANELS, board_label="the map")


def write_replay_html(record: dict, path: str | os.PathLike, source: str | None = None) -> str:
    """Write :func:`replay_html` of ``record`` to ``path`` (UTF-8); returns the path written."""
    return write_page(replay_html(record, source or "record"), path)


#: The map's styles (after the shell's), shared with ``agents.serving.koenig_page``: the board, seat
#: swatches, cards, notes, the seals' text.
MAP_CSS = """
#board { width: 100%; height: calc(100vh - 80px); min-height: 360px; display: block; background: #eee8d5;
  border-radius: 6px; }
.sw { display: inline-block; width: 11px; height: 11px; border: 1px solid #000; vertical-align: -1px;
  margin-right: 4px; border-radius: 50%; }
.card { display: inline-block; min-width: 15px; padding: 0 3px; margin: 0 1px; border-radius: 3px; color: #111;
  font: 600 12px/16px ui-monospace, monospace; text-align: center; border: 1px solid #000; }
.note { color: var(--muted); font-size: 12px; }
.seal text { font: 600 3px system-ui, sans-serif; }
"""

#: The map drawing (after ``COMMON_JS``'s ``esc``), shared with ``agents.serving.koenig_page``: the
#: colours, ``mapViewBox(B)``, ``staticMapSVG(B)`` (country areas, alliances, roads) and ``drawMap(...)``
#: (a position's map, with the play page's clickable sites and seals); ``B`` is :func:`board_data`.
#: It defines ``svg`` (``#board``) too.
MAP_JS = r"""
const svg = document.getElementById("board");
const CARD_COLOURS = ["#f4d35e", "#ee964b", "#9bc1bc", "#b8b8ff", "#e6aace", "#c5e99b", "#ffd6a5", "#a0c4ff",
                      "#bdb2ff", "#d0d0d0"];
const TINTS = ["#ded1b0", "#cedebe", "#d6cce2", "#e2c8c4", "#c4d8e2", "#e6dcaa", "#c8e2d6", "#e2d4be", "#d4d4d4"];
const EMPTY = "#aaaaaa", ROAD = "#786e5f", ALLIANCE = "#963c78", INK = "#191919", LAST = "#ffe128";
const SITE_R = 2.3;

// The view box of map B: every site and seal plus a margin.
function mapViewBox(B) {
  const pts = B.sites.map(s => s.xy).concat(B.countries.map(c => c.xy));
  const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
  const m = 9;
  return `${Math.min(...xs) - m} ${Math.min(...ys) - m} ` +
         `${Math.max(...xs) - Math.min(...xs) + 2 * m} ${Math.max(...ys) - Math.min(...ys) + 2 * m}`;
}

// What never changes on map B: country areas, alliances (dashed and numbered), roads.
function staticMapSVG(B) {
  const out = [];
  B.countries.forEach((c, i) => {
    const tint = TINTS[i % TINTS.length];
    for (const s of c.sites) {
      const [x, y] = B.sites[s].xy;
      out.push(`<line x1="${c.xy[0]}" y1="${c.xy[1]}" x2="${x}" y2="${y}" stroke="${tint}" ` +
               `stroke-width="${SITE_R * 2}" stroke-linecap="round"/>`);
      out.push(`<circle cx="${x}" cy="${y}" r="${SITE_R * 2.4}" fill="${tint}"/>`);
    }
  });
  B.alliances.forEach(([a, b], i) => {
    const [x0, y0] = B.countries[a].xy, [x1, y1] = B.countries[b].xy;
    out.push(`<g class="alliance" data-countries="${B.countries[a].id} ${B.countries[b].id}">` +
             `<title>alliance ${i + 1}: ${esc(B.countries[a].name)} - ${esc(B.countries[b].name)}</title>` +
             `<line x1="${x0}" y1="${y0}" x2="${x1}" y2="${y1}" stroke="${ALLIANCE}" stroke-width="0.5" ` +
             `stroke-dasharray="1.6 1.2"/>` +
             `<circle cx="${(x0 + x1) / 2}" cy="${(y0 + y1) / 2}" r="1.9" fill="#eee8d5" stroke="${ALLIANCE}" ` +
             `stroke-width="0.3"/><text x="${(x0 + x1) / 2}" y="${(y0 + y1) / 2 + 0.9}" text-anchor="middle" ` +
             `fill="${ALLIANCE}" style="font: 600 2.5px system-ui, sans-serif">${i + 1}</text></g>`);
  });
  for (const [a, b] of B.roads) {
    const [x0, y0] = B.sites[a].xy, [x1, y1] = B.sites[b].xy;
    out.push(`<line class="road" x1="${x0}" y1="${y0}" x2="${x1}" y2="${y1}" stroke="${ROAD}" stroke-width="0.55"/>`);
  }
  return out.join("");
}

// Draw map B into `svg` at position pos ({owners, advisors, touched}) over its static part `staticSVG`,
// in the seats' `colours`; the seal of `country` (the turn's, or null) dashed. The play page passes `places` (the
// clickable keys "K:site" / "A:country", ringed) and `chosen` (the one whose payment is being chosen):
// clickable sites go on top of the seals (a site next to a seal stays clickable; the others stay under).
// A seal shows its country's id and card type and the advisors per seat (counts, in the seats' colours); what the
// last move touched is outlined (the outline takes no clicks).
function drawMap(B, staticSVG, pos, colours, country, places = new Set(), chosen = null) {
  const out = [staticSVG], over = [];
  const touched = pos.touched || {};
  B.sites.forEach((s, i) => {
    const owner = pos.owners[i];
    const [x, y] = s.xy;
    const key = `K:${s.id}`, target = places.has(key);
    const layer = target ? over : out;
    const who = owner === null ? "empty" : `cloister of seat ${owner}`;
    layer.push(`<circle class="site${target ? " target" : ""}${chosen === key ? " chosen" : ""}" data-site="${s.id}" ` +
               `data-owner="${owner === null ? "" : owner}" cx="${x}" cy="${y}" r="${SITE_R}" ` +
               `fill="${owner === null ? EMPTY : colours[owner]}" stroke="${INK}" stroke-width="0.45">` +
               `<title>${esc(s.id)}: ${who}${target ? " (click: a cloister here)" : ""}</title></circle>`);
    if (target) layer.push(`<circle class="ring${chosen === key ? " chosen" : ""}" cx="${x}" cy="${y}" ` +
                           `r="${SITE_R + 0.9}"/>`);
    if (touched.site === s.id)
      layer.push(`<circle class="last" data-site="${s.id}" cx="${x}" cy="${y}" r="${SITE_R + 1.1}" fill="none" ` +
                 `stroke="${INK}" stroke-width="1.2" pointer-events="none"/><circle cx="${x}" cy="${y}" ` +
                 `r="${SITE_R + 1.1}" fill="none" stroke="${LAST}" stroke-width="0.7" pointer-events="none"/>`);
  });
  const w = Math.max(9, 2.6 * colours.length + 1.6), h = 7.4;  // a seal's size
  B.countries.forEach((c, i) => {
    const [cx, cy] = c.xy;
    const x0 = cx - w / 2, y0 = cy - h / 2;
    const counts = pos.advisors[i];
    const key = `A:${c.id}`, target = places.has(key), here = country === c.id;
    let g = `<g class="seal${target ? " target" : ""}${chosen === key ? " chosen" : ""}" data-country="${c.id}" ` +
      `data-advisors="${JSON.stringify(counts)}"><title>${esc(c.name)} (${c.id}), card type ${c.type}; ` +
      `advisors per seat ${counts.join(", ")}${target ? " (click: an advisor here)" : ""}</title>` +
      `<rect class="face" x="${x0}" y="${y0}" width="${w}" height="${h}" rx="0.8" fill="#fafafa" ` +
      `stroke="${INK}" stroke-width="${here ? 0.7 : 0.4}"${here ? ' stroke-dasharray="1 0.6"' : ""}/>` +
      `<rect x="${x0 + w - 3.2}" y="${y0 + 0.6}" width="2.6" height="2.9" rx="0.4" ` +
      `fill="${CARD_COLOURS[c.type % 10]}" stroke="${INK}" stroke-width="0.2"/>` +
      `<text x="${x0 + w - 1.9}" y="${y0 + 2.75}" text-anchor="middle" fill="${INK}" ` +
      `style="font: 600 2.4px ui-monospace, monospace">${c.type}</text>` +
      `<text x="${x0 + 0.8}" y="${y0 + 3.1}" fill="${INK}">${esc(c.id)}</text>`;
    for (let s = 0; s < counts.length; s++) {
      const bx = x0 + 0.8 + 2.6 * s, by = y0 + 4.1;
      g += counts[s] ?
        `<rect x="${bx}" y="${by}" width="2.3" height="2.6" rx="0.3" fill="${colours[s]}" stroke="${INK}" ` +
        `stroke-width="0.15"/><text x="${bx + 1.15}" y="${by + 2.05}" text-anchor="middle" fill="${INK}" ` +
        `style="font: 600 2.2px system-ui, sans-serif">${counts[s]}</text>` :
        `<rect x="${bx}" y="${by}" width="2.3" height="2.6" rx="0.3" fill="none" stroke="#c8c8c8" ` +
        `stroke-width="0.15"/>`;
    }
    out.push(g + `</g>`);
    if (target) out.push(`<rect class="ring${chosen === key ? " chosen" : ""}" x="${x0 - 0.7}" y="${y0 - 0.7}" ` +
                         `width="${w + 1.4}" height="${h + 1.4}" rx="1.1"/>`);
    if (touched.country === c.id)
      out.push(`<rect class="last" data-country="${c.id}" x="${x0 - 0.9}" y="${y0 - 0.9}" width="${w + 1.8}" ` +
               `height="${h + 1.8}" rx="1.2" fill="none" stroke="${INK}" stroke-width="1.1" pointer-events="none"/>` +
               `<rect x="${x0 - 0.9}" y="${y0 - 0.9}" width="${w + 1.8}" height="${h + 1.8}" rx="1.2" fill="none" ` +
               `stroke="${LAST}" stroke-width="0.6" pointer-events="none"/>`);
  });
  svg.innerHTML = out.concat(over).join("");
}
"""

_CSS = """
.card.new { outline: 2px solid var(--accent); outline-offset: 1px; }
td.hand { text-align: left; white-space: nowrap; }
#seats td:first-child, #scores td:first-child { white-space: nowrap; }
#seats td.hand { min-width: 70px; }
h2 .note { text-transform: none; font-weight: 400; }
#cards { margin-top: 6px; }
#cards div { margin: 2px 0; }
aside { height: calc(100vh - 66px); min-height: 560px; }
aside > .box { flex-shrink: 0; }
#moves-box { flex: 1 1 0; min-height: 90px; display: flex; flex-direction: column; }
#moves { max-height: none; flex: 1 1 auto; min-height: 0; }
.site:hover, .seal:hover { filter: brightness(1.15); }
"""

_PANELS = """<div class="box"><h2>Seats and cards <span class="note" title="A record fixes the whole deck, so every \
hand is known from it.">(the record reveals every hand)</span></h2><div id="seats"></div><div id="cards"></div></div>"""

_JS = r"""
const B = D.board;

const cardHTML = (t, isNew) => `<span class="card${isNew ? " new" : ""}" ` +
  `style="background:${CARD_COLOURS[t % 10]}" title="card type ${t}">${t}</span>`;
const seatSwatch = s => `<span class="sw" style="background:${D.seat_colours[s]}"></span>`;

svg.setAttribute("viewBox", mapViewBox(B));
const STATIC = staticMapSVG(B);


function seatsTable(p, k) {
  const over = p.phase === "over";
  const winners = D.result ? D.result.winners : [];
  const nowTitle = over ? "final score" : "the score if every scoring still to come happened on this board";
  let h = `<table><tr><th>seat</th><th>hand</th><th title="cloisters left">K</th><th title="advisors left">A</th>` +
          `<th title="running total">score</th><th title="${nowTitle}">${over ? "final" : "score now"}</th></tr>`;
  for (let s = 0; s < D.players; s++) {
    const cls = [p.seat === s && "on-turn", over && winners.includes(s) && "winner"].filter(Boolean);
    const fresh = k && p.mover === s ? p.gained.slice() : [];
    const cards = p.hands[s].map(t => {
      const i = fresh.indexOf(t);
      if (i >= 0) fresh.splice(i, 1);
      return cardHTML(t, i >= 0);
    }).join("") || `<span class="note">no cards</span>`;
    h += `<tr class="${cls.join(" ")}" data-seat="${s}"><td>${seatSwatch(s)}seat ${s}</td>` +
         `<td class="hand">${cards}</td><td>${p.pieces[s][0]}</td><td>${p.pieces[s][1]}</td>` +
         `<td>${p.scores[s]}</td><td>${p.projected[s]}</td></tr>`;
  }
  return h + `</table>`;
}

function drawPosition(p, k) {
  drawMap(B, STATIC, p, D.seat_colours, p.phase === "over" ? null : p.country);
  document.getElementById("status").textContent = p.phase === "over" ? "game over" :
    `seat ${p.seat} to decide: ${p.phase}` + (p.country ? `, this turn in ${p.country}` : "");
  const seats = document.getElementById("seats");
  seats.innerHTML = seatsTable(p, k);
  setData(seats, {hands: p.hands, scores: p.scores, projected: p.projected, pieces: p.pieces});
  const runout = ["deck not yet run out", "deck ran out once", "deck ran out twice: last round"][p.runouts];
  const drawn = p.last && p.last.startsWith("draw:") && p.gained.length ?
    `; seat ${p.mover} drew ${p.gained.map(t => cardHTML(t, true)).join("")}` : "";
  const interim = p.interim ? `; interim scoring ${p.interim.join(", ")} (in the scores)` : "";
  const cards = document.getElementById("cards");
  cards.innerHTML = `<div>display ${p.display.map(t => cardHTML(t, false)).join("") || "empty"}${drawn}</div>` +
    `<div>deck <b>${p.deck}</b> cards, discard pile <b>${p.discards}</b> cards</div>` +
    `<div class="note">${runout}${interim}</div>`;
  setData(cards, {display: p.display, deck: p.deck, discards: p.discards});
}

// The final result with the final scoring by kind (replaces the plain table of showResult; the rows
// keep its marks: data-seat, data-score, the final score in the second cell, class "winner").
function resultHTML() {
  const kinds = Object.keys(D.breakdown), w = D.result.winners;
  const head = k => `<th title="final scoring: ${esc(k)}">${esc(k.slice(0, 5))}.</th>`;
  let h = `<table><tr><th>seat</th><th title="final score">final</th>${kinds.map(head).join("")}` +
          `${D.interim ? `<th title="interim scoring">inter.</th>` : ""}<th></th></tr>`;
  D.result.scores.forEach((score, s) => {
    h += `<tr class="${w.includes(s) ? "winner" : ""}" data-seat="${s}" data-score="${score}">` +
         `<td>${seatSwatch(s)}seat ${s}</td><td>${score}</td>` +
         `${kinds.map(k => `<td>${D.breakdown[k][s]}</td>`).join("")}` +
         `${D.interim ? `<td>${D.interim[s]}</td>` : ""}<td>${w.includes(s) ? "winner" : ""}</td></tr>`;
  });
  return h + `</table>`;
}

function legendHTML() {
  const icon = inner => `<svg viewBox="0 0 6 6" style="width:14px">${inner}</svg>`;
  const item = (inner, text) => `<span>${icon(inner)} ${text}</span>`;
  const disc = fill => `<circle cx="3" cy="3" r="2.3" fill="${fill}" stroke="${INK}" stroke-width="0.45"/>`;
  const types = B.types.map(t => {
    const named = B.countries.filter(c => c.type === t).map(c => c.id).join(" ") || "pairs only";
    return `<span>${cardHTML(t, false)} ${esc(named)}</span>`;
  }).join("");
  return `<div class="legend">` +
    item(disc(EMPTY), "empty site") + D.seat_colours.map((c, s) => item(disc(c), `seat ${s}`)).join("") +
    item(`<line x1="0" y1="3" x2="6" y2="3" stroke="${ALLIANCE}" stroke-width="0.8" stroke-dasharray="1.6 1"/>`,
         "alliance") +
    item(`<line x1="0" y1="3" x2="6" y2="3" stroke="${ROAD}" stroke-width="0.8"/>`, "road") +
    item(`<circle cx="3" cy="3" r="2.2" fill="none" stroke="${INK}" stroke-width="1.2"/>` +
         `<circle cx="3" cy="3" r="2.2" fill="none" stroke="${LAST}" stroke-width="0.7"/>`, "last move") +
    `<span>cards (type: countries) ${types}</span></div>`;
}

document.getElementById("legend").innerHTML = legendHTML();
startReplay(drawPosition);
if (D.result && D.breakdown) document.getElementById("scores").innerHTML = resultHTML();
"""

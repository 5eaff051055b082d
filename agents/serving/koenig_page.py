"""Kardinal & König's play page (:mod:`agents.serving.pages`): the map drawn by the HTML replays' code
(``kardinal_env.koenig.replay_html``; the last move's site or seal outlined) and beside it the person's hand, the
display and the deck, every seat's hand size, pieces left, score and score now, the move list and, at the end, the
final scoring by kind. On the person's turn the sites and seals where a piece may go are highlighted; a click plays the
move when one payment is possible, else offers the payments as buttons. Discarding, ending the turn and (draw phase)
the display's cards and the deck are buttons.

**What the person's seat may know.** :meth:`KoenigPage.state` holds the person's own hand and public facts only (hand
*sizes*, display, deck *size*, discard pile, map, pieces, scores, moves with deck draws as ``draw:deck``); the phase
only when the person decides or the game is over (another seat's ``second`` phase would tell that it holds the cards
for a second piece).

For tests the page marks what it shows: ``circle.site`` (``data-site``, ``data-owner``), ``g.seal`` (``data-country``,
``data-advisors``), class ``target`` on clickable ones (``chosen`` while paying), ``#actions button.pay``,
``button.discard`` / ``button.end``, ``button.draw`` (``#display`` cards and ``#deck-draw``), ``#hand[data-hand]``,
``#cards[data-display][data-deck]``, ``#seats[data-scores][data-hand-sizes]``.
"""

from __future__ import annotations

from typing import Any

from agents.serving.pages import play_html
from kardinal_env.core.page_shell import board_svg
from kardinal_env.koenig.replay_html import MAP_CSS, MAP_JS, board_data, seat_colours, touched

__all__ = ["KoenigPage"]


class KoenigPage:
    """Kardinal & König's play page (see the module docstring; named by its ``GameAgents.play_page``)."""

    def state(self, game: Any, seat: int) -> dict:
        """What ``seat`` may know of ``game`` (see the module docstring), as the page draws it."""
        n = game.num_players
        decides = game.is_over or game.current_player == seat
        return {
            "rules": {"players": n, "discard": game.rules.discard, "board": game.board.name},
            "seat_colours": seat_colours(n),
            "map": board_data(game),
            "phase": game.phase if decides else None,
            "country": game.turn_country,
            "pieces_this_turn": game.pieces_this_turn,
            "cards_this_turn": game.cards_this_turn,
            "owners": game.owners(),
            "advisors": game.advisor_counts(),
            "hand": game.hand(seat),
            "hand_sizes": [game.hand_size(s) for s in range(n)],
            "pieces": [list(game.pieces_left(s)) for s in range(n)],
            "display": game.display(),
            "deck_size": game.deck_size(),
            "discard_pile": sorted(game.discard_pile()),
            "runouts": game.runouts,
            "last_round": game.last_round,
            "scores": game.scores(),
            "projected": game.projected_scores(),
            "interim": game.interim_scores(),
            "breakdown": game.final_breakdown(),
            "touched": touched(game.history[-1] if game.move_count else None),
        }

    def html(self) -> str:
        title, heading = "Kardinal & König: play", "Kardinal & König: play against agents"
        return play_html(title, MAP_CSS + _CSS, MAP_JS + _JS, board_svg("the map"), _PANELS, heading=heading)


_CSS = """
aside { flex-basis: 420px; }
.card.big { min-width: 24px; font-size: 15px; line-height: 26px; }
.back { display: inline-block; width: 9px; height: 13px; margin: 0 1px; border-radius: 2px; vertical-align: -2px;
  background: repeating-linear-gradient(45deg, #6b5b95, #6b5b95 2px, #8a7bb0 2px, #8a7bb0 4px);
  border: 1px solid #000; }
button.draw { padding: 2px 4px; }
button.draw .card { pointer-events: none; }
#hand-box .cards { min-height: 30px; }
#cards div { margin: 3px 0; }
#log { max-height: calc(100vh - 700px); min-height: 70px; }
.site.target, .seal.target { cursor: pointer; }
.ring { fill: none; stroke: #e0a800; stroke-width: 0.6; stroke-dasharray: 1.1 0.6; pointer-events: none; }
.ring.chosen { stroke: #d02020; stroke-width: 1.1; stroke-dasharray: none; }
.seal.target:hover rect.face, .site.target:hover { filter: brightness(1.2); }
"""

_JS = r"""
let chosen = null;       // "K:site" or "A:country" while its payment is being chosen
let mapKey = null, staticSVG = "";

function resetChoice() { chosen = null; }

function cardHTML(t, big) {
  return `<span class="card${big ? " big" : ""}" style="background:${CARD_COLOURS[t % 10]}" ` +
         `title="card type ${t}">${t}</span>`;
}
function seatSwatch(s) { return `<span class="sw" style="background:${S.seat_colours[s]}"></span>`; }
function backs(k) { return Array.from({length: k}, () => `<span class="back"></span>`).join(""); }

// A place move "K@SW2/3" / "A@IT/22": its kind, target and payment.
function parsePlace(move) {
  const m = /^([KA])@([^/]+)\/(\d)(\d)?$/.exec(move);
  return m ? {key: `${m[1]}:${m[2]}`, kind: m[1], target: m[2], card: Number(m[3]), pair: m[4] !== undefined,
              move: move} : null;
}
function payHTML(p) {
  return p.pair ? `${cardHTML(p.card)}${cardHTML(p.card)} <small>(a pair as joker)</small>` : cardHTML(p.card);
}

function seatsTable(st) {
  const over = !!st.result, winners = over ? st.result.winners : [];
  let h = `<table><tr><th>seat</th><th title="cards held">cards</th><th title="cloisters left">K</th>` +
          `<th title="advisors left">A</th><th title="running total">score</th>` +
          `<th title="the score if every scoring still to come happened on this map">` +
          `${over ? "final" : "now"}</th></tr>`;
  for (let s = 0; s < st.players; s++) {
    const cls = [];
    if (st.seat === s && !over) cls.push("on-turn");
    if (winners.includes(s)) cls.push("winner");
    const cards = s === st.human_seat ? st.hand.map(t => cardHTML(t)).join("") || `<span class="note">none</span>`
                                      : `${backs(st.hand_sizes[s])} <span class="note">${st.hand_sizes[s]}</span>`;
    h += `<tr class="${cls.join(" ")}" data-seat="${s}"><td>${seatSwatch(s)}${esc(st.names[s])}</td>` +
         `<td style="text-align:left">${cards}</td><td>${st.pieces[s][0]}</td><td>${st.pieces[s][1]}</td>` +
         `<td>${st.scores[s]}</td><td>${st.projected[s]}</td></tr>`;
  }
  return h + `</table>`;
}

function resultHTML(st) {
  const r = st.result, kinds = st.breakdown ? Object.keys(st.breakdown) : [];
  let h = `<table><tr><th>seat</th><th>final</th>${kinds.map(k => `<th title="final scoring: ${esc(k)}">` +
          `${esc(k.slice(0, 5))}.</th>`).join("")}${st.interim ? `<th title="interim scoring">inter.</th>` : ""}` +
          `<th></th></tr>`;
  r.scores.forEach((score, s) => {
    const win = r.winners.includes(s);
    h += `<tr class="${win ? "winner" : ""}" data-seat="${s}" data-score="${score}"><td>${seatSwatch(s)}` +
         `${esc(st.names[s])}</td><td>${score}</td>${kinds.map(k => `<td>${st.breakdown[k][s]}</td>`).join("")}` +
         `${st.interim ? `<td>${st.interim[s]}</td>` : ""}<td>${win ? "winner" : ""}</td></tr>`;
  });
  return h + `</table>`;
}

const PHASE_HINT = {
  place: "click a highlighted site (a cloister) or seal (an advisor), or discard a card",
  second: "a second piece in the same country (click it), or end the turn",
  discard: "discard another card, or stop",
  draw: "take a card: click one in the display, or the deck",
};

function render() {
  const st = S, key = JSON.stringify([st.map.name, st.map.sites.length, st.players]);
  if (mapKey !== key) {  // the map that never changes (country areas, alliances, roads) and the view box, once a board
    svg.setAttribute("viewBox", mapViewBox(st.map));
    staticSVG = staticMapSVG(st.map);
    mapKey = key;
  }
  const places = new Map(), buttons = [];
  if (st.your_turn) for (const m of st.legal) {
    const p = parsePlace(m);
    if (p) { if (!places.has(p.key)) places.set(p.key, []); places.get(p.key).push(p); }
    else buttons.push(m);
  }
  if (chosen !== null && !places.has(chosen)) chosen = null;
  drawMap(st.map, staticSVG, st, st.seat_colours, st.result ? null : st.country, places, chosen);
  let html = "";
  if (chosen !== null) {
    const opts = places.get(chosen), p0 = opts[0];
    html += `<div class="note">${p0.kind === "K" ? "a cloister on " + esc(p0.target) : "an advisor in " +
            esc(p0.target)}: pay with</div>`;
    for (const p of opts) html += `<button class="pay" data-move="${esc(p.move)}">${payHTML(p)}</button>`;
    html += `<button class="cancel">cancel</button>`;
  }
  for (const m of buttons) {
    if (m.startsWith("discard:"))
      html += `<button class="discard" data-move="${m}">discard ${cardHTML(Number(m.slice(8)))}</button>`;
    else if (m === "end") html += `<button class="end" data-move="end">${st.phase === "discard" ? "stop discarding" :
                                   "end the turn (no second piece)"}</button>`;
  }
  document.getElementById("actions").innerHTML = html;
  document.getElementById("hint").textContent = st.your_turn ? (PHASE_HINT[st.phase] || "") : "";
  // your hand, the display and the deck (the draw buttons)
  const hand = document.getElementById("hand");
  hand.innerHTML = st.hand.map(t => cardHTML(t, true)).join("") || `<span class="note">no cards</span>`;
  setData(hand, {hand: st.hand});
  const draws = new Set(buttons.filter(m => m.startsWith("draw:")));
  const display = st.display.map(t => draws.has(`draw:${t}`) ?
    `<button class="draw" data-move="draw:${t}" title="take this card">${cardHTML(t, true)}</button>` :
    cardHTML(t, true)).join("") || `<span class="note">empty</span>`;
  const deck = draws.has("draw:deck") ? `<button class="draw" id="deck-draw" data-move="draw:deck">draw from the ` +
    `deck</button>` : "";
  const runout = ["the deck has not run out yet", "the deck ran out once (interim scoring done)",
                  "the deck ran out twice: last round"][st.runouts];
  const pileCounts = new Map();
  for (const t of st.discard_pile) pileCounts.set(t, (pileCounts.get(t) || 0) + 1);
  const pile = [...pileCounts].map(([t, k]) => `${cardHTML(t)}&times;${k}`).join(" ") || "empty";
  const cards = document.getElementById("cards");
  cards.innerHTML = `<div>display <span id="display">${display}</span></div>` +
    `<div>deck <b>${st.deck_size}</b> cards ${deck}</div>` +
    `<div class="note">discard pile (${st.discard_pile.length}): ${pile}</div><div class="note">${runout}</div>`;
  setData(cards, {display: st.display, deck: st.deck_size});
  const seats = document.getElementById("seats");
  seats.innerHTML = seatsTable(st);
  setData(seats, {scores: st.scores, handSizes: st.hand_sizes});
  showStatus(st, `Your turn: ${st.phase}` + (st.country ? ` (in ${st.country})` : ""));
  const scores = document.getElementById("scores");
  showResult(scores, st.result, st.names, "the game is running");
  if (st.result) scores.innerHTML = resultHTML(st);
  showLog(st);
  document.getElementById("who").innerHTML = `You are ${seatSwatch(st.human_seat)}seat ${st.human_seat}; ` +
    st.names.map((n, s) => s === st.human_seat ? null : `seat ${s}: ${esc(n)}`).filter(Boolean).join(", ");
}

function legendHTML() {
  const icon = inner => `<svg viewBox="0 0 6 6" style="width:14px">${inner}</svg>`;
  const item = (inner, text) => `<span>${icon(inner)} ${text}</span>`;
  return `<div class="legend">` +
    item(`<circle cx="3" cy="3" r="2.3" fill="${EMPTY}" stroke="${INK}" stroke-width="0.45"/>`, "empty site") +
    item(`<circle cx="3" cy="3" r="2.3" fill="${EMPTY}" stroke="${LAST}" stroke-width="0.9"/>`, "you may place here") +
    item(`<line x1="0" y1="3" x2="6" y2="3" stroke="${ALLIANCE}" stroke-width="0.8" stroke-dasharray="1.6 1"/>`,
         "alliance") +
    item(`<line x1="0" y1="3" x2="6" y2="3" stroke="${ROAD}" stroke-width="0.8"/>`, "road") +
    item(`<circle cx="3" cy="3" r="2.2" fill="none" stroke="${INK}" stroke-width="1.2"/>` +
         `<circle cx="3" cy="3" r="2.2" fill="none" stroke="${LAST}" stroke-width="0.7"/>`, "last move") +
    `<span>a seal: country, its card type, advisors per seat</span></div>`;
}

svg.addEventListener("click", e => {
  if (busy || !S || !S.your_turn) return;
  const el = e.target.closest(".site.target, .seal.target");
  if (!el) return;
  const key = el.dataset.site !== undefined ? `K:${el.dataset.site}` : `A:${el.dataset.country}`;
  const opts = S.legal.map(parsePlace).filter(p => p && p.key === key);
  if (opts.length === 1) playMove(opts[0].move);
  else if (opts.length > 1) { chosen = key; render(); }
});
document.querySelector("aside").addEventListener("click", e => {  // buttons with a move: startPlay's
  if (e.target.closest("button.cancel") && !busy) { chosen = null; render(); }
});
document.addEventListener("keydown", e => { if (e.key === "Escape" && chosen !== null) { chosen = null; render(); } });
startPlay();
"""

_PANELS = [
    '<div class="box" id="hand-box"><h2>Your hand</h2><div id="hand" class="cards"></div><div id="cards"></div></div>',
    '<div class="box"><h2>Seats</h2><div id="seats"></div></div>',
]

"""Kardinal's play page (:mod:`agents.serving.pages`): the board drawn by the HTML replays' code
(``kardinal_env.kardinal.replay_html``). On the person's decisions pick an edifice, then click a highlighted square (a
yard: its first square, then its second); chips and ``C-`` are buttons, a cardinal move is a click on a highlighted
site. Kardinal has no hidden information: the state holds the whole position.

For tests: clickable squares are ``rect.target`` (``.first`` / ``.final`` / ``.chosen``), the edifice buttons
``#actions button.pick``, the chip buttons ``button.chip``, ``C-`` is ``button.keep``.
"""

from __future__ import annotations

from typing import Any

from agents.serving.pages import play_html
from kardinal_env.core.page_shell import board_svg
from kardinal_env.kardinal.replay_html import BOARD_CSS, BOARD_JS, CHIPS_BOX, building_data, position_state

__all__ = ["KardinalPage"]


class KardinalPage:
    """Kardinal's play page (see the module docstring; named by Kardinal's ``GameAgents.play_page``)."""

    def state(self, game: Any, seat: int) -> dict:
        """The whole position (Kardinal has no hidden information) as the board drawing needs it."""
        buildings = game.buildings()
        state = position_state(game)
        state.update(
            seat_colours=[list(game.seat_colours(s)) for s in range(game.num_players)],
            rules=game.rules.to_dict(),
            window=game.rules.window,
            buildings=[building_data(b) for b in buildings],
            last_id=len(buildings) - 1 if len(buildings) > 2 else -1,
        )
        return state

    def html(self) -> str:
        css, js, board = BOARD_CSS + _PLAY_CSS, BOARD_JS + _PLAY_JS, board_svg("the board")
        return play_html("Kardinal: play", css, js, board, [CHIPS_BOX], heading="Kardinal: play against agents")


_PLAY_CSS = """
.target { fill: rgba(255, 225, 40, 0.28); stroke: #ffe128; stroke-width: 0.05; cursor: pointer; }
.target:hover { fill: rgba(255, 225, 40, 0.65); }
.target.chosen { fill: rgba(255, 225, 40, 0.8); }
#log { max-height: calc(100vh - 600px); min-height: 80px; }
"""

_PLAY_JS = r"""
let pick = null;         // chosen edifice kind in the build phase, e.g. "H0", "Y2"
let first = null;        // first square "x,y" of a yard

const svg = document.getElementById("board");
const SHAPE_NAME = {H: "house", T: "tower", Y: "yard"};

function resetChoice() { pick = null; first = null; }

// Parse a build move "H0@2,1" / "Y1@-1,0:0,0" into its kind and squares ("x,y", as the notation writes them).
function parseBuild(move) {
  const m = /^([HTY]\d)@(-?\d+,-?\d+)(?::(-?\d+,-?\d+))?$/.exec(move);
  return m ? {kind: m[1], squares: m[3] === undefined ? [m[2]] : [m[2], m[3]], move: move} : null;
}

function buildTargets() {
  const builds = S.legal.map(parseBuild).filter(b => b && b.kind === pick);
  const targets = new Map();
  if (pick[0] !== "Y") {
    for (const b of builds) targets.set(b.squares[0], {move: b.move});
  } else if (first === null) {
    for (const b of builds) for (const sq of b.squares) targets.set(sq, {first: true});
  } else {
    for (const b of builds) {
      const i = b.squares.indexOf(first);
      if (i >= 0) targets.set(b.squares[1 - i], {move: b.move});
    }
    targets.set(first, {cancel: true});
  }
  return targets;
}

function render() {
  const st = S;
  let targets = new Map(), html = "", hint = "";
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
      targets = buildTargets();
      hint = pick[0] === "Y" ? (first === null ? "click the yard's first square" :
        "click its second square (or the first again to cancel)") : "click a highlighted square to build";
    }
  } else if (st.your_turn && st.phase === "chip") {
    for (const m of st.legal) {
      const c = Number(m.split(":")[1]);
      html += `<button class="chip" data-move="${m}">${swatch(c)}take a chip of colour ${c} ` +
              `<small>(${st.supply[c]} left)</small></button>`;
    }
    hint = st.pending > 1 ? `${st.pending} chips to take` : "take one chip";
  } else if (st.your_turn && st.phase === "cardinal") {
    for (const m of st.legal) {
      if (m === "C-") html += `<button class="keep" data-move="C-">leave the cardinal where it is (C-)</button>`;
      else targets.set(m.slice(2), {move: m});  // "C@x,y"
    }
    hint = "click a highlighted site to move the cardinal there";
  }
  document.getElementById("actions").innerHTML = html;
  document.getElementById("hint").textContent = hint;
  const list = [...targets].map(([key, t]) => {
    const [x, y] = key.split(",").map(Number);
    return {x: x, y: y, cls: t.cancel ? "chosen" : (t.first ? "first" : "final"),
            title: t.move || (t.cancel ? "cancel this yard" : "first square of the yard")};
  });
  const lastKind = st.last === null ? null : (st.last.startsWith("chip") ? "chip" :
                                               st.last.startsWith("C") ? "cardinal" : "build");
  const view = boardView([st.buildings.flatMap(b => b.squares), st.sites, st.cardinal ? [st.cardinal] : []]);
  drawBoard(svg, view, {buildings: st.buildings, sites: st.sites, cardinal: st.cardinal, lastId: st.last_id,
                        lastKind: lastKind, window: st.window, targets: list});
  svg.querySelectorAll("rect.target").forEach(el => {
    el.addEventListener("click", () => onSquare(`${el.dataset.x},${el.dataset.y}`, targets));
  });
  showStatus(st, `Your turn: ${st.phase}`);
  const names = st.names.map((n, s) => `${s}: ${n}`);
  document.getElementById("chips").innerHTML = chipsTable(st.seat_colours, st, st.result, {names: names});
  showLog(st);
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

document.getElementById("actions").addEventListener("click", e => {  // buttons with a move: startPlay's
  const b = e.target.closest("button");
  if (b && b.dataset.kind && !busy) { pick = b.dataset.kind; first = null; render(); }
});
document.addEventListener("keydown", e => { if (e.key === "Escape" && first !== null) { first = null; render(); } });
startPlay();
"""

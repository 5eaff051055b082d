"""The replays' layer of the page shell (:mod:`kardinal_env.core.page_shell`), shared by both games' HTML replays
(``kardinal_env.kardinal.replay_html``, ``kardinal_env.koenig.replay_html``).

A replay page is one self-contained HTML file, the positions as JSON in ``script#replay-data``. :func:`replay_page`
fills the shell: the board on the left; on the right the controls (``#position`` reading ``k / N`` with ``data-k``, the
buttons, ``#slider``, ``#status``, ``#last``), the game's panels, ``#scores``, the move list ``#moves`` and ``#legend``.

:data:`REPLAY_JS` steps for both games: buttons, slider, keys (arrows, Home/End, PageUp/PageDown by 10, space to play),
clicking a move (the position after it), ``page.html#12`` to start at position 12, and ``#scores`` (with ``data-scores``
and ``data-winners``). The data must hold ``players``, ``moves``, ``result`` and ``positions`` (each with ``mover``, the
seat whose move led to it); the game's script calls ``startReplay(drawPosition)``, where ``drawPosition(p, k)`` draws
``p = D.positions[k]``.
"""

from __future__ import annotations

from typing import Any

from kardinal_env.core.page_shell import LEGEND_BOX, RESULT_BOX, board_svg, embed_json, shell_page, write_page

# embed_json and write_page are the shell's, named here too for the replay writers.
__all__ = ["REPLAY_CSS", "REPLAY_JS", "embed_json", "replay_page", "write_page"]


def replay_page(title: str, css: str, data: Any, js: str, panels: str, board_label: str = "the board") -> str:
    """A replay page: the game's ``css``, ``data``, ``js`` (calling ``startReplay``) and ``panels`` (HTML boxes)."""
    aside = [_CONTROLS, panels, RESULT_BOX, _MOVES_BOX, LEGEND_BOX]
    return shell_page(title, REPLAY_CSS + css, REPLAY_JS + js, board_svg(board_label), aside, data=data)


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
  const jumps = {first: () => 0, prev: () => k - 1, next: () => k + 1, "last-btn": () => N};
  for (const id in jumps) document.getElementById(id).onclick = () => { stop(); show(jumps[id]()); };
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

_CONTROLS = """<div class="box">
<div id="controls"><span id="position" data-k="0">0 / 0</span>
<button id="first" title="start (Home)">|&#x25C0;</button><button id="prev" title="back (left arrow)">&#x25C0;</button>
<button id="play" title="play / pause (space)">play</button>
<button id="next" title="forward (right arrow)">&#x25B6;</button>
<button id="last-btn" title="end (End)">&#x25B6;|</button>
</div>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="position">
<div id="status"></div><div id="last"></div>
</div>"""

_MOVES_BOX = '<div class="box" id="moves-box"><h2>Moves</h2><ol id="moves"></ol></div>'

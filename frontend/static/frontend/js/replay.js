// The replay viewer. The client has no rules, so the positions come from the
// server: GET /api/games/{id}/replay/?positions=1 gives the full view after each
// action (positions[0] = the deal). Keys: ← → one step, ↑ start, ↓ end (as on
// lichess), Home/End too, Space play/pause, + − speed. The slider, the move list
// and ?move=K step through every logged action (K = after the K-th); "Move k of
// n" counts as the game's move counter does: k and n are the `moves` of the
// position shown and of the last one, the server's figures (an undo adds nothing).

import { announce, fmt, formatMs, formatNumber } from "./i18n.js";
import { variantLabel } from "./catalogue.js";
import { get } from "./api.js";
import { Board } from "./board.js";
import { Hud, showClosed, showMessage } from "./hud.js";
import { MoveList, describe } from "./movelist.js";

const $ = (id) => document.getElementById(id);
const id = Number($("replay").dataset.attempt);
const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 800; // at 1×

const hud = new Hud();
const board = new Board($("board"), { interactive: false });
const wrap = $("board-wrap");
const slider = $("replay-slider");
const moveList = new MoveList($("replay-moves"), (step, { keyboard }) => {
  pause();
  show(step);
  if (!keyboard) wrap.focus({ preventScroll: true });
});
let data = null;
let k = 0;
let speed = 1;
let timer = null;

function show(next, { announceIt = true } = {}) {
  const n = data.actions.length;
  k = Math.max(0, Math.min(n, next));
  board.setView(data.positions[k]);
  const log = k ? data.log[k - 1] : { ms: 0, score: 0, moves: 0 };
  hud.setStats(log.score, log.moves);
  hud.setClock(log.ms, false);
  slider.value = String(k);
  const counter = fmt(gettext("Move %(k)s of %(n)s"), { k: data.positions[k].moves, n: data.positions[n].moves });
  const label = `${counter} — ${describe(data.actions[k - 1], data.positions[k - 1])}`;
  $("replay-move").textContent = label;
  slider.setAttribute("aria-valuetext", label);
  moveList.mark(k);
  $("replay-prev").disabled = $("replay-start").disabled = k === 0;
  $("replay-next").disabled = $("replay-end").disabled = k === n;
  const url = new URL(location.href);
  url.searchParams.set("move", String(k));
  history.replaceState(null, "", url);
  if (announceIt && !timer) announce(label);
  if (k === n) pause();
}

function play() {
  if (k >= data.actions.length) show(0, { announceIt: false });
  clearInterval(timer);
  timer = setInterval(() => show(k + 1, { announceIt: false }), STEP_MS / speed);
  $("replay-play").setAttribute("aria-pressed", "true");
  $("replay-play").setAttribute("aria-label", gettext("Pause"));
}

function pause() {
  clearInterval(timer);
  timer = null;
  $("replay-play").setAttribute("aria-pressed", "false");
  $("replay-play").setAttribute("aria-label", gettext("Play"));
}

function setSpeed(next) {
  speed = next;
  document.querySelectorAll("#replay-speed [data-speed]").forEach((b) => b.setAttribute("aria-checked", String(Number(b.dataset.speed) === speed)));
  if (timer) play();
  announce(fmt(gettext("Speed %(speed)s×"), { speed }));
}

/** After a click on a control, the keys go to the board again. */
function control(id, handler) {
  $(id).addEventListener("click", () => {
    handler();
    wrap.focus({ preventScroll: true });
  });
}

function bind() {
  control("replay-start", () => (pause(), show(0)));
  control("replay-prev", () => (pause(), show(k - 1)));
  control("replay-next", () => (pause(), show(k + 1)));
  control("replay-end", () => (pause(), show(data.actions.length)));
  control("replay-play", () => (timer ? pause() : play()));
  document.querySelectorAll("#replay-speed [data-speed]").forEach((b) =>
    b.addEventListener("click", () => {
      setSpeed(Number(b.dataset.speed));
      wrap.focus({ preventScroll: true });
    }),
  );
  slider.addEventListener("input", () => (pause(), show(Number(slider.value), { announceIt: false })));
  slider.addEventListener("change", () => wrap.focus({ preventScroll: true }));
  $("replay-reveal")?.addEventListener("change", (e) => {
    board.setReveal(e.target.checked);
    wrap.focus({ preventScroll: true });
  });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || document.querySelector("dialog[open]")) return;
    if (e.target.matches?.("input, select, textarea") && e.target !== $("replay-reveal")) return;
    const i = SPEEDS.indexOf(speed);
    const keys = {
      ArrowLeft: () => (pause(), show(k - 1)),
      ArrowRight: () => (pause(), show(k + 1)),
      ArrowUp: () => (pause(), show(0)),
      Home: () => (pause(), show(0)),
      ArrowDown: () => (pause(), show(data.actions.length)),
      End: () => (pause(), show(data.actions.length)),
      " ": () => (timer ? pause() : play()),
      "+": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, i + 1)]),
      "=": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, i + 1)]),
      "-": () => setSpeed(SPEEDS[Math.max(0, i - 1)]),
    };
    const handler = keys[e.key];
    if (!handler) return;
    if (e.key === " " && e.target.tagName === "BUTTON") return; // the button's own click
    e.preventDefault();
    handler();
  });
}

try {
  data = await get(`/api/games/${id}/replay/?positions=1`);
  hud.show(data); // title, code; the stats follow the position shown
  const status =
    data.status === "won" ? gettext("won") : data.status === "resigned" ? gettext("resigned") : gettext("not finished");
  const player = $("replay-player");
  player.innerHTML = "";
  const link = document.createElement("a");
  link.href = `/players/${encodeURIComponent(data.player)}/`;
  link.textContent = data.player;
  player.append(link, ` · ${status} · ${formatNumber(data.score)} · ${formatMs(data.elapsed_ms)}`);
  document.title = `${variantLabel(data.variant)} · ${data.player}`;
  if (data.daily) {
    $("replay-leaderboard").href = `/leaderboard/${data.daily}/${data.variant}/`;
    $("replay-leaderboard").hidden = false;
  }
  if (!Array.isArray(data.positions) || data.positions.length !== data.actions.length + 1) {
    // Without the server's positions the client cannot show the moves (it has no rules).
    data.positions = [data.deal];
    data.actions = [];
    data.log = [];
    showMessage(gettext("This server does not send the positions of a replay; only the deal is shown."), "error");
  }
  slider.max = String(data.actions.length);
  moveList.fill(data);
  // "Show hidden cards" only where a position had some: a face-down card or a
  // stock (Easy Harp); a Seahaven deal hides nothing. Read from the positions sent.
  const hid = data.positions.some((p) => p.piles.s?.length || Object.values(p.down || {}).some((d) => d > 0));
  if (hid) $("replay-reveal-label").hidden = false;
  else $("replay-reveal-label").remove();
  bind();
  const start = Number(new URLSearchParams(location.search).get("move"));
  show(Number.isFinite(start) ? start : 0, { announceIt: false });
  wrap.focus({ preventScroll: true });
} catch (err) {
  if (err.code === "spoiler") {
    // A daily whose day runs: the server says who may see it and when (PRODUCT.md, anti-cheat).
    showClosed(err.error);
    document.querySelectorAll(".replay-controls button, .replay-controls input").forEach((el) => (el.disabled = true));
  } else {
    showMessage(err.message, "error");
  }
  $("replay-move").textContent = err.message;
}

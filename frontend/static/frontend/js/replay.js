// The replay viewer. The client has no rules, so the positions come from the
// server: GET /api/games/{id}/replay/?positions=1 gives the full view after each
// action (positions[0] = the deal). Keys: ← → one move, ↑ start, ↓ end (as on
// lichess), Home/End too, Space play/pause, + − speed. ?move=K opens at move K.

import { announce, fmt, formatMs, formatNumber, variantLabel } from "./i18n.js";
import { get } from "./api.js";
import { Board } from "./board.js";
import { cardName, pileName } from "./cards.js";
import { Hud, showClosed, showMessage } from "./hud.js";

const $ = (id) => document.getElementById(id);
const id = Number($("replay").dataset.attempt);
const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 800; // at 1×

const hud = new Hud();
const board = new Board($("board"), { interactive: false });
const wrap = $("board-wrap");
const slider = $("replay-slider");
let data = null;
let k = 0;
let speed = 1;
let timer = null;

function describe(action, before) {
  if (!action) return gettext("The deal");
  switch (action.type) {
    case "stock":
      return before.piles.s?.length ? gettext("Card drawn from the stock") : gettext("Waste turned over: new pass");
    case "undo":
      return gettext("Undo");
    case "move": {
      const count = action.count || 1;
      const card = before.piles[action.from]?.at(-count);
      const what = count > 1 ? fmt(gettext("%(card)s and %(n)s more"), { card: cardName(card), n: count - 1 }) : cardName(card);
      return fmt(gettext("%(what)s: %(from)s → %(to)s"), { what, from: pileName(action.from), to: pileName(action.to) });
    }
    default:
      return action.type;
  }
}

function show(next, { announceIt = true } = {}) {
  const n = data.actions.length;
  k = Math.max(0, Math.min(n, next));
  board.setView(data.positions[k]);
  const log = k ? data.log[k - 1] : { ms: 0, score: 0, moves: 0 };
  hud.setStats(log.score, log.moves);
  hud.setClock(log.ms, false);
  slider.value = String(k);
  const label = `${fmt(gettext("Move %(k)s of %(n)s"), { k, n })} — ${describe(data.actions[k - 1], data.positions[k - 1])}`;
  $("replay-move").textContent = label;
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
  $("replay-reveal").addEventListener("change", (e) => {
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

// The replay viewer. The client has no rules, so the positions come from the
// server: GET /api/games/{id}/replay/?positions=1 gives the full view after each
// action (positions[0] = the deal). Keys: ← → one step, ↑ start, ↓ end (as on
// lichess), Home/End too, Space play/pause, + − speed. The slider, the move list
// and ?move=K step through every logged action (K = after the K-th); "Move k of
// n" counts as the game's move counter does: k and n are the `moves` of the
// position shown and of the last one, the server's figures (an undo adds nothing).
//
// Where it went wrong (issue 27): once the game's day is over, GET
// /api/games/{id}/analysis/ names the move after which the deal could no longer
// be won (its seq: the entry after position seq), the solver's winning line from
// the position before it and the full view after each of its steps, or for a
// win its moves over par and where it left the par line. The panel phrases
// that data; the board plays the server's views (the client has no rules).

import { announce, fmt, formatMs, formatNumber } from "./i18n.js";
import { variantLabel } from "./catalogue.js";
import { get } from "./api.js";
import { ensurePlayer } from "./guest.js";
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
let found = null; // the analysis, once the server has one
let line = null; // the winning line being shown: { timer, step }

function show(next, { announceIt = true } = {}) {
  stopLine();
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

// --- where it went wrong ------------------------------------------------------------

/** The logged action ``seq`` by the move counter after it: "Move 12 (seven of hearts: column 3 → cell 1)". */
function moveName(seq) {
  return fmt(gettext("Move %(k)s (%(what)s)"), { k: data.positions[seq + 1].moves, what: describe(data.actions[seq], data.positions[seq]) });
}

/** Mark the move list's entry of ``seq`` (``kind``: "losing" or "parted") and say so to a screen reader. */
function markEntry(seq, kind, words) {
  const button = $("replay-moves").querySelector(`button[data-step="${seq + 1}"]`);
  if (!button) return;
  button.classList.add(kind);
  button.setAttribute("aria-label", `${button.getAttribute("aria-label")} — ${words}`);
}

function stopLine() {
  if (!line) return;
  clearInterval(line.timer);
  line = null;
  $("analysis-line").disabled = false;
  $("analysis-back").hidden = true;
}

/** Play the solver's winning line on the board from the position before the
 * losing move (the game's end when none lost it), step by step from the views
 * the server sent; "Back to the game" or any move of the replay ends it. */
function playLine() {
  const lost = found.lost;
  pause();
  show(lost.seq ?? data.actions.length, { announceIt: false });
  const views = lost.positions;
  line = { step: 0, timer: null };
  $("analysis-line").disabled = true;
  $("analysis-back").hidden = false;
  const step = () => {
    const view = views[line.step];
    board.setView(view);
    hud.setStats(view.score, view.moves);
    line.step += 1;
    const said = fmt(gettext("Winning line: step %(i)s of %(n)s"), { i: line.step, n: views.length });
    $("replay-move").textContent = line.step === views.length ? `${said} — ${gettext("won")}` : said;
    if (line.step === views.length) {
      clearInterval(line.timer);
      line.timer = null;
      $("analysis-line").disabled = false;
      announce(gettext("The winning line is played: the deal is won."));
    }
  };
  step();
  if (line && views.length > 1) line.timer = setInterval(step, STEP_MS / speed);
}

function backToGame() {
  const back = found.lost?.seq ?? data.actions.length;
  show(back);
  $("analysis-back").hidden = true;
}

/** The panel's words for a game not won. */
function phraseLost(lost, settled) {
  const text = $("analysis-text");
  $("analysis-title").textContent = gettext("Where it went wrong");
  if (lost.from_start) {
    text.textContent = gettext("This deal could not be won from its start: no move lost it.");
    return;
  }
  if (lost.index === null) {
    text.textContent = gettext("The solver ran out of time before it could tell which move lost the game.");
    return;
  }
  if (lost.still_winnable) {
    text.textContent = gettext("The game could still be won when it ended.");
  } else {
    const sentence = fmt(gettext("%(move)s lost the deal; before it, the game could still be won."), { move: moveName(lost.seq) });
    text.textContent = settled
      ? sentence
      : `${fmt(gettext("%(move)s is as far as the solver could check in time; before it, the game could still be won."), { move: moveName(lost.seq) })} ${gettext("The solver ran out of time before it could tell which move lost the game.")}`;
    markEntry(lost.seq, "losing", settled ? gettext("the move that lost the deal") : gettext("the last move checked"));
    const jump = $("analysis-jump");
    jump.textContent = gettext("Go to the position before it");
    jump.hidden = false;
  }
  if (lost.positions.length) $("analysis-line").hidden = false;
  if (lost.seen) {
    // Easy Harp: the solver saw every card, the player did not.
    const down = fmt(ngettext("%(n)s card face down", "%(n)s cards face down", lost.seen.face_down), { n: formatNumber(lost.seen.face_down) });
    const stock = fmt(ngettext("%(n)s card in the stock", "%(n)s cards in the stock", lost.seen.stock), { n: formatNumber(lost.seen.stock) });
    // "No one could have won after this move" only when the solver settled it (issue 39).
    $("analysis-seen").textContent = lost.still_winnable || !settled
      ? fmt(gettext("The solver knows every card; you could see all but %(down)s and %(stock)s."), { down, stock })
      : fmt(gettext("Even knowing every card, no one could have won after this move: the solver sees them all. You could see all but %(down)s and %(stock)s."), { down, stock });
    $("analysis-seen").hidden = false;
    if ($("replay-reveal")) $("analysis-reveal").hidden = false;
  }
}

/** The panel's words for a win. */
function phraseWon(par) {
  $("analysis-title").textContent = gettext("Your line against par");
  const text = $("analysis-text");
  if (par.par === null) {
    text.textContent = gettext("No par is known for this deal.");
    return;
  }
  const n = Math.abs(par.over_par);
  const counted =
    par.over_par === 0
      ? fmt(gettext("At par: %(par)s moves."), { par: formatNumber(par.par) })
      : par.over_par > 0
        ? fmt(ngettext("%(n)s move over par (par %(par)s).", "%(n)s moves over par (par %(par)s).", n), { n: formatNumber(n), par: formatNumber(par.par) })
        : fmt(ngettext("%(n)s move under par (par %(par)s).", "%(n)s moves under par (par %(par)s).", n), { n: formatNumber(n), par: formatNumber(par.par) });
  if (par.seq === null) {
    text.textContent = counted;
    return;
  }
  text.textContent = `${counted} ${fmt(gettext("Your line left the par line at %(move)s."), { move: moveName(par.seq) })}`;
  markEntry(par.seq, "parted", gettext("where the line left the par line"));
  const jump = $("analysis-jump");
  jump.textContent = gettext("Go to where it parted");
  jump.hidden = false;
}

const ASK_AGAIN_MS = 3000;
const ASK_AGAIN = 10; // a practice game's analysis is queued when asked for: within the half minute

async function loadAnalysis(asked = 0) {
  try {
    found = await get(`/api/games/${id}/analysis/`);
  } catch (err) {
    if (err.code === "analysis_pending") {
      $("analysis-title").textContent = gettext("Where it went wrong");
      const waiting = !data.daily && asked < ASK_AGAIN;
      $("analysis-text").textContent = waiting ? gettext("The solver is analysing this game…") : gettext("This game has not been analysed yet.");
      $("analysis").hidden = false;
      if (waiting) setTimeout(() => loadAnalysis(asked + 1), ASK_AGAIN_MS);
    }
    return; // a game going on, or a daily whose day runs: nothing to say
  }
  if (found.won) phraseWon(found.par);
  else phraseLost(found.lost, found.settled);
  $("analysis").hidden = false;
  const target = found.won ? found.par.seq : found.lost.seq;
  control("analysis-jump", () => (pause(), show(target)));
  control("analysis-line", playLine);
  control("analysis-back", backToGame);
  $("analysis-reveal").addEventListener("click", () => {
    const box = $("replay-reveal");
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change"));
    $("analysis-reveal").setAttribute("aria-pressed", String(box.checked));
  });
  $("replay-reveal")?.addEventListener("change", (e) => $("analysis-reveal").setAttribute("aria-pressed", String(e.target.checked)));
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
  await ensurePlayer(); // a signed-out visitor watches as a guest (issue 39)
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
  await loadAnalysis();
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

// The board page: plays one attempt. Every action goes over the websocket
// `/ws/games/{id}/` as {seq, action} (HTTP when the socket is down); the state
// shown only ever comes from the server (`ack`, `state`, `snapshot`, or an HTTP
// answer), under the version rules of games/websocket.md.

import { announce, fmt } from "./i18n.js";
import { get, post } from "./api.js";
import { Board } from "./board.js";
import { Finish } from "./finish.js";
import { describeAction, hideMessage, Hud, showMessage, showNotice } from "./hud.js";
import { setCurrentGame, setupNewGame } from "./newgame.js";
import { describeRefusal, isReason } from "./reasons.js";
import { loadSettings } from "./settings.js";
import { showConnection, Socket } from "./socket.js";
import { playSound } from "./sound.js";

const $ = (id) => document.getElementById(id);
const id = Number($("play").dataset.attempt);
const WATCHDOG_MS = 6000;
const QUEUE_MAX = 4;

const state = {
  game: null,
  v: -1,
  pending: null, // {seq, action, info}: sent, not yet answered
  queue: [], // actions made while one was in flight
  par: null, // {key, promise}: the daily's par, fetched once
  finishing: false, // the Finish button is playing the server's finishing moves
};

const settings = await loadSettings();
const hud = new Hud();
const board = new Board($("board"), { settings, onIntent: act });
const finish = new Finish({ par: loadPar, onNewGame: setupNewGame() });
const socket = new Socket(`/ws/games/${id}/`, {
  onMessage,
  onOpen: () => state.pending && socket.send(frame(state.pending)), // same seq again
  onStatus: (s) => showConnection($("connection"), s),
  onFatal,
});

const over = (game) => game.status !== "playing";
// "EH1" / "SH1": from the variant, which every game has (a daily still running has no code).
const gamePrefix = () => (state.game?.variant || "").slice(0, 3);
const frame = (p) => ({ seq: p.seq, action: p.action });

// --- applying the server's state ---------------------------------------------

/** Keep the highest v; the same v replaces, except that a game over stays over. */
function accept(game, v) {
  if (state.game && (v < state.v || (v === state.v && over(state.game) && !over(game)))) return false;
  const before = state.game ? state.game.status : null;
  state.game = game;
  state.v = v;
  render();
  setCurrentGame(game); // "Same deal": its code, or practice of its daily once the ranked attempt is over
  if (game.status === "won" && before === "playing" && settings.sounds === true) playSound("win");
  finish.update(game, before); // the result card: at a win seen here, or asked for (#result)
  return true;
}

function render() {
  const game = state.game;
  const playing = game.status === "playing";
  hud.show(game);
  board.setView(game.view);
  board.setInteractive(playing);
  $("undo").disabled = !playing || !game.view.undo;
  $("resign").hidden = !playing;
  showFinish();
  const replay = $("replay-link");
  replay.hidden = playing;
  replay.href = `/replay/${game.id}/`;
  if (playing && game.unwinnable) showNotice(gettext("This position can no longer be won."), "warning");
  else if (playing && game.view.dead_end) showNotice(gettext("No move left: undo or start again."), "warning");
  else if (game.status === "won") showNotice(gettext("You won this game."), "success");
  else if (game.status === "resigned") showNotice(gettext("You resigned this game."), "info");
  else if (game.status === "abandoned") showNotice(gettext("This game was closed: its day ended or it was left idle."), "info");
  else showNotice("");
  loadPar(game).then((par) => {
    if (!par) return;
    $("par").textContent = fmt(gettext("best known: %(n)s moves"), { n: par });
    $("par").hidden = false;
  });
}

/** The par of the game's daily (null: none, or not a daily), fetched once. */
function loadPar(game) {
  const key = `${game.daily}/${game.variant}`;
  if (!game.daily) return Promise.resolve(null);
  if (state.par?.key !== key) {
    // The daily's entry by its day and variant: a daily still running names no code.
    const promise = get(`/api/daily/${game.daily}/`)
      .then((daily) => daily.deals.find((d) => d.variant === game.variant)?.par || null)
      .catch(() => null); // par is a nicety
    state.par = { key, promise };
  }
  return state.par.promise;
}

// --- sending actions ------------------------------------------------------------

function act(action, info = {}) {
  if (!state.game || over(state.game)) return;
  hideMessage();
  if (state.pending) {
    if (state.queue.length < QUEUE_MAX) state.queue.push({ action, info });
    return;
  }
  send({ seq: state.game.seq, action, info });
}

function send(p) {
  state.pending = p;
  waiting(true);
  if (!socket.send(frame(p))) sendHttp(p);
  armWatchdog(p);
}

async function sendHttp(p) {
  try {
    const game = await post(`/api/games/${id}/actions/`, frame(p));
    if (state.pending === p) settle(p, game, game.seq);
    else accept(game, game.seq);
  } catch (err) {
    if (state.pending !== p || err.status === 0) return; // no answer: the watchdog or the socket resends
    refuse(p, { code: err.code, message: err.message, params: err.params, seq: err.error.seq }, err.status);
  }
}

/** No answer in time: a half-dead socket, or no network. Send the same seq again. */
function armWatchdog(p) {
  clearTimeout(state.watchdog);
  state.watchdog = setTimeout(() => {
    if (state.pending !== p) return;
    if (socket.isOpen) socket.restart(); // the reconnect resends
    else sendHttp(p);
    armWatchdog(p);
  }, WATCHDOG_MS);
}

/** An action is on its way: the board shows it is waiting for the server. */
function waiting(on) {
  $("board").classList.toggle("waiting", on);
}

function settle(p, game, v) {
  clearTimeout(state.watchdog);
  state.pending = null;
  waiting(false);
  accept(game, v);
  if (!p.info.finishing) announce(describeAction(p.action, p.info.card));
  const next = state.queue.shift();
  if (next && !over(state.game)) send({ seq: state.game.seq, ...next });
  else finishNext();
}

// --- Finish: the moves the server lists once only foundation moves remain -------

/** The Finish button shows while the server lists `view.finish` (the client knows no rule). */
function showFinish() {
  const game = state.game;
  const moves = game && game.status === "playing" ? game.view.finish || [] : [];
  const button = $("finish");
  button.hidden = !moves.length;
  button.disabled = state.finishing;
  button.setAttribute("aria-busy", String(state.finishing));
}

/** Send the next finishing move the server listed for the position it last sent:
 *  one at a time, each an ordinary action with its seq, the next only after the ack. */
function finishNext() {
  if (!state.finishing || state.pending) return;
  const move = state.game && !over(state.game) ? (state.game.view.finish || [])[0] : null;
  if (!move) {
    state.finishing = false;
    showFinish();
    return;
  }
  act(move, { finishing: true });
}

$("finish").addEventListener("click", () => {
  if (!state.game || over(state.game) || state.finishing || !(state.game.view.finish || []).length) return;
  state.finishing = true;
  showFinish();
  announce(gettext("Finishing: every card left goes to the foundations."));
  finishNext(); // now, or after the action in flight is answered
});

function refuse(p, error, status) {
  clearTimeout(state.watchdog);
  state.pending = null;
  waiting(false);
  state.queue = [];
  state.finishing = false; // a refused finishing move stops the finish
  showFinish();
  const from = p.action.from;
  if (error.code === "seq_conflict") {
    // Another tab or device played meanwhile: show where the game is now.
    board.refused();
    refresh();
    showMessage(describeRefusal(error, ""), "info");
    return;
  }
  if (error.code === "not_authenticated") {
    location.href = `/login/?next=${encodeURIComponent(location.pathname)}`;
    return;
  }
  board.refused(from);
  const game = gamePrefix();
  if (status === 422 || isReason(error.code, game)) {
    const sentence = describeRefusal(error, game);
    if (settings.interactive_rules) showMessage(sentence, "refusal");
    announce(settings.interactive_rules ? sentence : gettext("Move refused."));
  } else {
    const text = describeRefusal(error, game) || error.code;
    showMessage(text, "error");
    announce(text);
  }
}

function refresh() {
  if (!socket.send({ type: "snapshot" })) {
    get(`/api/games/${id}/`)
      .then((game) => accept(game, game.seq))
      .catch(() => {});
  }
}

// --- messages from the socket --------------------------------------------------

function onMessage(msg) {
  switch (msg.type) {
    case "snapshot":
      accept(msg.game, msg.v);
      break;
    case "ack":
      if (state.pending && msg.seq === state.pending.seq) settle(state.pending, msg.game, msg.v);
      else accept(msg.game, msg.v); // a resignation, or an answer already settled over HTTP
      break;
    case "state":
      if (state.game && msg.v > state.v + 1) socket.send({ type: "snapshot" }); // an event was lost
      accept(msg.game, msg.v);
      break;
    case "error": {
      const error = msg.error || {};
      if (state.pending && msg.seq === state.pending.seq) refuse(state.pending, error, 0);
      else if (error.code === "seq_conflict") refresh();
      else if (error.code) showMessage(describeRefusal(error, gamePrefix()), "error");
      break;
    }
    default:
  }
}

function onFatal(code) {
  if (code === 4401) location.href = `/login/?next=${encodeURIComponent(location.pathname)}`;
  else if (code === 4404) showNotice(gettext("There is no such game."), "error");
  else if (code === 4403) showNotice(gettext("This game is not yours to play."), "error");
}

// --- the rest of the page -------------------------------------------------------

$("undo").addEventListener("click", () => act({ type: "undo" }));
document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === "z") {
    if (document.querySelector("dialog[open]") || e.target.matches?.("input, textarea, select")) return;
    e.preventDefault();
    act({ type: "undo" });
  }
});

$("resign").addEventListener("click", async () => {
  if (!state.game || over(state.game)) return;
  if (!window.confirm(gettext("Resign this game? It ends now and cannot be continued."))) return;
  if (socket.send({ type: "resign" })) return; // the ack brings the finished game
  try {
    const game = await post(`/api/games/${id}/resign/`);
    accept(game, game.seq);
  } catch (err) {
    showMessage(err.message, "error");
  }
});

// --- start ----------------------------------------------------------------------

try {
  const game = await get(`/api/games/${id}/`);
  accept(game, game.seq);
} catch (err) {
  if (err.code === "not_yours") location.replace(`/watch/${id}/`); // someone else's: watch it
  else if (err.status === 401 || err.status === 403) showNotice(err.message, "error");
  else if (err.status === 404) showNotice(gettext("There is no such game."), "error");
  else showNotice(err.message, "error");
}
socket.connect();

// The board page: plays one attempt. Every action goes through the game's feed
// (feed.js: `/ws/games/{id}/` as {seq, action}, HTTP when the socket is down); the
// state shown comes from the server, under the version rules of
// games/websocket.md, which the feed keeps — but for one thing: an action whose
// result the client knows is drawn at once (landing.js: a move to a pile the
// server listed, a stock tap the server said what it does; here: an undo back to
// a position the server sent before), until its answer (or any later state)
// replaces it or its refusal undoes it; and a drop on a pile the server did not
// list bounces at once (issue 39).

import { announce, fmt } from "./i18n.js";
import { get } from "./api.js";
import { Board } from "./board.js";
import { GameFeed, over } from "./feed.js";
import { Finish } from "./finish.js";
import { describeAction, hideMessage, Hud, showMessage, showNotice } from "./hud.js";
import { landed, listedLanding, stockRun, unlisted } from "./landing.js";
import { setCurrentGame, setupNewGame } from "./newgame.js";
import { describeRefusal, isReason } from "./reasons.js";
import { Rescue } from "./rescue.js";
import { loadSettings } from "./settings.js";
import { showConnection } from "./socket.js";
import { playSound } from "./sound.js";

const $ = (id) => document.getElementById(id);
const id = Number($("play").dataset.attempt);

const state = {
  par: null, // {key, promise}: the daily's par, fetched once
  finishing: false, // the Finish button is playing the server's finishing moves
  landing: null, // {seq, view}: the action in flight at `seq`, drawn before its answer
  shown: null, // {v, view}: the server's last position accepted, and the one before it
  before: null,
  steps: [], // the server's positions before each of this page's acked actions (top last)
  stepsV: -1, // the version `steps` leads to (any other change makes them unknown)
};

const settings = await loadSettings();
const hud = new Hud();
const board = new Board($("board"), { settings, onIntent: act });
const finish = new Finish({ par: loadPar, onNewGame: setupNewGame() });
const feed = new GameFeed(id, {
  onGame: accept,
  onSettled(p) {
    remember(p);
    if (!p.info.finishing) announce(describeAction(p.action, p.info.card));
  },
  onIdle: () => {
    finishNext();
    rescue.next(); // the dead-end notice's undos, one after each ack
  },
  onRefused: refuse,
  onWaiting(on) {
    $("board").classList.toggle("waiting", on); // the board shows it waits for the server
    if (on) landStockTaps(); // a queued tap sent: drawn from the answer's own plan
  },
  onError: (error) => error?.code && showMessage(describeRefusal(error, gamePrefix()), "error"),
  onStatus: (s) => showConnection($("connection"), s),
  onFatal,
});

const rescue = new Rescue({ id, feed, act });

// "EH1" / "SH1": from the variant, which every game has (a daily still running has no code).
const gamePrefix = () => (feed.game?.variant || "").slice(0, 3);

// --- applying the server's state ---------------------------------------------

/** Each game the feed accepts (its version rules decide which). */
function accept(game, { before }) {
  state.before = state.shown;
  state.shown = { v: feed.v, view: game.view };
  render();
  setCurrentGame(game); // "Same deal": its code, or its daily's once the day is over
  if (game.status === "won" && before === "playing" && settings.sounds === true) playSound("win");
  finish.update(game, before); // the result card: at a win seen here, or asked for (#result)
}

function render() {
  const game = feed.game;
  const playing = game.status === "playing";
  hud.show(game);
  board.setView(shownView(game));
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
  rescue.update(game); // a lost Seahaven game: "Undo to the last position that could still be won"
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
  if (!feed.game || over(feed.game)) return;
  hideMessage();
  if (action.type === "stock") {
    feed.act(action, info);
    return landStockTaps(); // at once, also behind a tap in flight
  }
  const view = feed.game.view;
  // Known here only when it goes out now (not queued behind another), from the
  // server's own position and targets.
  const idle = !feed.pending;
  if (idle && unlisted(view, action)) {
    board.refused(action.from); // at once: the server listed no such move
    if (!settings.interactive_rules) return announce(gettext("Move refused."));
    info = { ...info, bounced: true }; // the server still says why
  }
  const where = idle ? listedLanding(view, action) : null;
  const drawn = where ? landed(view, where) : idle ? undone(action) : null;
  feed.act(action, info);
  if (drawn && feed.pending?.action === action) {
    state.landing = { seq: feed.pending.seq, view: drawn };
    board.setView(drawn);
  }
}

/** The stock taps in flight and queued behind it, drawn as the server said its
 *  next taps do (landing.js `stockRun`), while it is still where the one in
 *  flight started. */
function landStockTaps() {
  const p = feed.pending;
  if (!p || p.action.type !== "stock" || feed.v !== p.seq || over(feed.game)) return;
  const drawn = stockRun(feed.game.view, [p.action, ...feed.queue.map((q) => q.action)]);
  if (!drawn) return;
  state.landing = { seq: p.seq, view: drawn };
  board.setView(drawn);
}

/** The server's position an undo goes back to, when this page saw it: the one
 *  before its own last action, nothing having changed since; else null. */
function undone(action) {
  const top = state.steps.at(-1);
  if (action.type !== "undo" || !top || state.stepsV !== feed.v) return null;
  if (top.undo !== feed.game.view.undo - 1) return null; // not the step undo takes back
  return { ...top, stock: null, targets: [], finish: [] };
}

/** After the answer of this page's action `p`: the position before it kept for an
 *  undo (taken off by an undo), while every change in between was this page's. */
function remember(p) {
  const from = state.before;
  if (!from || from.v !== p.seq) return; // answered over another change: unknown
  const mine = state.stepsV === p.seq;
  if (p.action.type === "undo") state.steps = mine ? state.steps.slice(0, -1) : [];
  else state.steps = [...(mine ? state.steps : []), from.view].slice(-100);
  state.stepsV = feed.v;
}

/** The position to draw: the landed one while its action is the one in flight and
 *  the server is still where it started (same `v`: a snapshot on reconnect keeps
 *  it); the server's own once anything newer came or the game is over. */
function shownView(game) {
  const landing = state.landing;
  if (landing && feed.pending?.seq === landing.seq && feed.v === landing.seq && !over(game)) return landing.view;
  state.landing = null;
  return game.view;
}

/** A refused action: the server's last position comes back (the cards glide home). */
function unland() {
  if (!state.landing) return;
  state.landing = null;
  if (feed.game) board.setView(feed.game.view);
}

// --- Finish: the moves the server lists once only foundation moves remain -------

/** The Finish button shows while the server lists `view.finish` (the client knows no rule). */
function showFinish() {
  const game = feed.game;
  const moves = game && game.status === "playing" ? game.view.finish || [] : [];
  const button = $("finish");
  button.hidden = !moves.length;
  button.disabled = state.finishing;
  button.setAttribute("aria-busy", String(state.finishing));
}

/** Send the next finishing move the server listed for the position it last sent:
 *  one at a time, each an ordinary action with its seq, the next only after the ack. */
function finishNext() {
  if (!state.finishing || feed.pending) return;
  const move = feed.game && !over(feed.game) ? (feed.game.view.finish || [])[0] : null;
  if (!move) {
    state.finishing = false;
    showFinish();
    return;
  }
  act(move, { finishing: true });
}

$("finish").addEventListener("click", () => {
  if (!feed.game || over(feed.game) || state.finishing || !(feed.game.view.finish || []).length) return;
  state.finishing = true;
  showFinish();
  announce(gettext("Finishing: every card left goes to the foundations."));
  finishNext(); // now, or after the action in flight is answered
});

function refuse(p, error, status) {
  state.finishing = false; // a refused finishing move stops the finish
  rescue.stop();
  showFinish();
  unland();
  const from = p.action.from;
  const bounced = p.info.bounced; // drawn back already, when it was made
  if (error.code === "seq_conflict") {
    // Another tab or device played meanwhile: show where the game is now.
    board.refused();
    feed.refresh();
    showMessage(describeRefusal(error, ""), "info");
    return;
  }
  if (error.code === "not_authenticated") {
    location.href = `/login/?next=${encodeURIComponent(location.pathname)}`;
    return;
  }
  if (!bounced) board.refused(from);
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
  if (!feed.game || over(feed.game)) return;
  if (!window.confirm(gettext("Resign this game? It ends now and cannot be continued."))) return;
  try {
    await feed.resign();
  } catch (err) {
    showMessage(err.message, "error");
  }
});

// --- start ----------------------------------------------------------------------

try {
  const game = await get(`/api/games/${id}/`);
  feed.accept(game, game.seq);
} catch (err) {
  if (err.code === "not_yours") location.replace(`/watch/${id}/`); // someone else's: watch it
  else if (err.status === 401 || err.status === 403) showNotice(err.message, "error");
  else if (err.status === 404) showNotice(gettext("There is no such game."), "error");
  else showNotice(err.message, "error");
}
feed.connect();

// A game's feed: `/ws/games/{id}/` (socket.js underneath), under the rules of
// games/websocket.md, for the player (play.js) and for spectators (watch.js) alike.
// - Versions: keep the highest `v`; one with the same `v` replaces what we have,
//   except that a game over stays over (a resignation keeps its `v`; events from
//   two processes may cross). A `state` more than one above asks for a snapshot
//   (an event was lost); the server sends one on every (re)connect.
// - The player's action: one in flight, sent as {seq, action} (HTTP when the
//   socket is down) and sent again with the same `seq` on reconnect or when no
//   answer came in time; settled by its `ack`, refused by an `error` with its
//   `seq` (or the HTTP error); a few more wait in a queue meanwhile. An
//   `unavailable` answer (the database or Redis did not answer: nothing was
//   applied) is no refusal: the same seq is sent again after the server's
//   Retry-After.
// The state shown only ever comes from the server: `onGame` is called with each
// game this feed accepts.

import { get, post } from "./api.js";
import { Socket } from "./socket.js";

const WATCHDOG_MS = 6000;
const QUEUE_MAX = 4;
const UNAVAILABLE_RETRY_S = 5; // the server's Retry-After for an outage (config/errors.py)

/** Won, resigned or abandoned: a game over stays over (websocket.md). */
export const over = (game) => game.status !== "playing";

export class GameFeed {
  /** Callbacks: `onGame(game, {before, moved})` for each accepted game (`before`:
   *  the status it replaced, null for the first; `moved`: a higher `v`);
   *  `onSettled(p)` after an action's answer is applied, `onIdle()` when none is
   *  left to send, `onRefused(p, error, status)` (`status` 0: over the socket),
   *  `onWaiting(on)` while an action is in flight, `onError(error|null)` for an
   *  error frame that answers no action; `onStatus` and `onFatal` as for Socket.
   *  `p` is {seq, action, info} as given to `act`. */
  constructor(id, callbacks = {}) {
    const noop = () => {};
    this.id = id;
    const on = { onGame: noop, onSettled: noop, onIdle: noop, onRefused: noop, onWaiting: noop, onError: noop };
    this.on = { ...on, ...callbacks };
    this.game = null;
    this.v = -1;
    this.pending = null; // {seq, action, info}: sent, not yet answered
    this.queue = []; // actions made while one was in flight
    this.watchdog = null;
    this.socket = new Socket(`/ws/games/${id}/`, {
      onMessage: (msg) => this.message(msg),
      onOpen: () => this.pending && this.socket.send(frame(this.pending)), // same seq again
      onStatus: this.on.onStatus,
      onFatal: this.on.onFatal,
    });
  }

  connect() {
    this.socket.connect();
  }

  /** Keep the highest v; the same v replaces, except that a game over stays over. */
  accept(game, v) {
    const current = this.game;
    if (current && (v < this.v || (v === this.v && over(current) && !over(game)))) return false;
    const moved = Boolean(current) && v > this.v;
    this.game = game;
    this.v = v;
    this.on.onGame(game, { before: current ? current.status : null, moved });
    return true;
  }

  /** Ask for the current state again: a snapshot over the socket, else over HTTP. */
  refresh() {
    if (!this.socket.send({ type: "snapshot" })) {
      get(`/api/games/${this.id}/`)
        .then((game) => this.accept(game, game.seq))
        .catch(() => {});
    }
  }

  // --- the player's actions ------------------------------------------------------

  /** Send an action (`info` travels with it to the callbacks); queued while one is in flight. */
  act(action, info = {}) {
    if (!this.game || over(this.game)) return;
    if (this.pending) {
      if (this.queue.length < QUEUE_MAX) this.queue.push({ action, info });
      return;
    }
    this.send({ seq: this.game.seq, action, info });
  }

  send(p) {
    this.pending = p;
    this.on.onWaiting(true);
    if (!this.socket.send(frame(p))) this.sendHttp(p);
    this.armWatchdog(p);
  }

  async sendHttp(p) {
    try {
      const game = await post(`/api/games/${this.id}/actions/`, frame(p));
      if (this.pending === p) this.settle(p, game, game.seq);
      else this.accept(game, game.seq);
    } catch (err) {
      if (this.pending !== p || err.status === 0) return; // no answer: the watchdog or the socket resends
      if (err.code === "unavailable") return this.retryLater(p, err.retryAfter);
      this.refuse(p, { code: err.code, message: err.message, params: err.params, seq: err.error.seq }, err.status);
    }
  }

  /** No answer in time: a half-dead socket, or no network. Send the same seq again. */
  armWatchdog(p) {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      if (this.pending !== p) return;
      if (this.socket.isOpen) this.socket.restart(); // the reconnect resends
      else this.sendHttp(p);
      this.armWatchdog(p);
    }, WATCHDOG_MS);
  }

  /** The database or Redis did not answer: nothing was applied. Keep the action in
   *  flight and send it again, the same seq, once the server's wait is over. */
  retryLater(p, seconds) {
    clearTimeout(this.watchdog);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.pending === p && this.send(p), (seconds || UNAVAILABLE_RETRY_S) * 1000);
  }

  /** The action in flight is answered: nothing is pending any more. */
  clear() {
    clearTimeout(this.watchdog);
    clearTimeout(this.retry);
    this.pending = null;
    this.on.onWaiting(false);
  }

  settle(p, game, v) {
    this.clear();
    this.accept(game, v);
    this.on.onSettled(p);
    const next = this.queue.shift();
    if (next && !over(this.game)) this.send({ seq: this.game.seq, ...next });
    else this.on.onIdle();
  }

  refuse(p, error, status) {
    this.clear();
    this.queue = [];
    this.on.onRefused(p, error, status);
  }

  /** Give the game up: over the socket (its ack brings the finished game), else HTTP. */
  async resign() {
    if (this.socket.send({ type: "resign" })) return;
    const game = await post(`/api/games/${this.id}/resign/`);
    this.accept(game, game.seq);
  }

  // --- messages from the socket --------------------------------------------------

  message(msg) {
    switch (msg.type) {
      case "snapshot":
        this.accept(msg.game, msg.v);
        break;
      case "ack":
        if (this.pending && msg.seq === this.pending.seq) this.settle(this.pending, msg.game, msg.v);
        else this.accept(msg.game, msg.v); // a resignation, or an answer already settled over HTTP
        break;
      case "state":
        if (this.game && msg.v > this.v + 1) this.socket.send({ type: "snapshot" }); // an event was lost
        this.accept(msg.game, msg.v);
        break;
      case "error": {
        const error = msg.error || {};
        if (this.pending && msg.seq === this.pending.seq) {
          if (error.code === "unavailable") this.retryLater(this.pending);
          else this.refuse(this.pending, error, 0);
        }
        else if (error.code === "seq_conflict") this.refresh();
        else this.on.onError(msg.error || null);
        break;
      }
      default:
    }
  }
}

function frame(p) {
  return { seq: p.seq, action: p.action };
}

/** A day's leaderboard, live (`/ws/leaderboard/{date}/{variant}/`). Its events carry
 *  no version: each `rows` or `removed` says the board changed (ranks below moved),
 *  so `onChange` fetches it again — once for a burst, `delay` ms after the last.
 *  `onOpen` and `onStatus` as for Socket. Returns `stop()`. */
export function followLeaderboard(date, variant, { onChange, delay, onOpen, onStatus }) {
  let timer = null;
  const socket = new Socket(`/ws/leaderboard/${date}/${variant}/`, {
    onMessage(msg) {
      if (msg.type !== "rows" && msg.type !== "removed") return;
      clearTimeout(timer);
      timer = setTimeout(onChange, delay);
    },
    onOpen,
    onStatus,
  });
  socket.connect();
  return () => {
    clearTimeout(timer);
    socket.close();
  };
}

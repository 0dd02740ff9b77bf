// The dead-end notice's next step (issue 24): in a lost game whose every card the
// player has seen (Seahaven), "Undo to the last position that could still be won".
// The server's solver finds how many undos that is (`GET
// /api/games/{id}/last-winnable/`: a bounded binary search of the undo window);
// the button then sends that many undos through the ordinary action path — each
// with its seq, the next only after the ack, as #finish does. The client holds no
// rule: the button shows on the server's `dead_end` / `unwinnable`, never on a
// view that hides a card (Easy Harp: nothing may be derived from hidden cards;
// the server refuses such a game alike, whatever its cards).

import { get } from "./api.js";
import { announce, fmt } from "./i18n.js";

const $ = (id) => document.getElementById(id);

/** The view hides a card (face down, or in the stock): shown as null. */
const hidesCards = (view) => Object.values(view.piles || {}).some((pile) => pile.includes(null));

/** What the server's refusal means, in the player's language. */
function why(err) {
  if (err.code === "deal_lost") return gettext("No position of this game could be won: the deal itself cannot. Try a new deal.");
  if (err.code === "out_of_reach") return gettext("No position that undo can reach could still be won.");
  if (err.code === "unsettled") return gettext("The solver could not tell in time which position could still be won.");
  return err.message;
}

export class Rescue {
  /** `id`: the attempt; `feed`: its GameFeed; `act(action, info)`: play.js's. */
  constructor({ id, feed, act }) {
    this.id = id;
    this.feed = feed;
    this.act = act;
    this.left = 0; // undos still to send
    this.busy = false; // asking the server, or sending the undos
    this.note = null; // {seq, text}: why not, for the position it was said of
  }

  /** After the notice is drawn for `game`: add the button (and a refusal's note) to it. */
  update(game) {
    const notice = $("notice");
    const lost = game.status === "playing" && (game.unwinnable || game.view.dead_end);
    if (!notice || !lost || hidesCards(game.view)) return;
    if (this.note && this.note.seq === game.seq) {
      const note = document.createElement("span");
      note.className = "notice-note";
      note.textContent = this.note.text;
      notice.append(" ", note);
      return;
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button small";
    button.id = "last-winnable";
    button.textContent = gettext("Undo to the last position that could still be won");
    button.disabled = this.busy;
    button.setAttribute("aria-busy", String(this.busy));
    button.addEventListener("click", () => this.start());
    notice.append(" ", button);
  }

  async start() {
    const game = this.feed.game;
    if (this.busy || !game || game.status !== "playing") return;
    this.busy = true;
    this.redraw();
    try {
      const found = await get(`/api/games/${this.id}/last-winnable/`);
      if (found.seq !== this.feed.game.seq) {
        this.busy = false; // the game moved meanwhile: ask again from where it is
        this.redraw();
        return;
      }
      this.left = found.undos;
      announce(fmt(ngettext("Undoing %(n)s move.", "Undoing %(n)s moves.", found.undos), { n: found.undos }));
      this.next();
    } catch (err) {
      this.busy = false;
      this.note = { seq: game.seq, text: why(err) };
      this.redraw();
      announce(this.note.text);
    }
  }

  /** Send the next undo once nothing is in flight (play.js calls it when the feed is idle). */
  next() {
    if (!this.busy || this.feed.pending) return;
    if (this.left <= 0 || !this.feed.game || this.feed.game.status !== "playing") {
      this.stop();
      return;
    }
    this.left -= 1;
    this.act({ type: "undo" }, { rescue: true });
  }

  /** A refusal (or the end) stops the undos. */
  stop() {
    if (!this.busy) return;
    this.busy = false;
    this.left = 0;
    this.redraw();
  }

  redraw() {
    const button = $("last-winnable");
    if (!button) return;
    button.disabled = this.busy;
    button.setAttribute("aria-busy", String(this.busy));
  }
}

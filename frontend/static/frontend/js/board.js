// The board: render(view) and input → intents. No rule lives here: the board
// draws exactly `view.piles` / `view.down`, highlights the drop targets the
// server listed in `view.targets`, and turns drags, taps and keys into actions
// for the page to send. Whether an action is legal is the server's answer.
//
// DOM hooks (stable, for browser tests and assistive technology):
//   #board                       the board (role=group); .readonly when not playable
//   .pile[data-pile="t3"]        a pile: t1…t10 columns, s stock, w waste, c1…c4 cells,
//                                f1…f8 foundations; aria-label "column 3, 5 cards, …";
//                                .target while it is a legal drop for the lifted cards,
//                                .hover under a drag
//   .card[data-card="7H"]        a face-up card; [data-card="down"] a face-down one;
//   [data-index="i"]             its index in the pile, bottom = 0; role=img, aria-label
//                                "seven of hearts" / "face-down card"; .picked when lifted
//                                by the keyboard
//   .drag-ghost                  the cards under the pointer during a drag (lifted: scaled,
//                                shadowed; the cards it lifts stay in place, faded: .lifted)
//   #board.waiting               an action is on its way to the server
//   the page adds: #message #notice #score #moves #clock #code #copy-code #undo
//   #resign #new-game #connection[data-state] #win, the replay's #replay-*
//   controls — all listed in frontend/README.md
//
// Intents given to onIntent(action, info): the action JSON of PRODUCT.md
//   {type:"move", from, to, count} | {type:"tap", from[, count]} |
//   {type:"double_tap", from[, count]} | {type:"stock"}
// and info {card} (the card's text, for announcements).
//
// Split by concern: layout.js (where the piles go, card sizes), pointer.js and
// keys.js (input, mixed in below), motion.js (cards glide to their new places),
// sound.js (optional clicks, when settings.sounds is true).

import { cardHtml, cardName, pileKind, pileName, placeCards, suitName, SUIT_SYMBOL } from "./cards.js";
import { announce, fmt } from "./i18n.js";
import { KeyboardInput } from "./keys.js";
import { computeLayout, pileRows, spotSuit } from "./layout.js";
import { captureCards, flipCards } from "./motion.js";
import { PointerInput } from "./pointer.js";
import { playSound } from "./sound.js";

// A card that appears on a pile without having been face up anywhere came from
// this pile's top: a draw (stock → waste), an undone draw or a recycle (waste → stock).
const CAME_FROM = { w: "s", s: "w" };

export class Board {
  constructor(el, { interactive = false, onIntent = () => {}, settings = {}, reveal = false } = {}) {
    this.el = el;
    this.wrap = el.parentElement;
    this.onIntent = onIntent;
    this.settings = settings;
    this.reveal = reveal;
    this.interactive = false;
    this.view = null;
    this.layoutKey = "";
    this.pileEls = {};
    this.pileHtml = {};
    this.rows = [[], [], 0];
    this.pick = null; // keyboard selection {from, count}
    this.press = null; // pointer down, not yet a drag
    this.drag = null;
    this.pendingDrop = null; // a drop sent, waiting for the server
    this.lastTap = null;
    this.metrics = null;
    el.board = this; // for browser tests and debugging: document.getElementById("board").board
    new ResizeObserver(() => this.view && this.layout()).observe(this.wrap);
    el.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    el.addEventListener("pointermove", (e) => this.onPointerMove(e));
    el.addEventListener("pointerup", (e) => this.onPointerUp(e));
    el.addEventListener("pointercancel", (e) => this.onPointerCancel(e));
    el.addEventListener("keydown", (e) => this.onKeyDown(e));
    el.addEventListener("contextmenu", (e) => this.drag && e.preventDefault());
    this.setInteractive(interactive);
  }

  // --- state ----------------------------------------------------------------

  setInteractive(on) {
    this.interactive = Boolean(on);
    this.el.classList.toggle("readonly", !this.interactive);
    if (!this.interactive) this.cancelAll();
    for (const pile of Object.values(this.pileEls)) pile.tabIndex = this.interactive ? 0 : -1;
  }

  /** Show a view (State JSON + targets). The only way the board changes. */
  setView(view) {
    const first = !this.view;
    this.view = view;
    const key = Object.keys(view.piles).sort().join(",");
    const rebuilt = key !== this.layoutKey;
    if (rebuilt) this.build(key);
    // Only a position that differs answers a drop (the same state may come twice: ack and broadcast).
    const piles = JSON.stringify(view.piles);
    const changed = piles !== this.shownPiles;
    // The cards' boxes before: every card that moves glides from there (motion.js).
    const before = changed && !rebuilt ? captureCards(this.el, this.pendingDrop?.ghost) : null;
    if (changed) this.dropResolved();
    this.shownPiles = piles;
    if (this.pick && !this.canLift(this.pick.from, this.pick.count)) this.pick = null;
    this.layout();
    if (before) flipCards(this.el, before, (pile) => CAME_FROM[pile]);
    if (changed && !first) this.sound("move");
  }

  /** A short sound (sound.js), only when the player turned sounds on. */
  sound(kind) {
    if (this.settings.sounds === true) playSound(kind);
  }

  setReveal(on) {
    this.reveal = on;
    if (this.view) this.layout();
  }

  targetsFor(from, count) {
    const hit = (this.view?.targets || []).find((t) => t.from === from && t.count === count);
    return hit ? hit.to : [];
  }

  /** Cards of `pile` at `index` and above that are face up (known to the player). */
  canLift(pile, count) {
    const cards = this.view.piles[pile] || [];
    if (pile === "s" || count < 1 || count > cards.length) return false;
    if (pileKind(pile) !== "column" && count !== 1) return false;
    return !this.hiddenAt(pile, cards.length - count);
  }

  hiddenAt(pile, index) {
    const cards = this.view.piles[pile] || [];
    return pile === "s" || cards[index] == null || index < (this.view.down?.[pile] || 0);
  }

  // --- building and layout -------------------------------------------------

  build(key) {
    this.layoutKey = key;
    this.el.textContent = "";
    this.pileEls = {};
    this.pileHtml = {};
    this.rows = pileRows(this.view);
    const [top, columns] = this.rows;
    for (const id of [...top, ...columns]) {
      const el = document.createElement("div");
      el.className = `pile pile-${pileKind(id)}`;
      el.dataset.pile = id;
      el.setAttribute("role", "group");
      el.tabIndex = this.interactive ? 0 : -1;
      this.el.append(el);
      this.pileEls[id] = el;
    }
  }

  layout() {
    const { metrics: m, piles, width, height } = computeLayout(this.wrap, this.view, this.rows, { reveal: this.reveal });
    this.metrics = m;
    this.el.style.setProperty("--cw", `${m.cw}px`);
    this.el.style.setProperty("--ch", `${m.ch}px`);
    this.el.style.setProperty("--cf", `${m.cf}px`);
    for (const [id, p] of Object.entries(piles)) this.place(id, p.x, p.y, p.height, p.offsets);
    this.el.style.height = `${height}px`;
    this.el.style.width = `${width}px`;
    this.renderHighlights();
  }

  place(id, x, y, height, offsets = null) {
    const el = this.pileEls[id];
    el.style.left = `${Math.round(x)}px`;
    el.style.top = `${Math.round(y)}px`;
    el.style.height = `${Math.round(height)}px`;
    this.renderPile(id, offsets);
  }

  renderPile(id, offsets) {
    const el = this.pileEls[id];
    const cards = this.view.piles[id];
    const down = this.view.down?.[id] || 0;
    const parts = [];
    const suit = spotSuit(this.view, id);
    parts.push(
      `<div class="slot" aria-hidden="true">${suit ? `<span>${SUIT_SYMBOL[suit]}</span>` : ""}</div>`,
    );
    cards.forEach((text, i) => {
      const hidden = id === "s" || text == null || i < down;
      parts.push(cardHtml(text, { index: i, top: offsets ? offsets[i] : 0, hidden, revealed: this.reveal, z: i + 1 }));
    });
    if (id === "s") {
      const waste = this.view.piles.w?.length || 0;
      parts.push(
        cards.length
          ? `<span class="count" aria-hidden="true">${cards.length}</span>`
          : waste
            ? `<span class="recycle" aria-hidden="true">↻</span>`
            : "",
      );
    }
    const markerTop = offsets && cards.length ? offsets[cards.length - 1] : 0;
    parts.push(`<div class="marker" aria-hidden="true" data-top="${markerTop}"></div>`);
    el.style.setProperty("--stack-h", `${markerTop + this.metrics.ch}px`); // the focus ring's height
    const html = parts.join("");
    // Unchanged piles keep their elements: no flicker, and a card being grabbed stays put.
    if (this.pileHtml[id] !== html) {
      el.innerHTML = html;
      placeCards(el);
      this.pileHtml[id] = html;
    }
    el.classList.toggle("empty", cards.length === 0);
    el.setAttribute("aria-label", this.pileLabel(id));
  }

  pileLabel(id) {
    const cards = this.view.piles[id];
    const n = cards.length;
    let name = pileName(id);
    const suit = spotSuit(this.view, id);
    if (suit) name += ` (${suitName(suit)})`;
    const parts = [name, fmt(ngettext("%(n)s card", "%(n)s cards", n), { n })];
    const down = Math.min(this.view.down?.[id] || 0, n);
    if (down && pileKind(id) === "column") parts.push(fmt(gettext("%(n)s face down"), { n: down }));
    if (n && id !== "s") parts.push(this.hiddenAt(id, n - 1) ? gettext("face-down card") : cardName(cards[n - 1]));
    return parts.join(", ");
  }

  // --- highlights ------------------------------------------------------------

  lifted() {
    if (this.drag) return { from: this.drag.from, count: this.drag.count };
    return this.pick;
  }

  renderHighlights() {
    const lift = this.lifted();
    const targets = new Set(lift ? this.targetsFor(lift.from, lift.count) : []);
    for (const [id, el] of Object.entries(this.pileEls)) {
      el.classList.toggle("target", targets.has(id));
      el.classList.toggle("source", Boolean(lift && lift.from === id));
    }
    this.el.querySelectorAll(".card.picked").forEach((c) => c.classList.remove("picked"));
    if (this.pick) {
      const n = this.view.piles[this.pick.from].length;
      this.pileEls[this.pick.from]
        .querySelectorAll(".card")
        .forEach((c) => Number(c.dataset.index) >= n - this.pick.count && c.classList.add("picked"));
    }
  }

  /** Foundation spots: a drop on a spot the server did not list goes to the
   *  foundation area "f", where the server finds the spot (RULES.md A). */
  destination(from, count, pile) {
    if (pileKind(pile) === "foundation" && !this.targetsFor(from, count).includes(pile)) return "f";
    return pile;
  }

  // --- intents ---------------------------------------------------------------

  emit(action, info = {}) {
    if (!this.interactive) return;
    this.onIntent(action, info);
  }

  /** The server refused the last action: the dropped cards go back, the pile shakes. */
  refused(pile) {
    this.returnGhost();
    this.sound("refusal");
    const el = pile && this.pileEls[pile];
    const target = el || this.el;
    target.classList.remove("refused");
    void target.offsetWidth; // restart the animation
    target.classList.add("refused");
    setTimeout(() => target.classList.remove("refused"), 450);
  }

  cancelAll() {
    this.press = null;
    if (this.drag) this.returnGhost();
    this.pick = null;
    clearTimeout(this.lastTap?.timer);
    this.lastTap = null;
    if (this.view) this.renderHighlights();
  }

  focusFirst() {
    (this.pileEls[this.rows[1][0]] || this.pileEls[this.rows[0][0]])?.focus();
  }
}

Object.assign(Board.prototype, PointerInput, KeyboardInput);

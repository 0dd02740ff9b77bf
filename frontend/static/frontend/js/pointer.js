// The board's pointer input (mouse and touch), mixed into Board: a press on a
// face-up card that moves a few pixels becomes a drag — the card and every card
// above it lift (a ghost follows the pointer; the origin stays, faded) — and a
// drop on a pile is a move; a press that does not move is a tap. What a tap sends
// is the player's "tap" setting (issue 24): "best" (the default, as the games
// people know) sends a double tap at once — the card goes to its best place,
// RULES.md C14 — and the second tap of a double tap adds nothing; "foundation"
// sends a tap, and two quick ones on a pile a double tap (when the "Double
// click" setting is on). Intents only: the server says whether a move is legal.

import { pileKind } from "./cards.js";
import { animate, DURATION, reducedMotion } from "./motion.js";

const DRAG_START_PX = 6;
const DOUBLE_TAP_MS = 300;
const PENDING_DROP_MS = 4000;

export const PointerInput = {
  onPointerDown(e) {
    if (!this.interactive || !this.view || this.drag) return;
    if (e.pointerType === "mouse" && e.button !== 0) return;
    const pileEl = e.target.closest(".pile");
    if (!pileEl) return;
    const pile = pileEl.dataset.pile;
    const cards = this.view.piles[pile];
    const cardEl = e.target.closest(".card");
    let index = cardEl ? Number(cardEl.dataset.index) : -1;
    if (pileKind(pile) !== "column" && cards.length) index = cards.length - 1; // stacked piles
    this.press = { pile, index, x: e.clientX, y: e.clientY, id: e.pointerId };
    if (pile !== "s" && index >= 0 && !this.hiddenAt(pile, index)) {
      this.press.canDrag = true;
      e.preventDefault(); // no text selection, no native image drag
    }
    try {
      this.el.setPointerCapture(e.pointerId);
    } catch {
      /* pointer already gone */
    }
  },

  onPointerMove(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    if (!this.drag) {
      if (!press.canDrag || Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_START_PX) return;
      this.startDrag(press);
    }
    this.moveDrag(e);
  },

  onPointerUp(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    this.press = null;
    if (this.drag) this.endDrag(e);
    else this.tapAt(press.pile, press.index);
  },

  onPointerCancel(e) {
    if (!this.press || e.pointerId !== this.press.id) return;
    this.press = null;
    if (this.drag) {
      this.returnGhost();
      this.renderHighlights();
    }
  },

  startDrag({ pile, index, x, y }) {
    this.dropResolved();
    this.pick = null;
    const cards = this.view.piles[pile];
    const count = cards.length - index;
    const els = [...this.pileEls[pile].querySelectorAll(".card")].filter((c) => Number(c.dataset.index) >= index);
    const first = els[0].getBoundingClientRect();
    const ghost = document.createElement("div");
    ghost.className = "drag-ghost";
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.left = `${first.left}px`;
    ghost.style.top = `${first.top}px`;
    for (const card of els) {
      const copy = card.cloneNode(true);
      copy.style.top = `${card.getBoundingClientRect().top - first.top}px`;
      copy.classList.remove("picked");
      ghost.append(copy);
    }
    this.el.append(ghost);
    // The lift (css: larger, a deeper shadow) grows in, where motion is welcome.
    for (const copy of ghost.children) animate(copy, [{ transform: "none", offset: 0 }], { duration: 100 });
    els.forEach((c) => c.classList.add("lifted"));
    this.drag = { from: pile, count, ghost, els, hover: null, startX: x, startY: y };
    this.renderHighlights();
  },

  moveDrag(e) {
    const d = this.drag;
    d.ghost.style.transform = `translate(${e.clientX - d.startX}px, ${e.clientY - d.startY}px)`;
    const hover = this.dropPile(e);
    if (hover !== d.hover) {
      if (d.hover) this.pileEls[d.hover]?.classList.remove("hover");
      if (hover && hover !== d.from) this.pileEls[hover]?.classList.add("hover");
      d.hover = hover;
    }
  },

  /** The pile under the pointer, else the one the dragged card overlaps most. */
  dropPile(e) {
    const under = document.elementFromPoint(e.clientX, e.clientY)?.closest?.(".pile");
    if (under && this.el.contains(under)) return under.dataset.pile;
    const g = this.drag.ghost.firstElementChild.getBoundingClientRect();
    let best = null;
    let bestArea = 0;
    for (const [id, el] of Object.entries(this.pileEls)) {
      const r = el.getBoundingClientRect();
      const w = Math.min(g.right, r.right) - Math.max(g.left, r.left);
      const h = Math.min(g.bottom, r.bottom) - Math.max(g.top, r.top);
      if (w > 0 && h > 0 && w * h > bestArea) {
        best = id;
        bestArea = w * h;
      }
    }
    return best;
  },

  endDrag(e) {
    const d = this.drag;
    const pile = this.dropPile(e);
    if (d.hover) this.pileEls[d.hover]?.classList.remove("hover");
    if (!pile || pile === d.from) {
      this.returnGhost();
      this.renderHighlights();
      return;
    }
    const to = this.destination(d.from, d.count, pile);
    const card = this.view.piles[d.from].at(-d.count);
    // The cards stay where they were dropped until the server answers.
    this.pendingDrop = { ...d, timer: setTimeout(() => this.returnGhost(), PENDING_DROP_MS) };
    this.drag = null;
    this.renderHighlights();
    this.emit({ type: "move", from: d.from, to, count: d.count }, { card });
  },

  /** The lifted cards go back where they came from (a drop nowhere, or refused). */
  returnGhost() {
    const d = this.drag || this.pendingDrop;
    this.drag = null;
    this.pendingDrop = null;
    if (!d) return;
    clearTimeout(d.timer);
    const done = () => {
      d.ghost.remove();
      d.els.forEach((c) => c.classList.remove("lifted"));
    };
    if (reducedMotion()) return done();
    d.ghost.classList.add("settling"); // the lift goes down as it flies back
    d.ghost.style.transition = `transform ${DURATION}ms ease-out`;
    d.ghost.style.transform = "translate(0, 0)";
    setTimeout(done, DURATION + 10);
  },

  /** A new state arrived: a dropped ghost has done its job. */
  dropResolved() {
    const d = this.pendingDrop;
    if (!d) return;
    clearTimeout(d.timer);
    d.ghost.remove();
    d.els.forEach((c) => c.classList.remove("lifted"));
    this.pendingDrop = null;
  },

  tapAt(pile, index) {
    const cards = this.view.piles[pile];
    if (pile === "s") {
      this.emit({ type: "stock" });
      return;
    }
    if (index < 0 || index >= cards.length || this.hiddenAt(pile, index)) return;
    const count = pileKind(pile) === "column" ? cards.length - index : 1;
    const card = cards[index];
    const tap = count > 1 ? { type: "tap", from: pile, count } : { type: "tap", from: pile };
    if (this.settings.tap !== "foundation") {
      this.bestTap(pile, count, card);
      return;
    }
    if (this.settings.double_click === false) {
      this.emit(tap, { card });
      return;
    }
    const now = performance.now();
    const last = this.lastTap;
    if (last && last.pile === pile && now - last.time < DOUBLE_TAP_MS) {
      clearTimeout(last.timer);
      this.lastTap = null;
      this.emit({ type: "double_tap", from: pile, count }, { card });
      return;
    }
    if (last) {
      clearTimeout(last.timer);
      this.emit(last.tap, { card: last.card });
    }
    // A single tap waits a moment: a second tap makes it a double tap instead.
    this.lastTap = {
      pile,
      time: now,
      tap,
      card,
      timer: setTimeout(() => {
        this.lastTap = null;
        this.emit(tap, { card });
      }, DOUBLE_TAP_MS),
    };
  },

  /** Tap "best": a double tap, sent at once (no wait for a second tap). With
   *  "Double click" on, a second tap within DOUBLE_TAP_MS on the same pile, or on
   *  the card the first one moved (it lands at once, under the pointer as it
   *  glides away), is the rest of a double tap: one card moves, not two. */
  bestTap(pile, count, card) {
    const now = performance.now();
    const last = this.lastTap;
    this.lastTap = { pile, card, time: now };
    const again = last && (last.pile === pile || last.card === card);
    if (this.settings.double_click !== false && again && now - last.time < DOUBLE_TAP_MS) {
      this.lastTap = null;
      return;
    }
    this.emit(count > 1 ? { type: "double_tap", from: pile, count } : { type: "double_tap", from: pile }, { card });
  },
};

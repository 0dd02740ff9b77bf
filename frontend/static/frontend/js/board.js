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
//   .drag-ghost                  the cards under the pointer during a drag
//   #board.waiting               an action is on its way to the server
//   the page adds: #message #notice #score #moves #clock #code #copy-code #undo
//   #resign #new-game #connection[data-state] #win, the replay's #replay-*
//   controls — all listed in frontend/README.md
//
// Intents given to onIntent(action, info): the action JSON of PRODUCT.md
//   {type:"move", from, to, count} | {type:"tap", from[, count]} |
//   {type:"double_tap", from, count} | {type:"stock"}
// and info {card} (the card's text, for announcements).

import { cardHtml, cardName, pileKind, pileName, spotSuit, suitName, SUIT_SYMBOL } from "./cards.js";
import { announce, fmt } from "./i18n.js";

const TRACKS = 10; // both games lay out on ten card-width tracks
const DRAG_START_PX = 6;
const DOUBLE_TAP_MS = 300;
const PENDING_DROP_MS = 4000;

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
    this.rows = [[], []];
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
    this.view = view;
    const key = Object.keys(view.piles).sort().join(",");
    if (key !== this.layoutKey) this.build(key);
    // Only a position that differs answers a drop (the same state may come twice: ack and broadcast).
    const piles = JSON.stringify(view.piles);
    if (piles !== this.shownPiles) this.dropResolved();
    this.shownPiles = piles;
    if (this.pick && !this.canLift(this.pick.from, this.pick.count)) this.pick = null;
    this.layout();
  }

  setReveal(on) {
    this.reveal = on;
    if (this.view) this.layout();
  }

  isEasyHarp() {
    return "s" in this.view.piles;
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
    const ids = Object.keys(this.view.piles);
    const byNumber = (prefix) =>
      ids.filter((id) => id[0] === prefix && id.length > 1).sort((a, b) => a.slice(1) - b.slice(1));
    const columns = byNumber("t");
    const cells = byNumber("c");
    const foundations = byNumber("f");
    const top = [...["s", "w"].filter((id) => id in this.view.piles), ...cells, ...foundations];
    this.rows = [top, columns];
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

  /** The space the page gives the board, and the largest card width for it. */
  measure() {
    const style = getComputedStyle(this.wrap);
    const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const padY = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    const width = Math.max(240, this.wrap.clientWidth - padX);
    const height = Math.max(300, this.wrap.clientHeight - padY);
    const gap = Math.round(Math.min(14, Math.max(3, width * 0.012)));
    const byWidth = (width - gap * (TRACKS - 1)) / TRACKS;
    const byHeight = height / 4.9; // the top row and a few overlapped cards stay in view
    const cw = Math.floor(Math.max(28, Math.min(byWidth, byHeight, 100)));
    return { width, height, gap, cw };
  }

  /** Every size that follows from a card width. */
  sized(base, cw) {
    const { width, height, gap } = base;
    const ch = Math.round(cw * 1.4);
    // Corner font (px): relatively larger on small cards, where only the corner strip shows.
    const cf = Math.round(Math.min(20, Math.max(11, cw * (cw < 56 ? 0.4 : 0.3))));
    const rowGap = Math.max(10, Math.round(gap * 1.6));
    const x0 = Math.max(0, (width - (TRACKS * cw + (TRACKS - 1) * gap)) / 2);
    const area = Math.max(ch, height - ch - rowGap); // the columns' height
    return { width, height, gap, cw, ch, cf, rowGap, x0, area };
  }

  /** The largest cards with which every column fits once compressed; long
   *  columns (Easy Harp's king-led runs) shrink the cards a little, down to 60 %. */
  fit() {
    const base = this.measure();
    const smallest = Math.max(28, Math.floor(base.cw * 0.6));
    let m = this.sized(base, base.cw);
    for (let cw = base.cw; cw >= smallest; cw -= 2) {
      m = this.sized(base, cw);
      const fits = this.rows[1].every((id) => {
        const offsets = this.columnOffsets(id, m);
        return m.ch + (offsets.at(-1) || 0) <= m.area;
      });
      if (fits) break;
    }
    return m;
  }

  layout() {
    const m = (this.metrics = this.fit());
    const { cw, ch, gap, rowGap, x0, area } = m;
    this.el.style.setProperty("--cw", `${cw}px`);
    this.el.style.setProperty("--ch", `${ch}px`);
    this.el.style.setProperty("--cf", `${m.cf}px`);
    const track = (i) => x0 + i * (cw + gap);
    const [top, columns] = this.rows;
    // Top row: Easy Harp stock, waste, f1…f8 on the ten tracks; Seahaven cells on
    // the left, the four foundations on the right.
    const cells = top.filter((id) => id[0] === "c").length;
    const slots = this.isEasyHarp()
      ? top.map((_, i) => i)
      : top.map((id, i) => (id[0] === "c" ? i : TRACKS - (top.length - cells) + (i - cells)));
    top.forEach((id, i) => this.place(id, track(slots[i]), 0, ch));
    const colTop = ch + rowGap;
    const colX0 = x0 + ((TRACKS - columns.length) * (cw + gap)) / 2;
    let bottom = m.height;
    for (const [i, id] of columns.entries()) {
      const offsets = this.columnOffsets(id, m);
      const used = ch + (offsets.at(-1) || 0);
      this.place(id, colX0 + i * (cw + gap), colTop, Math.max(area, used), offsets);
      bottom = Math.max(bottom, colTop + used);
    }
    this.el.style.height = `${Math.ceil(bottom)}px`;
    this.el.style.width = `${Math.ceil(m.width)}px`;
    this.renderHighlights();
  }

  /** Top offsets of a column's cards: face-down ones tighter, and the whole
   *  column squeezed to fit the area (down to a strip that still shows the corner). */
  columnOffsets(id, { ch, cf, area }) {
    const cards = this.view.piles[id];
    const n = cards.length;
    if (n === 0) return [];
    // Revealed (a replay's "show hidden cards"), face-down cards get a readable strip too.
    const down = this.reveal ? 0 : Math.min(this.view.down?.[id] || 0, n - 1);
    const up = n - 1 - down;
    // A face-up card shows a strip tall enough for its corner, roomier on small cards.
    let fd = Math.max(5, Math.round(ch * 0.12));
    let fu = Math.max(Math.round(ch * 0.27), Math.ceil(cf * 1.6));
    const minFd = Math.max(3, Math.round(ch * 0.045));
    const minFu = Math.ceil(cf * 1.1 + 4);
    const room = area - ch;
    if (down * fd + up * fu > room) {
      fd = Math.max(minFd, Math.min(fd, (room - up * fu) / Math.max(1, down)));
      if (down * fd + up * fu > room) fu = Math.max(minFu, (room - down * fd) / Math.max(1, up));
    }
    const offsets = [0];
    for (let i = 1; i < n; i++) offsets.push(offsets[i - 1] + (i - 1 < down ? fd : fu));
    return offsets.map(Math.round);
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
    const kind = pileKind(id);
    const parts = [];
    const suit = spotSuit(id);
    parts.push(
      `<div class="slot" aria-hidden="true">${kind === "foundation" ? `<span>${SUIT_SYMBOL[suit]}</span>` : ""}</div>`,
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
    parts.push(`<div class="marker" aria-hidden="true" style="top:${markerTop}px"></div>`);
    el.style.setProperty("--stack-h", `${markerTop + this.metrics.ch}px`); // the focus ring's height
    const html = parts.join("");
    // Unchanged piles keep their elements: no flicker, and a card being grabbed stays put.
    if (this.pileHtml[id] !== html) {
      el.innerHTML = html;
      this.pileHtml[id] = html;
    }
    el.classList.toggle("empty", cards.length === 0);
    el.setAttribute("aria-label", this.pileLabel(id));
  }

  pileLabel(id) {
    const cards = this.view.piles[id];
    const n = cards.length;
    let name = pileName(id);
    if (pileKind(id) === "foundation") name += ` (${suitName(spotSuit(id))})`;
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

  // --- pointer input ------------------------------------------------------------

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
  }

  onPointerMove(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    if (!this.drag) {
      if (!press.canDrag || Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_START_PX) return;
      this.startDrag(press);
    }
    this.moveDrag(e);
  }

  onPointerUp(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    this.press = null;
    if (this.drag) this.endDrag(e);
    else this.tapAt(press.pile, press.index);
  }

  onPointerCancel(e) {
    if (!this.press || e.pointerId !== this.press.id) return;
    this.press = null;
    if (this.drag) {
      this.returnGhost();
      this.renderHighlights();
    }
  }

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
    els.forEach((c) => c.classList.add("lifted"));
    this.drag = { from: pile, count, ghost, els, hover: null, startX: x, startY: y };
    this.renderHighlights();
  }

  moveDrag(e) {
    const d = this.drag;
    d.ghost.style.transform = `translate(${e.clientX - d.startX}px, ${e.clientY - d.startY}px)`;
    const hover = this.dropPile(e);
    if (hover !== d.hover) {
      if (d.hover) this.pileEls[d.hover]?.classList.remove("hover");
      if (hover && hover !== d.from) this.pileEls[hover]?.classList.add("hover");
      d.hover = hover;
    }
  }

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
  }

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
  }

  returnGhost() {
    const d = this.drag || this.pendingDrop;
    this.drag = null;
    this.pendingDrop = null;
    if (!d) return;
    clearTimeout(d.timer);
    d.ghost.style.transition = "transform 160ms ease-out";
    d.ghost.style.transform = "translate(0, 0)";
    setTimeout(() => {
      d.ghost.remove();
      d.els.forEach((c) => c.classList.remove("lifted"));
    }, 170);
  }

  /** A new state arrived: a dropped ghost has done its job. */
  dropResolved() {
    const d = this.pendingDrop;
    if (!d) return;
    clearTimeout(d.timer);
    d.ghost.remove();
    d.els.forEach((c) => c.classList.remove("lifted"));
    this.pendingDrop = null;
  }

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
  }

  // --- keyboard input ------------------------------------------------------------

  onKeyDown(e) {
    if (!this.interactive || !this.view) return;
    const pileEl = e.target.closest?.(".pile");
    if (!pileEl || e.ctrlKey || e.metaKey || e.altKey) return;
    const pile = pileEl.dataset.pile;
    const key = e.key;
    if (key.startsWith("Arrow")) {
      e.preventDefault();
      if (e.shiftKey && (key === "ArrowUp" || key === "ArrowDown")) this.extendPick(pile, key === "ArrowUp" ? 1 : -1);
      else this.moveFocus(pile, key);
      return;
    }
    const from = this.pick?.from || pile;
    const count = this.pick?.from ? this.pick.count : 1;
    const card = this.view.piles[from]?.at(-count);
    switch (key.toLowerCase()) {
      case "enter":
      case " ":
        e.preventDefault();
        this.confirm(pile);
        break;
      case "escape":
        if (this.pick) {
          e.preventDefault();
          this.pick = null;
          this.renderHighlights();
          announce(gettext("Cancelled."));
        }
        break;
      case "t":
        e.preventDefault();
        this.pick = null;
        this.renderHighlights();
        this.emit(count > 1 ? { type: "tap", from, count } : { type: "tap", from }, { card });
        break;
      case "d":
        e.preventDefault();
        this.pick = null;
        this.renderHighlights();
        this.emit({ type: "double_tap", from, count }, { card });
        break;
      case "s":
        e.preventDefault();
        this.emit({ type: "stock" }); // in Seahaven too: the server explains there is none
        break;
      default:
    }
  }

  confirm(pile) {
    if (!this.pick) {
      if (pile === "s") {
        this.emit({ type: "stock" });
        return;
      }
      if (!this.canLift(pile, 1)) {
        announce(gettext("No card to pick up here."));
        return;
      }
      this.setPick(pile, 1);
      return;
    }
    const { from, count } = this.pick;
    this.pick = null;
    this.renderHighlights();
    if (pile === from) {
      announce(gettext("Put back."));
      return;
    }
    const card = this.view.piles[from].at(-count);
    this.emit({ type: "move", from, to: this.destination(from, count, pile), count }, { card });
  }

  extendPick(pile, delta) {
    if (!this.pick || this.pick.from !== pile) {
      if (!this.canLift(pile, 1)) return;
      this.pick = { from: pile, count: 1 };
      if (delta < 0) return this.setPick(pile, 1);
    }
    const count = this.pick.count + delta;
    if (count < 1 || !this.canLift(pile, count)) {
      announce(gettext("No more cards can be picked here."));
      return;
    }
    this.setPick(pile, count);
  }

  setPick(pile, count) {
    this.pick = { from: pile, count };
    this.renderHighlights();
    const card = cardName(this.view.piles[pile].at(-count));
    const targets = this.targetsFor(pile, count).map(pileName);
    const picked =
      count > 1
        ? fmt(ngettext("Picked %(card)s and %(more)s card above it.", "Picked %(card)s and %(more)s cards above it.", count - 1), {
            card,
            more: count - 1,
          })
        : fmt(gettext("Picked %(card)s."), { card });
    const where = targets.length
      ? fmt(gettext("It can go to: %(targets)s."), { targets: targets.join(", ") })
      : gettext("No pile is listed as a target for it.");
    announce(`${picked} ${where} ${gettext("Choose a pile and press Enter; Escape cancels.")}`);
  }

  moveFocus(pile, key) {
    const [top, columns] = this.rows;
    const row = top.includes(pile) ? top : columns;
    const i = row.indexOf(pile);
    let next = pile;
    if (key === "ArrowLeft") next = row[Math.max(0, i - 1)];
    else if (key === "ArrowRight") next = row[Math.min(row.length - 1, i + 1)];
    else {
      const other = key === "ArrowUp" ? top : columns;
      if (other === row) return;
      const x = this.pileEls[pile].getBoundingClientRect().left;
      next = other.reduce((best, id) =>
        Math.abs(this.pileEls[id].getBoundingClientRect().left - x) <
        Math.abs(this.pileEls[best].getBoundingClientRect().left - x)
          ? id
          : best,
      );
    }
    this.pileEls[next]?.focus();
  }

  focusFirst() {
    (this.pileEls[this.rows[1][0]] || this.pileEls[this.rows[0][0]])?.focus();
  }
}

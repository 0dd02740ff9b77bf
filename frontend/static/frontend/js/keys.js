// The board's keyboard input, mixed into Board: Tab / arrows move between piles
// (↑ ↓ between the rows); Enter/Space picks the top card (Shift+↑/↓ more or
// fewer), Enter on the target pile confirms, Escape cancels; t tap, d double
// tap, s stock. Everything is announced in #announce. Intents only.

import { cardName, pileName } from "./cards.js";
import { announce, fmt } from "./i18n.js";

export const KeyboardInput = {
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
  },

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
  },

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
  },

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
  },

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
  },
};

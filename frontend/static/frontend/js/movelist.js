// The replay's move list (as on lichess): one button per logged action — moves,
// stock draws and undos alike — to jump to the position after it. The current one
// is marked aria-current="step", scrolled into view, and is the list's one tab
// stop (a roving tabindex: ← → and the other replay keys move it).
//
// Each entry's number is the game's move counter after it, as the server sent it
// in the position (`positions[i].moves`, RULES.md C5: an undo adds nothing); an
// undo shows none. The client counts nothing itself.
//
// DOM hooks: #replay-moves (the <ol>), li > button.move-entry[data-step="i"]
// (i = 1 … n: the position after the i-th action), .undo on an undo's button.

import { fmt, formatNumber } from "./i18n.js";
import { cardName, parseCard, pileName } from "./cards.js";

/** "TH" → "10♥": the card as printed in its corner. */
function shortCard(text) {
  const card = parseCard(text);
  return card ? `${card.rankText}${card.symbol}` : "?";
}

/** What one action did, in full (the button's name and the "Move k of n" line). */
export function describe(action, before) {
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

/** The entry's visible text, short: "7♥ → column 7", "Draw", "Undo". */
function brief(action, before) {
  switch (action.type) {
    case "stock":
      return before.piles.s?.length ? gettext("Draw") : gettext("New pass");
    case "undo":
      return gettext("Undo");
    case "move": {
      const count = action.count || 1;
      const more = count > 1 ? ` +${count - 1}` : "";
      return `${shortCard(before.piles[action.from]?.at(-count))}${more} → ${pileName(action.to)}`;
    }
    default:
      return action.type;
  }
}

export class MoveList {
  /** `onPick(step, {keyboard})`: an entry was activated. */
  constructor(el, onPick) {
    this.el = el;
    this.buttons = [];
    this.current = 0;
    el.addEventListener("click", (e) => {
      const button = e.target.closest("button[data-step]");
      // A click with detail 0 came from the keyboard (Enter or Space on the button).
      if (button) onPick(Number(button.dataset.step), { keyboard: e.detail === 0 });
    });
  }

  /** Build the entries from the replay (`actions[i]` led from `positions[i]` to `positions[i + 1]`). */
  fill({ actions, positions }) {
    this.el.textContent = "";
    this.buttons = actions.map((action, i) => {
      const after = positions[i + 1];
      const undo = action.type === "undo";
      const what = describe(action, positions[i]);
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = undo ? "move-entry undo" : "move-entry";
      button.dataset.step = String(i + 1);
      button.tabIndex = -1;
      const number = document.createElement("span");
      number.className = "move-no";
      number.setAttribute("aria-hidden", "true");
      number.textContent = undo ? "↶" : formatNumber(after.moves);
      const text = document.createElement("span");
      text.className = "move-text";
      text.setAttribute("aria-hidden", "true");
      text.textContent = brief(action, positions[i]);
      button.append(number, text);
      button.setAttribute("aria-label", undo ? what : fmt(gettext("Move %(k)s: %(what)s"), { k: after.moves, what }));
      li.append(button);
      this.el.append(li);
      return button;
    });
    this.el.hidden = this.buttons.length === 0;
    this.mark(this.current);
  }

  /** Mark the position after action `step` (0: the deal, no entry) as current. */
  mark(step) {
    const had = this.el.contains(document.activeElement);
    this.buttons[this.current - 1]?.removeAttribute("aria-current");
    this.current = step;
    this.buttons.forEach((b) => (b.tabIndex = -1));
    const button = this.buttons[step - 1];
    const stop = button || this.buttons[0];
    if (stop) stop.tabIndex = 0;
    if (!button) {
      this.el.scrollTop = this.el.scrollLeft = 0;
      if (had) stop?.focus({ preventScroll: true });
      return;
    }
    button.setAttribute("aria-current", "step");
    this.reveal(button.parentElement);
    if (had) button.focus({ preventScroll: true });
  }

  /** Scroll the list (only the list, never the page) so that `item` shows. */
  reveal(item) {
    const list = this.el;
    const vertical = list.scrollHeight > list.clientHeight + 1;
    if (vertical) {
      const top = item.offsetTop;
      const bottom = top + item.offsetHeight;
      if (top < list.scrollTop) list.scrollTop = top - item.offsetHeight;
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight + item.offsetHeight;
    } else {
      const left = item.offsetLeft;
      const right = left + item.offsetWidth;
      if (left < list.scrollLeft) list.scrollLeft = left - 8;
      else if (right > list.scrollLeft + list.clientWidth) list.scrollLeft = right - list.clientWidth + 8;
    }
  }
}

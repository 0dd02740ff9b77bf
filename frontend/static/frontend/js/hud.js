// The game's header line: title, code, score, moves and the clock. The clock is
// the server's: it shows `elapsed_ms` as last received, running on from the
// moment it arrived while the game is being played (RULES.md C11).
// A game on a daily deal whose day is running has no code (`code: null`,
// PRODUCT.md "Fair daily deals"): the header names its day instead. So has an
// Easy Harp race's game while the race runs (its deal a secret key until the end).

import { cardName } from "./cards.js";
import { copyText } from "./copy.js";
import { describeRefusal } from "./reasons.js";
import { dailyDate, dailyLabel, fmt, formatMs, formatNumber } from "./i18n.js";
import { variantLabel } from "./catalogue.js";

const $ = (id) => document.getElementById(id);

export class Hud {
  constructor() {
    this.elapsed = 0;
    this.since = 0;
    this.running = false;
    this.code = null;
    setInterval(() => this.tick(), 250);
    $("copy-code")?.addEventListener("click", () => this.copyCode());
  }

  show(game) {
    // The kind ("Daily · not ranked yet") never cut: on a narrow screen the variant's
    // name gives way (issue 39: a guest's phone read "Seahaven Towers (4 cells) · Daily · no…").
    const variant = Object.assign(document.createElement("span"), { className: "game-variant", textContent: variantLabel(game.variant) });
    const kind = Object.assign(document.createElement("span"), { className: "game-kind", textContent: ` · ${gameKind(game)}` });
    $("game-title").replaceChildren(variant, kind);
    this.code = typeof game.code === "string" && game.code ? game.code : null;
    const code = $("code");
    const sealed = !this.code;
    const daily = dailyDate(game);
    code.textContent = !sealed ? this.code : daily ? dailyLabel(daily) : gettext("Race · sealed deal");
    code.classList.toggle("sealed", sealed);
    code.title = !sealed
      ? gettext("Game code")
      : daily
        ? gettext("A daily deal's code is revealed when its day is over (00:00 UTC).")
        : gettext("A race's deal is named when the race ends.");
    const copy = $("copy-code");
    if (copy) copy.hidden = sealed;
    this.setStats(game.score, game.moves);
    this.setClock(game.elapsed_ms, game.status === "playing");
  }

  setStats(score, moves) {
    $("score").textContent = formatNumber(score);
    $("moves").textContent = formatNumber(moves);
  }

  setClock(ms, running) {
    this.elapsed = ms || 0;
    this.since = performance.now();
    this.running = running;
    this.tick();
  }

  tick() {
    const clock = $("clock");
    if (!clock) return;
    const ms = this.elapsed + (this.running ? performance.now() - this.since : 0);
    const text = formatMs(ms);
    if (clock.textContent !== text) clock.textContent = text;
  }

  copyCode() {
    const code = this.code;
    if (!code) return; // a daily still running: there is nothing to copy
    copyText(code, $("copy-code"), $("code"), fmt(gettext("Code %(code)s copied."), { code }));
  }
}

/** "Daily · ranked", "Daily · practice", "Race" (a racer's board: the race's strip
 *  is on the page, racestrip.js) or "Practice". */
export function gameKind(game) {
  if (document.getElementById("race-strip")) return gettext("Race");
  // A guest's daily is ranked once an account claims it (issue 24).
  if (game.ranked && game.guest) return gettext("Daily · not ranked yet");
  return game.ranked ? gettext("Daily · ranked") : game.daily ? gettext("Daily · practice") : gettext("Practice");
}

/** A short sentence for screen readers after an accepted action. */
export function describeAction(action, card) {
  const name = card ? cardName(card) : "";
  switch (action.type) {
    case "stock":
      return gettext("Stock tapped.");
    case "undo":
      return gettext("Undone.");
    case "tap":
      return fmt(gettext("%(card)s sent to a foundation."), { card: name });
    case "double_tap":
      return fmt(gettext("%(card)s played."), { card: name });
    case "move":
      return fmt(gettext("%(card)s moved."), { card: name });
    default:
      return "";
  }
}

/** #message: a toast (css/phone.css) that never moves the board; `kind` styles
 *  it (refusal, info). It goes by itself after a time to read it (3 s and a
 *  little more per letter, at most 9 s), or at a click. */
export function showMessage(text, kind = "info") {
  const el = $("message");
  if (!el) return;
  clearTimeout(showMessage.timer);
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = !text;
  if (text) showMessage.timer = setTimeout(() => (el.hidden = true), Math.min(9000, 3000 + 50 * text.length));
}

export function hideMessage() {
  const el = $("message");
  if (el) el.hidden = true;
}

/** #notice: the lasting state of the game (dead end, unwinnable, over). */
export function showNotice(text, kind = "info", html = false) {
  const el = $("notice");
  if (!el) return;
  el.hidden = !text;
  el.dataset.kind = kind;
  if (html) el.innerHTML = text;
  else el.textContent = text;
}

/** #spoiler: the server refused to show this game yet (a daily whose day runs);
 *  its reason, `{code, message}`, in the player's language when the code is known. */
export function showClosed(error) {
  const el = $("spoiler");
  if (!el) return;
  el.dataset.code = error?.code || "";
  $("spoiler-reason").textContent = describeRefusal(error, "") || gettext("This game cannot be shown now.");
  el.hidden = false;
}

document.getElementById("message")?.addEventListener("click", hideMessage);

// A game page's skip link (base.html's first Tab stop): straight to the board's
// first column, ready for the arrow keys; the board itself while it has none.
document.querySelector('.skip-link[href="#board"]')?.addEventListener("click", (event) => {
  const board = $("board");
  if (!board) return;
  event.preventDefault();
  board.board?.focusFirst();
  if (!board.contains(document.activeElement)) board.focus();
});

// The New game window (like the original app's): New deal (random, proven
// winnable by the server's solver), Any deal (random, may be impossible), Daily
// deal, Same deal (the current or last code), or a typed code; the game, and for a
// game with several variants (Seahaven Towers: 4, 2 or 1 cells) the variant.
// The games and their variants are the catalogue's (catalogue.js), as are the
// window's chips (newgame_dialog.html).
//
// A game on a daily deal whose day is running has no code (PRODUCT.md, "Fair
// daily deals"), and no practice copy of it is dealt to anyone while the day
// runs (the server refuses it: 409 `daily_running`): its "Same deal" is offered
// once the day is over, and plays the code the day's page reveals then
// (`GET /api/daily/{date}/`). Nothing here assumes a code is a string.

import { get, post } from "./api.js";
import { catalogue, gameOf } from "./catalogue.js";
import { dailyDate, dailyLabel, fmt, variantOf } from "./i18n.js";
import { ensurePlayer } from "./guest.js";

const LAST_CODE = "patience.lastCode";

export function rememberCode(code) {
  if (typeof code !== "string" || !code) return; // a daily's secret code is null: nothing to keep
  try {
    localStorage.setItem(LAST_CODE, code);
  } catch {
    /* private mode */
  }
}

function lastCode() {
  try {
    return localStorage.getItem(LAST_CODE) || "";
  } catch {
    return "";
  }
}

let ready = null; // the open() of the dialog, once set up
// What "Same deal" replays: {code, variant} or, for a daily whose code was not
// shown (its day was running), {daily: date, variant}.
let current = null;

/** The game on the page, for "Same deal" (an attempt object; again when it changes). */
export function setCurrentGame(game) {
  if (!game) return;
  if (typeof game.code === "string" && game.code) {
    current = { code: game.code, variant: game.variant || variantOf(game.code) };
    rememberCode(game.code);
  } else {
    current = { daily: dailyDate(game), variant: game.variant };
  }
}

/** Whether the UTC day `date` (YYYY-MM-DD) is over by this browser's clock: its
 *  deals may be practised then (the server has the last word, below). */
function dayOver(date) {
  return Boolean(date) && date < new Date().toISOString().slice(0, 10);
}

function same() {
  if (current) return current;
  const code = lastCode();
  return code ? { code, variant: variantOf(code) } : null;
}

/** The request for "Same deal" of a daily without a code: its code, public now
 *  that its day is over; while the day still runs there is none to ask for. */
async function sameDaily(deal) {
  const day = deal.daily ? await get(`/api/daily/${deal.daily}/`) : null;
  const entry = day?.over && day.deals.find((d) => d.variant === deal.variant);
  if (entry?.code) return { code: entry.code };
  // The server's own refusal of a practice copy (reasons.js `daily_running`).
  throw new Error(
    gettext("That deal is a daily deal whose day is still running: it opens for practice, to everyone, once its day ends (00:00 UTC)."),
  );
}

/** Set up the dialog (once) and open it from every `[data-new-game]` /
 *  #new-game button; `current` is the game "Same deal" replays. Returns open(). */
export function setupNewGame({ current: game = null } = {}) {
  if (game) setCurrentGame(game);
  if (ready) return ready;
  const dialog = document.getElementById("new-game-dialog");
  if (!dialog) return () => {};
  const form = document.getElementById("new-game-form");
  const error = document.getElementById("new-game-error");
  const codeInput = document.getElementById("new-game-code");
  const cells = document.getElementById("ng-cells");
  const sameRow = document.getElementById("ng-same-row");
  const sameCode = document.getElementById("ng-same-code");

  const games = document.getElementById("ng-game");
  // The variant chosen: the game's only one, or the one of its chips.
  const chosen = () => {
    const variants = gameOf(form.elements.game.value)?.variants || [];
    if (variants.length > 1) return variants.find((v) => v.letter === form.elements.cells.value) || variants[0];
    return variants[0];
  };
  const sync = () => {
    const several = (gameOf(form.elements.game.value)?.variants.length || 0) > 1;
    const kind = form.elements.kind.value;
    const byCode = kind === "same" || kind === "code"; // the code names the game
    games.disabled = byCode;
    cells.disabled = byCode || !several;
  };

  const open = (preset = {}) => {
    const deal = same();
    const possible = Boolean(deal && (deal.code || dayOver(deal.daily)));
    if (!deal) sameCode.textContent = gettext("no game yet");
    else if (deal.code) sameCode.textContent = deal.code;
    else if (possible) sameCode.textContent = fmt(gettext("%(daily)s, as practice"), { daily: dailyLabel(deal.daily) });
    else sameCode.textContent = gettext("once its day is over (00:00 UTC)");
    sameRow.classList.toggle("disabled", !possible);
    form.querySelector('input[value="same"]').disabled = !possible;
    const [prefix, letter] = (preset.variant || deal?.variant || catalogue()[0]?.variants[0].id || "").split("-");
    form.elements.game.value = prefix;
    if ((gameOf(prefix)?.variants.length || 0) > 1) form.elements.cells.value = letter;
    form.elements.kind.value = preset.kind && !(preset.kind === "same" && !possible) ? preset.kind : "random";
    error.textContent = "";
    sync();
    dialog.showModal();
  };

  form.addEventListener("change", sync);
  codeInput.addEventListener("focus", () => {
    form.elements.kind.value = "code";
    sync();
  });
  form.querySelector('input[value="code"]').addEventListener("change", () => codeInput.focus());
  document.getElementById("new-game-cancel").addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (e) => e.target === dialog && dialog.close());

  const start = async (kind) => {
    const variant = chosen()?.id;
    let body;
    if (kind === "random") body = { random: variant }; // a deal the solver proved winnable
    else if (kind === "any") body = { random: variant, any: true }; // any deal: may be impossible
    else if (kind === "daily") body = { daily: variant };
    else if (kind === "same") {
      const deal = same();
      if (!deal) return;
      body = deal.code ? { code: deal.code } : null; // a daily without a code: asked below
    } else {
      const typed = codeInput.value.trim();
      if (!typed) {
        error.textContent = gettext("Type a game code, such as SH1-C4-AAAAAJ2.");
        codeInput.focus();
        return;
      }
      body = { code: typed };
    }
    const buttons = form.querySelectorAll("button");
    buttons.forEach((b) => (b.disabled = true));
    error.textContent = "";
    try {
      await ensurePlayer(); // signed out: as a guest (issue 24)
      const attempt = await post("/api/games/", body || (await sameDaily(same())));
      location.href = `/play/${attempt.id}/`;
    } catch (err) {
      error.textContent = err.message;
      buttons.forEach((b) => (b.disabled = false));
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    start(form.elements.kind.value);
  });
  document.getElementById("new-game-start-code").addEventListener("click", () => {
    form.elements.kind.value = "code";
    sync();
    start("code");
  });
  codeInput.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    start("code");
  });

  document.querySelectorAll("#new-game, [data-new-game]").forEach((button) =>
    button.addEventListener("click", () => open({ variant: button.dataset.variant, kind: button.dataset.kind })),
  );
  ready = open;
  return open;
}

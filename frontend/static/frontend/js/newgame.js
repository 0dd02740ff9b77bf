// The New game window (like the original app's): New deal (random), Daily deal,
// Same deal (the current or last code), or a typed code; the game, and for
// Seahaven Towers the number of cells (4/2/1).

import { post } from "./api.js";
import { variantOf } from "./i18n.js";
import { signedIn } from "./settings.js";

const LAST_CODE = "patience.lastCode";

export function rememberCode(code) {
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
let code = null; // the current game's code: "Same deal"

/** Set up the dialog (once) and open it from every `[data-new-game]` /
 *  #new-game button; `current` is the code "Same deal" replays. Returns open(). */
export function setupNewGame({ current = null } = {}) {
  if (current) code = current;
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
  const sync = () => {
    const seahaven = form.elements.game.value === "SH1";
    const kind = form.elements.kind.value;
    const byCode = kind === "same" || kind === "code"; // the code names the game
    games.disabled = byCode;
    cells.disabled = byCode || !seahaven;
  };

  const open = (preset = {}) => {
    const current = code || lastCode();
    sameCode.textContent = current || gettext("no game yet");
    sameRow.classList.toggle("disabled", !current);
    form.querySelector('input[value="same"]').disabled = !current;
    const variant = preset.variant || variantOf(current) || "EH1-N";
    form.elements.game.value = variant.slice(0, 3);
    if (variant.startsWith("SH1")) form.elements.cells.value = variant.slice(4);
    form.elements.kind.value = preset.kind || "random";
    error.textContent = "";
    sync();
    if (!signedIn()) {
      location.href = `/login/?next=${encodeURIComponent(location.pathname)}`;
      return;
    }
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
    const game = form.elements.game.value;
    const variant = game === "SH1" ? `SH1-${form.elements.cells.value}` : "EH1-N";
    let body;
    if (kind === "random") body = { random: variant };
    else if (kind === "daily") body = { daily: variant };
    else if (kind === "same") body = { code: code || lastCode() };
    else {
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
      const attempt = await post("/api/games/", body);
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

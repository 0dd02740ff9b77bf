// The games' catalogue (issue 16): what each game declares once, beside its
// engine (games/engine/spec.py) — its code prefix, variants, display names
// (already translated into the page's language by frontend/catalogue.py), the
// lobby's suits and the layout hints. The page embeds it as JSON in
// <script type="application/json" id="games-catalogue">; the client keeps no
// table of games of its own.

import { escapeHtml } from "./i18n.js";

let games = null;

/** [{prefix, title, icon, variants: [{id, letter, name, tab, choice, cells, layout}]}] */
export function catalogue() {
  if (games) return games;
  try {
    games = JSON.parse(document.getElementById("games-catalogue")?.textContent || "[]");
  } catch {
    games = [];
  }
  return games;
}

/** The game of a code prefix ("SH1"), or null. */
export function gameOf(prefix) {
  return catalogue().find((g) => g.prefix === prefix) || null;
}

/** A variant ("SH1-C4") with its game under `game`, or null. */
export function variantInfo(id) {
  for (const game of catalogue()) {
    const variant = game.variants.find((v) => v.id === id);
    if (variant) return { ...variant, game };
  }
  return null;
}

/** "SH1-C4" → "Seahaven Towers · Easy (4 cells)" (an unknown id as it is). */
export function variantLabel(id) {
  return variantInfo(id)?.name || id || "";
}

/** A deal's heading on the lobby and a day's page: the game's suits, its name,
 *  and the level (the name after " · ") small. */
export function dealHead(id) {
  const [title, level] = variantLabel(id).split(" · ");
  return `<div class="deal-head">
      <span class="deal-suits" aria-hidden="true">${escapeHtml(variantInfo(id)?.game.icon || "")}</span>
      <h2>${escapeHtml(title)}${level ? ` <small>${escapeHtml(level)}</small>` : ""}</h2>
    </div>`;
}

// Opening a race room (issue 29): the lobby's Race window (a random proven deal of a
// variant, or a code) and a past day's "Race this deal". `POST /api/races/`, then
// the room's link. A game that hides cards (Easy Harp) is raced on a fresh secret
// deal only: a past day of it offers no race (issue 36).

import { get, post } from "./api.js";
import { ensurePlayer } from "./guest.js";
import { escapeHtml, fmt } from "./i18n.js";
import { variantInfo, variantLabel } from "./catalogue.js";

const $ = (id) => document.getElementById(id);

/** Open a room for `body` ({random} | {code} | {daily, variant}, with `capacity`) and go there. */
export async function openRace(body) {
  await ensurePlayer(); // signed out: as a guest, as a game would start
  const race = await post("/api/races/", body);
  location.assign(`/race/${race.id}/`);
  return race;
}

/** Whether a past day's deal of `variant` may be raced: not when its game hides
 *  cards (the catalogue's `hides_cards`, the engine's declaration) — its races are
 *  dealt a fresh secret deal, and a past day's code is public (`409 secret_deal`). */
export const pastDailyRaceable = (variant) => !variantInfo(variant)?.game.hides_cards;

/** The lobby's Race button and its window (`#race-new`, `#race-dialog`). */
export function setupRaceDialog() {
  const dialog = $("race-dialog");
  const opener = $("race-new");
  if (!dialog || !opener) return;
  opener.addEventListener("click", () => {
    $("race-error").textContent = "";
    dialog.showModal();
  });
  $("race-cancel").addEventListener("click", () => dialog.close());
  $("race-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = $("race-code").value.trim();
    const variant = dialog.querySelector("input[name=race-variant]:checked")?.value;
    const capacity = Number($("race-capacity").value) || 50;
    const body = code ? { code, capacity } : { random: variant, capacity };
    const button = $("race-create");
    button.disabled = true;
    $("race-error").textContent = "";
    try {
      await openRace(body);
    } catch (err) {
      $("race-error").textContent = err.message;
      button.disabled = false;
    }
  });
}

/** The rooms the player is invited to (`GET /api/races/?invited=1`), in `#race-invites`. */
export async function showInvites() {
  const list = $("race-invites");
  if (!list) return;
  let races = [];
  try {
    races = await get("/api/races/?invited=1");
  } catch {
    return; // a nicety: nothing shown
  }
  list.innerHTML = (races || [])
    .filter((race) => race.status === "open" && !race.you?.racer)
    .map((race) => {
      const text = fmt(gettext("%(host)s invites you to race: %(variant)s"), { host: race.host, variant: variantLabel(race.variant) });
      return `<li class="race-invite-item" data-race="${escapeHtml(race.id)}"><span>${escapeHtml(text)}</span> <a class="button small primary" href="/race/${encodeURIComponent(race.id)}/">${escapeHtml(gettext("To the room"))}</a></li>`;
    })
    .join("");
  list.hidden = !list.children.length;
}

// Opening a race room (issue 29): the lobby's Race window (a random proven deal of a
// variant, or a code) and a past day's "Race this deal". `POST /api/races/`, then
// the room's link.

import { post } from "./api.js";
import { ensurePlayer } from "./guest.js";

const $ = (id) => document.getElementById(id);

/** Open a room for `body` ({random} | {code} | {daily, variant}, with `capacity`) and go there. */
export async function openRace(body) {
  await ensurePlayer(); // signed out: as a guest, as a game would start
  const race = await post("/api/races/", body);
  location.assign(`/race/${race.id}/`);
  return race;
}

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

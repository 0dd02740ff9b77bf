// Quick race (issue 39): the lobby's one button. It queues the player for a race
// with players of their race rating (`POST /api/races/quick/`, asked again every
// 1.5 s while the window is open: each ask keeps the seat and may start the race)
// and, once the server names the race, goes to it — a racer of a started race is
// given their board at `/race/<id>/`, with ten seconds of countdown to load it.
// Closing the window leaves the queue (`DELETE`); a closed page's seat lapses
// after a few seconds without an ask. Quick races are rated: a guest or a
// signed-out visitor is asked to sign up instead.

import { api, post } from "./api.js";
import { fmt, formatMs } from "./i18n.js";
import { isGuest, signupHref } from "./guest.js";
import { signedIn } from "./settings.js";

const $ = (id) => document.getElementById(id);
const ASK_MS = 1500;
const GIVE_UP_MS = 5 * 60 * 1000; // nobody came: say so and stop asking
const STORED = "quick-variant";

const queue = { timer: 0, variant: "", since: 0, asking: false, done: true }; // done: not queued

function chosen(dialog) {
  return dialog.querySelector("input[name=quick-variant]:checked")?.value || "";
}

function status(text) {
  $("quick-status").textContent = text;
}

function stop() {
  clearTimeout(queue.timer);
  queue.timer = 0;
  queue.done = true;
}

/** The queue's answer, said: who is waiting, how long, and the rating window. */
function describe(answer) {
  const waited = formatMs(answer.waited_ms);
  if (answer.queue <= 1) {
    return fmt(gettext("Waiting for racers near your rating (%(rating)s)… %(waited)s"), { rating: answer.rating, waited });
  }
  return fmt(
    ngettext(
      "%(n)s player waiting, you included: the race starts at %(full)s, or after %(wait)s s with fewer. %(waited)s",
      "%(n)s players waiting, you included: the race starts at %(full)s, or after %(wait)s s with fewer. %(waited)s",
      answer.queue,
    ),
    { n: answer.queue, full: answer.full, wait: Math.round(answer.wait_s), waited },
  );
}

async function ask() {
  if (queue.done || queue.asking) return;
  queue.asking = true;
  try {
    const answer = await post("/api/races/quick/", { variant: queue.variant });
    if (queue.done) return;
    if (answer.race) {
      stop();
      status(gettext("Race found: to your board…"));
      location.assign(`/race/${encodeURIComponent(answer.race)}/`);
      return;
    }
    $("quick-dialog").dataset.state = "waiting";
    status(describe(answer));
    if (Date.now() - queue.since > GIVE_UP_MS) {
      leave();
      status(gettext("Nobody else is looking for a race right now. Open a room with Race and share its link."));
      return;
    }
  } catch (err) {
    if (queue.done) return;
    if (err.status === 0 || err.status >= 500 || err.status === 429) {
      status(err.message); // a passing trouble: keep asking (a 429 waits its Retry-After)
      queue.timer = setTimeout(ask, Math.max(ASK_MS, (err.retryAfter || 0) * 1000));
      return;
    }
    stop();
    $("quick-dialog").dataset.state = "refused";
    $("quick-error").textContent = err.message;
    return;
  } finally {
    queue.asking = false;
  }
  queue.timer = setTimeout(ask, ASK_MS);
}

function join(variant) {
  stop();
  Object.assign(queue, { variant, since: Date.now(), done: false });
  $("quick-error").textContent = "";
  status(gettext("Looking for racers…"));
  ask();
}

function leave() {
  const wasQueued = !queue.done;
  stop();
  if (wasQueued) api("/api/races/quick/", { method: "DELETE" }).catch(() => {}); // else it lapses
}

/** The lobby's Quick race button and its window (`#quick-race`, `#quick-dialog`). */
export function setupQuickRace() {
  const dialog = $("quick-dialog");
  const opener = $("quick-race");
  if (!dialog || !opener) return;
  const stored = localStorage.getItem(STORED);
  const radio = stored && dialog.querySelector(`input[name=quick-variant][value="${CSS.escape(stored)}"]`);
  if (radio) radio.checked = true;
  const account = signedIn() && !isGuest();
  opener.addEventListener("click", () => {
    $("quick-error").textContent = "";
    $("quick-signup").hidden = account;
    $("quick-signup-link").href = signupHref("/");
    $("quick-variants").disabled = !account;
    status("");
    dialog.dataset.state = account ? "asking" : "signup";
    dialog.showModal();
    if (account) join(chosen(dialog));
  });
  dialog.addEventListener("change", (e) => {
    if (e.target.name !== "quick-variant") return;
    localStorage.setItem(STORED, e.target.value);
    if (account) join(e.target.value); // another game: queued for it instead
  });
  $("quick-cancel").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", leave);
}

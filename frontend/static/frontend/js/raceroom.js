// The race room (issue 29), `/race/<id>/`: before the start the waiting room
// (racers, the link to share, invite by name, the host's Start, Join, Leave), the
// countdown, then — for spectators — every racer's progress, one of them followed
// (expanded); after the end the standings, every replay, the rematch. A racer is
// sent to their own board (the same link: the server gives a racer of a started
// race the play page). Everything is the race JSON of the server: the `race`
// frames of `/ws/races/<id>/`, or the HTTP answers of the room's buttons.

import { announce, escapeHtml, fmt } from "./i18n.js";
import { get, post } from "./api.js";
import { copyText } from "./copy.js";
import { ensurePlayer } from "./guest.js";
import { variantLabel } from "./catalogue.js";
import { showConnection } from "./socket.js";
import {
  countdown,
  followedHtml,
  loadRatings,
  ordered,
  raceStatusLabel,
  racerHtml,
  RaceFeed,
  standingsHtml,
} from "./race.js";

const $ = (id) => document.getElementById(id);
const root = $("race");
const id = root.dataset.race;
const me = document.body.dataset.username || "";
const state = { following: "", ratings: null, ratingsAsked: false, counting: null, going: false };

$("race-url").value = `${location.origin}/race/${id}/`;

const feed = new RaceFeed(id, {
  onRace: render,
  onProgress: drawRacers,
  onStart: (frame) => startCountdown(frame.starts_at),
  onStatus: (s) => showConnection($("connection"), s),
  onFatal(code) {
    if (code === 4401) showError(gettext("Sign in to follow this race."));
    else if (code === 4404) showMissing();
    else showError(gettext("You may not follow this race."));
  },
});

function showError(text) {
  $("race-error").textContent = text;
}

function showMissing() {
  root.dataset.status = "missing";
  $("race-state").textContent = gettext("There is no such race.");
  for (const el of [$("race-share"), $("race-actions"), $("race-invite"), $("racers-title"), $("connection")]) el.hidden = true;
}

// --- drawing the race ----------------------------------------------------------------

function render(race) {
  const you = race.you || {};
  root.dataset.status = race.status;
  root.setAttribute("aria-busy", "false");
  $("race-variant").textContent = variantLabel(race.variant) || race.variant_name || race.variant;
  $("race-state").textContent = raceStatusLabel(race);
  // Seats while it is open ("2 of 6"); once it started, how many race (issue 39:
  // "Standings 2 of 6" read as seats left empty).
  const n = race.racers.length;
  $("race-count").textContent =
    race.status === "open"
      ? fmt(gettext("%(n)s of %(capacity)s"), { n, capacity: race.capacity })
      : fmt(ngettext("%(n)s racer", "%(n)s racers", n), { n });
  const open = race.status === "open";
  const full = race.racers.length >= race.capacity;
  $("race-share").hidden = !open;
  $("race-join").hidden = !open || you.racer || full;
  $("race-leave").hidden = !you.racer || race.status === "finished" || isOver(race, me);
  $("race-start").hidden = !open || !you.host;
  $("race-start").disabled = race.racers.length < 2;
  $("race-start").title = race.racers.length < 2 ? gettext("At least two racers are needed.") : "";
  $("race-invite").hidden = !open || !you.host;
  const board = $("race-board");
  board.hidden = !(you.racer && you.attempt && race.status === "running");
  board.href = `/race/${id}/`;
  $("race-rematch").hidden = !(race.status === "finished" && you.host && !race.rematch);
  const rematch = $("race-rematch-join");
  rematch.hidden = !(race.status === "finished" && race.rematch);
  rematch.href = race.rematch ? `/race/${race.rematch}/` : "#";
  rematch.textContent = you.host ? gettext("To the rematch") : gettext("Join the rematch");
  if (race.status !== "open" && race.starts_at && Date.parse(race.starts_at) > Date.now()) startCountdown(race.starts_at);
  // A racer whose race started plays on their board (this link gives it to them).
  if (race.status === "running" && you.racer && you.attempt && !isOver(race, me)) goToBoard(race.starts_at);
  if (race.status === "finished" && !state.ratingsAsked) {
    state.ratingsAsked = true;
    loadRatings(id, 3).then((ratings) => {
      state.ratings = ratings;
      if (ratings) drawRacers(feed.race);
    });
  }
  drawRacers(race);
}

const isOver = (race, player) => ["won", "resigned", "left"].includes(race.racers.find((r) => r.player === player)?.status);

function drawRacers(race) {
  if (!race) return;
  const list = $("racers");
  $("racers-title").firstChild.textContent = race.status === "finished" ? `${gettext("Standings")} ` : `${gettext("Racers")} `;
  if (race.status === "finished") {
    list.classList.add("standings");
    list.innerHTML = standingsHtml(race, state.ratings);
  } else {
    list.classList.remove("standings");
    // While the race runs, in live place order, each with the place the server sent.
    const rows = ordered(race).map((r) => racerHtml(race, r, { me, following: state.following }));
    list.innerHTML = rows.join("");
    if (race.status === "running") addFollowButtons(list);
  }
  const followed = race.racers.find((r) => r.player === state.following);
  $("race-follow").hidden = !followed || race.status !== "running";
  if (followed) $("race-follow").innerHTML = followedHtml(race, followed);
}

function addFollowButtons(list) {
  for (const li of list.querySelectorAll("li.racer")) {
    const player = li.dataset.player;
    const on = player === state.following;
    li.insertAdjacentHTML(
      "beforeend",
      `<button type="button" class="button small race-follow-button" data-follow="${escapeHtml(player)}" aria-pressed="${on}">${escapeHtml(on ? gettext("Following") : gettext("Follow"))}</button>`,
    );
  }
}

// --- the countdown, and a racer's board -------------------------------------------

function startCountdown(startsAt) {
  if (!startsAt || state.counting === startsAt) return;
  state.counting = startsAt;
  countdown($("race-countdown"), startsAt);
}

function goToBoard() {
  if (state.going) return;
  state.going = true;
  location.replace(`/race/${id}/`);
}

// --- the buttons ------------------------------------------------------------------

async function act(button, path, body, after = (race) => feed.accept(race)) {
  showError("");
  button.disabled = true;
  try {
    const answer = await post(path, body);
    after(answer);
  } catch (err) {
    showError(err.message);
  } finally {
    button.disabled = false;
    if (feed.race) render(feed.race);
  }
}

$("race-join").addEventListener("click", async (e) => {
  const button = e.currentTarget; // (an event's currentTarget is null once an await has run)
  try {
    await ensurePlayer(); // signed out: as a guest, as a game would start
  } catch (err) {
    showError(err.message);
    return;
  }
  await act(button, `/api/races/${id}/join/`);
  if (feed.race?.you?.racer) announce(gettext("You joined the race."));
});
$("race-leave").addEventListener("click", (e) => act(e.currentTarget, `/api/races/${id}/leave/`));
$("race-start").addEventListener("click", (e) =>
  act(e.currentTarget, `/api/races/${id}/start/`, undefined, (race) => {
    feed.accept(race);
    if (race.starts_at) startCountdown(race.starts_at);
  }),
);
$("race-rematch").addEventListener("click", (e) =>
  act(e.currentTarget, `/api/races/${id}/rematch/`, undefined, (race) => location.assign(`/race/${race.id}/`)),
);
$("race-copy").addEventListener("click", (e) => copyText($("race-url").value, e.currentTarget, $("race-url"), gettext("The link is copied.")));
$("race-invite").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("race-invite-name").value.trim();
  if (!name) return;
  const status = $("race-invite-status");
  status.textContent = "";
  await act($("race-invite-send"), `/api/races/${id}/invite/`, { username: name }, (race) => {
    if (race && race.racers) feed.accept(race);
    status.textContent = fmt(gettext("%(player)s is invited."), { player: name });
    $("race-invite-name").value = "";
  });
});
$("racers").addEventListener("click", (e) => {
  const button = e.target.closest("[data-follow]");
  if (!button) return;
  state.following = state.following === button.dataset.follow ? "" : button.dataset.follow;
  drawRacers(feed.race);
  $("racers").querySelector(`[data-follow="${CSS.escape(button.dataset.follow)}"]`)?.focus();
});
// The racers' clocks tick while they race.
setInterval(() => feed.race?.status === "running" && drawRacersKeepingFocus(), 1000);

function drawRacersKeepingFocus() {
  const focused = document.activeElement?.dataset?.follow;
  drawRacers(feed.race);
  if (focused) $("racers").querySelector(`[data-follow="${CSS.escape(focused)}"]`)?.focus();
}

// --- start --------------------------------------------------------------------------

try {
  feed.accept(await get(`/api/races/${encodeURIComponent(id)}/`));
} catch (err) {
  root.setAttribute("aria-busy", "false");
  if (err.status === 404) showMissing();
  else if (err.status === 401 || err.status === 403) showError(gettext("Sign in to follow this race."));
  else showError(err.message);
}
if (root.dataset.status !== "missing") feed.connect();

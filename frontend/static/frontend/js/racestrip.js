// A racer's board (issue 29): the play page (play.js) for the racer's own attempt,
// with this module beside it: a compact strip of every racer's progress above the
// board (your live place, cards home out of 52, uncovered, moves, time, status, the
// finish order as it happens — never a card), the countdown over the board until the start, and
// the standings, replays and rematch at the end. Fed by `/ws/races/<id>/`.

import { announce, fmt } from "./i18n.js";
import { post } from "./api.js";
import { countdown, loadRatings, ordered, placeWords, racerHtml, racerName, RaceFeed, standingsHtml } from "./race.js";

const $ = (id) => document.getElementById(id);
const strip = $("race-strip");
const id = strip.dataset.race;
const me = document.body.dataset.username || "";
const state = { counting: null, ended: false, ratings: null, finished: new Set(), endAfterWin: false };

// The strip goes between the header line and the board; the countdown over the board.
const layout = document.querySelector(".game-layout");
layout.insertBefore(strip, $("notice"));
$("board-wrap").append($("race-countdown"));

const feed = new RaceFeed(id, {
  onRace: render,
  onProgress: drawChips,
  onStart: (frame) => startCountdown(frame.starts_at),
});

function render(race) {
  strip.dataset.status = race.status;
  // No way out of a running race by a new game: New game shows once it is over.
  $("new-game").hidden = race.status !== "finished";
  if (race.starts_at && Date.parse(race.starts_at) > Date.now()) startCountdown(race.starts_at);
  drawChips(race);
  if (race.status === "finished") showEnd(race);
}

function drawChips(race) {
  if (!race) return;
  const racers = ordered(race);
  $("race-chips").innerHTML = racers.map((r) => racerHtml(race, r, { me, compact: true })).join("");
  // Your own place, live ("3rd of 12"): the same order as the chips and the standings.
  const mine = racers.find((r) => r.player === me);
  const place = $("race-place");
  place.hidden = !mine?.place;
  place.textContent = mine?.place ? placeWords(mine.place, racers.length) : "";
  place.dataset.place = mine?.place ?? "";
  // The finish order as it happens: each win said once (the chips put winners first).
  for (const r of race.racers) {
    if (r.status === "won" && !state.finished.has(r.player)) {
      state.finished.add(r.player);
      if (race.status === "running") announce(fmt(gettext("%(player)s finished the deal."), { player: racerName(r) }));
    }
  }
}

function startCountdown(startsAt) {
  if (!startsAt || state.counting === startsAt) return;
  state.counting = startsAt;
  $("board-wrap").classList.add("race-waiting");
  countdown($("race-countdown"), startsAt, () => $("board-wrap").classList.remove("race-waiting"));
}

async function showEnd(race) {
  const you = race.you || {};
  $("race-rematch").hidden = !(you.host && !race.rematch);
  const rematch = $("race-rematch-join");
  rematch.hidden = !race.rematch;
  rematch.href = race.rematch ? `/race/${race.rematch}/` : "#";
  rematch.textContent = you.host ? gettext("To the rematch") : gettext("Join the rematch");
  $("race-standings").innerHTML = standingsHtml(race, state.ratings);
  if (state.ended) return;
  state.ended = true;
  $("race-standings-open").hidden = false;
  openEnd();
  state.ratings = await loadRatings(id, 3);
  if (state.ratings) $("race-standings").innerHTML = standingsHtml(feed.race, state.ratings);
}

/** The standings, unless the result card (finish.js's `#win`) is open: then once it closes. */
function openEnd() {
  const end = $("race-end");
  if ($("win")?.open) state.endAfterWin = true;
  else if (!end.open) end.showModal();
}

// One dialog at a time: the result card opens after the win's cascade, maybe once
// the race is over; the standings step aside for it and come back when it closes.
new MutationObserver(() => {
  const end = $("race-end");
  if ($("win").open && end.open) {
    end.close();
    state.endAfterWin = true;
  } else if (!$("win").open && state.endAfterWin) {
    state.endAfterWin = false;
    openEnd();
  }
}).observe($("win"), { attributes: true, attributeFilter: ["open"] });

$("race-end-close").addEventListener("click", () => $("race-end").close());
$("race-standings-open").addEventListener("click", () => $("race-end").showModal());
$("race-rematch").addEventListener("click", async (e) => {
  const button = e.currentTarget; // (null once an await has run)
  button.disabled = true;
  try {
    const race = await post(`/api/races/${id}/rematch/`);
    location.assign(`/race/${race.id}/`);
  } catch (err) {
    button.disabled = false;
    announce(err.message);
  }
});
// The clocks of those still racing tick.
setInterval(() => feed.race?.status === "running" && drawChips(feed.race), 1000);

feed.refresh().catch(() => {}); // the page's embedded answer (prefill), then the socket's frames
feed.connect();

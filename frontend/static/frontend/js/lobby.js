// The lobby: today's four daily deals with the player's status on each (rank
// once finished, from the leaderboard's `me`), par, and the time left in the UTC day.

import { escapeHtml, fmt, formatMs, formatNumber, statusLabel, variantLabel } from "./i18n.js";
import { get, post } from "./api.js";
import { setupNewGame } from "./newgame.js";
import { signedIn } from "./settings.js";

const $ = (id) => document.getElementById(id);
setupNewGame();

let endsAt = 0; // performance.now() at which the UTC day ends
let DATE = ""; // the day of the deals shown (YYYY-MM-DD)

function tick() {
  const left = Math.max(0, endsAt - performance.now());
  $("time-left").textContent = formatMs(left).padStart(7, "0");
  if (endsAt && left === 0) {
    endsAt = 0;
    setTimeout(load, 2000); // a new day: new deals
  }
}

function actionButton(deal) {
  if (!signedIn()) {
    return `<a class="button primary" href="/login/?next=%2F">${escapeHtml(gettext("Sign in to play"))}</a>`;
  }
  if (deal.status === "playing") {
    return `<a class="button primary" href="/play/${deal.attempt}/">${escapeHtml(gettext("Continue"))}</a>`;
  }
  if (deal.status === "not_started") {
    return `<button type="button" class="button primary" data-start="${deal.variant}">${escapeHtml(gettext("Play"))}</button>`;
  }
  return `<a class="button" href="/replay/${deal.attempt}/">${escapeHtml(gettext("Your replay"))}</a>`;
}

function render(deal, rank) {
  const li = document.querySelector(`.deal[data-variant="${deal.variant}"]`);
  if (!li) return;
  const [title, level] = variantLabel(deal.variant).split(" · ");
  li.className = `deal status-${deal.status}`;
  li.dataset.status = deal.status;
  const facts = [];
  if (deal.par) facts.push(fmt(gettext("best known: %(n)s moves"), { n: deal.par }));
  if (deal.score != null && deal.status !== "not_started") facts.push(fmt(gettext("score %(score)s"), { score: formatNumber(deal.score) }));
  let rankHtml = "";
  if (rank) {
    rankHtml = `<span class="rank" data-rank="${rank.rank}">${escapeHtml(fmt(gettext("rank %(rank)s"), { rank: formatNumber(rank.rank) }))}${
      rank.pending ? ` <small>${escapeHtml(gettext("(checking)"))}</small>` : ""
    }</span>`;
  }
  li.innerHTML = `
    <div class="deal-head">
      <span class="deal-suits" aria-hidden="true">${deal.variant.startsWith("EH") ? "♠♥♦♣" : "♠♥"}</span>
      <h2>${escapeHtml(title)}${level ? ` <small>${escapeHtml(level)}</small>` : ""}</h2>
    </div>
    <p class="deal-status"><span class="badge">${escapeHtml(statusLabel(deal.status))}</span> ${rankHtml}</p>
    <p class="deal-facts">${facts.map(escapeHtml).join(" · ") || "&nbsp;"}</p>
    <p class="deal-code"><code>${escapeHtml(deal.code)}</code></p>
    <div class="deal-actions">${actionButton(deal)}
      <a class="button ghost" href="/leaderboard/${DATE}/${deal.variant}/">${escapeHtml(gettext("Leaderboard"))}</a></div>`;
}

async function load() {
  try {
    const daily = await get("/api/daily/");
    DATE = daily.date;
    $("lobby-date").textContent = new Date(`${daily.date}T00:00:00Z`).toLocaleDateString(document.documentElement.lang, {
      timeZone: "UTC",
      weekday: "long",
      day: "numeric",
      month: "long",
    });
    endsAt = performance.now() + daily.seconds_left * 1000;
    tick();
    for (const deal of daily.deals) render(deal, null);
    $("deals").setAttribute("aria-busy", "false");
    // The rank of a finished attempt: the player's row of the day's leaderboard.
    await Promise.all(
      daily.deals
        .filter((d) => d.attempt && d.status !== "playing")
        .map(async (deal) => {
          try {
            const board = await get(`/api/leaderboard/${daily.date}/${deal.variant}/`);
            if (board.me) render(deal, board.me);
          } catch {
            /* no rank shown */
          }
        }),
    );
  } catch (err) {
    $("lobby-error").textContent = err.message;
  }
}

$("deals").addEventListener("click", async (e) => {
  const button = e.target.closest("[data-start]");
  if (!button) return;
  button.disabled = true;
  try {
    const attempt = await post("/api/games/", { daily: button.dataset.start });
    location.href = `/play/${attempt.id}/`;
  } catch (err) {
    $("lobby-error").textContent = err.message;
    button.disabled = false;
  }
});

setInterval(tick, 1000);
load();

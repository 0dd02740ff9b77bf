// The lobby: today's four daily deals with the player's status on each (rank
// once finished, from the leaderboard's `me`; the result card of a finished one,
// /play/{id}/#result), par, the time left in the UTC day, and the signed-in
// player's streak (the player record's `streak`: leaderboard/selectors.py).
// A deal is sealed while its day runs (PRODUCT.md, "Fair daily deals"): the lobby
// shows its commitment — the SHA-256 of its code — never a code; the codes are
// revealed on the day's page (/daily/{date}/) once the day is over.

import { addDays, escapeHtml, fmt, formatDay, formatMs, formatNumber, statusLabel } from "./i18n.js";
import { dealHead } from "./catalogue.js";
import { get, post } from "./api.js";
import { COPY_ICON, copyButtons } from "./copy.js";
import { setupNewGame } from "./newgame.js";
import { signedIn } from "./settings.js";
import { ensurePlayer, isGuest, signupHref } from "./guest.js";
import { setupRaceDialog, showInvites } from "./racenew.js";
import { setupQuickRace } from "./quickrace.js";

const $ = (id) => document.getElementById(id);
setupNewGame();
setupRaceDialog();
setupQuickRace();
showInvites();

let endsAt = 0; // performance.now() at which the UTC day ends
let DATE = ""; // the day of the deals shown (YYYY-MM-DD)
const FINISHED = new Set(["won", "resigned", "abandoned"]);
const SHORT = 12; // hex digits of a commitment shown; the whole one is in its title and copy button

function tick() {
  const left = Math.max(0, endsAt - performance.now());
  $("time-left").textContent = formatMs(left).padStart(7, "0");
  if (endsAt && left === 0) {
    endsAt = 0;
    setTimeout(load, 2000); // a new day: new deals
  }
}

function actionButtons(deal) {
  // Signed out too: Play makes this browser a guest first (guest.js, issue 24).
  if (deal.status === "playing") {
    return `<a class="button primary play" href="/play/${deal.attempt}/">${escapeHtml(gettext("Continue"))}</a>`;
  }
  if (deal.status === "not_started") {
    return `<button type="button" class="button primary play" data-start="${escapeHtml(deal.variant)}">${escapeHtml(gettext("Play"))}</button>`;
  }
  // The ranked attempt is over: its result, and its replay once the server opens
  // it (a win, or the day over). No practice of the deal while its day runs, for
  // anyone (PRODUCT.md, anti-cheat): it opens on the day's page once the day is over.
  let html = "";
  if (FINISHED.has(deal.status)) {
    html += `<a class="button" href="/play/${deal.attempt}/#result" data-result-link>${escapeHtml(gettext("Result"))}</a>`;
  }
  if (deal.attempt && deal.replays_open) {
    html += `<a class="button" href="/replay/${deal.attempt}/">${escapeHtml(gettext("Your replay"))}</a>`;
  }
  return html;
}

function sealHtml(deal) {
  const full = String(deal.commitment || "");
  if (!full) return "&nbsp;";
  const label = gettext("Commitment (SHA-256 of the code)");
  return `<span class="seal-label">${escapeHtml(gettext("Sealed"))}</span>
    <code class="commitment" data-commitment="${escapeHtml(full)}" title="${escapeHtml(`${label}: ${full}`)}">${escapeHtml(full.slice(0, SHORT))}…</code>
    <button type="button" class="icon-button small copy" data-copy="${escapeHtml(full)}" title="${escapeHtml(gettext("Copy the commitment"))}" aria-label="${escapeHtml(gettext("Copy the commitment"))}">${COPY_ICON}</button>`;
}

function render(deal, rank, count = 0) {
  const li = document.querySelector(`.deal[data-variant="${deal.variant}"]`);
  if (!li) return;
    li.className = `deal status-${deal.status}`;
  li.dataset.status = deal.status;
  const facts = [];
  if (deal.par != null) {
    facts.push(`<span class="par" data-par="${Number(deal.par)}">${escapeHtml(fmt(gettext("Par: %(n)s moves"), { n: formatNumber(deal.par) }))}</span>`);
  } else {
    facts.push(`<span class="par" data-par="">${escapeHtml(gettext("Par unknown: not proven winnable"))}</span>`);
  }
  if (deal.score != null && deal.status !== "not_started") {
    facts.push(escapeHtml(fmt(gettext("score %(score)s"), { score: formatNumber(deal.score) })));
  }
  let rankHtml = "";
  if (guestResult(deal)) {
    rankHtml = `<span class="rank unranked" data-rank="">${escapeHtml(gettext("not ranked yet"))}</span>`;
  } else if (rank) {
    const text = count
      ? fmt(gettext("rank %(rank)s of %(count)s"), { rank: formatNumber(rank.rank), count: formatNumber(count) })
      : fmt(gettext("rank %(rank)s"), { rank: formatNumber(rank.rank) });
    rankHtml = `<span class="rank" data-rank="${rank.rank}">${escapeHtml(text)}${
      rank.pending ? ` <small>${escapeHtml(gettext("(checking)"))}</small>` : ""
    }</span>`;
  }
  li.innerHTML = `
    ${dealHead(deal.variant)}
    <p class="deal-status"><span class="badge">${escapeHtml(statusLabel(deal.status))}</span> ${rankHtml}</p>
    <p class="deal-facts">${facts.join(" · ")}</p>
    <p class="deal-seal">${sealHtml(deal)}</p>
    <div class="deal-actions">${actionButtons(deal)}
      <a class="button ghost" href="/leaderboard/${DATE}/${deal.variant}/">${escapeHtml(gettext("Leaderboard"))}</a></div>`;
}

async function load() {
  try {
    const daily = await get("/api/daily/");
    DATE = daily.date;
    $("lobby-date").textContent = formatDay(daily.date, { weekday: "long", day: "numeric", month: "long" });
    $("today-link").href = `/daily/${daily.date}/`;
    $("yesterday-link").href = `/daily/${addDays(daily.date, -1)}/`;
    endsAt = performance.now() + daily.seconds_left * 1000;
    tick();
    for (const deal of daily.deals) render(deal, null);
    $("deals").setAttribute("aria-busy", "false");
    showStreak(daily.deals.some((d) => d.status === "won"));
    // The rank of a finished attempt: the player's row of the day's leaderboard.
    await Promise.all(
      daily.deals
        .filter((d) => d.attempt && d.status !== "playing" && !guestResult(d))
        .map(async (deal) => {
          try {
            const board = await get(`/api/leaderboard/${daily.date}/${deal.variant}/`);
            if (board.me) render(deal, board.me, board.count);
          } catch {
            /* no rank shown */
          }
        }),
    );
  } catch (err) {
    if (err.code === "being_dealt") {
      // The service has just started and is still proving today's deals (issue 38):
      // say so and ask again; they show as soon as they are dealt.
      for (const li of document.querySelectorAll(".deal.placeholder")) {
        li.textContent = gettext("Being dealt…");
      }
      setTimeout(load, 1000 * (Number(err.params?.wait) || 5));
      return;
    }
    $("lobby-error").textContent = err.message;
  }
}

/** The streak freezes held (0 to 3; the record's `streak.tokens`): each keeps the
 *  streak through one day without a win, spent by itself once that day is over. */
function freezes(tokens) {
  const held = tokens
    ? fmt(ngettext("%(n)s streak freeze", "%(n)s streak freezes", tokens), { n: formatNumber(tokens) })
    : gettext("No streak freeze");
  const how = gettext("One is earned every 10 days won (3 at most); it keeps your streak through a day without a win.");
  return `<span class="streak-freezes" id="streak-freezes" data-tokens="${tokens}" title="${escapeHtml(how)}"><span class="freeze-icon" aria-hidden="true">❄\uFE0E</span>${escapeHtml(held)}<span class="sr-only"> (${escapeHtml(how)})</span></span>`;
}

/** The current streak (days in a row with a won ranked daily, today counting once
 *  won) and the longest, from the player record: the one definition is the server's. */
async function showStreak(wonToday) {
  const el = $("streak");
  if (!el) return;
  try {
    const { streak } = await get(`/api/players/${encodeURIComponent(document.body.dataset.username)}/`);
    el.dataset.current = streak.current;
    el.dataset.longest = streak.longest;
    el.dataset.tokens = streak.tokens;
    const best = fmt(gettext("best %(n)s"), { n: formatNumber(streak.longest) });
    let html;
    if (streak.current > 0) {
      const days = fmt(ngettext("%(n)s-day streak", "%(n)s-day streak", streak.current), { n: formatNumber(streak.current) });
      html = `<span class="streak-flame" aria-hidden="true"></span><strong>${escapeHtml(days)}</strong> · ${escapeHtml(best)}`;
      if (!wonToday) html += ` <span class="muted">${escapeHtml(gettext("— win one of today's deals to keep it going."))}</span>`;
    } else if (streak.longest > 0) {
      html = `${escapeHtml(gettext("No streak running"))} · ${escapeHtml(best)} <span class="muted">${escapeHtml(gettext("— win one of today's deals to start a new one."))}</span>`;
    } else {
      html = `${escapeHtml(gettext("No streak yet: win a daily deal to start one, and win one every day to keep it."))}`;
    }
    el.innerHTML = `${html} ${freezes(streak.tokens)} <a href="/archive/" id="streak-archive">${escapeHtml(gettext("Your calendar"))}</a>`;
    el.hidden = false;
  } catch {
    el.hidden = true; /* no streak shown */
  }
}

/** A guest's finished daily: on no board until an account claims it. */
function guestResult(deal) {
  return isGuest() && deal.attempt && deal.status !== "playing";
}

async function start(button, body) {
  button.disabled = true;
  try {
    await ensurePlayer();
    const attempt = await post("/api/games/", body);
    location.href = `/play/${attempt.id}/`;
  } catch (err) {
    showStartError(err);
    button.disabled = false;
  }
}

/** Why a game did not start, where the player looks (above the deals, scrolled to);
 *  a visitor refused a guest (too many from their network: a school, a café, a
 *  carrier) is offered an account instead (issue 39). */
function showStartError(err) {
  const box = $("lobby-error");
  box.textContent = err.message;
  if (err.status === 429 && !signedIn() && !isGuest()) {
    const link = document.createElement("a");
    link.href = signupHref();
    link.id = "lobby-error-signup";
    link.className = "button small";
    link.textContent = gettext("Sign up to play now");
    box.append(" ", link);
  }
  box.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

$("deals").addEventListener("click", (e) => {
  const play = e.target.closest("[data-start]");
  if (play) start(play, { daily: play.dataset.start });
});
copyButtons($("deals"));

setInterval(tick, 1000);
load();

// A player's records and streaks (GET /api/players/{username}/): the streak
// freezes held and the days one was spent on too; the race rating (issue 29) and
// its last races; for a viewer in a club with the player, "Ranks among" one of
// those clubs (?club=<slug>, as the leaderboard's Show filter): the player's rank
// among its members on each daily (GET /api/players/{username}/?club=<slug>).

import { escapeHtml, fmt, formatMs, formatNumber } from "./i18n.js";
import { variantLabel } from "./catalogue.js";
import { api, get, post } from "./api.js";

const $ = (id) => document.getElementById(id);
const username = $("player").dataset.username;

function tile(label, value, attrs = "") {
  return `<div class="tile"${attrs}><span class="tile-value">${escapeHtml(value)}</span><span class="tile-label">${escapeHtml(label)}</span></div>`;
}

const longDate = (date) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(document.documentElement.lang, { timeZone: "UTC", dateStyle: "long" });

/** The days a streak freeze kept the streak going (the record's `streak.frozen`). */
function showFrozen(days) {
  const el = $("player-frozen");
  el.hidden = !days.length;
  el.textContent = days.length ? fmt(gettext("Days kept by a streak freeze: %(days)s"), { days: days.map(longDate).join(", ") }) : "";
}

/** The race rating's tile: "1623", or "1623?" while it is provisional (as lichess
 * shows a rating whose deviation is still high), the label saying so in words;
 * none before a first rated race. */
function raceTile(r) {
  if (!r) return "";
  const label = r.provisional ? gettext("Race rating (provisional)") : gettext("Race rating");
  const title = fmt(ngettext("±%(rd)s after %(n)s race", "±%(rd)s after %(n)s races", r.races), {
    rd: formatNumber(r.deviation),
    n: formatNumber(r.races),
  });
  const attrs = ` id="player-race-rating" data-rating="${r.rating}" data-provisional="${r.provisional}" title="${escapeHtml(title)}"`;
  return tile(label, `${formatNumber(r.rating)}${r.provisional ? "?" : ""}`, attrs);
}

const signed = (n) => (n > 0 ? `+${formatNumber(n)}` : n < 0 ? `−${formatNumber(-n)}` : "±0");

/** The last rated races, newest first: day, game, place of how many, the change. */
function showRaces(r) {
  const section = $("player-races");
  section.hidden = !r || !r.history.length;
  if (section.hidden) return;
  $("player-race-history").tBodies[0].innerHTML = r.history
    .map(
      (h) => `<tr><td>${h.race ? `<a href="/race/${encodeURIComponent(h.race)}/">${escapeHtml(longDate(h.at.slice(0, 10)))}</a>` : escapeHtml(longDate(h.at.slice(0, 10)))}</td>
        <td>${escapeHtml(variantLabel(h.variant))}</td>
        <td class="num">${escapeHtml(fmt(gettext("%(place)s of %(racers)s"), { place: formatNumber(h.place), racers: formatNumber(h.racers) }))}</td>
        <td class="num">${formatNumber(h.after)} (${signed(h.delta)})</td></tr>`,
    )
    .join("");
}
/** Follow or stop following (issue 29): null when signed out or on one's own page. */
function showFollow(following) {
  const button = $("player-follow");
  button.hidden = following == null;
  button.setAttribute("aria-pressed", String(Boolean(following)));
  button.textContent = following ? gettext("Following ✓") : gettext("Follow");
}

/** The viewer's clubs the player is in too (GET /api/clubs/ lists each one's
 *  members to its members): none signed out or as a guest. */
async function sharedClubs(player) {
  if (document.body.dataset.authenticated !== "1") return [];
  const { clubs } = await get("/api/clubs/");
  const name = player.toLowerCase();
  return clubs.filter((club) => (club.members || []).some((m) => m.player.toLowerCase() === name));
}

/** The player's rank among `club`'s members per daily, newest first (null: everyone). */
async function showClubRanks(slug) {
  $("player-ranks-hint").hidden = Boolean(slug);
  $("player-club-wrap").hidden = !slug;
  if (!slug) return;
  const body = $("player-club-ranks").tBodies[0];
  const p = await get(`/api/players/${encodeURIComponent(username)}/?club=${encodeURIComponent(slug)}`);
  const results = [...p.club.results].sort((a, b) => b.date.localeCompare(a.date) || a.variant.localeCompare(b.variant));
  body.innerHTML =
    results
      .map(
        (r) => `<tr data-date="${escapeHtml(r.date)}" data-variant="${escapeHtml(r.variant)}">
        <td><a href="/leaderboard/${escapeHtml(r.date)}/${escapeHtml(r.variant)}/?club=${encodeURIComponent(slug)}">${escapeHtml(longDate(r.date))}</a></td>
        <td>${escapeHtml(variantLabel(r.variant))}</td>
        <td class="num rank">${escapeHtml(fmt(gettext("#%(rank)s of %(count)s"), { rank: formatNumber(r.rank), count: formatNumber(r.count) }))}</td></tr>`,
      )
      .join("") || `<tr><td colspan="3" class="empty">${escapeHtml(gettext("No daily deal finished yet."))}</td></tr>`;
}

/** "Ranks among: Everyone / <club>…", shown when the viewer shares a club with the
 *  player; the choice is kept in the URL (?club=), as on the leaderboard. */
async function showRanksAmong(player) {
  const clubs = await sharedClubs(player);
  $("player-ranks").hidden = !clubs.length;
  if (!clubs.length) return;
  const select = $("player-ranks-among");
  for (const club of clubs) select.add(new Option(club.name, club.slug));
  const asked = new URLSearchParams(location.search).get("club");
  select.value = clubs.some((c) => c.slug === asked) ? asked : "";
  select.addEventListener("change", async () => {
    const url = new URL(location.href);
    url.searchParams.delete("club");
    if (select.value) url.searchParams.set("club", select.value);
    history.replaceState(null, "", url);
    try {
      $("player-error").textContent = "";
      await showClubRanks(select.value);
    } catch (err) {
      $("player-error").textContent = err.message;
    }
  });
  await showClubRanks(select.value);
}

$("player-follow").addEventListener("click", async (e) => {
  const following = e.currentTarget.getAttribute("aria-pressed") === "true";
  const path = `/api/players/${encodeURIComponent(username)}/follow/`;
  try {
    const answer = following ? await api(path, { method: "DELETE" }) : await post(path);
    showFollow(answer.following);
  } catch (err) {
    $("player-error").textContent = err.message;
  }
});

try {
  const p = await get(`/api/players/${encodeURIComponent(username)}/`);
  $("player-name").textContent = p.username;
  $("player-joined").textContent = fmt(gettext("Playing since %(date)s"), {
    date: longDate(p.joined),
  });
  $("player-totals").innerHTML = [
    tile(gettext("Daily deals played"), formatNumber(p.played)),
    tile(gettext("Won"), formatNumber(p.won)),
    tile(gettext("Current streak"), fmt(ngettext("%(n)s day", "%(n)s days", p.streak.current), { n: p.streak.current })),
    tile(gettext("Longest streak"), fmt(ngettext("%(n)s day", "%(n)s days", p.streak.longest), { n: p.streak.longest })),
    tile(gettext("Streak freezes"), formatNumber(p.streak.tokens)),
    raceTile(p.race_rating),
  ].join("");
  showFrozen(p.streak.frozen);
  showRaces(p.race_rating);
  showFollow(p.following);
  const rows = Object.entries(p.variants)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([variant, r]) => `<tr data-variant="${escapeHtml(variant)}"><td>${escapeHtml(variantLabel(variant))}</td>
        <td class="num">${formatNumber(r.played)}</td><td class="num">${formatNumber(r.won)}</td>
        <td class="num">${Math.round(r.win_rate * 100)} %</td><td class="num">${formatMs(r.best_ms)}</td>
        <td class="num">${formatNumber(r.best_score)}</td></tr>`,
    );
  $("player-variants").tBodies[0].innerHTML =
    rows.join("") || `<tr><td colspan="6" class="empty">${escapeHtml(gettext("No daily deal finished yet."))}</td></tr>`;
  await showRanksAmong(p.username);
} catch (err) {
  $("player-error").textContent = err.message;
}

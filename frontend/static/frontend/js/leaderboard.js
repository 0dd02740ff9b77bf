// A day's leaderboard for one variant: pages from the API, the player's own row
// highlighted, live updates over `/ws/leaderboard/{date}/{variant}/` (on `rows`
// or `removed` the page is fetched again: ranks below a new row all move).

import { escapeHtml, fmt, formatMs, formatNumber } from "./i18n.js";
import { get } from "./api.js";
import { followLeaderboard } from "./feed.js";
import { showConnection } from "./socket.js";

const $ = (id) => document.getElementById(id);
const root = $("leaderboard");
const { date, variant } = root.dataset;
const query = new URLSearchParams(location.search);
let page = Number(query.get("page")) || 1;
let pages = 1;
// The board filtered to a circle (issue 29): ?club=<slug> or ?following=1; the
// rows are then that circle's, ranked among it, each with its overall rank.
let filter = query.get("club") ? `club:${query.get("club")}` : query.get("following") === "1" ? "following" : "";
const filterQuery = () =>
  filter === "following" ? "&following=1" : filter.startsWith("club:") ? `&club=${encodeURIComponent(filter.slice(5))}` : "";

// Why the replays are closed is the server's sentence (`replays_closed_reason`);
// the ones it is known to send are shown in the player's language, any other as sent.
const CLOSED = {
  "Sign in to watch replays.": () => gettext("Sign in to watch replays."),
  "Replays of a daily deal open to players who won it, and to everyone when the day is over.": () =>
    gettext("Replays of a daily deal open to players who won it, and to everyone when the day is over."),
};

function showClosed(data) {
  const el = $("lb-closed");
  const reason = data.replays_open === false ? data.replays_closed_reason : null;
  el.hidden = !reason;
  el.textContent = reason ? CLOSED[reason]?.() || reason : "";
}

/** The API's replay link (/api/games/7/replay/) → the viewer's page (/replay/7/). */
function replayPage(url) {
  const m = url && url.match(/games\/(\d+)\/replay/);
  return m ? `/replay/${m[1]}/` : null;
}

function row(r, me) {
  const mine = me && r.player === me.player;
  const replay = replayPage(r.replay);
  const result = r.won ? gettext("won") : r.status === "abandoned" ? gettext("abandoned") : gettext("resigned");
  const check = r.verified
    ? `<span class="verified" title="${escapeHtml(gettext("checked by replaying it"))}">✓<span class="sr-only">${escapeHtml(gettext("checked"))}</span></span>`
    : `<span class="pending" title="${escapeHtml(gettext("being checked"))}">…<span class="sr-only">${escapeHtml(gettext("pending"))}</span></span>`;
  const classes = [mine ? "me" : "", r.won ? "" : "not-won"].filter(Boolean).join(" ");
  return `<tr data-player="${escapeHtml(r.player)}"${classes ? ` class="${classes}"` : ""}${mine ? ' aria-current="true"' : ""}>
    <td class="num rank">${formatNumber(r.rank)}${
      r.global_rank ? ` <small class="global-rank" title="${escapeHtml(gettext("Overall rank"))}">(${escapeHtml(fmt(gettext("#%(rank)s overall"), { rank: formatNumber(r.global_rank) }))})</small>` : ""
    }</td>
    <td><a href="/players/${encodeURIComponent(r.player)}/">${escapeHtml(r.player)}</a></td>
    <td class="col-result ${r.won ? "won" : "lost"}">${escapeHtml(result)}</td>
    <td class="num">${formatNumber(r.score)}</td>
    <td class="num">${formatMs(r.ms)}</td>
    <td class="num col-moves">${formatNumber(r.moves)}</td>
    <td class="check">${check}</td>
    <td>${replay ? `<a class="replay-link" href="${replay}" title="${escapeHtml(gettext("Replay"))}" aria-label="${escapeHtml(gettext("Replay"))}">▶<span class="label"> ${escapeHtml(gettext("Replay"))}</span></a>` : ""}</td>
  </tr>`;
}

async function load() {
  try {
    const data = await get(`/api/leaderboard/${date}/${variant}/?page=${page}${filterQuery()}`);
    pages = data.pages;
    $("lb-rows").innerHTML = data.results.map((r) => row(r, data.me)).join("");
    $("lb-empty").hidden = data.results.length > 0;
    showClosed(data); // once, above the table: no row has a replay link then
    $("lb-error").textContent = "";
    $("lb-page").textContent = fmt(gettext("Page %(page)s of %(pages)s"), { page, pages });
    $("lb-prev").disabled = page <= 1;
    $("lb-next").disabled = page >= pages;
    const me = $("lb-me");
    const onPage = data.me && data.results.some((r) => r.player === data.me.player);
    me.hidden = !data.me || onPage;
    if (data.me && !onPage) {
      me.innerHTML = `${escapeHtml(fmt(gettext("Your rank: %(rank)s"), { rank: formatNumber(data.me.rank) }))} · ${formatNumber(
        data.me.score,
      )} · ${formatMs(data.me.ms)}`;
    }
  } catch (err) {
    $("lb-rows").innerHTML = "";
    $("lb-empty").hidden = true;
    $("lb-error").textContent = err.message;
  }
}

function go(next) {
  page = Math.max(1, Math.min(pages, next));
  const url = new URL(location.href);
  url.searchParams.set("page", String(page));
  history.replaceState(null, "", url);
  load();
}

const select = $("lb-filter");
if (select) {
  // My clubs join the choices; the variant tabs and the date picker keep the filter.
  get("/api/clubs/")
    .then(({ clubs }) => {
      for (const club of clubs) select.add(new Option(club.name, `club:${club.slug}`));
      select.value = filter;
    })
    .catch(() => {});
  select.value = filter;
  select.addEventListener("change", () => {
    filter = select.value;
    const url = new URL(location.href);
    url.searchParams.delete("club");
    url.searchParams.delete("following");
    url.searchParams.delete("page");
    if (filter === "following") url.searchParams.set("following", "1");
    else if (filter) url.searchParams.set("club", filter.slice(5));
    history.replaceState(null, "", url);
    keepFilter();
    page = 1;
    load();
  });
}

/** The variant tabs keep the filter chosen. */
function keepFilter() {
  for (const tab of document.querySelectorAll("#lb-tabs .tab")) {
    const url = new URL(tab.href);
    url.search = filterQuery().replace(/^&/, "");
    tab.href = url.pathname + url.search;
  }
}
keepFilter();

$("lb-prev").addEventListener("click", () => go(page - 1));
$("lb-next").addEventListener("click", () => go(page + 1));
$("lb-date").addEventListener("change", (e) => {
  if (/^\d{4}-\d{2}-\d{2}$/.test(e.target.value)) location.href = `/leaderboard/${e.target.value}/${variant}/${filterQuery().replace(/^&/, "?")}`;
});

followLeaderboard(date, variant, {
  onChange: load,
  delay: 250, // a burst of finishes: one fetch
  onOpen: load, // anything missed while the socket was down
  onStatus: (s) => showConnection($("connection"), s),
});
// The current tab in the middle of its strip. The strip is scrolled, not the tab
// scrolled into view: Chromium moves the keyboard's starting point to an element
// scrolled into view, and the first Tab then passed the skip link by.
const current = document.querySelector('.tab[aria-current="page"]');
if (current?.parentElement) {
  const tab = current.getBoundingClientRect();
  const strip = current.parentElement.getBoundingClientRect();
  current.parentElement.scrollLeft += tab.left + tab.width / 2 - (strip.left + strip.width / 2);
}

// A club's page (issue 29): today's results of its members for each variant,
// live like the day's board (the leaderboard socket says a board changed; the
// club's filtered board is fetched again), the weekly standing with a week
// picker, its members and invite. Non-members see its name only.

import { escapeHtml, fmt, formatDay, formatMs, formatNumber } from "./i18n.js";
import { api, get, post } from "./api.js";
import { variantLabel } from "./catalogue.js";
import { followLeaderboard } from "./feed.js";
import { showConnection } from "./socket.js";
import { copyText } from "./copy.js";

const $ = (id) => document.getElementById(id);
const root = $("club");
const { slug, today } = root.dataset;
const variants = root.dataset.variants.split(",");
const me = document.body.dataset.username;
let club = null;
let week = null; // null: this week
let shownWeek = null;

const enc = encodeURIComponent;

function showError(err) {
  $("club-error").textContent = err ? err.message : "";
}

function resultLabel(r) {
  return r.won ? gettext("won") : r.status === "abandoned" ? gettext("abandoned") : gettext("resigned");
}

async function loadDay(variant) {
  const el = document.querySelector(`[data-club-variant="${variant}"] tbody`);
  try {
    const data = await get(`/api/leaderboard/${today}/${variant}/?club=${enc(slug)}`);
    el.innerHTML =
      data.results
        .map(
          (r) => `<tr data-player="${escapeHtml(r.player)}"${r.player === me ? ' class="me" aria-current="true"' : ""}>
            <td class="num rank">${formatNumber(r.rank)}</td>
            <td><a href="/players/${enc(r.player)}/">${escapeHtml(r.player)}</a></td>
            <td class="col-result ${r.won ? "won" : "lost"}">${escapeHtml(resultLabel(r))}</td>
            <td class="num">${formatNumber(r.score)}</td>
            <td class="num">${formatMs(r.ms)}</td>
            <td class="num global-rank">${formatNumber(r.global_rank)}</td></tr>`,
        )
        .join("") || `<tr><td colspan="6" class="empty">${escapeHtml(gettext("No member has finished this deal yet."))}</td></tr>`;
  } catch (err) {
    showError(err);
  }
}

function dayTables() {
  $("club-day").innerHTML = variants
    .map(
      (v) => `<section class="club-variant" data-club-variant="${escapeHtml(v)}">
        <h3 id="club-v-${escapeHtml(v)}"><a href="/leaderboard/${today}/${escapeHtml(v)}/?club=${enc(slug)}">${escapeHtml(variantLabel(v))}</a></h3>
        <div class="table-wrap" tabindex="0" role="region" aria-labelledby="club-v-${escapeHtml(v)}">
        <table class="results"><thead><tr>
          <th scope="col" class="num">${escapeHtml(gettext("Rank"))}</th>
          <th scope="col">${escapeHtml(gettext("Player"))}</th>
          <th scope="col" class="col-result">${escapeHtml(gettext("Result"))}</th>
          <th scope="col" class="num">${escapeHtml(gettext("Score"))}</th>
          <th scope="col" class="num">${escapeHtml(gettext("Time"))}</th>
          <th scope="col" class="num">${escapeHtml(gettext("Overall"))}</th>
        </tr></thead><tbody></tbody></table></div></section>`,
    )
    .join("");
}

async function loadWeek() {
  try {
    const data = await get(`/api/clubs/${enc(slug)}/week/${week ? `?week=${week}` : ""}`);
    shownWeek = data;
    const short = { day: "numeric", month: "short" };
    $("week-label").textContent = fmt(gettext("%(start)s – %(end)s"), {
      start: formatDay(data.start, short),
      end: formatDay(data.end, short),
    });
    $("week-label").title = data.week;
    $("week-prev").disabled = false;
    $("week-next").disabled = !data.next;
    $("week-rows").innerHTML = data.standing
      .map(
        (e) => `<tr data-player="${escapeHtml(e.player)}"${e.player === me ? ' class="me" aria-current="true"' : ""}>
          <td class="num rank">${formatNumber(e.rank)}</td>
          <td><a href="/players/${enc(e.player)}/">${escapeHtml(e.player)}</a></td>
          <td class="num points">${formatNumber(e.points)}</td>
          <td class="num">${formatNumber(e.played)}</td>
          <td class="num">${formatNumber(e.won)}</td></tr>`,
      )
      .join("");
  } catch (err) {
    showError(err);
  }
}

function showMembers() {
  $("club-members").innerHTML = club.members
    .map((m) => {
      const owner = m.player === club.owner;
      const actions =
        club.is_owner && !owner
          ? ` <button type="button" class="link-button" data-remove="${escapeHtml(m.player)}">${escapeHtml(gettext("Remove"))}</button>
              <button type="button" class="link-button" data-hand-over="${escapeHtml(m.player)}">${escapeHtml(gettext("Make owner"))}</button>`
          : "";
      return `<li data-player="${escapeHtml(m.player)}"><a href="/players/${enc(m.player)}/">${escapeHtml(m.player)}</a>${
        owner ? ` <span class="muted">(${escapeHtml(gettext("owner"))})</span>` : ""
      }${actions}</li>`;
    })
    .join("");
}

function show(data) {
  club = data;
  $("club-name").textContent = club.name;
  document.title = club.name;
  $("club-about").textContent = fmt(
    ngettext("%(n)s member · owner %(owner)s", "%(n)s members · owner %(owner)s", club.members_count),
    { n: formatNumber(club.members_count), owner: club.owner },
  );
  $("club-outside").hidden = club.member;
  $("club-inside").hidden = !club.member;
  if (!club.member) return;
  $("club-invite").textContent = new URL(club.invite, location.href).href;
  $("club-code").textContent = club.code;
  $("club-renew").hidden = !club.is_owner;
  $("club-delete").hidden = !club.is_owner;
  $("club-leave").hidden = club.is_owner;
  showMembers();
}

async function act(call) {
  showError(null);
  try {
    const data = await call();
    if (data) show(data);
  } catch (err) {
    showError(err);
  }
}

$("club-copy").addEventListener("click", (e) => copyText($("club-invite").textContent, e.currentTarget, $("club-invite")));
$("club-renew").addEventListener("click", () => act(() => post(`/api/clubs/${enc(slug)}/code/`)));
$("club-leave").addEventListener("click", () =>
  act(async () => {
    await post(`/api/clubs/${enc(slug)}/leave/`);
    location.href = "/clubs/";
  }),
);
$("club-delete").addEventListener("click", () => {
  if (!confirm(gettext("Delete this club for every member?"))) return;
  act(async () => {
    await api(`/api/clubs/${enc(slug)}/`, { method: "DELETE" });
    location.href = "/clubs/";
  });
});
$("club-members").addEventListener("click", (e) => {
  const remove = e.target.closest("[data-remove]")?.dataset.remove;
  const handOver = e.target.closest("[data-hand-over]")?.dataset.handOver;
  if (remove) act(() => api(`/api/clubs/${enc(slug)}/members/${enc(remove)}/`, { method: "DELETE" }));
  if (handOver) act(() => post(`/api/clubs/${enc(slug)}/owner/`, { player: handOver }));
});
$("week-prev").addEventListener("click", () => {
  week = shownWeek?.previous;
  loadWeek();
});
$("week-next").addEventListener("click", () => {
  week = shownWeek?.next;
  loadWeek();
});

try {
  show(await get(`/api/clubs/${enc(slug)}/`));
  if (club.member) {
    dayTables();
    variants.forEach(loadDay);
    loadWeek();
    variants.forEach((variant, index) =>
      followLeaderboard(today, variant, {
        onChange: () => {
          loadDay(variant);
          if (!week || week === shownWeek?.week) loadWeek();
        },
        delay: 250,
        onOpen: () => loadDay(variant),
        onStatus: index === 0 ? (s) => showConnection($("connection"), s) : () => {},
      }),
    );
  } else {
    $("connection").hidden = true;
  }
} catch (err) {
  $("connection").hidden = true;
  showError(err);
}

// The archive: a calendar of the daily deals, one month a page (?month=YYYY-MM).
// Each day that had deals links to its page (/daily/{date}/: codes, proofs and
// leaderboards once it is over, and "Play this deal"). Signed in, each day shows
// the player's ranked result on each deal (GET /api/players/{name}/calendar/);
// signed out, the days alone (GET /api/calendar/). The calendar names no deal.
// A day a streak freeze was spent on (the day's `frozen`) shows a snowflake.

import { LANG, escapeHtml, fmt, formatDay, statusLabel } from "./i18n.js";
import { variantLabel } from "./catalogue.js";
import { get } from "./api.js";
import { signedIn } from "./settings.js";
import "./difficultytable.js";

const $ = (id) => document.getElementById(id);
const root = $("archive");
const MONDAY = Date.UTC(2024, 0, 1); // a Monday: weeks start on Monday (ISO 8601)
const DAY_MS = 86_400_000;

/** The mark a result shows: only a win counts for the record and the streak. */
const MARK = {
  won: "won",
  resigned: "lost",
  abandoned: "lost",
  playing: "playing",
  disqualified: "void",
  failed_check: "void",
};

function resultLabel(result) {
  switch (result) {
    case undefined:
      return gettext("Not played");
    case "disqualified":
      return gettext("Disqualified");
    case "failed_check":
      return gettext("Failed the replay check");
    default:
      return statusLabel(result);
  }
}

const monthDate = (month) => new Date(`${month}-01T00:00:00Z`);
const monthName = (month) =>
  monthDate(month).toLocaleDateString(LANG, { month: "long", year: "numeric", timeZone: "UTC" });
const longDate = (date) => formatDay(date, { weekday: "long", day: "numeric", month: "long", year: "numeric" });

function weekdays() {
  return Array.from({ length: 7 }, (_, i) => {
    const day = new Date(MONDAY + i * DAY_MS);
    const short = day.toLocaleDateString(LANG, { weekday: "short", timeZone: "UTC" });
    const long = day.toLocaleDateString(LANG, { weekday: "long", timeZone: "UTC" });
    return `<th scope="col" abbr="${escapeHtml(long)}">${escapeHtml(short)}</th>`;
  }).join("");
}

/** One mark per variant, always in the legend's order: a variant without a deal
 *  that day keeps its place, blank. */
function marks(day, variants) {
  const spans = variants.map((variant) => {
    if (!day.dailies.includes(variant)) return `<span class="mark" data-variant="${escapeHtml(variant)}" data-result="absent"></span>`;
    const result = day.results[variant];
    return `<span class="mark" data-variant="${escapeHtml(variant)}" data-result="${MARK[result] || "none"}" data-status="${escapeHtml(result || "")}"></span>`;
  });
  return `<span class="marks" aria-hidden="true">${spans.join("")}</span>`;
}

function cell(date, day, mine, variants) {
  const number = Number(date.slice(8));
  if (!day) return `<td class="cal-future"><span class="cal-day"><span class="cal-num">${number}</span></span></td>`;
  const today = day.today ? ' aria-current="date"' : "";
  if (!day.dailies.length) {
    return `<td class="cal-empty"><span class="cal-day" data-date="${date}" title="${escapeHtml(gettext("No daily deals on this day"))}"><span class="cal-num">${number}</span></span></td>`;
  }
  let label = longDate(date);
  if (mine) {
    const parts = day.dailies.map((v) => fmt(gettext("%(deal)s: %(result)s"), { deal: variantLabel(v), result: resultLabel(day.results[v]) }));
    label += ` — ${parts.join("; ")}`;
  }
  // A streak freeze was spent on the day (the record's `streak.frozen`): the streak went on.
  const frozen = mine && day.frozen;
  if (frozen) label += ` — ${gettext("a streak freeze kept the streak going")}`;
  const won = day.dailies.some((v) => day.results[v] === "won");
  const classes = [day.today && "cal-today", won && "cal-won", frozen && "cal-frozen"].filter(Boolean).join(" ");
  const freeze = frozen ? '<span class="cal-freeze" aria-hidden="true">❄\uFE0E</span>' : "";
  return `<td class="${classes}"><a class="cal-day" data-date="${date}" href="/daily/${date}/"${today} aria-label="${escapeHtml(label)}" title="${escapeHtml(label)}"><span class="cal-num">${number}</span>${freeze}${mine ? marks(day, variants) : ""}</a></td>`;
}

function render(calendar, mine) {
  const [year, month] = calendar.month.split("-").map(Number);
  const first = Date.UTC(year, month - 1, 1);
  const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offset = (new Date(first).getUTCDay() + 6) % 7; // days before the 1st in its week
  const byDate = new Map(calendar.days.map((d) => [d.date, d]));
  const cells = Array(offset).fill('<td class="cal-pad"></td>');
  for (let i = 0; i < length; i++) {
    const date = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    cells.push(cell(date, byDate.get(date), mine, calendar.variants));
  }
  while (cells.length % 7) cells.push('<td class="cal-pad"></td>');
  const rows = [];
  for (let i = 0; i < cells.length; i += 7) rows.push(`<tr>${cells.slice(i, i + 7).join("")}</tr>`);
  $("cal-weeks").innerHTML = rows.join("");
  $("archive-month").textContent = monthName(calendar.month);
  document.title = `${monthName(calendar.month)} · ${document.title}`;
  for (const [id, target, arrow] of [["archive-prev", calendar.previous, "←"], ["archive-next", calendar.next, "→"]]) {
    const link = $(id);
    link.hidden = !target;
    if (!target) continue;
    link.href = `/archive/?month=${target}`;
    link.textContent = id === "archive-prev" ? `${arrow} ${monthName(target)}` : `${monthName(target)} ${arrow}`;
  }
  const order = $("legend-order");
  if (order) order.innerHTML = calendar.variants.map((v) => `<li>${escapeHtml(variantLabel(v))}</li>`).join("");
}

$("cal-weekdays").innerHTML = weekdays();
try {
  const { month } = root.dataset;
  const mine = signedIn();
  const who = mine ? `/api/players/${encodeURIComponent(document.body.dataset.username)}/calendar/` : "/api/calendar/";
  render(await get(`${who}?month=${encodeURIComponent(month)}`), mine);
} catch (err) {
  $("archive-error").textContent = err.message;
} finally {
  $("calendar").setAttribute("aria-busy", "false");
}

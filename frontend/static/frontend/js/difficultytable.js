// The archive's table of predicted against measured difficulty (issue 27,
// GET /api/difficulty/?month=YYYY-MM): for each daily deal of the month whose
// day is over, the level predicted at its start and the level its players'
// results measured, their win rate and how many they were. A day still running
// is not in it. It reads the month the archive page shows (#archive's
// data-month) and draws into #difficulty-table; the calendar is archive.js's,
// which imports this module for its effect.

import { escapeHtml, formatNumber } from "./i18n.js";
import { variantLabel } from "./catalogue.js";
import { get } from "./api.js";
import { levelText } from "./difficulty.js";

const $ = (id) => document.getElementById(id);

function levelCell(block) {
  return `<td class="level" data-level="${block?.level ?? ""}">${escapeHtml(levelText(block))}</td>`;
}

function deltaText(delta) {
  if (delta == null) return "";
  if (delta === 0) return gettext("as predicted");
  return delta > 0 ? gettext("harder than predicted") : gettext("easier than predicted");
}

function row(day) {
  const rate = day.win_rate == null ? "" : `${formatNumber(Math.round(day.win_rate * 100))} %`;
  return `<tr data-date="${day.date}" data-variant="${escapeHtml(day.variant)}">
    <th scope="row"><a href="/daily/${day.date}/">${escapeHtml(day.date)}</a></th>
    <td>${escapeHtml(variantLabel(day.variant))}</td>
    ${levelCell(day.predicted)}
    ${levelCell(day.measured)}
    <td class="num">${escapeHtml(rate)}</td>
    <td class="num">${day.players == null ? "" : escapeHtml(formatNumber(day.players))}</td>
    <td class="delta" data-delta="${day.delta ?? ""}">${escapeHtml(deltaText(day.delta))}</td>
  </tr>`;
}

async function load() {
  try {
    const data = await get(`/api/difficulty/?month=${encodeURIComponent($("archive").dataset.month)}`);
    $("difficulty-rows").innerHTML = data.days.map(row).join("");
    $("difficulty-empty").hidden = data.days.length > 0;
  } catch (err) {
    $("difficulty-error").textContent = err.message;
  } finally {
    $("difficulty-table").setAttribute("aria-busy", "false");
  }
}

// Not awaited: the calendar (archive.js, which imports this module) is not kept waiting.
load();

// Games in progress that the viewer may watch (GET /api/live/), refreshed.

import { dailyLabel, escapeHtml, fmt, formatNumber, LANG } from "./i18n.js";
import { variantLabel } from "./catalogue.js";
import { get } from "./api.js";

const $ = (id) => document.getElementById(id);
const relative = new Intl.RelativeTimeFormat(LANG, { numeric: "auto" });

function since(iso) {
  const minutes = Math.round((Date.parse(iso) - Date.now()) / 60_000);
  return minutes > -60 ? relative.format(minutes, "minute") : relative.format(Math.round(minutes / 60), "hour");
}

/** The deal's code, or — a daily whose day runs has none (`code: null`) — its day. */
function dealName(g) {
  return typeof g.code === "string" && g.code ? g.code : dailyLabel(g.daily);
}

async function load() {
  try {
    const games = await get("/api/live/");
    $("live-list").innerHTML = games
      .map(
        (g) => `<li class="live-item" data-attempt="${g.id}" data-variant="${escapeHtml(g.variant)}">
          <div><strong><a href="/players/${encodeURIComponent(g.player)}/">${escapeHtml(g.player)}</a></strong>
            <span class="muted">${escapeHtml(variantLabel(g.variant))}${g.ranked ? ` · ${escapeHtml(gettext("ranked"))}` : ""}</span>
            <code class="live-code">${escapeHtml(dealName(g))}</code></div>
          <div class="muted">${escapeHtml(fmt(gettext("%(moves)s moves · score %(score)s · started %(since)s"), {
            moves: formatNumber(g.moves),
            score: formatNumber(g.score),
            since: since(g.started_at),
          }))}</div>
          <a class="button primary" href="/watch/${g.id}/">${escapeHtml(gettext("Watch"))}</a>
        </li>`,
      )
      .join("");
    $("live-empty").hidden = games.length > 0;
    $("live-error").textContent = "";
  } catch (err) {
    $("live-error").textContent = err.message;
  } finally {
    $("live-list").setAttribute("aria-busy", "false");
  }
}

load();
setInterval(load, 15_000);

// "Re-check the leaderboard" on the page of a day that is over (issue 27,
// deliverable 3): the day's results file — every counted ranked result with all
// its actions (GET /api/daily/{date}/{variant}/results.jsonl) — its SHA-256 as
// the server published it, a download button, and the two commands that check
// it offline: `sha256sum` must print the hash, and the engine's `verify-day`
// must say every result holds. Everything shown comes from the `results` entry
// of /api/daily/{date}/; nothing is computed or judged here. While the file is
// not built yet (`results` null) the block says when it will be.

import { escapeHtml, fmt, formatNumber } from "./i18n.js";
import { COPY_ICON } from "./copy.js";

function copyButton(id) {
  const label = escapeHtml(gettext("Copy the SHA-256"));
  return `<button type="button" class="icon-button small copy" data-copy-from="${id}" title="${label}" aria-label="${label}">${COPY_ICON}</button>`;
}

function builtAt(iso) {
  const when = new Date(iso);
  return Number.isNaN(when.getTime()) ? iso : when.toLocaleString(document.documentElement.lang || undefined, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";
}

/** The files this one replaced (issue 37): when and why each was re-issued,
 *  and its hash, so a hash noted before still says which file it was. */
function reissued(earlier) {
  if (!earlier || !earlier.length) return "";
  const why = {
    deleted: gettext("a player on the board deleted their account: the file names them as the board does"),
    changed: gettext("a result on the board changed"),
  };
  const items = earlier
    .slice()
    .reverse()
    .map(
      (e) => `<li><span class="reissued-when">${escapeHtml(fmt(gettext("Re-issued %(when)s: %(why)s."), { when: builtAt(e.replaced_at), why: why[e.reason] || why.changed }))}</span>
        <span class="muted small">${escapeHtml(gettext("Earlier SHA-256:"))} <code class="day-results-earlier">${escapeHtml(e.sha256)}</code></span></li>`,
    )
    .join("");
  return `<div class="day-results-reissued"><p class="small"><strong>${escapeHtml(gettext("This file was re-issued."))}</strong></p><ul class="small">${items}</ul></div>`;
}

/** The block for one revealed deal `deal` (the i-th of the page); `commandBlock`
 *  is the day page's own rendering of a command with its copy button. */
export function dayResultsBlock(deal, i, commandBlock) {
  const heading = `<h3 id="recheck-${i}">${escapeHtml(gettext("Re-check the leaderboard"))}</h3>`;
  const results = deal.results;
  if (!results) {
    return `<section class="check-box day-results" aria-labelledby="recheck-${i}" data-built="false">
      ${heading}
      <p class="muted small">${escapeHtml(gettext("The file of this day's results is made within the hour after its last games close. Come back a little later."))}</p>
    </section>`;
  }
  const file = results.file;
  const count = ngettext("%(n)s result", "%(n)s results", results.count);
  // The command's own words (it speaks English): quoted as it prints them.
  const holds = results.count === 1 ? "all 1 result holds" : `all ${results.count} results hold`;
  return `<section class="check-box day-results" aria-labelledby="recheck-${i}" data-built="true" data-count="${results.count}">
    ${heading}
    <p class="muted small">${escapeHtml(fmt(gettext("Every result on the final leaderboard (%(count)s), each with all its actions as the server recorded them: replay them yourself and see the same scores, moves and ranks."), { count: fmt(count, { n: formatNumber(results.count) }) }))}</p>
    <dl class="day-facts">
      <div class="wide"><dt>${escapeHtml(gettext("SHA-256 of the file"))}</dt><dd><code class="day-results-sha" id="results-sha-${i}">${escapeHtml(results.sha256)}</code> ${copyButton(`results-sha-${i}`)}</dd></div>
      <div><dt>${escapeHtml(gettext("File built"))}</dt><dd>${escapeHtml(builtAt(results.built_at))}</dd></div>
    </dl>
    ${reissued(results.earlier)}
    <ol class="check-commands">
      <li><p>${escapeHtml(gettext("Check that the file is the one published: this must print the SHA-256 above."))}</p>
        ${commandBlock(`cmd-results-hash-${i}`, `sha256sum ${file}`)}</li>
      <li><p>${escapeHtml(fmt(gettext("Replay every result with the engine: it must say \"%(holds)s\"."), { holds }))}</p>
        ${commandBlock(`cmd-results-verify-${i}`, `python -m games.engine verify-day ${file}`)}</li>
    </ol>
    <div class="deal-actions"><a class="button day-results-download" href="${escapeHtml(results.url)}" download="${escapeHtml(file)}">${escapeHtml(gettext("Download the results (.jsonl)"))}</a></div>
  </section>`;
}

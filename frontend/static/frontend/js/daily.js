// One day's daily deals (GET /api/daily/{date}/; PRODUCT.md "Fair daily deals").
// While the day runs: each variant's commitment (SHA-256 of its code) and par.
// Once it is over: the code, the solver's winning line (the proof), and the three
// commands that let anyone check them with the engine's command line — the hash,
// the deal, and the proof replayed to a win. The proof is offered as a JSON-lines
// file made here from the answer; nothing is computed or judged by the client.
// A day that is over also offers each deal for practice ("Play this deal": a new
// unranked game of its now public code, POST /api/games/ {"code"}), and to race
// ("Race this deal") but for a game that hides cards (Easy Harp: raced on a fresh
// secret deal only, issue 36); a day still running has no code to offer, and no
// such button.

import { escapeHtml, fmt, formatMs, formatNumber } from "./i18n.js";
import { dealHead } from "./catalogue.js";
import { get, post } from "./api.js";
import { COPY_ICON, copyButtons } from "./copy.js";
import { ensurePlayer } from "./guest.js";
import { dayResultsBlock } from "./dayresults.js";
import { showDifficulty } from "./difficulty.js";
import { openRace, pastDailyRaceable } from "./racenew.js";

const $ = (id) => document.getElementById(id);
const root = $("day");
const { date } = root.dataset;
let endsAt = 0;

/** One action a line, as `python -m games.engine replay` reads them. */
const jsonLines = (actions) => actions.map((a) => JSON.stringify(a)).join("\n") + "\n";
// A code is letters, digits and hyphens: safe inside single quotes, and shown as sent.
const quote = (text) => `'${String(text).replaceAll("'", "'\\''")}'`;

function commandBlock(id, text) {
  return `<div class="command"><pre tabindex="0"><code id="${id}">${escapeHtml(text)}</code></pre><button type="button" class="icon-button small copy" data-copy-from="${id}" title="${escapeHtml(gettext("Copy the command"))}" aria-label="${escapeHtml(gettext("Copy the command"))}">${COPY_ICON}</button></div>`;
}

function fact(label, html, cls = "") {
  return `<div${cls ? ` class="${cls}"` : ""}><dt>${escapeHtml(label)}</dt><dd>${html}</dd></div>`;
}

function parText(deal) {
  return deal.par != null
    ? fmt(ngettext("%(n)s move", "%(n)s moves", deal.par), { n: formatNumber(deal.par) })
    : gettext("unknown: not proven winnable");
}

function commitmentHtml(deal, id) {
  return `<code class="day-commitment" id="${id}">${escapeHtml(deal.commitment)}</code>`;
}

function sealed(deal, i) {
  const example = "printf '%s' 'CODE' | sha256sum";
  return `<li class="day-deal" data-variant="${escapeHtml(deal.variant)}" data-proven="${deal.proven ? "true" : "false"}">
    ${dealHead(deal.variant)}
    <dl class="day-facts">
      ${fact(gettext("Commitment (SHA-256 of the code)"), commitmentHtml(deal, `commitment-${i}`), "wide")}
      ${fact(gettext("Par"), `<span class="par" data-par="${deal.par ?? ""}">${escapeHtml(parText(deal))}</span>`)}
      ${fact(gettext("Code"), `<span class="muted">${escapeHtml(gettext("sealed until 00:00 UTC"))}</span>`)}
    </dl>
    <p class="muted small">${escapeHtml(gettext("Once the day is over, this command must print the commitment above:"))} <code>${escapeHtml(example)}</code></p>
    <div class="deal-actions"><a class="button ghost" href="/leaderboard/${date}/${escapeHtml(deal.variant)}/">${escapeHtml(gettext("Leaderboard"))}</a></div>
  </li>`;
}

function revealed(deal, i) {
  const code = String(deal.code);
  const proof = Array.isArray(deal.proof) ? deal.proof : null;
  const file = `proof-${deal.variant}-${date}.jsonl`;
  const steps = [
    `<li><p>${escapeHtml(gettext("The code hashes to the commitment published before the day: this must print it."))}</p>
      ${commandBlock(`cmd-hash-${i}`, `printf '%s' ${quote(code)} | sha256sum`)}</li>`,
    `<li><p>${escapeHtml(gettext("Deal it: the full starting layout, as JSON."))}</p>
      ${commandBlock(`cmd-deal-${i}`, `python -m games.engine deal ${quote(code)}`)}</li>`,
  ];
  let download = "";
  if (proof) {
    steps.push(`<li><p>${escapeHtml(
      fmt(gettext("Replay the proof (download it first: %(file)s); the state printed at the end must say \"won\": true."), { file }),
    )}</p>
      ${commandBlock(`cmd-replay-${i}`, `python -m games.engine replay ${quote(code)} < ${file}`)}
      <details class="proof-lines"><summary>${escapeHtml(gettext("The proof, one action a line"))}</summary><pre tabindex="0"><code>${escapeHtml(jsonLines(proof))}</code></pre></details></li>`);
    const url = URL.createObjectURL(new Blob([jsonLines(proof)], { type: "application/x-ndjson" }));
    download = `<a class="button proof-download" href="${url}" download="${escapeHtml(file)}">${escapeHtml(gettext("Download proof (.jsonl)"))}</a>`;
  }
  const proofFact = proof
    ? escapeHtml(fmt(ngettext("%(n)s action, replays to a win", "%(n)s actions, replay to a win", proof.length), { n: formatNumber(proof.length) }))
    : `<strong class="unproven">${escapeHtml(gettext("none"))}</strong>`;
  return `<li class="day-deal" data-variant="${escapeHtml(deal.variant)}" data-proven="${deal.proven ? "true" : "false"}">
    ${dealHead(deal.variant)}
    <dl class="day-facts">
      ${fact(gettext("Code"), `<code class="day-code" id="code-${i}">${escapeHtml(code)}</code> <button type="button" class="icon-button small copy" data-copy-from="code-${i}" title="${escapeHtml(gettext("Copy the code"))}" aria-label="${escapeHtml(gettext("Copy the code"))}">${COPY_ICON}</button>`, "wide")}
      ${fact(gettext("Commitment (SHA-256 of the code)"), commitmentHtml(deal, `commitment-${i}`), "wide")}
      ${fact(gettext("Par"), `<span class="par" data-par="${deal.par ?? ""}">${escapeHtml(parText(deal))}</span>`)}
      ${fact(gettext("Proven winnable"), deal.proven ? escapeHtml(gettext("yes")) : escapeHtml(gettext("no")))}
      ${fact(gettext("Proof"), `<span class="proof-length" data-length="${proof ? proof.length : ""}">${proofFact}</span>`)}
    </dl>
    ${proof ? "" : `<p class="unproven-note">${escapeHtml(gettext("This deal could not be proven winnable: the solver found no winning line within its budget, so it has no par and no proof to replay. Its code and commitment can still be checked."))}</p>`}
    <section class="check-box" aria-labelledby="check-${i}">
      <h3 id="check-${i}">${escapeHtml(gettext("Check it yourself"))}</h3>
      <p class="muted small">${escapeHtml(gettext("With the engine's command line, from a checkout of the project's source:"))}</p>
      <ol class="check-commands">${steps.join("")}</ol>
    </section>
    ${dayResultsBlock(deal, i, commandBlock)}
    <div class="deal-actions">${playButton(code)}${pastDailyRaceable(deal.variant) ? raceButton(deal.variant) : ""}${download}
      <a class="button ghost" href="/leaderboard/${date}/${escapeHtml(deal.variant)}/">${escapeHtml(gettext("Final leaderboard"))}</a></div>
  </li>`;
}

function playButton(code) {
  return `<button type="button" class="button primary play-deal" data-play-code="${escapeHtml(code)}">${escapeHtml(gettext("Play this deal"))}</button>`;
}

// Race rooms (issue 29): a past day's deal raced by several players at once
// (not Easy Harp's: pastDailyRaceable).
function raceButton(variant) {
  return `<button type="button" class="button race-deal" data-race-variant="${escapeHtml(variant)}">${escapeHtml(gettext("Race this deal"))}</button>`;
}

async function raceDeal(button) {
  button.disabled = true;
  try {
    await openRace({ daily: date, variant: button.dataset.raceVariant });
  } catch (err) {
    $("day-error").textContent = err.message;
    button.disabled = false;
  }
}

async function playDeal(button) {
  button.disabled = true;
  try {
    await ensurePlayer(); // signed out: as a guest (issue 24)
    const attempt = await post("/api/games/", { code: button.dataset.playCode });
    location.href = `/play/${attempt.id}/`;
  } catch (err) {
    $("day-error").textContent = err.message;
    button.disabled = false;
  }
}

function tick() {
  const el = $("day-time-left");
  if (!el || !endsAt) return;
  const left = Math.max(0, endsAt - performance.now());
  el.textContent = formatMs(left).padStart(7, "0");
  if (left === 0) {
    endsAt = 0;
    setTimeout(() => location.reload(), 2000); // the day is over: the codes are out
  }
}

try {
  const day = await get(`/api/daily/${date}/`);
  $("day-deals").innerHTML = day.deals.map((deal, i) => (day.over && deal.code ? revealed(deal, i) : sealed(deal, i))).join("");
  $("day-empty").hidden = day.deals.length > 0;
  showDifficulty(day, $("day-deals"));
  if (!day.over) {
    endsAt = performance.now() + day.seconds_left * 1000;
    tick();
    setInterval(tick, 1000);
  }
} catch (err) {
  $("day-deals").innerHTML = "";
  if (err.code === "no_daily") {
    $("day-empty").textContent = gettext("There were no daily deals on this day.");
    $("day-empty").hidden = false;
  } else {
    $("day-error").textContent = err.message;
  }
} finally {
  $("day-deals").setAttribute("aria-busy", "false");
}
copyButtons(root);
$("day-deals").addEventListener("click", (e) => {
  const button = e.target.closest("[data-play-code]");
  if (button) playDeal(button);
  const race = e.target.closest("[data-race-variant]");
  if (race) raceDeal(race);
});

// How hard a day was (issue 27; GET /api/daily/{date}/, each entry's `difficulty`):
// the predicted level and the counts it comes from (published from the start:
// counts only, nothing of the cards), the measured level once the day is over,
// and the day's outcomes — the wins' moves and times in buckets, the share of
// losses — as bars, Wordle's distribution for patience. The day page shows it
// under each deal (showDifficulty); the result card shows the outcomes with the
// player's own result marked (showOutcomes). Everything comes from the server:
// this module only draws it.

import { escapeHtml, fmt, formatMs, formatNumber } from "./i18n.js";
import { get } from "./api.js";

const LEVELS = 5;

function levelName(name) {
  switch (name) {
    case "easy":
      return gettext("Easy");
    case "moderate":
      return gettext("Moderate");
    case "hard":
      return gettext("Hard");
    case "tough":
      return gettext("Tough");
    case "fiendish":
      return gettext("Fiendish");
    default:
      return gettext("Unknown");
  }
}

/** "Hard (3 of 5)", or "Unknown" without a level. */
export function levelText(block) {
  if (!block?.level) return levelName(null);
  return fmt(gettext("%(name)s (%(n)s of %(of)s)"), { name: levelName(block.name), n: block.level, of: LEVELS });
}

function pips(level) {
  const on = Array.from({ length: LEVELS }, (_, i) => `<span class="pip${i < level ? " on" : ""}"></span>`);
  return `<span class="level-pips" aria-hidden="true">${on.join("")}</span>`;
}

const percent = (share) => `${formatNumber(Math.round(share * 100))} %`;

function predictedHtml(p) {
  if (!p) {
    return `<p class="difficulty-predicted" data-level=""><strong>${escapeHtml(gettext("Predicted difficulty"))}:</strong> ${escapeHtml(gettext("unknown: the deal was not proven winnable"))}</p>`;
  }
  const facts = [
    fmt(ngettext("the solver needed %(n)s position to prove it", "the solver needed %(n)s positions to prove it", p.nodes), { n: formatNumber(p.nodes) }),
    fmt(gettext("its line: %(line)s actions for %(bound)s cards to bring home"), { line: formatNumber(p.line), bound: formatNumber(p.bound) }),
    fmt(gettext("%(won)s of %(all)s first moves still win"), { won: formatNumber(p.winning_first), all: formatNumber(p.first_moves) }),
    fmt(gettext("a simple strategy won %(won)s of %(all)s games, bringing %(home)s of %(bound)s cards home on average"), {
      won: formatNumber(p.playout_wins),
      all: formatNumber(p.playouts),
      home: formatNumber(p.playout_home),
      bound: formatNumber(p.bound),
    }),
  ];
  // A game whose levels are not measured yet (no cuts of its own declared): said, never silent.
  if (p.calibrated === false) facts.unshift(gettext("a first guess: this game's levels are not measured on its own deals yet"));
  return `<p class="difficulty-predicted" data-level="${p.level ?? ""}"><strong>${escapeHtml(gettext("Predicted difficulty"))}:</strong> ${pips(p.level ?? 0)} <span class="level-name">${escapeHtml(levelText(p))}</span></p>
    <ul class="difficulty-facts muted small">${facts.map((f) => `<li>${escapeHtml(f)}</li>`).join("")}</ul>`;
}

function measuredHtml(m) {
  if (!m) return "";
  const parts = [
    fmt(ngettext("%(rate)s of %(n)s player won", "%(rate)s of %(n)s players won", m.players), {
      rate: m.win_rate == null ? "–" : percent(m.win_rate),
      n: formatNumber(m.players),
    }),
  ];
  if (m.median_ms != null) parts.push(fmt(gettext("median win %(time)s"), { time: formatMs(m.median_ms) }));
  if (m.median_moves != null) parts.push(fmt(gettext("%(n)s moves"), { n: formatNumber(m.median_moves) }));
  if (m.discounted) {
    parts.push(
      fmt(ngettext("%(n)s game resigned or abandoned in its first %(k)s moves is not counted", "%(n)s games resigned or abandoned in their first %(k)s moves are not counted", m.discounted), {
        n: formatNumber(m.discounted),
        k: formatNumber(m.early_moves),
      }),
    );
  }
  const level = m.level ? `${pips(m.level)} <span class="level-name">${escapeHtml(levelText(m))}</span>` : `<span class="level-name">${escapeHtml(gettext("too few players for a level"))}</span>`;
  return `<p class="difficulty-measured" data-level="${m.level ?? ""}"><strong>${escapeHtml(gettext("Measured difficulty"))}:</strong> ${level}</p>
    <p class="muted small">${escapeHtml(parts.join(" · "))}</p>`;
}

/** Bucket labels from the edges the server chose: "≤ 87", "88–109", "> 261". */
function labels(buckets, show) {
  return buckets.map((b, i) => {
    const low = i ? buckets[i - 1].up_to : null;
    if (b.up_to == null) return `> ${show(low)}`;
    return low == null ? `≤ ${show(b.up_to)}` : `${show(low + 1)}–${show(b.up_to)}`;
  });
}

function bucketOf(buckets, value) {
  if (value == null) return -1;
  const i = buckets.findIndex((b) => b.up_to == null || value <= b.up_to);
  return i;
}

function bars(kind, title, buckets, names, mine) {
  const most = Math.max(1, ...buckets.map((b) => b.count));
  const rows = buckets.map((b, i) => {
    const width = Math.round((b.count / most) * 100);
    const marked = i === mine;
    return `<li class="bucket${marked ? " mine" : ""}" data-count="${b.count}">
      <span class="bucket-label">${escapeHtml(names[i])}</span>
      <span class="bucket-bar"><span data-width="${Math.max(width, b.count ? 4 : 0)}"></span></span>
      <span class="bucket-count">${escapeHtml(formatNumber(b.count))}${marked ? ` <span class="you">${escapeHtml(gettext("you"))}</span>` : ""}</span>
    </li>`;
  });
  return `<figure class="histogram" data-kind="${kind}"><figcaption>${escapeHtml(title)}</figcaption><ol>${rows.join("")}</ol></figure>`;
}

/** The bars' lengths, set through the CSSOM once drawn (the CSP allows no
 *  inline style attribute). */
function sizeBars(root) {
  for (const bar of root.querySelectorAll(".bucket-bar [data-width]")) bar.style.width = `${bar.dataset.width}%`;
}

/** The outcomes as bars; `own` ({won, moves, ms}) marks the player's result. */
export function histogramHtml(h, own = null) {
  if (!h || !h.players) return `<p class="histogram-empty muted small">${escapeHtml(gettext("No results yet."))}</p>`;
  const won = own?.won === true;
  const moves = bars("moves", gettext("Wins by moves"), h.moves, labels(h.moves, formatNumber), won ? bucketOf(h.moves, own.moves) : -1);
  const times = bars("ms", gettext("Wins by time"), h.ms, labels(h.ms, formatMs), won ? bucketOf(h.ms, own.ms) : -1);
  const lost = h.resigned + h.abandoned;
  const losses = fmt(
    ngettext("%(n)s result of %(all)s is a loss (%(share)s): %(resigned)s resigned, %(abandoned)s abandoned", "%(n)s results of %(all)s are losses (%(share)s): %(resigned)s resigned, %(abandoned)s abandoned", lost),
    {
      n: formatNumber(lost),
      all: formatNumber(h.players),
      share: percent(h.loss_share ?? 0),
      resigned: formatNumber(h.resigned),
      abandoned: formatNumber(h.abandoned),
    },
  );
  const mark = own && !won ? ` <span class="you">${escapeHtml(gettext("yours among them"))}</span>` : "";
  return `<div class="histograms" data-players="${h.players}">${moves}${times}</div>
    <p class="histogram-losses" data-lost="${lost}">${escapeHtml(losses)}${mark}</p>`;
}

function sectionHtml(d, over) {
  return `<section class="difficulty" aria-label="${escapeHtml(gettext("Difficulty"))}">
    ${predictedHtml(d.predicted)}
    ${over ? measuredHtml(d.measured) : ""}
    <h3 class="histogram-title">${escapeHtml(over ? gettext("How the day went") : gettext("How the day goes so far"))}</h3>
    ${histogramHtml(d.histogram)}
  </section>`;
}

/** Under each deal of the day page (`li.day-deal[data-variant]`), its difficulty. */
export function showDifficulty(day, root = document) {
  for (const deal of day.deals) {
    if (!deal.difficulty) continue;
    const item = root.querySelector(`.day-deal[data-variant="${CSS.escape(deal.variant)}"]`);
    item?.querySelector(".day-facts")?.insertAdjacentHTML("afterend", sectionHtml(deal.difficulty, day.over));
  }
  sizeBars(root);
}

/** The result card's outcomes of the game's day (a daily deal's game only),
 *  the player's own result marked: a <details> put in `dialog` once, before its
 *  actions, closed unless the screen is tall enough to show it without
 *  scrolling the card (a phone opens it with a tap). */
export async function showOutcomes(dialog, game) {
  if (!game?.daily) return;
  let box = dialog.querySelector(".win-outcomes");
  if (!box) {
    box = document.createElement("details");
    box.className = "win-outcomes";
    box.open = matchMedia("(min-height: 900px)").matches;
    box.innerHTML = '<summary></summary><div class="win-outcomes-body"></div>';
    dialog.querySelector(".dialog-actions")?.before(box);
  }
  const day = await get(`/api/daily/${game.daily}/`);
  const entry = day.deals.find((d) => d.variant === game.variant);
  if (!entry?.difficulty) return;
  const { predicted, histogram } = entry.difficulty;
  const own = { won: game.status === "won", moves: game.moves, ms: game.elapsed_ms };
  const counts = fmt(ngettext("%(n)s player, %(won)s won", "%(n)s players, %(won)s won", histogram.players), {
    n: formatNumber(histogram.players),
    won: formatNumber(histogram.wins),
  });
  box.querySelector("summary").textContent = `${gettext("The day's results")} · ${counts}`;
  const level = predicted ? `<p class="muted small">${escapeHtml(gettext("Predicted difficulty"))}: ${escapeHtml(levelText(predicted))}</p>` : "";
  const body = box.querySelector(".win-outcomes-body");
  body.innerHTML = `${level}${histogramHtml(histogram, own)}`;
  sizeBars(body);
}

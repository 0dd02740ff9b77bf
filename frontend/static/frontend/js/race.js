// A race room (issue 29), shared by the room page (raceroom.js) and the racer's
// board (racestrip.js): the race's feed over `/ws/races/{id}/` and how a racer's
// progress is drawn. Progress is what the server computed from checked actions —
// cards home per foundation, cards uncovered, moves, elapsed — never a card.
// - `race` frames (on connect and on every change of the room) replace the race
//   when their `v` is not older than the one shown: the snapshot on (re)connect
//   redraws everything.
// - `progress` frames (coalesced by the server) update the racers they name: the
//   figures unless an action later (`seq`) was shown, the status only from a frame
//   not older than the race shown (`v`: a trailing frame must not undo a win); and
//   every racer's place (`places`), from such a frame too. The places are the
//   server's, live and final alike: the page orders no one itself.
// - `start`: the race starts at `starts_at`; `attempt` (only in your own copy) is
//   your game.

import { get } from "./api.js";
import { escapeHtml, fmt, formatMs, formatNumber, LANG } from "./i18n.js";
import { Socket } from "./socket.js";

export const DECK = 52;

export class RaceFeed {
  /** Callbacks: `onRace(race)` for each race accepted (the snapshot and every
   *  change), `onProgress(race)` after progress frames, `onStart(frame)`, and
   *  `onStatus` / `onFatal` as for Socket. */
  constructor(id, callbacks = {}) {
    const noop = () => {};
    this.on = { onRace: noop, onProgress: noop, onStart: noop, onStatus: noop, onFatal: noop, ...callbacks };
    this.id = id;
    this.race = null;
    this.v = -1;
    this.seqs = new Map(); // player → the action (`seq`) of the last progress applied
    this.socket = new Socket(`/ws/races/${encodeURIComponent(id)}/`, {
      onMessage: (msg) => this.message(msg),
      onStatus: (s) => this.on.onStatus(s),
      onFatal: (code) => this.on.onFatal(code),
    });
  }

  connect() {
    this.socket.connect();
  }

  /** A race JSON (from a frame or an HTTP answer): kept unless older. */
  accept(race, v = race?.version ?? 0) {
    if (!race || v < this.v) return false;
    this.race = race;
    this.v = v;
    this.on.onRace(race);
    return true;
  }

  /** The race again over HTTP (after an action of ours: the frame may come later). */
  async refresh() {
    const race = await get(`/api/races/${encodeURIComponent(this.id)}/`);
    this.accept(race);
    return race;
  }

  message(msg) {
    if (msg.type === "race") this.accept(msg.race, msg.v ?? msg.race?.version ?? 0);
    else if (msg.type === "progress") this.progress(msg);
    else if (msg.type === "start") this.on.onStart(msg);
  }

  progress(msg) {
    if (!this.race || !Array.isArray(msg.racers)) return;
    // A frame made before the room's last change (its `v` older) still brings the
    // racer's figures, but not a status: the race frame's is newer (a win).
    const fresh = (msg.v ?? 0) >= this.v;
    for (const update of msg.racers) {
      const racer = this.race.racers.find((r) => r.player === update.player);
      if (!racer) continue;
      if (update.seq != null) {
        if (update.seq < (this.seqs.get(update.player) ?? -1)) continue; // an older action's
        this.seqs.set(update.player, update.seq);
      }
      if (update.progress) racer.progress = update.progress;
      if (update.status && fresh) racer.status = update.status;
    }
    // Every racer's place now (the frame names only the racers who moved); once
    // the race is over, its race frame's final places stay.
    if (msg.places && fresh && this.race.status === "running") for (const racer of this.race.racers) racer.place = msg.places[racer.player] ?? racer.place;
    this.on.onProgress(this.race);
  }
}

/** Cards home of a progress (the sum of its foundations' counts). */
export function cardsHome(progress) {
  return (progress?.home || []).reduce((sum, n) => sum + (Number(n) || 0), 0);
}

/** A racer's time: ticking while racing (from the start), else the server's figure. */
export function racerTime(race, racer, now = Date.now()) {
  const elapsed = racer.progress?.elapsed_ms ?? 0;
  if (racer.status !== "racing" || !race.starts_at) return elapsed;
  return Math.max(elapsed, now - Date.parse(race.starts_at));
}

export function racerStatusLabel(status) {
  switch (status) {
    case "waiting":
      return gettext("Waiting");
    case "racing":
      return gettext("Racing");
    case "won":
      return gettext("Finished");
    case "resigned":
      return gettext("Resigned");
    case "left":
      return gettext("Left");
    default:
      return status || "";
  }
}

export function raceStatusLabel(race) {
  if (race.status === "open") {
    return race.you && race.you.host
      ? gettext("Start the race when everyone is in")
      : gettext("Waiting for the host to start");
  }
  if (race.status === "running") return gettext("Racing");
  return gettext("The race is over");
}

/** The racers in their order to show: by place (the server's: live while the race
 *  runs, final once it is over); before the start, in the order they joined. */
export function ordered(race) {
  const place = (r) => r.place ?? Infinity;
  return [...race.racers].sort((a, b) => place(a) - place(b));
}

/** "3rd of 12": a place in the page's language, with the ordinal where the
 *  language's rules have one (Intl's ordinal categories: English one/two/few/other;
 *  Bulgarian, Indonesian and Turkish have "other" only, translated as they say it). */
export function placeWords(place, of) {
  const params = { place: formatNumber(place), n: formatNumber(of) };
  switch (new Intl.PluralRules(LANG, { type: "ordinal" }).select(place)) {
    case "one":
      return fmt(pgettext("race place, ordinal 1, 21, 31…", "%(place)sst of %(n)s"), params);
    case "two":
      return fmt(pgettext("race place, ordinal 2, 22, 32…", "%(place)snd of %(n)s"), params);
    case "few":
      return fmt(pgettext("race place, ordinal 3, 23, 33…", "%(place)srd of %(n)s"), params);
    default:
      return fmt(pgettext("race place, any other ordinal", "%(place)sth of %(n)s"), params);
  }
}

/** "31 of 52 cards home · 4 uncovered · 87 moves · 3:12": the racer's figures, in words. */
export function progressWords(race, racer) {
  const p = racer.progress || {};
  const parts = [fmt(gettext("%(n)s of %(all)s cards home"), { n: cardsHome(p), all: DECK })];
  if (p.uncovered) parts.push(fmt(gettext("%(n)s uncovered"), { n: p.uncovered }));
  parts.push(fmt(ngettext("%(n)s move", "%(n)s moves", p.moves ?? 0), { n: p.moves ?? 0 }));
  parts.push(formatMs(racerTime(race, racer)));
  return parts.join(" · ");
}

/** How a racer is named: an account by its name, a guest by its number in the room
 *  ("Guest 2": a guest's made-up name says nothing, and it has no page). */
export function racerName(racer) {
  return racer.guest ? fmt(gettext("Guest %(n)s"), { n: racer.guest }) : racer.player;
}

/** One racer as a compact chip (the racer's board strip) or a row (the room). */
export function racerHtml(race, racer, { me = "", following = "", compact = false } = {}) {
  const home = cardsHome(racer.progress);
  const p = racer.progress || {};
  const name = escapeHtml(racerName(racer));
  const place = racer.place ? `<span class="racer-place" data-place="${racer.place}">${escapeHtml(fmt(gettext("#%(n)s"), { n: racer.place }))}</span>` : "";
  // A <progress>: no style attribute (the Content-Security-Policy allows none).
  const bar = `<progress class="racer-bar" max="${DECK}" value="${home}" aria-label="${escapeHtml(gettext("Cards home"))}">${home}</progress>`;
  const cls = `racer${racer.player === me ? " me" : ""}${racer.player === following ? " followed" : ""}`;
  const attrs = `class="${cls}" data-player="${name}" data-place="${racer.place ?? ""}" data-status="${escapeHtml(racer.status)}" data-home="${home}" data-moves="${p.moves ?? 0}" data-uncovered="${p.uncovered ?? 0}"`;
  // The chip's label is all a screen reader hears of it: its place too.
  const placed = racer.place ? `${placeWords(racer.place, race.racers.length)}, ` : "";
  const label = escapeHtml(`${racerName(racer)}: ${placed}${racerStatusLabel(racer.status)}, ${progressWords(race, racer)}`);
  if (compact) {
    // Each figure says what it counts ("12/52 home", "34 moves"): bare numbers read as nothing.
    const homeWords = escapeHtml(fmt(gettext("%(n)s/%(all)s home"), { n: home, all: DECK }));
    const moves = escapeHtml(fmt(ngettext("%(n)s move", "%(n)s moves", p.moves ?? 0), { n: p.moves ?? 0 }));
    return `<li ${attrs} aria-label="${label}">${place}<span class="racer-name">${name}</span>${bar}<span class="racer-figures" aria-hidden="true"><span class="racer-home">${homeWords}</span> <span class="racer-moves">${moves}</span> <span class="racer-time">${formatMs(racerTime(race, racer))}</span></span><span class="racer-status">${escapeHtml(racerStatusLabel(racer.status))}</span></li>`;
  }
  const named = racer.guest ? `<span class="racer-name">${name}</span>` : `<a class="racer-name" href="/players/${encodeURIComponent(racer.player)}/">${name}</a>`;
  return `<li ${attrs}>${place}${named}
    <span class="racer-status">${escapeHtml(racerStatusLabel(racer.status))}</span>${bar}
    <span class="racer-figures">${escapeHtml(progressWords(race, racer))}</span></li>`;
}

/** The followed racer, expanded: each foundation's cards home, out of 13. */
export function followedHtml(race, racer) {
  const p = racer.progress || {};
  const piles = (p.home || [])
    .map((n, i) => {
      const label = escapeHtml(fmt(gettext("Foundation %(n)s"), { n: i + 1 }));
      return `<li><span aria-hidden="true">${i + 1}</span><progress class="racer-bar" max="13" value="${n}" aria-label="${label}">${n}</progress><span>${n}</span></li>`;
    })
    .join("");
  return `<h2 id="race-follow-title">${escapeHtml(fmt(gettext("Following %(player)s"), { player: racerName(racer) }))}</h2>
    <p class="racer-figures">${escapeHtml(racerStatusLabel(racer.status))} · ${escapeHtml(progressWords(race, racer))}</p>
    <ol class="foundation-bars" aria-label="${escapeHtml(gettext("Cards home per foundation"))}">${piles}</ol>`;
}

/** The standings after the end: place, player, result, time, replay, rating change. */
export function standingsHtml(race, ratings = null) {
  return ordered(race)
    .map((r) => {
      const p = r.progress || {};
      const result = r.status === "won" ? formatMs(p.elapsed_ms) : fmt(gettext("%(n)s of %(all)s cards home"), { n: cardsHome(p), all: DECK });
      const change = ratings?.get(r.player);
      const rating = change
        ? `<span class="race-rating" data-change="${change.change}">${escapeHtml(fmt(gettext("rating %(rating)s (%(change)s)"), { rating: Math.round(change.rating), change: `${change.change >= 0 ? "+" : ""}${Math.round(change.change)}` }))}</span>`
        : "";
      const replay = r.attempt ? `<a class="race-replay" href="/replay/${r.attempt}/">${escapeHtml(gettext("Replay"))}</a>` : "";
      return `<li class="standing" data-player="${escapeHtml(r.player)}" data-place="${r.place ?? ""}" data-status="${escapeHtml(r.status)}">
        <span class="racer-place">${r.place ?? "–"}</span> <span class="racer-name">${escapeHtml(racerName(r))}</span>
        <span class="racer-status">${escapeHtml(racerStatusLabel(r.status))}</span> <span class="racer-result">${escapeHtml(result)}</span>
        ${rating} ${replay}</li>`;
    })
    .join("");
}

/** The race's rating changes (`GET /api/races/{id}/ratings/`, leaderboard's), as a
 *  Map player → {rating, change}; null when there are none (a 404, or not rated).
 *  The rating is made just after the end: asked again up to `tries` times, 2 s apart. */
export async function loadRatings(id, tries = 1) {
  for (let i = 0; i < tries; i += 1) {
    if (i) await new Promise((done) => setTimeout(done, 2000));
    let answer;
    try {
      answer = await get(`/api/races/${encodeURIComponent(id)}/ratings/`);
    } catch {
      return null; // no ratings here: nothing shown
    }
    // {race, rated, changes: [{player, place, before, after, delta, …}]}
    const rows = Array.isArray(answer) ? answer : answer?.changes || [];
    const map = new Map();
    for (const row of rows) {
      const rating = row.after ?? row.rating;
      const change = row.delta ?? row.change;
      if (row.player && rating != null && change != null) map.set(row.player, { rating: Number(rating), change: Number(change) });
    }
    if (map.size) return map;
  }
  return null;
}

/** The countdown to `startsAt` in `el` ("3", "2", "1", "Go!"); calls `done` at zero.
 *  Keeps `data-starts-at` so the page shows when the race started. Returns a stop function. */
export function countdown(el, startsAt, done = () => {}) {
  const at = Date.parse(startsAt);
  el.dataset.startsAt = startsAt;
  let timer = null;
  const tick = () => {
    const left = at - Date.now();
    if (left <= 0) {
      el.textContent = gettext("Go!");
      el.dataset.state = "go";
      clearInterval(timer);
      setTimeout(() => (el.hidden = true), 800);
      done();
      return;
    }
    el.hidden = false;
    el.dataset.state = "counting";
    el.textContent = fmt(gettext("Starting in %(n)s"), { n: Math.ceil(left / 1000) });
  };
  timer = setInterval(tick, 200);
  tick();
  return () => clearInterval(timer);
}

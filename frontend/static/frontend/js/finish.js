// The finish (issue 15, deliverable 2): when the game is won on this page, the
// foundations' cards cascade off the table (css/finish.css; none under reduced
// motion), then the result card `#win` opens — rank of how many, time, moves and
// par, score, streak — with Share. It opens by itself only at a win seen here;
// on a finished game the toolbar's `#show-result` and the URL hash `#result`
// open it again. The share text names the day, the variant and the figures:
// never the code, a card or a move (a running daily's code is secret).

import { get } from "./api.js";
import { copyText } from "./copy.js";
import { gameKind } from "./hud.js";
import { LANG, announce, fmt, formatDay, formatMs, formatNumber, statusLabel } from "./i18n.js";
import { variantLabel } from "./catalogue.js";
import { cascade } from "./cascade.js";
import { followLeaderboard } from "./feed.js";
import { showOutcomes } from "./difficulty.js";

const $ = (id) => document.getElementById(id);
const SHOWN_MS = 4000; // how long "Copied." stays

/** The spoiler-free text a daily result is shared with, its link last: a ranked
 *  result's own page (`/r/<id>/`, issue 28: the board's line of it, with a link
 *  preview) when its `id` is given, else the day's page. A win:
 *  "Patience Daily 2026-12-02 · Seahaven Towers, Hard (1 cell) ✓ 3:12 · 98 moves (par 87)
 *   · #12 of 340 · 5-day streak\nhttps://…/r/1234/". A practice says so and
 *  has neither rank nor streak. A ranked result not won (`status` resigned or
 *  abandoned) says what its board row and its page say (frontend/social.py
 *  result_line): "… ✗ Resigned · score 420 · 3:12 · 98 moves · #120 of 340".
 *  Figures only: never the code, a card or a move. "Patience Daily" is the brand:
 *  not translated. */
export function shareLink({ date, ranked, id, origin }) {
  return ranked && id ? `${origin}/r/${id}/` : `${origin}/daily/${date}/`;
}

export function shareText({ date, variant, status = "won", ranked, ms, moves, par, score, rank, count, streak, origin, id }) {
  const won = status === "won";
  const practice = ranked ? "" : ` (${gettext("practice")})`;
  const game = `${variantLabel(variant).split(" · ").join(", ")}${practice}`;
  const moved = fmt(ngettext("%(n)s move", "%(n)s moves", moves), { n: formatNumber(moves) });
  const parts = [`Patience Daily ${date}`];
  if (won) {
    parts.push(`${game} ✓ ${formatMs(ms)}`, par ? `${moved} ${fmt(gettext("(par %(n)s)"), { n: formatNumber(par) })}` : moved);
  } else {
    parts.push(`${game} ✗ ${statusLabel(status)}`, fmt(gettext("score %(score)s"), { score: formatNumber(score) }), formatMs(ms), moved);
  }
  if (ranked && rank) parts.push(fmt(gettext("#%(rank)s of %(count)s"), { rank: formatNumber(rank), count: formatNumber(count) }));
  if (won && ranked && streak > 0) parts.push(fmt(ngettext("%(n)s-day streak", "%(n)s-day streak", streak), { n: formatNumber(streak) }));
  return `${parts.join(" · ")}\n${shareLink({ date, ranked, id, origin })}`;
}

/** Whether the card offers Share: a daily won (ranked or its practice, the link
 *  then the day's page), or a ranked daily that counts whatever its result — its
 *  own page `/r/<id>/` shows it (a practice not won, a guest's or a failed check's
 *  result has nothing to share). */
export function shareable(game) {
  if (!game.daily || game.status === "playing") return false;
  if (game.status === "won") return true;
  return Boolean(game.ranked && !game.guest && game.verified !== false);
}

/** 66.6 → "66.6%" in the page's language (some put the sign first). */
const formatPercent = (p) => (p / 100).toLocaleString(LANG, { style: "percent", maximumFractionDigits: 1 });

/** A finished practice whose code is shown, not drawn as a New deal: it may be a
 *  past daily's deal (a running daily's names no code; a New deal is a numbered one). */
function mayHaveADay(game) {
  return game.status !== "playing" && !game.ranked && Boolean(game.code) && game.proven == null;
}

export class Finish {
  /** `par(game)`: a promise of the daily's par (or null); `onNewGame`: the New game window. */
  constructor({ par, onNewGame }) {
    this.par = par;
    this.game = null;
    this.figures = {}; // par, rank, count, streak, wouldRank as last fetched
    this.celebrated = false;
    this.unfollow = null; // stops following the day's board
    const dialog = $("win");
    $("win-close").addEventListener("click", () => dialog.close());
    $("win-new").addEventListener("click", () => {
      dialog.close();
      onNewGame();
    });
    $("win-share").addEventListener("click", () => this.share());
    $("show-result").addEventListener("click", () => this.open());
    dialog.addEventListener("close", () => this.closed());
    window.addEventListener("hashchange", () => location.hash === "#result" && this.open());
  }

  /** Each state the page accepts; `before` is the status it replaced (null: the first). */
  update(game, before) {
    this.game = game;
    const over = game.status !== "playing";
    $("show-result").hidden = !over;
    if (!over) return;
    // Shown once, at the finish: a game already won when the page opened waits for a click.
    if (game.status === "won" && before === "playing") this.celebrate();
    else if (before === null && location.hash === "#result") this.open();
    else if ($("win").open) this.fill();
  }

  async celebrate() {
    if (this.celebrated) return;
    this.celebrated = true;
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))); // the board drawn won
    await cascade($("board"));
    this.open({ atWin: true });
  }

  /** Open the card on a finished game, then fetch its figures (and follow the board's rank). */
  open({ atWin = false } = {}) {
    const game = this.game;
    if (!game || game.status === "playing") return;
    const dialog = $("win");
    this.fill();
    dialog.classList.toggle("at-win", atWin);
    if (!dialog.open) dialog.showModal();
    if (atWin) {
      announce(
        fmt(gettext("You won! Score %(score)s, time %(time)s, %(moves)s moves."), {
          score: formatNumber(game.score),
          time: formatMs(game.elapsed_ms),
          moves: formatNumber(game.moves),
        }),
      );
    }
    this.load();
    this.follow();
  }

  fill() {
    const game = this.game;
    const { par, rank, count, streak } = this.figures;
    const won = game.status === "won";
    const ranked = Boolean(game.ranked && game.daily && !game.guest);
    // A guest's daily is ranked once claimed (issue 24): signing up or in from here claims it.
    const claimable = Boolean(game.ranked && game.daily && game.guest);
    $("win-claim").hidden = !claimable;
    if (claimable) {
      const next = encodeURIComponent(`${location.pathname}#result`);
      $("win-claim-signup").href = `/signup/?next=${next}`;
      $("win-claim-signin").href = `/login/?next=${next}`;
    }
    $("win-title").textContent = won ? wonTitle() : statusLabel(game.status);
    $("win-what").textContent = [variantLabel(game.variant), gameKind(game), game.daily].filter(Boolean).join(" · ");
    $("win-score").textContent = formatNumber(game.score);
    $("win-time").textContent = formatMs(game.elapsed_ms);
    $("win-moves").textContent = formatNumber(game.moves);
    $("win-par").hidden = !par;
    $("win-par").textContent = par ? fmt(gettext("par %(n)s"), { n: formatNumber(par) }) : "";
    $("win-rank-row").hidden = !(ranked && rank);
    $("win-rank-n").textContent = rank ? formatNumber(rank) : "";
    $("win-count").textContent = rank ? fmt(gettext("of %(n)s"), { n: formatNumber(count) }) : "";
    $("win-streak-row").hidden = !(ranked && streak != null);
    $("win-streak").textContent = fmt(ngettext("%(n)s day", "%(n)s days", streak || 0), { n: formatNumber(streak || 0) });
    this.fillWouldRank();
    this.fillCircles(ranked);
    // A random deal has no day to share; a counted daily result has its own page.
    $("win-share").hidden = !shareable(game);
    $("win-replay").href = `/replay/${game.id}/`;
    const board = game.daily ? `/leaderboard/${game.daily}/${game.variant}/` : null;
    $("win-leaderboard").hidden = !board;
    if (board) $("win-leaderboard").href = board;
  }

  /** "#3 of 12 you follow · #2 of 5 in Harp Heroes" (issue 29): the same board, in circles. */
  fillCircles(ranked) {
    const circles = ranked ? this.figures.circles : null;
    const parts = [];
    if (circles?.following) {
      parts.push(
        fmt(gettext("#%(rank)s of %(count)s you follow"), {
          rank: formatNumber(circles.following.rank),
          count: formatNumber(circles.following.count),
        }),
      );
    }
    for (const club of circles?.clubs || []) {
      parts.push(
        fmt(gettext("#%(rank)s of %(count)s in %(club)s"), {
          rank: formatNumber(club.rank),
          count: formatNumber(club.count),
          club: club.name,
        }),
      );
    }
    $("win-circles").hidden = !parts.length;
    $("win-circles").textContent = parts.join(" · ");
  }

  /** "Would have ranked #k of N on DATE, better than p%" (a practice of a past daily). */
  fillWouldRank() {
    const would = this.figures.wouldRank;
    $("win-would-rank-row").hidden = !would;
    if (!would) return;
    const rank = fmt(gettext("Would have ranked #%(rank)s of %(count)s on %(date)s"), {
      rank: formatNumber(would.rank),
      count: formatNumber(would.count),
      date: formatDay(would.date),
    });
    const share =
      would.percentile == null
        ? gettext("no one else played it that day")
        : fmt(gettext("better than %(share)s of that day's results"), { share: formatPercent(would.percentile) });
    $("win-would-rank-text").textContent = `${rank}, ${share}.`;
    $("win-would-rank-board").href = would.leaderboard;
  }

  /** Par (a daily's, practice too); rank of how many and the streak (a ranked daily);
   *  where a practice would have ranked on its day, if it is a past daily's deal. */
  async load() {
    const game = this.game;
    const asks = [this.par(game).then((par) => (this.figures.par = par))];
    if (game.ranked && game.daily && !game.guest) asks.push(this.loadRank(), this.loadStreak(), this.loadCircles());
    if (mayHaveADay(game)) asks.push(this.loadWouldRank());
    asks.push(showOutcomes($("win"), game)); // the day's histogram, this result marked
    await Promise.allSettled(asks);
    this.fill(); // with the game as it is now (a later state of the same attempt may have come)
  }

  async loadRank() {
    const game = this.game;
    const data = await get(`/api/leaderboard/${game.daily}/${game.variant}/`);
    this.figures.rank = data.me?.rank ?? null;
    this.figures.count = data.count;
  }

  async loadCircles() {
    const game = this.game;
    this.figures.circles = await get(`/api/leaderboard/${game.daily}/${game.variant}/circles/`);
  }

  /** Only a past daily's deal has an answer; the server says whether this is one
   *  (the refusal of any other game leaves the line out). */
  async loadWouldRank() {
    const id = this.game.id;
    if (this.figures.wouldRank?.game === id) return; // a practice's figures do not change
    try {
      this.figures.wouldRank = await get(`/api/leaderboard/would-rank/${id}/`);
    } catch {
      this.figures.wouldRank = null;
    }
  }

  async loadStreak() {
    const name = document.body.dataset.username;
    if (!name) return;
    const data = await get(`/api/players/${encodeURIComponent(name)}/`);
    this.figures.streak = data.streak.current;
  }

  /** While the card is open the day's board may change (others finish, this
   *  result's replay check ends): fetch the rank and streak again. */
  follow() {
    const game = this.game;
    if (this.unfollow || !(game.ranked && game.daily) || game.guest) return;
    this.unfollow = followLeaderboard(game.daily, game.variant, {
      onChange: () => this.load(),
      delay: 300, // a burst of finishes: one fetch
    });
  }

  closed() {
    this.unfollow?.();
    this.unfollow = null;
    // The hash asked for the card; once closed a reload shows the board.
    if (location.hash === "#result") history.replaceState(null, "", location.pathname + location.search);
  }

  async share() {
    const game = this.game;
    const shared = {
      date: game.daily,
      variant: game.variant,
      status: game.status,
      ranked: game.ranked,
      ms: game.elapsed_ms,
      moves: game.moves,
      score: game.score,
      ...this.figures,
      origin: location.origin,
      id: game.guest ? null : game.id, // a guest's result is on no board (until claimed)
    };
    const text = shareText(shared);
    // The system's share sheet where the browser has one (the link as its own field,
    // for the preview); elsewhere the clipboard.
    const url = shareLink(shared);
    const sheet = { text: text.slice(0, text.length - url.length).trimEnd(), url };
    if (navigator.share && navigator.canShare?.(sheet)) {
      try {
        await navigator.share(sheet);
        return;
      } catch (err) {
        if (err.name === "AbortError") return; // the player closed the sheet
      }
    }
    const status = $("win-share-status");
    const copied = await copyText(text, $("win-share"), null, gettext("Copied."));
    // Without clipboard access the text is shown, to be selected and copied by hand.
    status.textContent = copied ? gettext("Copied.") : text;
    status.classList.toggle("manual", !copied);
    clearTimeout(this.statusTimer);
    if (copied) this.statusTimer = setTimeout(() => (status.textContent = ""), SHOWN_MS);
  }
}

/** "You won!"; in a race, the place the race's strip shows (racestrip.js's
 *  #race-place: "2nd of 5") — clearing the deal second is no win of the race. */
function wonTitle() {
  const place = document.getElementById("race-place");
  if (!place?.dataset.place) return gettext("You won!");
  if (place.dataset.place === "1") return gettext("You won the race!");
  return fmt(gettext("You finished %(place)s"), { place: place.textContent });
}

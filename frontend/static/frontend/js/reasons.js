// Refusals, in the player's language. The engine's reason codes are translated,
// not its English sentences: each game declares its refusal sentences once, in
// the engine (games/engine/base.py COMMON_REASONS and each game's `reasons`), and
// the games' catalogue ships them translated into the page's language
// (frontend/catalogue.py, catalogue.js); they are filled here from the error's
// `params` with localized card and pile names. Unknown codes, or errors without
// params, show the server's message.

import { cardName, pileName, suitName } from "./cards.js";
import { catalogue, gameOf } from "./catalogue.js";
import { fmt } from "./i18n.js";

/** A declared sentence as a template for `params`: a plural's form by the
 *  language's rule (Django's JavaScript catalog: pluralidx), the first without it. */
function declared(sentence) {
  if (typeof sentence === "string") return () => sentence;
  return (p) => {
    const n = Number(p[sentence.count] ?? 1);
    const index = typeof pluralidx === "function" ? Number(pluralidx(n)) : n === 1 ? 0 : 1;
    return sentence.forms[Math.min(index, sentence.forms.length - 1)];
  };
}

/** The refusal sentences of a game prefix ("EH1"); with no game, the sentences
 *  every declared game says alike (the shared ones). */
function refusals(game) {
  if (game) return gameOf(game)?.reasons || {};
  const [first, ...others] = catalogue().map((g) => g.reasons || {});
  const same = {};
  for (const [code, sentence] of Object.entries(first || {})) {
    const text = JSON.stringify(sentence);
    if (others.every((r) => JSON.stringify(r[code]) === text)) same[code] = sentence;
  }
  return same;
}

// The service's own error codes (README, HTTP API), in the player's language too.
// Their server sentences may carry details (a name, a seq) these leave out.
const SERVICE = {
  seq_conflict: () => gettext("This game moved on elsewhere (another tab?); it is shown as it is now."),
  finished: () => gettext("This game is over."),
  day_over: () => gettext("The day (UTC) of this daily deal is over; the game is closed."),
  not_finished: () => gettext("A replay is available once the game is over."),
  archived: () => gettext("This game's moves are archived: its replay is gone."),
  not_authenticated: () => gettext("Sign in first."),
  bad_credentials: () => gettext("That username and password do not match."),
  username_taken: () => gettext("That username is taken."),
  username_confusable: () => gettext("That username looks like the existing player “%(existing)s”: choose another."),
  bad_username: () => gettext("A username has 3 to 30 characters: letters, digits and @ . + - _ only."),
  spoiler: () =>
    gettext(
      "This game is on a daily deal whose day is still running: its replays and live games open to players who won it, and to everyone when the day is over (00:00 UTC).",
    ),
  daily_running: () =>
    gettext("That deal is a daily deal whose day is still running: it opens for practice, to everyone, once its day ends (00:00 UTC)."),
  not_yours: () => gettext("That is another player's game."),
  not_found: () => gettext("Not found."),
  no_daily: () => gettext("There are no daily deals for that day."),
  bad_date: () => gettext("That is not a date (YYYY-MM-DD)."),
  // How long: the server's wait (Retry-After), in words; what it counted (its scope).
  throttled: (p) =>
    p.wait == null
      ? gettext("Too many requests; wait a moment and try again.")
      : {
          register: gettext("Too many sign-ups from your address: try again in %(wait)s."),
          login: gettext("Too many sign-in attempts from your address: try again in %(wait)s."),
          "login-account": gettext(
            "Too many sign-in attempts at this account: try again in %(wait)s.",
          ),
          games: gettext("Too many new games: try again in %(wait)s."),
          actions: gettext("Too many moves: try again in %(wait)s."),
        }[p.scope] || gettext("Too many requests: try again in %(wait)s."),
  too_large: () => gettext("The request is too large."),
  csrf_failed: () => gettext("Your session has expired: reload the page."),
};

/** Whether `code` is one of the refusal codes the game (a code prefix) declares. */
export function isReason(code, game) {
  return Boolean(refusals(game)[code]);
}

function capitalize(text) {
  return text ? text[0].toLocaleUpperCase() + text.slice(1) : text;
}

/** What a foundation spot takes next: `need_rank` + `need_suit` (or a `need` card text). */
function needed(p) {
  const text = p.need || (p.need_rank && p.need_suit ? p.need_rank + p.need_suit : null);
  return text ? cardName(text) : gettext("nothing more: it is complete");
}

/** The localized values for a template's %(name)s fields; a null card is "that card". */
function fields(p) {
  return {
    src: p.src ? pileName(p.src) : "",
    dst: p.dst ? pileName(p.dst) : "",
    n: p.n ?? 1,
    have: p.have ?? 0,
    capacity: p.capacity ?? 1,
    card: p.card ? cardName(p.card) : gettext("that card"),
    top: p.top ? cardName(p.top) : gettext("an empty column"),
    spot_suit: p.spot_suit ? suitName(p.spot_suit) : "",
    need: needed(p),
    existing: p.existing ?? "",
    wait: p.wait != null ? howLong(p.wait) : "",
  };
}

/** 42 → "42 seconds"; 2520 → "42 minutes" (rounded up); 7200 → "2 hours". */
function howLong(seconds) {
  if (seconds < 60) return fmt(ngettext("%(n)s second", "%(n)s seconds", seconds), { n: seconds });
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return fmt(ngettext("%(n)s minute", "%(n)s minutes", minutes), { n: minutes });
  const hours = Math.ceil(minutes / 60);
  return fmt(ngettext("%(n)s hour", "%(n)s hours", hours), { n: hours });
}

/**
 * The sentence to show for an error body `{code, message, params?}`.
 * `game`: the code prefix of the game being played ("EH1"), or "" when none is.
 */
export function describeRefusal(error, game) {
  if (!error) return "";
  const sentence = refusals(game)[error.code];
  const entry = sentence ? declared(sentence) : SERVICE[error.code];
  if (!entry) return error.message || error.code || "";
  const params = error.params || {};
  const template = entry(params);
  // A sentence that names cards or piles needs the params; without them, the server's words.
  if (!error.params && template.includes("%(")) return error.message || template;
  return capitalize(fmt(template, fields(params)));
}

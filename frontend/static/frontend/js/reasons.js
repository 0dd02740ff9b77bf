// Refusals, in the player's language. The engine's reason codes are translated,
// not its English sentences: each code has a gettext template here mirroring the
// engine's sentence (games/engine/base.py COMMON_REASONS, easy_harp.py and
// seahaven.py `reasons`), filled from the error's `params` with localized card
// and pile names. Unknown codes, or errors without params, show the server's message.

import { cardName, pileName, suitName } from "./cards.js";
import { fmt } from "./i18n.js";

const COMMON = {
  game_over: () => gettext("The game is won; no further action is accepted, not even undo."),
  same_pile: () => gettext("A card has to move to another pile."),
  empty_pile: () => gettext("There is no card on %(src)s to move."),
  not_enough_cards: (p) =>
    ngettext(
      "%(src)s holds %(have)s card; %(n)s cannot be moved from it.",
      "%(src)s holds %(have)s cards; %(n)s cannot be moved from it.",
      p.have,
    ),
  face_down: () => gettext("Only face-up cards move; %(n)s cards from %(src)s would take face-down ones too."),
  foundation_to_foundation: () =>
    gettext("Foundations are not a source for foundations: a card taken back from a foundation goes into the play area."),
  take_back_one_card: () => gettext("Only the top card of a foundation can be taken back, one at a time."),
  foundation_one_card: () => gettext("Cards go onto a foundation one at a time."),
  foundation_suit: () => gettext("Each foundation spot takes only its own suit: %(dst)s is for %(spot_suit)s, not %(card)s."),
  foundation_order: () =>
    gettext("A foundation is built up in suit from the ace, one rank at a time: %(dst)s needs %(need)s, not %(card)s."),
  no_foundation: () => gettext("No foundation accepts %(card)s: each takes its own suit, ace first, then one rank at a time."),
  no_undo: () => gettext("There is nothing to undo."),
  undo_limit: () => gettext("Undo covers only the last 100 actions."),
  tap_stock: () => gettext("Taps are for cards; the stock has its own action."),
  tap_foundation: () =>
    gettext("A tap sends a card to a foundation; a card already on a foundation is taken back by dragging it."),
  tap_run: () => gettext("A tap sends one card to a foundation; a run cannot go there."),
  no_place: () => gettext("Double tap found no place for %(card)s."),
};

const EASY_HARP = {
  one_card_at_a_time: () =>
    gettext("Easy Harp moves one card at a time between columns; only a king-led run may move together, and only into an empty column."),
  not_a_run: () => gettext("Only a run headed by a king, alternating in colour and descending in rank, can move as a whole."),
  wrong_build: () =>
    gettext("In Easy Harp a card goes onto a face-up card of the opposite colour and exactly one rank higher; %(card)s cannot go onto %(top)s."),
  kings_only: () => gettext("An empty column accepts only a king (or a king-led run); %(card)s cannot go there."),
  stock_source: () => gettext("Stock cards are drawn with the stock action, one at a time."),
  not_destination: () => gettext("Cards cannot be put on the stock or the waste; only columns and foundations receive cards."),
  waste_one_card: () => gettext("Only the top card of the waste is playable."),
  stock_empty: () => gettext("The stock and the waste are both empty: there is nothing to draw."),
  no_place: () =>
    gettext("Double tap found no place for %(card)s: no foundation, no column and no empty column accepts it."),
};

const SEAHAVEN = {
  wrong_build: () =>
    gettext("In Seahaven Towers a card goes only onto the card of its own suit one rank higher; %(card)s cannot go onto %(top)s."),
  kings_only: () =>
    gettext("An empty column accepts only a king, alone or heading its same-suit run; %(card)s cannot go there."),
  not_a_run: () => gettext("Only a run of one suit in consecutive descending ranks can move as a group."),
  group_too_large: (p) =>
    ngettext(
      "At most %(capacity)s card can move there: (free cells + 1) × 2^(empty columns), an empty destination column not counted.",
      "At most %(capacity)s cards can move there: (free cells + 1) × 2^(empty columns), an empty destination column not counted.",
      p.capacity,
    ),
  cell_occupied: () => gettext("A cell holds one card, and %(dst)s is occupied."),
  cell_one_card: () => gettext("A cell holds one card; a group cannot go into a cell."),
  no_stock: () => gettext("Seahaven Towers has no stock: every card is dealt face up."),
  no_place: () =>
    gettext("Double tap found no place for %(card)s: no foundation, column, empty column or empty cell accepts it."),
};

const BY_GAME = { EH1: EASY_HARP, SH1: SEAHAVEN };

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
  daily_not_finished: () => gettext("That deal is a daily deal still running: play your ranked attempt first."),
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

/** Every reason code the table knows, for a game prefix ("EH1", "SH1"). */
export function knownReasons(game) {
  return new Set([...Object.keys(COMMON), ...Object.keys(BY_GAME[game] || {})]);
}

export function isReason(code, game) {
  return Boolean((BY_GAME[game] || {})[code] || COMMON[code]);
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
 * `game`: the code prefix of the game being played ("EH1" or "SH1").
 */
export function describeRefusal(error, game) {
  if (!error) return "";
  const entry = (BY_GAME[game] || {})[error.code] || COMMON[error.code] || SERVICE[error.code];
  if (!entry) return error.message || error.code || "";
  const params = error.params || {};
  const template = entry(params);
  // A sentence that names cards or piles needs the params; without them, the server's words.
  if (!error.params && template.includes("%(")) return error.message || template;
  return capitalize(fmt(template, fields(params)));
}

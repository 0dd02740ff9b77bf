// Moves that land at once (issue 24): an action whose destination the server
// itself listed in `view.targets` for exactly these cards is drawn before its
// answer comes; so are stock taps, also those made while one is in flight, as
// the server said its next taps do (`view.stock_taps`, issue 39: a draw puts the
// stock's top card on the waste, still face down — the client does not know it —
// and the answer turns it; a pass turns the waste over into the stock). No rule lives here either: a move goes where it says, if that
// pile is listed for (from, count); a double tap where the server says a double
// tap of those cards goes (the target's `tap`: the engine follows RULES.md C14's
// order, the client does not); a tap (to a foundation, PRODUCT.md) where that
// `tap` is a foundation spot — a foundation is a double tap's first choice — or
// when a single foundation spot is listed. Without a `tap` the client waits for
// the server's answer. Cards only move:
// the drawn position never turns a card face up (a card uncovered stays face down
// until the answer shows it) and never names a card the player has not seen.
// play.js shows the position returned by `landed` while that action is the one
// in flight and the server's version is still the one it started from; any later
// `ack` / `state` replaces it, a refusal puts the server's last position back.

import { pileKind } from "./cards.js";

/** {from, to, count} when `action` goes to a pile the server listed for exactly
 *  its cards in `view`, else null (sent as ever, drawn when the server answers). */
export function listedLanding(view, action) {
  if (!view?.piles || !action || !(action.from in view.piles)) return null;
  const { type, from } = action;
  const count = action.count ?? 1;
  const target = (view.targets || []).find((t) => t.from === from && t.count === count);
  const listed = target?.to || [];
  const tap = listed.includes(target?.tap) ? target.tap : null;
  if (type === "move") return listed.includes(action.to) ? { from, to: action.to, count } : null;
  if (type === "tap") {
    if (count !== 1) return null;
    if (tap && pileKind(tap) === "foundation") return { from, to: tap, count };
    const spots = listed.filter((pile) => pileKind(pile) === "foundation");
    return spots.length === 1 ? { from, to: spots[0], count } : null;
  }
  if (type === "double_tap") return tap ? { from, to: tap, count } : null;
  return null;
}

/** `view` with the stock taps at the head of `actions` (the one in flight, then
 *  those queued behind it) played as the server said its next taps do
 *  (`view.stock_taps`: "draw" or "pass" each, issue 39), or null when the first
 *  is not a tap it named (sent as ever, drawn when the server answers). */
export function stockRun(view, actions) {
  if (!view?.piles?.s) return null;
  const plan = view.stock_taps || [];
  let shown = view;
  let n = 0;
  for (const action of actions) {
    if (action?.type !== "stock" || n >= plan.length) break;
    shown = landed(shown, { stock: plan[n] });
    n += 1;
  }
  return n ? shown : null;
}

/** Whether `action` moves cards to a pile the server did not list for them in
 *  `view` (it would be refused: the client bounces it at once, issue 39). */
export function unlisted(view, action) {
  if (action?.type !== "move" || !view?.piles || !(action.from in view.piles)) return false;
  const count = action.count ?? 1;
  const listed = (view.targets || []).find((t) => t.from === action.from && t.count === count)?.to || [];
  if (action.to === "f") return !listed.some((pile) => pileKind(pile) === "foundation");
  return !listed.includes(action.to);
}

/** `view` with the top `count` cards of `from` put on `to`, as they are (a face-down
 *  card stays face down), or the stock tap `stock` played; it lists no targets and
 *  no finish until the server answers. */
export function landed(view, { from, to, count, stock }) {
  if (stock === "draw") return landed(view, { from: "s", to: "w", count: 1 });
  if (stock === "pass") {
    // The waste turned over: the first card drawn in the new pass is the first of the last (C15).
    const piles = { ...view.piles, s: view.piles.w.map(() => null), w: [] };
    return { ...view, piles, stock: null, targets: [], finish: [] };
  }
  const source = view.piles[from];
  const piles = {
    ...view.piles,
    [from]: source.slice(0, source.length - count),
    [to]: [...view.piles[to], ...source.slice(source.length - count)],
  };
  return { ...view, piles, stock: null, targets: [], finish: [] };
}

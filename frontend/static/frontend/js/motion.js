// Motion (issue 15, deliverable 4): every card move animates in at most 150 ms —
// a card glides from where it was to where the server's new position puts it
// (FLIP: the old boxes measured before the board is drawn again, each card
// started at its old place and its transform animated to none). Under reduced
// motion nothing animates: the system's setting, or the player's
// (<html data-motion="reduced">, PRODUCT.md's shared contract).

export const DURATION = 140; // ms, the longest any card motion takes (≤ 150)
const EASING = "cubic-bezier(0.2, 0.7, 0.3, 1)";

export function reducedMotion() {
  return matchMedia("(prefers-reduced-motion: reduce)").matches || document.documentElement.dataset.motion === "reduced";
}

/** el.animate(), or nothing under reduced motion. Returns the Animation or null. */
export function animate(el, keyframes, options = {}) {
  if (reducedMotion() || !el.animate) return null;
  return el.animate(keyframes, { duration: DURATION, easing: EASING, ...options });
}

/** What flipCards needs from the board as drawn now: each face-up card's box by
 *  its text ("7H"; Easy Harp's two decks make a list), each pile's card count
 *  and top card box. A drag ghost's cards (`ghost`) stand in for the cards they
 *  lift: a dropped card settles from where the player let it go. */
export function captureCards(root, ghost = null) {
  const before = { cards: new Map(), counts: new Map(), tops: new Map() };
  if (reducedMotion()) return before;
  const add = (card) => {
    if (card.dataset.card === "down") return;
    const list = before.cards.get(card.dataset.card) || [];
    list.push(card.getBoundingClientRect());
    before.cards.set(card.dataset.card, list);
  };
  for (const pile of root.querySelectorAll(".pile[data-pile]")) {
    const all = pile.querySelectorAll(".card");
    for (const card of all) if (!(ghost && card.classList.contains("lifted"))) add(card);
    before.counts.set(pile.dataset.pile, all.length);
    if (all.length) before.tops.set(pile.dataset.pile, all[all.length - 1].getBoundingClientRect());
  }
  for (const card of ghost?.querySelectorAll(".card[data-card]") || []) add(card);
  return before;
}

const near = (a, b) => Math.abs(a.left - b.left) < 1 && Math.abs(a.top - b.top) < 1;

/** After the board is drawn again: each face-up card that moved starts at its old
 *  box and glides home. A pile that grew by a card with no old box (a card drawn
 *  from the stock, the stock given back by an undo) gets it from the old top card
 *  of `from(pile)` ("w" → "s", …), if it names one. Returns the animations. */
export function flipCards(root, before, from = () => null) {
  if (reducedMotion() || !before.counts.size) return [];
  const moved = [];
  const left = new Map([...before.cards].map(([text, list]) => [text, [...list]]));
  for (const pile of root.querySelectorAll(".pile[data-pile]")) {
    const all = [...pile.querySelectorAll(".card")];
    all.forEach((card, i) => {
      const now = card.getBoundingClientRect();
      const olds = left.get(card.dataset.card);
      const still = olds?.findIndex((old) => near(old, now)) ?? -1;
      if (still >= 0) olds.splice(still, 1); // it stayed put
      else moved.push({ card, now, pile: pile.dataset.pile, top: i === all.length - 1, grew: all.length > (before.counts.get(pile.dataset.pile) || 0) });
    });
  }
  const started = [];
  for (const { card, now, pile, top, grew } of moved) {
    const olds = left.get(card.dataset.card);
    let old = null;
    if (olds?.length) {
      // The nearest old box of the same card (two decks: two of each).
      const dist = (b) => Math.hypot(b.left - now.left, b.top - now.top);
      const k = olds.reduce((best, b, j) => (dist(b) < dist(olds[best]) ? j : best), 0);
      old = olds.splice(k, 1)[0];
    } else if (top && grew) old = before.tops.get(from(pile)) || null;
    if (!old) continue;
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    const a = animate(card, [{ transform: `translate(${dx}px, ${dy}px)`, zIndex: 900 }, { transform: "none", zIndex: 900 }]);
    if (a) started.push(a);
  }
  return started;
}

// The win's cascade (issue 24): copies of the foundations' top cards fall off
// the table, round the foundations, the same time with four foundations
// (Seahaven) or eight (Easy Harp); none under reduced motion. finish.js plays it
// before the result card.

import { reducedMotion } from "./motion.js";

const CASCADE_PER_PILE = 6; // the top cards of each foundation fall
const CASCADE_STAGGER_MS = 70; // between two cards, at most
const CASCADE_SPREAD_MS = 1700; // from the first card's fall to the last one's, at most
const CASCADE_FALL_MS = 1100; // finish.css: .cascade-card's animation-duration

/** Copies of the foundations' top cards fall off the table; resolves when done
 *  (at once under reduced motion or without foundations). */
export function cascade(board) {
  if (reducedMotion()) return Promise.resolve();
  const piles = [...board.querySelectorAll('.pile[data-pile^="f"]')];
  // Round the foundations: each one's top card, then the next ones down.
  const falling = [];
  piles.forEach((pile, p) => {
    const cards = [...pile.querySelectorAll(".card.face")].slice(-CASCADE_PER_PILE).reverse();
    cards.forEach((card, k) => falling.push({ card, p, k, order: k * piles.length + p }));
  });
  if (!falling.length) return Promise.resolve();
  falling.sort((a, b) => a.order - b.order);
  // Four foundations (Seahaven) or eight (Easy Harp): the same time in all.
  const stagger = Math.min(CASCADE_STAGGER_MS, CASCADE_SPREAD_MS / falling.length);
  const layer = document.createElement("div");
  layer.className = "win-cascade";
  layer.setAttribute("aria-hidden", "true");
  const style = getComputedStyle(board);
  for (const name of ["--cw", "--ch", "--cf"]) layer.style.setProperty(name, style.getPropertyValue(name));
  falling.forEach(({ card, p, k }, i) => {
    const box = card.getBoundingClientRect();
    const copy = card.cloneNode(true);
    for (const name of ["data-card", "data-index", "role", "aria-label", "style"]) copy.removeAttribute(name);
    copy.classList.add("cascade-card");
    const side = (p + k) % 2 ? 1 : -1;
    copy.style.cssText = `left:${box.left}px;top:${box.top}px;--dx:${side * (80 + ((p * 53 + k * 37) % 160))}px;--dy:${
      innerHeight - box.top + 40
    }px;--spin:${side * (10 + ((k * 29) % 40))}deg;animation-delay:${Math.round(i * stagger)}ms`;
    // The card leaves its foundation as its copy starts to fall; it is back once all fell.
    copy.addEventListener("animationstart", () => (card.style.visibility = "hidden"), { once: true });
    layer.append(copy);
  });
  document.body.append(layer);
  return new Promise((resolve) =>
    setTimeout(
      () => {
        layer.remove();
        for (const { card } of falling) card.style.visibility = "";
        resolve();
      },
      (falling.length - 1) * stagger + CASCADE_FALL_MS,
    ),
  );
}

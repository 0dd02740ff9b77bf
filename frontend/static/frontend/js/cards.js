// Cards and piles: parsing the "7H" notation, localized names, and the DOM of a card.
// Names go through gettext so every language reads them ("seven of hearts").

import { fmt } from "./i18n.js";

export const RANKS = "A23456789TJQK";
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["H", "D"]);

/** "TH" → {rank: 10, rankText: "10", suit: "H", symbol: "♥", red: true}; null for a hidden card. */
export function parseCard(text) {
  if (!text) return null;
  const rank = RANKS.indexOf(text[0]) + 1;
  const suit = text[1];
  return {
    rank,
    rankText: text[0] === "T" ? "10" : text[0],
    suit,
    symbol: SUIT_SYMBOL[suit] || "?",
    red: RED.has(suit),
  };
}

export function rankName(rank) {
  switch (rank) {
    case 1: return gettext("ace");
    case 2: return gettext("two");
    case 3: return gettext("three");
    case 4: return gettext("four");
    case 5: return gettext("five");
    case 6: return gettext("six");
    case 7: return gettext("seven");
    case 8: return gettext("eight");
    case 9: return gettext("nine");
    case 10: return gettext("ten");
    case 11: return gettext("jack");
    case 12: return gettext("queen");
    case 13: return gettext("king");
    default: return "?";
  }
}

/** Plural suit names, as in "seven of hearts" and "this spot is for hearts". */
export function suitName(suit) {
  switch (suit) {
    case "S": return gettext("spades");
    case "H": return gettext("hearts");
    case "D": return gettext("diamonds");
    case "C": return gettext("clubs");
    default: return "?";
  }
}

/** "7H" → "seven of hearts"; null → "face-down card". */
export function cardName(text) {
  const card = parseCard(text);
  if (!card) return gettext("face-down card");
  return fmt(gettext("%(rank)s of %(suit)s"), { rank: rankName(card.rank), suit: suitName(card.suit) });
}

export function pileKind(pile) {
  if (pile === "s") return "stock";
  if (pile === "w") return "waste";
  if (pile === "f") return "area";
  return { t: "column", c: "cell", f: "foundation" }[pile[0]] || "pile";
}

/** "t3" → "column 3", "c1" → "cell 1", "f2" → "foundation 2", "s" → "stock". */
export function pileName(pile) {
  const n = pile.slice(1);
  switch (pileKind(pile)) {
    case "column": return fmt(gettext("column %(n)s"), { n });
    case "cell": return fmt(gettext("cell %(n)s"), { n });
    case "foundation": return fmt(gettext("foundation %(n)s"), { n });
    case "stock": return gettext("the stock");
    case "waste": return gettext("the waste");
    case "area": return gettext("the foundations");
    default: return pile;
  }
}

const FACE_LETTER = { 11: "J", 12: "Q", 13: "K" };

/** The HTML of one card. ``hidden``: drawn as a back (a face-down card, or a
 *  stock card). ``revealed``: a face-down card shown to a replay viewer. Its
 *  place is in ``data-top``/``data-z``, set as styles by ``placeCards``: the
 *  Content-Security-Policy refuses ``style`` attributes in HTML. */
export function cardHtml(text, { index, top = 0, hidden = false, revealed = false, z = 0 } = {}) {
  const style = `data-top="${top}" data-z="${z}"`;
  const card = parseCard(text);
  if (!card || (hidden && !revealed)) {
    return `<div class="card back" data-card="down" data-index="${index}" role="img" aria-label="${gettext("face-down card")}" ${style}></div>`;
  }
  const face = FACE_LETTER[card.rank];
  const centre = face
    ? `<span class="c-face">${face}<small>${card.symbol}</small></span>`
    : `<span class="c-pip">${card.symbol}</span>`;
  // suit-S/H/D/C: the four-colour deck (theme.css) colours diamonds and clubs apart.
  const classes = `card face ${card.red ? "red" : "black"} suit-${card.suit}${revealed && hidden ? " revealed" : ""}`;
  return (
    `<div class="${classes}" data-card="${text}" data-index="${index}" role="img" aria-label="${cardName(text)}" ${style}>` +
    `<span class="c-rank">${card.rankText}</span><span class="c-suit">${card.symbol}</span>${centre}` +
    `<span class="c-corner">${card.rankText}${card.symbol}</span></div>`
  );
}

/** Under ``root``, each element drawn with ``data-top`` (and ``data-z``) moved
 *  there through the CSS object model, which the policy allows. */
export function placeCards(root) {
  for (const el of root.querySelectorAll("[data-top]")) {
    el.style.top = `${el.dataset.top}px`;
    if (el.dataset.z) el.style.zIndex = el.dataset.z;
  }
}

// Where every pile goes: the largest cards with which the whole game fits the
// space the page gives the board (issue 15: phone-first). Pure geometry from the
// variant's layout hints (its game's declaration, catalogue.js) and the view's
// card counts — no rule of the game lives here.
//
// Tracks: one card-width track per column (Easy Harp 9, Seahaven 10), so the
// columns use the whole width. The top row (Easy Harp: stock, waste and eight
// foundations = 10 slots; Seahaven: cells left, foundations right) sits on the
// same tracks when it has room, else it spreads its slots over the columns'
// width, the cards just touching or barely overlapping.

import { variantInfo } from "./catalogue.js";
import { variantOf } from "./i18n.js";

const MIN_TRACKS = 8;
const MAX_CARD = 120; // px: past this the cards only get heavier, not clearer
const MIN_CARD = 24;
const HEIGHT_PER_CARD = 4.4; // the top row and a few overlapped cards per column, in card widths
const FAN_ROOM = 10; // buried cards a column shows at the widest fan (fan())
const FAN_MAX = 0.72; // the widest strip of a buried face-up card, of the card's height

/** The space the wrap gives the board and the largest card width for it. */
export function measure(wrap, tracks) {
  const style = getComputedStyle(wrap);
  const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  const padY = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
  const width = Math.max(200, wrap.clientWidth - padX);
  const height = Math.max(120, wrap.clientHeight - padY);
  const gap = Math.min(14, Math.max(3, Math.floor(width * 0.01)));
  const byWidth = (width - gap * (tracks - 1)) / tracks;
  const byHeight = height / HEIGHT_PER_CARD;
  const cw = Math.floor(Math.max(MIN_CARD, Math.min(byWidth, byHeight, MAX_CARD)));
  return { width, height, gap, cw, tracks };
}

/** Every size that follows from a card width. */
export function sized(base, cw) {
  const { width, height, gap, tracks } = base;
  const ch = Math.round(cw * 1.4);
  // Corner font (px): relatively larger on small cards, where only the corner strip shows.
  const cf = Math.round(Math.min(20, Math.max(11, cw * (cw < 56 ? 0.4 : 0.3))));
  const rowGap = Math.max(8, Math.round(gap * 1.6));
  const span = tracks * cw + (tracks - 1) * gap; // the columns' width
  const x0 = Math.max(0, (width - span) / 2);
  const area = Math.max(ch, height - ch - rowGap); // the columns' height
  return { width, height, gap, cw, ch, cf, rowGap, x0, span, area, tracks, ...fan(ch, cf, area) };
}

/** The strips a column shows of each buried card (px): `fu` of a face-up one
 *  (its corner, roomier on small cards), `fd` of a face-down one. Where the
 *  board is taller than the cards need (portrait phones, issue 24: the width
 *  sets the card size, the bottom half stayed empty), the fan opens up to a
 *  strip a long column of FAN_ROOM buried cards still fits in, at most
 *  FAN_MAX of the card: the buried cards' strips become fingertip targets. */
export function fan(ch, cf, area) {
  const fuBase = Math.max(Math.round(ch * 0.27), Math.ceil(cf * 1.6));
  const fdBase = Math.max(5, Math.round(ch * 0.12));
  const roomy = Math.floor((area - ch) / FAN_ROOM);
  const fu = Math.max(fuBase, Math.min(Math.round(ch * FAN_MAX), roomy));
  const fd = Math.max(fdBase, Math.min(Math.round(ch * 0.22), Math.round(fu * 0.4)));
  return { fu, fd, fuBase, fdBase: Math.min(fd, fdBase) };
}

/** Top offsets of a column's cards: face-down ones tighter; a column too long
 *  for the area closes its fan — first the face-up strips down to their usual
 *  size, then the face-down ones, then the face-up ones down to a strip that
 *  still shows the corner. */
export function columnOffsets(n, down, { ch, cf, area, fu, fd, fuBase, fdBase }) {
  if (n === 0) return [];
  down = Math.min(down, n - 1);
  const up = n - 1 - down;
  const minFd = Math.max(3, Math.round(ch * 0.045));
  const minFu = Math.ceil(cf + 3); // the rank still reads
  const room = area - ch;
  const fits = () => down * fd + up * fu <= room;
  if (!fits()) fd = Math.max(fdBase, Math.min(fd, (room - up * fu) / Math.max(1, down)));
  if (!fits()) fu = Math.max(fuBase, (room - down * fd) / Math.max(1, up));
  if (!fits()) fd = Math.max(minFd, Math.min(fd, (room - up * fu) / Math.max(1, down)));
  if (!fits()) fu = Math.max(minFu, (room - down * fd) / Math.max(1, up));
  const offsets = [0];
  for (let i = 1; i < n; i++) offsets.push(offsets[i - 1] + (i - 1 < down ? fd : fu));
  return offsets.map(Math.round);
}

/** The layout hints of `view`'s variant (its game's declaration, catalogue.js):
 *  {top_left, top_right, columns, suits}, or null without a catalogue. */
export function layoutHints(view) {
  return variantInfo(view.daily?.variant || variantOf(view.code))?.layout || null;
}

/** The suit letter a foundation spot takes (RULES.md C7), as the game declares
 *  it (the layout hints' `suits`); null for another pile or without a catalogue. */
export function spotSuit(view, pile) {
  return layoutHints(view)?.suits?.[pile] || null;
}

/** The board's rows for `view`: [top row ids, column ids, how many of the top
 *  row sit on the left], from its variant's layout hints (stock and waste, or the
 *  cells, left; the foundations right), each pile the view lists. */
export function pileRows(view) {
  const hints = layoutHints(view);
  if (!hints) return [[], Object.keys(view.piles), 0]; // no catalogue: one row, in the view's order
  const listed = (ids) => ids.filter((id) => id in view.piles);
  const left = listed(hints.top_left);
  return [[...left, ...listed(hints.top_right)], listed(hints.columns), left.length];
}

/** The x of each top-row slot: on the tracks when they fit (the `left` first
 *  slots from the left, the others from the right), else spread evenly over the
 *  widest of the columns' width and the room the board has. */
function topSlots(top, left, m) {
  const { cw, gap, x0, span, width, tracks } = m;
  const track = (i) => x0 + i * (cw + gap);
  if (top.length <= tracks) {
    return top.map((id, i) => (i < left ? track(i) : track(tracks - (top.length - i))));
  }
  const full = top.length * cw + (top.length - 1) * gap;
  const row = Math.min(full, Math.max(span, width));
  const start = (width - row) / 2;
  const step = (row - cw) / (top.length - 1);
  return top.map((_, i) => start + i * step);
}

/** The board's geometry for `rows` = pileRows(view): the metrics
 *  (card sizes), each pile's {x, y, height, offsets} and the board's size.
 *  Long columns (Easy Harp's king-led runs) shrink the cards a little, down to 55 %. */
export function computeLayout(wrap, view, rows, { reveal = false } = {}) {
  const [top, columns, left] = rows;
  const base = measure(wrap, Math.max(MIN_TRACKS, columns.length));
  const down = (id) => (reveal ? 0 : view.down?.[id] || 0);
  const offsetsOf = (id, m) => columnOffsets(view.piles[id].length, down(id), m);
  const smallest = Math.max(MIN_CARD, Math.floor(base.cw * 0.55));
  let m = sized(base, base.cw);
  for (let cw = base.cw; cw >= smallest; cw -= 1) {
    m = sized(base, cw);
    if (columns.every((id) => m.ch + (offsetsOf(id, m).at(-1) || 0) <= m.area)) break;
  }
  const piles = {};
  const xs = topSlots(top, left, m);
  top.forEach((id, i) => (piles[id] = { x: xs[i], y: 0, height: m.ch, offsets: null }));
  const colTop = m.ch + m.rowGap;
  const colX0 = m.x0 + ((m.tracks - columns.length) * (m.cw + m.gap)) / 2;
  let bottom = m.height;
  for (const [i, id] of columns.entries()) {
    const offsets = offsetsOf(id, m);
    const used = m.ch + (offsets.at(-1) || 0);
    piles[id] = { x: colX0 + i * (m.cw + m.gap), y: colTop, height: Math.max(m.area, used), offsets };
    bottom = Math.max(bottom, colTop + used);
  }
  return { metrics: m, piles, width: Math.ceil(m.width), height: Math.ceil(bottom) };
}

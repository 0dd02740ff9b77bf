// Translation helpers. Django's JavaScript catalog (/jsi18n/, loaded by a classic
// <script> before the modules) defines the globals gettext, ngettext, pgettext
// and interpolate; the fallbacks below keep the pages working in English without it.
// Strings are written as gettext("…") calls in each module so that
// `makemessages -d djangojs` finds them.

const g = globalThis;
if (typeof g.gettext !== "function") g.gettext = (s) => s;
if (typeof g.pgettext !== "function") g.pgettext = (context, s) => s;
if (typeof g.ngettext !== "function") g.ngettext = (one, many, n) => (n === 1 ? one : many);
if (typeof g.interpolate !== "function") {
  g.interpolate = (fmt, obj, named) =>
    named
      ? fmt.replace(/%\((\w+)\)s/g, (_, key) => String(obj[key]))
      : fmt.replace(/%s/g, () => String(obj.shift()));
}

export const LANG = document.documentElement.lang || "en";

/** Fill a "%(name)s" template. */
export function fmt(template, params) {
  return interpolate(template, params, true);
}

/** Digits in the page's language, without grouping: scores and moves stay short. */
export function formatNumber(n) {
  return n == null ? "–" : Number(n).toLocaleString(LANG, { useGrouping: false });
}

/** A UTC day ("2026-12-04") in the page's language: "4 December 2026" by default. */
export function formatDay(date, options = { day: "numeric", month: "long", year: "numeric" }) {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(LANG, { ...options, timeZone: "UTC" });
}

/** 75 000 ms → "1:15"; an hour or more → "1:02:03". */
export function formatMs(ms) {
  if (ms == null) return "–";
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** "SH1-C4-AAAAAJ2" → "SH1-C4" (a null code → ""). */
export function variantOf(code) {
  return typeof code === "string" ? code.split("-").slice(0, 2).join("-") : "";
}

/** The day (YYYY-MM-DD) of a game on a daily deal, from an attempt, a replay or a
 *  State (`daily` is a date on the first two, `{date, variant}` on a State). */
export function dailyDate(game) {
  if (!game) return null;
  if (typeof game.daily === "string") return game.daily;
  return game.daily?.date || game.view?.daily?.date || game.deal?.daily?.date || null;
}

/** What stands in for the code of a daily still running: "Daily · 2026-12-02". */
export function dailyLabel(date) {
  return date ? fmt(gettext("Daily · %(date)s"), { date }) : gettext("Daily");
}

/** The day after or before a YYYY-MM-DD day (calendar arithmetic, in UTC). */
export function addDays(date, days) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function statusLabel(status) {
  switch (status) {
    case "not_started":
      return gettext("Not started");
    case "playing":
      return gettext("Playing");
    case "won":
      return gettext("Won");
    case "resigned":
      return gettext("Resigned");
    case "abandoned":
      return gettext("Abandoned");
    default:
      return status || "";
  }
}

/** Tell screen readers something (the page's polite live region). */
export function announce(text) {
  const region = document.getElementById("announce");
  if (!region) return;
  region.textContent = "";
  // A fresh text node after a tick, so that the same sentence twice is read twice.
  setTimeout(() => (region.textContent = text), 30);
}

export function escapeHtml(text) {
  return String(text ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}

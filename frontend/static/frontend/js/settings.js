// The player's settings: {language, double_click, interactive_rules} (issue 6),
// the appearance {theme, deck, sounds, motion} (issue 15) and what a tap does,
// {tap: "best" | "foundation"} (issue 24).
// Signed in they are stored with the account: GET/PATCH /api/auth/settings/.
// Signed out they are kept in this browser (localStorage, through appearance.js),
// the language in Django's language cookie. Signing in, the account's settings
// win over this browser's (they follow the player from device to device); a new
// account starts from this browser's (adoptStoredSettings, on sign-up).
// The object loadSettings() resolves to is updated in place on save, so a board
// holding it sees the change at once.

import { get, patch } from "./api.js";

const DEFAULTS = {
  language: "",
  double_click: true,
  interactive_rules: true,
  theme: "",
  deck: "two",
  sounds: false,
  motion: "",
  tap: "best",
};
const STORED = ["double_click", "interactive_rules", "theme", "deck", "sounds", "motion", "tap"];
const appearance = window.appearance; // appearance.js, a classic script in <head>
let loading = null;

export function signedIn() {
  return document.body.dataset.authenticated === "1";
}

/** This browser's settings (signed out): the known ones of the right type only. */
function storedSettings() {
  const stored = appearance?.stored() || {};
  return Object.fromEntries(
    STORED.filter((name) => typeof stored[name] === typeof DEFAULTS[name]).map((name) => [name, stored[name]]),
  );
}

function cookieLanguage() {
  const hit = document.cookie.split("; ").find((part) => part.startsWith("django_language="));
  return hit ? decodeURIComponent(hit.slice("django_language=".length)) : "";
}

export function loadSettings() {
  loading ??= (async () => {
    const settings = { ...DEFAULTS };
    if (!signedIn()) return Object.assign(settings, storedSettings(), { language: cookieLanguage() });
    try {
      const me = await get("/api/auth/me/");
      if (me?.settings) return Object.assign(settings, me.settings);
      return Object.assign(settings, await get("/api/auth/settings/"));
    } catch {
      return settings; // the defaults: on, on, browser language, system appearance
    }
  })();
  return loading;
}

/** Apply ``changes`` at once (the page's appearance too), then keep them: on the
 *  account (signed in; undone if the server refuses) or in this browser. */
export async function saveSettings(changes) {
  const settings = await loadSettings();
  const before = { ...settings };
  Object.assign(settings, changes);
  appearance?.apply(settings);
  if (!signedIn()) {
    appearance?.store(Object.fromEntries(STORED.map((name) => [name, settings[name]])));
    return settings;
  }
  try {
    Object.assign(settings, await patch("/api/auth/settings/", changes));
  } catch (err) {
    Object.assign(settings, before);
    appearance?.apply(settings);
    throw err;
  }
  return settings;
}

/** After sign-up: the new account takes the settings this browser kept signed out. */
export async function adoptStoredSettings() {
  const stored = storedSettings();
  if (Object.keys(stored).length) await patch("/api/auth/settings/", stored);
}

/** Switch the page language: "" = the browser's. Reloads the page. */
export function applyLanguage(code) {
  const form = document.getElementById("setlang-form");
  if (!code || !form) {
    document.cookie = "django_language=; path=/; max-age=0; samesite=lax";
    location.reload();
    return;
  }
  form.elements.language.value = code;
  form.elements.next.value = location.pathname + location.search;
  form.submit();
}

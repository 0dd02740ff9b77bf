// The player's settings, stored with the account: GET/PATCH /api/auth/settings/
// ({language, double_click, interactive_rules}). Anonymous visitors get the
// defaults. The object loadSettings() resolves to is updated in place on save, so
// a board holding it sees the change at once.

import { get, patch } from "./api.js";

const DEFAULTS = { language: "", double_click: true, interactive_rules: true };
let loading = null;

export function signedIn() {
  return document.body.dataset.authenticated === "1";
}

export function loadSettings() {
  loading ??= (async () => {
    const settings = { ...DEFAULTS };
    if (!signedIn()) return settings;
    try {
      const me = await get("/api/auth/me/");
      if (me?.settings) return Object.assign(settings, me.settings);
      return Object.assign(settings, await get("/api/auth/settings/"));
    } catch {
      return settings; // the defaults: on, on, browser language
    }
  })();
  return loading;
}

export async function saveSettings(changes) {
  const settings = await loadSettings();
  const saved = await patch("/api/auth/settings/", changes);
  Object.assign(settings, saved || changes);
  return settings;
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

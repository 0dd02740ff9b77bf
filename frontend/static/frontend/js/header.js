// On every page: sign out, and the settings dialog (signed in: the account's;
// signed out: this browser's, with the language).

import "./i18n.js";
// The installable app's service worker (issue 28).
import "./webapp.js";
import { post } from "./api.js";
import "./privacy.js";
import { applyLanguage, loadSettings, saveSettings, signedIn } from "./settings.js";
import "./accountsettings.js";

const $ = (id) => document.getElementById(id);

$("signout")?.addEventListener("click", async () => {
  try {
    await post("/api/auth/logout/");
  } finally {
    location.href = "/";
  }
});

const dialog = $("settings-dialog");
if (dialog) {
  const form = $("settings-form");
  const status = $("settings-status");
  const CHECKBOXES = ["double_click", "interactive_rules", "sounds"];
  const RADIOS = ["theme", "deck", "motion", "tap"];

  const show = (settings) => {
    for (const name of CHECKBOXES) form.elements[name].checked = settings[name];
    for (const name of RADIOS) form.elements[name].value = settings[name];
    form.elements.language.value = settings.language || "";
  };

  $("settings-open").addEventListener("click", async () => {
    show(await loadSettings());
    status.textContent = "";
    dialog.showModal();
  });

  const save = async (name, value) => {
    if (name === "language" && !signedIn()) {
      applyLanguage(value); // the language cookie; reloads
      return;
    }
    status.textContent = gettext("Saving…");
    try {
      await saveSettings({ [name]: value });
      status.textContent = gettext("Saved.");
      if (name === "language") applyLanguage(value);
    } catch (err) {
      show(await loadSettings()); // as they are: the refused change undone
      status.textContent = err.message || gettext("Could not save the settings.");
    }
  };

  form.addEventListener("change", (e) => {
    const { name } = e.target;
    if (CHECKBOXES.includes(name)) save(name, e.target.checked);
    else if (RADIOS.includes(name) || name === "language") save(name, e.target.value);
  });
  dialog.addEventListener("click", (e) => e.target === dialog && dialog.close()); // backdrop
}

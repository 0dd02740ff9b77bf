// On every page: sign out, the settings dialog (signed in) and the language
// picker (anonymous).

import "./i18n.js";
import { post } from "./api.js";
import { applyLanguage, loadSettings, saveSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);

$("signout")?.addEventListener("click", async () => {
  try {
    await post("/api/auth/logout/");
  } finally {
    location.href = "/";
  }
});

$("anon-language")?.addEventListener("change", (e) => applyLanguage(e.target.value));

const dialog = $("settings-dialog");
if (dialog) {
  const status = $("settings-status");
  const fields = {
    double_click: $("set-double-click"),
    interactive_rules: $("set-interactive-rules"),
    language: $("set-language"),
  };
  $("settings-open").addEventListener("click", async () => {
    const settings = await loadSettings();
    fields.double_click.checked = settings.double_click;
    fields.interactive_rules.checked = settings.interactive_rules;
    fields.language.value = settings.language || "";
    status.textContent = "";
    dialog.showModal();
  });
  const save = async (name, value) => {
    status.textContent = gettext("Saving…");
    try {
      await saveSettings({ [name]: value });
      status.textContent = gettext("Saved.");
      if (name === "language") applyLanguage(value);
    } catch (err) {
      status.textContent = err.message || gettext("Could not save the settings.");
    }
  };
  fields.double_click.addEventListener("change", (e) => save("double_click", e.target.checked));
  fields.interactive_rules.addEventListener("change", (e) => save("interactive_rules", e.target.checked));
  fields.language.addEventListener("change", (e) => save("language", e.target.value));
  dialog.addEventListener("click", (e) => e.target === dialog && dialog.close()); // backdrop
}

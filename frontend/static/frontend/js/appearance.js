// The appearance settings (theme, deck colours, motion) as attributes of <html>,
// which theme.css and base.css read: data-theme="light"|"dark" (absent: follow
// prefers-color-scheme), data-deck="four", data-motion="reduced".
//
// A classic script in <head>, not a module: it runs before the first paint, so a
// signed-out visitor's stored dark theme never flashes light. Loaded from a src,
// not written inline, so a Content-Security-Policy without inline scripts allows
// it. With `data-stored` (signed out, base.html) it applies the settings this
// browser keeps; signed in, the server writes the account's attributes itself.
// settings.js uses `window.appearance` to apply and store changes.

(function () {
  var KEY = "patience-settings";

  function apply(settings) {
    var root = document.documentElement;
    var attributes = {
      theme: settings.theme === "light" || settings.theme === "dark" ? settings.theme : "",
      deck: settings.deck === "four" ? "four" : "",
      motion: settings.motion === "reduced" ? "reduced" : "",
    };
    for (var name in attributes) {
      if (attributes[name]) root.setAttribute("data-" + name, attributes[name]);
      else root.removeAttribute("data-" + name);
    }
  }

  /** This browser's settings (signed out): an object, {} when none or unreadable. */
  function stored() {
    try {
      var value = JSON.parse(localStorage.getItem(KEY) || "{}");
      return value && typeof value === "object" && !Array.isArray(value) ? value : {};
    } catch (e) {
      return {}; // storage blocked (some private modes) or not JSON: the defaults
    }
  }

  function store(settings) {
    try {
      localStorage.setItem(KEY, JSON.stringify(settings));
      return true;
    } catch (e) {
      return false;
    }
  }

  window.appearance = { KEY: KEY, apply: apply, stored: stored, store: store };
  var script = document.currentScript;
  if (script && script.hasAttribute("data-stored")) apply(stored());
})();

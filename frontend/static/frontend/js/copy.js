// Copy a text to the clipboard from a button (the code of a game, a commitment,
// a command), with a fallback that selects it for Ctrl+C when the page has no
// clipboard access; the button shows it worked and screen readers hear it.

import { announce } from "./i18n.js";

export const COPY_ICON =
  '<svg class="copy-icon" viewBox="0 0 16 16" aria-hidden="true"><rect x="5" y="5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.6"/><path d="M3.5 10.5h-1a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1h7a1 1 0 0 1 1 1v1" fill="none" stroke="currentColor" stroke-width="1.6"/></svg>';

/** Copy `text`; `shown` is the element showing it (selected when the clipboard is refused).
 *  Resolves to whether the text was copied. */
export async function copyText(text, button, shown, said) {
  let copied = true;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    copied = false;
    if (shown) {
      const range = document.createRange();
      range.selectNodeContents(shown);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      copied = Boolean(document.execCommand?.("copy"));
    }
  }
  if (button) {
    button.classList.add("done");
    setTimeout(() => button.classList.remove("done"), 1200);
  }
  announce(said || gettext("Copied."));
  return copied;
}

/** Every `[data-copy]` button under `root` copies its value (one listener). */
export function copyButtons(root) {
  root.addEventListener("click", (e) => {
    const button = e.target.closest("[data-copy]");
    if (!button || !root.contains(button)) return;
    const target = button.dataset.copyFrom ? document.getElementById(button.dataset.copyFrom) : null;
    copyText(button.dataset.copy || target?.textContent || "", button, target);
  });
}

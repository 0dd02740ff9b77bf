// The account's part of the settings dialog (issue 28), signed in only: the
// email (set, change, remove; confirmed by the link mailed to it, which "Send the
// link again" mails anew), the password
// changed (this browser stays signed in, the others are signed out), and sign
// out everywhere. What the account holds comes from GET /api/auth/me/.

import { get, post, api } from "./api.js";
import { fmt } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const section = $("set-account");

function showEmail(me) {
  $("set-email").value = me.email || "";
  $("set-email-state").textContent = !me.email
    ? ""
    : me.email_verified
      ? gettext("(confirmed)")
      : gettext("(not confirmed yet: see the link we mailed)");
  // The first mail lost or its link expired: another, while the address waits for it.
  $("set-email-resend").hidden = !me.email || me.email_verified;
}

async function run(action) {
  const status = $("account-settings-status");
  status.textContent = gettext("Saving…");
  try {
    status.textContent = await action();
  } catch (err) {
    status.textContent = err.message;
  }
}

if (section) {
  $("settings-open").addEventListener("click", async () => {
    $("account-settings-status").textContent = "";
    showEmail(await get("/api/auth/me/"));
  });

  $("set-email-save").addEventListener("click", () =>
    run(async () => {
      const me = await api("/api/auth/email/", { method: "PUT", body: { email: $("set-email").value.trim() } });
      showEmail(me);
      return me.email ? gettext("Saved. Open the link we mailed to confirm it.") : gettext("The email is removed.");
    }),
  );

  $("set-email-resend").addEventListener("click", () =>
    run(async () => {
      const sent = await post("/api/auth/email/verify/resend/");
      return fmt(gettext("A new link is on its way to %(email)s."), { email: sent.email });
    }),
  );

  $("set-password-save").addEventListener("click", () =>
    run(async () => {
      await post("/api/auth/password/", { old: $("set-old-password").value, new: $("set-new-password").value });
      $("set-old-password").value = "";
      $("set-new-password").value = "";
      return gettext("The password is changed. Your other devices are signed out.");
    }),
  );

  $("signout-everywhere").addEventListener("click", async () => {
    try {
      await post("/api/auth/logout/everywhere/");
    } finally {
      location.href = "/";
    }
  });
}

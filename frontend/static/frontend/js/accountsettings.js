// The account's part of the settings dialog (issue 28), signed in only: the
// email (set, change, remove; confirmed by the link mailed to it, which "Send the
// link again" mails anew), the password changed (this browser stays signed in,
// the others are signed out) — both with the current password (issue 37) — and
// sign out everywhere. What the account holds comes from GET /api/auth/me/.

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
      const body = { email: $("set-email").value.trim(), password: $("set-old-password").value };
      const me = await api("/api/auth/email/", { method: "PUT", body });
      $("set-old-password").value = "";
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

// The reminder of the new daily (issue 28): off, a notification on this device
// (Web Push: the browser's permission is asked only when the player picks it),
// or a mail to the confirmed address; when the day opens or at a local hour of
// the browser's time zone. When push cannot be had — no key on this server, the
// permission refused, a browser without it — the words say so and offer email.
const reminderSection = $("set-reminder");
let reminderState = null;

function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;
}

function fillHours() {
  const select = $("set-reminder-hour");
  if (select.options.length > 1) return;
  for (let hour = 0; hour < 24; hour++) {
    const label = new Date(2000, 0, 1, hour).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    select.add(new Option(fmt(gettext("At %(time)s, your time"), { time: label }), String(hour)));
  }
}

function showReminder(state) {
  reminderState = state;
  fillHours();
  for (const input of reminderSection.querySelectorAll("input[name=reminder]")) {
    input.checked = input.value === state.channel;
  }
  $("set-reminder-hour").value = state.hour === null ? "" : String(state.hour);
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function deviceLabel() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrom(e|ium)\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "Browser";
  const system = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Windows/.test(ua) ? "Windows" : /Mac OS/.test(ua) ? "macOS" : /Linux/.test(ua) ? "Linux" : "";
  return system ? `${browser} · ${system}` : browser;
}

// Why push cannot be had here, in words that offer email; null when it can.
function pushProblem(state) {
  if (!state.push_available || !state.vapid_public_key) {
    return gettext("This site does not send notifications at the moment. Choose “By email” instead.");
  }
  if (!pushSupported()) {
    return gettext("This browser cannot show notifications from this site. Choose “By email” instead.");
  }
  return null;
}

async function subscribeThisDevice(state) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    throw new Error(
      gettext("Notifications are blocked for this site. Allow them in your browser's settings, or choose “By email” instead."),
    );
  }
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: keyBytes(state.vapid_public_key),
  });
  await post("/api/reminders/push/", { ...subscription.toJSON(), label: deviceLabel() });
}

async function forgetThisDevice() {
  if (!pushSupported()) return;
  const registration = await navigator.serviceWorker.getRegistration();
  const subscription = registration && (await registration.pushManager.getSubscription());
  if (!subscription) return;
  await api("/api/reminders/push/", { method: "DELETE", body: { endpoint: subscription.endpoint } }).catch(() => {});
  await subscription.unsubscribe();
}

async function saveReminder() {
  const chosen = reminderSection.querySelector("input[name=reminder]:checked");
  const channel = chosen ? chosen.value : "off";
  const hourValue = $("set-reminder-hour").value;
  const body = { channel, hour: hourValue === "" ? null : Number(hourValue) };
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone) body.timezone = zone;
  if (channel === "push") {
    const problem = pushProblem(reminderState || (await get("/api/reminders/")));
    if (problem) throw new Error(problem);
    await subscribeThisDevice(reminderState);
  } else if (channel === "off") {
    await forgetThisDevice();
  }
  showReminder(await api("/api/reminders/", { method: "PUT", body }));
  if (channel === "off") return gettext("No reminders.");
  return channel === "push"
    ? gettext("Saved: a notification on this device when the new daily opens.")
    : gettext("Saved: a mail when the new daily opens.");
}

if (reminderSection) {
  $("settings-open").addEventListener("click", async () => {
    $("reminder-status").textContent = "";
    showReminder(await get("/api/reminders/"));
  });
  $("set-reminder-save").addEventListener("click", async () => {
    const status = $("reminder-status");
    status.textContent = gettext("Saving…");
    try {
      status.textContent = await saveReminder();
    } catch (err) {
      status.textContent = err.message;
    }
  });
}

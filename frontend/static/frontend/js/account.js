// Keeping an account (issue 28): asking for a password-reset link, following it
// (a new password), and following an email's verification link. The link's
// uid and token are read from the page's address and sent to the API as they are.

import { fmt } from "./i18n.js";
import { post } from "./api.js";

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const error = $("account-error");
const status = $("account-status");

async function requestReset(form) {
  const target = form.elements.target.value.trim();
  if (!target) {
    error.textContent = gettext("Enter your email or your username.");
    return;
  }
  const body = target.includes("@") ? { email: target } : { username: target };
  await post("/api/auth/password/reset/", body);
  // The same answer whatever exists: say what happens if it does.
  status.textContent = gettext("If that account has a confirmed email, a link is on its way. It works once, for an hour.");
}

async function confirmReset(form) {
  const password = form.elements.password.value;
  if (!password) {
    error.textContent = gettext("Enter a new password.");
    return;
  }
  const done = await post("/api/auth/password/reset/confirm/", {
    uid: query.get("uid") || "",
    token: query.get("token") || "",
    password,
  });
  status.textContent = fmt(gettext("The password of %(name)s is set. Sign in with it."), { name: done.username });
  form.querySelectorAll("input, button").forEach((el) => (el.disabled = true));
  $("reset-signin").hidden = false;
}

function onSubmit(form, action) {
  // Its first field, or its button where it has none (the secure form).
  const first = () => form.querySelector("input") || form.querySelector("button[type=submit]");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    status.textContent = "";
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;
    try {
      await action(form);
    } catch (err) {
      error.textContent = err.message;
      submit.disabled = false;
    } finally {
      if (form.querySelector("input") && !first().disabled) submit.disabled = false;
    }
  });
  first().focus();
}

async function verify() {
  try {
    const done = await post("/api/auth/email/verify/", { token: query.get("token") || "" });
    $("verify-status").textContent = fmt(gettext("%(email)s is confirmed for %(name)s."), {
      email: done.email,
      name: done.username,
    });
  } catch (err) {
    $("verify-status").textContent = "";
    error.textContent = err.message;
  }
}

// A notice's "this wasn't me" link (issue 37): secure the account, then choose
// the new password on the reset page with the reset the answer carries.
async function secure() {
  const done = await post("/api/auth/secure/", { token: query.get("token") || "" });
  const next = new URLSearchParams({ uid: done.uid, token: done.token });
  location.replace(`/account/reset/?${next}`);
}

if ($("secure-form")) onSubmit($("secure-form"), secure);
if ($("reset-request-form")) onSubmit($("reset-request-form"), requestReset);
if ($("reset-confirm-form")) onSubmit($("reset-confirm-form"), confirmReset);
if ($("verify-panel")) verify();

// The reminder mail's link (issue 28): a button, so a link checker stops nothing.
async function remindersOff(form) {
  const done = await post("/api/reminders/unsubscribe/", { token: query.get("token") || "" });
  status.textContent = fmt(gettext("%(name)s gets no more reminder mails."), { name: done.username });
  form.querySelector("button").disabled = true;
}
const offForm = $("reminders-off-form");
if (offForm) {
  offForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    try {
      await remindersOff(offForm);
    } catch (err) {
      error.textContent = err.message;
    }
  });
}

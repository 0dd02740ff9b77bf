// Sign up and sign in: JSON to /api/auth/register/ or /api/auth/login/.

import { fmt } from "./i18n.js";
import { post } from "./api.js";
import { variantLabel } from "./catalogue.js";
import { adoptStoredSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);
const form = $("auth-form");
const error = document.getElementById("auth-error");
const submit = document.getElementById("auth-submit");

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const username = form.elements.username.value;
  const password = form.elements.password.value;
  if (!username.trim() || !password) {
    error.textContent = gettext("Enter a username and a password.");
    return;
  }
  submit.disabled = true;
  error.textContent = "";
  const endpoint = form.dataset.mode === "signup" ? "/api/auth/register/" : "/api/auth/login/";
  try {
    const body = { username, password };
    // Optional at sign-up (issue 28): a link to confirm it is mailed to it.
    const email = form.elements.email?.value.trim();
    if (email) body.email = email;
    const me = await post(endpoint, body);
    // A new account starts from the settings this browser kept signed out; on
    // sign-in the account's own settings win (settings.js).
    if (form.dataset.mode === "signup") await adoptStoredSettings().catch(() => {});
    // From a guest's session its games came along, but not a daily the account
    // had played already (one ranked attempt each): say so before going on.
    const kept = me?.claim?.kept || [];
    if (kept.length) {
      const variants = kept.map((k) => variantLabel(k.variant)).join(", ");
      $("auth-claim-text").textContent = fmt(
        gettext("Signed in. Your guest result on %(variants)s is not ranked: this account already has its one attempt on that daily deal."),
        { variants },
      );
      $("auth-claim").hidden = false;
      form.querySelectorAll("input, button").forEach((el) => (el.disabled = true));
      $("auth-continue").focus();
      return;
    }
    location.href = form.dataset.next || "/";
  } catch (err) {
    error.textContent = err.message;
    submit.disabled = false;
  }
});
form.elements.username.focus();

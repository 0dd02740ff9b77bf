// Sign up and sign in: JSON to /api/auth/register/ or /api/auth/login/.

import "./i18n.js";
import { post } from "./api.js";
import { adoptStoredSettings } from "./settings.js";

const form = document.getElementById("auth-form");
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
    await post(endpoint, { username, password });
    // A new account starts from the settings this browser kept signed out; on
    // sign-in the account's own settings win (settings.js).
    if (form.dataset.mode === "signup") await adoptStoredSettings().catch(() => {});
    location.href = form.dataset.next || "/";
  } catch (err) {
    error.textContent = err.message;
    submit.disabled = false;
  }
});
form.elements.username.focus();

// Your data (issue 28), in the settings dialog of an account: "Download my data"
// is a plain link to GET /api/auth/export/ (a JSON file); "Delete my account"
// sends DELETE /api/auth/account/ with the password, then goes to the privacy
// page signed out. The server decides everything; this only asks.

import { api } from "./api.js";

const $ = (id) => document.getElementById(id);

const password = $("privacy-password");
const status = $("privacy-status");

async function deleteAccount() {
  status.textContent = "";
  try {
    await api("/api/auth/account/", { method: "DELETE", body: { password: password.value } });
  } catch (err) {
    status.textContent = err.message || gettext("Could not delete the account.");
    return;
  }
  location.href = "/privacy/?deleted=1";
}

if (password) {
  $("privacy-delete-confirm").addEventListener("click", deleteAccount);
  password.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault(); // not the settings form's submit, which closes the dialog
    deleteAccount();
  });
}

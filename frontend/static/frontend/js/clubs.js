// My clubs (GET /api/clubs/), making one (POST /api/clubs/) and joining one by its
// code (POST /api/clubs/join/), from the form or from an invite link's page.

import { escapeHtml, fmt, formatNumber } from "./i18n.js";
import { get, post } from "./api.js";

const $ = (id) => document.getElementById(id);
const root = $("clubs");

function showError(err) {
  $("clubs-error").textContent = err ? err.message : "";
}

async function load() {
  try {
    const { clubs } = await get("/api/clubs/");
    $("my-clubs").innerHTML = clubs
      .map(
        (c) => `<li data-slug="${escapeHtml(c.slug)}"><a href="/clubs/${encodeURIComponent(c.slug)}/">${escapeHtml(c.name)}</a>
          <span class="muted">${escapeHtml(fmt(ngettext("%(n)s member", "%(n)s members", c.members_count), { n: formatNumber(c.members_count) }))}</span></li>`,
      )
      .join("");
    $("my-clubs-empty").hidden = clubs.length > 0;
  } catch (err) {
    showError(err);
  }
}

async function join(code) {
  showError(null);
  try {
    const club = await post("/api/clubs/join/", { code });
    location.href = `/clubs/${encodeURIComponent(club.slug)}/`;
  } catch (err) {
    showError(err);
  }
}

$("club-create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  showError(null);
  try {
    const club = await post("/api/clubs/", { name: $("club-name").value });
    location.href = `/clubs/${encodeURIComponent(club.slug)}/`;
  } catch (err) {
    showError(err);
    $("club-name").focus();
  }
});

$("club-join-form").addEventListener("submit", (e) => {
  e.preventDefault();
  // A pasted invite link works as well as its code.
  const text = $("club-code").value.trim();
  const code = text.match(/clubs\/join\/([A-Za-z0-9_-]+)/)?.[1] || text;
  join(code);
});

$("club-invite-form")?.addEventListener("submit", (e) => {
  e.preventDefault();
  join(root.dataset.code);
});

load();

// Play first, sign up later (issue 24): a signed-out visitor who starts a game
// plays as a guest — a player the server binds to this browser's session
// (POST /api/auth/guest/, once). Its daily results are not ranked until the
// visitor signs up or in from this session, which brings its games along.

import { post } from "./api.js";
import { signedIn } from "./settings.js";

export function isGuest() {
  return document.body.dataset.guest === "1";
}

/** Before starting a game: a player to start it as — the account, or a guest. */
export async function ensurePlayer() {
  if (signedIn() || isGuest()) return;
  await post("/api/auth/guest/");
  document.body.dataset.guest = "1";
}

/** Where signing up from here comes back to. */
export function signupHref(next = location.pathname + location.search + location.hash) {
  return `/signup/?next=${encodeURIComponent(next)}`;
}

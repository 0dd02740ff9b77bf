// The JSON API: one fetch wrapper. Unsafe requests carry the CSRF token from the
// csrftoken cookie (GET /api/auth/me/ sets it if the page did not).
// A page embeds the API's answers to its first GETs (#api-prefill: the server ran
// the API's own views for this player, frontend/loading.py): the first get() of
// such a path takes its answer from there, without a round trip; later ones fetch.

import { describeRefusal } from "./reasons.js";

export class ApiError extends Error {
  constructor(status, error) {
    // In the player's language when the code is known (reasons.js), else the server's words.
    super((error && describeRefusal(error, "")) || error?.message || `HTTP ${status}`);
    this.status = status; // 0: no answer (network)
    this.code = error?.code || "error";
    this.params = error?.params || null;
    this.error = error || {};
    this.retryAfter = 0; // seconds, from a 503's or a 429's Retry-After
  }
}

function cookie(name) {
  const hit = document.cookie.split("; ").find((part) => part.startsWith(`${name}=`));
  return hit ? decodeURIComponent(hit.slice(name.length + 1)) : "";
}

async function csrfToken() {
  if (!cookie("csrftoken")) await fetch("/api/auth/me/", { credentials: "same-origin" });
  return cookie("csrftoken");
}

export async function api(path, { method = "GET", body, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (!["GET", "HEAD"].includes(method)) headers["X-CSRFToken"] = await csrfToken();
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      signal,
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError(0, { code: "network", message: gettext("No connection to the server.") });
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data?.error);
    error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
    throw error;
  }
  return data;
}

const prefill = (() => {
  const element = document.getElementById("api-prefill");
  try {
    return element ? JSON.parse(element.textContent) : {};
  } catch {
    return {};
  }
})();

/** The embedded answer to GET ``path``, once (null: none, or already taken). */
export function takePrefill(path) {
  if (!Object.hasOwn(prefill, path)) return null;
  const answer = prefill[path];
  delete prefill[path];
  return answer;
}

export const get = (path, opts) => {
  const answer = takePrefill(path);
  return answer === null ? api(path, opts) : Promise.resolve(answer);
};
export const post = (path, body) => api(path, { method: "POST", body: body ?? {} });
export const patch = (path, body) => api(path, { method: "PATCH", body });

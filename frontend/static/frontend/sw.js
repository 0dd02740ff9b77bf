// The service worker of the installable app (issue 28), served at /sw.js by
// frontend/views.py, which puts SHELL (the offline page and the files its page
// loads) and VERSION in front of this file.
//
// What it keeps: the page shell only — the offline page and the versioned,
// immutable stylesheet, module and string bundles and static files. What it
// never keeps: an /api/ answer, a websocket (a service worker never sees one), a
// page (pages carry the API's first answers: game state, the player's), or any
// answer not marked immutable. A page is always the network's; offline, the
// offline page stands in. The server stays the referee: nothing here plays.

/* global SHELL, VERSION */
const CACHE = `shell-${VERSION}`;
const OFFLINE = "/offline/";
// Never answered from a cache, never put in one.
const NEVER = /^\/(api|ws)\//;
// Files a page loads that may be kept once they are marked immutable.
const SHELL_FILES = /^\/(css|js|jsi18n|static)\//;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  // A new release's shell replaces the last one's.
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names.filter((name) => name !== CACHE).map((name) => caches.delete(name)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

function keepable(response) {
  return response.ok && /\bimmutable\b/.test(response.headers.get("Cache-Control") || "");
}

async function shellFile(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (keepable(response)) await cache.put(request, response.clone());
  return response;
}

async function page(request) {
  try {
    return await fetch(request);
  } catch (offline) {
    return (await caches.match(OFFLINE)) || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (NEVER.test(url.pathname)) return; // the network's, untouched
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (SHELL_FILES.test(url.pathname)) {
    event.respondWith(shellFile(request));
  }
});

// The reminder of the new daily (issue 28; accounts/reminders.py): the server's
// push says the day and where to go, in the player's language — nothing of a
// deal. Shown as it came; a click opens /daily/ (or focuses a tab showing it).
// Nothing is kept: the push handler caches nothing.
const REMINDER_URL = "/daily/";

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (notJson) {
    data = {};
  }
  const url = typeof data.url === "string" && data.url.startsWith("/") ? data.url : REMINDER_URL;
  event.waitUntil(
    self.registration.showNotification(data.title || "Patience Daily", {
      body: data.body || "",
      tag: data.tag || "daily",
      icon: "/static/frontend/icons/icon-192.png",
      data: { url },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || REMINDER_URL, self.location.origin);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => new URL(w.url).pathname === target.pathname);
      if (open) return open.focus();
      return self.clients.openWindow(target.href);
    }),
  );
});

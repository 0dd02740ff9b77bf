// On every page: the installable app's service worker (issue 28, /sw.js). It
// keeps the page shell for offline use and nothing of a game (see sw.js).

if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // No worker (a private window, a browser setting): the site works the same.
  });
}

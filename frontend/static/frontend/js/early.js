// The game page's socket, opened as soon as this file arrives (issue 24): an async
// module with no imports runs before the page's other modules have loaded, so the
// socket's handshake overlaps their loading instead of following it. socket.js
// adopts it, with the events it has seen so far, when it first connects to that URL.
// The path: <meta name="early-socket" content="/ws/games/<id>/"> (play.html, watch.html).
// Arriving after socket.js has connected (window.earlySocket === false), it does nothing.

const meta = document.querySelector('meta[name="early-socket"]');
if (meta && typeof WebSocket === "function" && window.earlySocket === undefined) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = `${scheme}//${location.host}${meta.content}`;
  const ws = new WebSocket(url);
  const early = { url, ws, events: [] };
  const keep = (event) => early.events.push(event);
  ws.onopen = keep;
  ws.onmessage = keep;
  ws.onclose = keep;
  window.earlySocket = early;
}

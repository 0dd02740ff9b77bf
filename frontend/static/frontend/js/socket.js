// A websocket that reconnects by itself with backoff, keeps itself alive with
// pings, and reports its state ("connecting" | "open" | "offline" | "closed").
// Messages are JSON objects both ways (games/websocket.md).

const FATAL = new Set([4400, 4401, 4403, 4404]); // close codes worth no retry
const PING_MS = 25_000;
const TOO_MANY = 4429; // over the frame budget or the socket caps: retry, but slowly

export class Socket {
  constructor(path, { onMessage, onOpen, onStatus, onFatal } = {}) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.url = `${scheme}//${location.host}${path}`;
    this.onMessage = onMessage || (() => {});
    this.onOpen = onOpen || (() => {});
    this.onStatus = onStatus || (() => {});
    this.onFatal = onFatal || (() => {});
    this.attempt = 0;
    this.ws = null;
    this.timer = null;
    this.ping = null;
    this.stopped = false;
    window.addEventListener("online", () => this.reconnectNow());
    // The network went away: the socket may not notice for a long while; start over.
    window.addEventListener("offline", () => this.ws && this.restart());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
  }

  get isOpen() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  connect() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.status(this.attempt ? "offline" : "connecting");
    const early = adoptEarly(this.url);
    const ws = early ? early.ws : new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.status("open");
      clearInterval(this.ping);
      this.ping = setInterval(() => this.send({ type: "ping" }), PING_MS);
      this.onOpen();
    };
    ws.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(message);
    };
    ws.onclose = (event) => {
      clearInterval(this.ping);
      if (this.ws !== ws) return; // replaced by a newer socket
      this.ws = null;
      if (FATAL.has(event.code)) {
        this.stopped = true;
        this.status("closed");
        this.onFatal(event.code);
        return;
      }
      // Refused for too many frames or sockets: come back at the longest backoff,
      // not in half a second, where the refusal itself would be the flood.
      if (event.code === TOO_MANY) this.attempt = Math.max(this.attempt, 5);
      this.scheduleReconnect();
    };
    // What the early socket saw before it was adopted, in its order.
    for (const event of early?.events || []) ws[`on${event.type}`]?.(event);
  }

  scheduleReconnect() {
    if (this.stopped) return;
    this.attempt += 1;
    this.status("offline");
    // 0.5 s, 1 s, 2 s … up to 15 s, with jitter so that many clients do not return at once.
    const delay = Math.min(15_000, 500 * 2 ** (this.attempt - 1)) * (0.75 + Math.random() / 2);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Try again at once (back online, tab shown again, an ack overdue). */
  reconnectNow() {
    if (this.stopped || this.isOpen) return;
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) return;
    this.connect();
  }

  /** Drop the current connection and connect again (a silent, half-dead socket). */
  restart() {
    if (this.stopped) return;
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    this.connect();
  }

  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    this.ws?.close();
  }

  status(state) {
    this.state = state;
    this.onStatus(state);
  }
}

/** The socket early.js opened to ``url`` at the page's start, taken once (null: none).
 *  From then on early.js, should it run late, opens none (false). */
function adoptEarly(url) {
  const early = window.earlySocket;
  window.earlySocket = false;
  if (!early || early.url !== url) {
    if (early) early.ws.close(); // another path's: not ours to keep
    return null;
  }
  return early;
}

/** Show a socket's state in a #connection element (data-state + text). */
export function showConnection(el, state) {
  if (!el) return;
  el.dataset.state = state;
  el.textContent =
    state === "open"
      ? gettext("Live")
      : state === "connecting"
        ? gettext("Connecting…")
        : state === "closed"
          ? gettext("Disconnected")
          : gettext("Offline — reconnecting…");
}

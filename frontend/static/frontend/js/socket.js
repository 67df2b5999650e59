// The pages' one websocket client, for both of the site's sockets — the live board
// (/ws/daily/<date>/, live.js) and a game's (/ws/games/<id>/, gamesocket.js): it connects, reads
// each frame as JSON, answers the server's liveness check, opens the socket again after a drop —
// waiting longer each time, with jitter, so that a crowd of pages dropped at once does not come
// back at once — and not after a close whose code says that trying again cannot help
// (docs/api.md). What the frames mean is its owner's business.
//
// The liveness check: the server may send {"type": "ping", "n": <int>} on any socket; the page
// answers at once {"type": "pong", "n": <the same int>}, and the frame goes no further. A page
// that does not answer is taken for one that no longer reads, and closed (4008 not_reading).

/**
 * Close codes after which a socket is not opened again: no valid session or token (4401), no such
 * game or path (4404), a malformed day (4400); and the limits every socket is held to
 * (core/socket_limits.py) — too many messages or output left unread (4008 too_many_messages,
 * not_reading), a message too large (4009 too_large), too many sockets from the client's
 * network (4429 too_many_sockets).
 */
export const FINAL_CODES = new Set([4400, 4401, 4404, 4008, 4009, 4429]);
/** The close code a page gives a socket it lets go of (4000-4999: the application's own). */
export const DROPPED = 4000;
const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 30000;

/**
 * Milliseconds to wait before the `attempt`-th opening again (0 for the first after a socket that
 * was fine): doubling from FIRST_WAIT_MS up to LONGEST_WAIT_MS, each time within ±25% at random
 * (`random`: a number in [0, 1), Math.random's).
 */
export function backoff(attempt, random = Math.random()) {
  return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** attempt) * (0.75 + random * 0.5);
}

export class Socket {
  /**
   * Opens `url` (ws: or wss:) at once.
   * @param {string} url
   * @param {{onOpen?: (again: boolean) => void, onMessage?: (msg: object) => void,
   *   onClose?: (close: {code: number, reason: string, final: boolean}) => void}} hooks
   *   onOpen: a socket is open; `again` when one was open before, so that what the owner holds
   *   may be behind: the owner's resync goes here (or on the server's first frame).
   *   onMessage: each frame from the server that is a JSON object, but a ping.
   *   onClose: the open socket (or the attempt at one) ended, or was let go (`drop()`); `final`:
   *   no socket will be opened again (a close code of FINAL_CODES).
   */
  constructor(url, { onOpen = () => {}, onMessage = () => {}, onClose = () => {} } = {}) {
    this.url = url;
    this.hooks = { onOpen, onMessage, onClose };
    this.socket = null;
    this.attempt = 0; // openings since the last socket the owner found fine (steady())
    this.opened = false; // a socket was open once
    this.retryTimer = null;
    this.final = false; // closed with a code of FINAL_CODES: never opened again
    this.closed = false; // the owner is done with it
    this.listening = new AbortController();
    const wake = () => this.retry(0); // (the network back, the page shown again: no wait)
    window.addEventListener("online", wake, { signal: this.listening.signal });
    document.addEventListener("visibilitychange", () => { if (!document.hidden) wake(); }, { signal: this.listening.signal });
    this.connect();
  }

  /** Whether a socket is open now (a message sent would go). */
  get isOpen() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /** Whether an opening again is waiting for its time. */
  get retrying() {
    return this.retryTimer !== null;
  }

  /** Sends `msg` as JSON on the open socket; false when none is open (nothing sent). */
  send(msg) {
    if (!this.isOpen) return false;
    this.socket.send(JSON.stringify(msg));
    return true;
  }

  /** The owner heard from the server that this socket works (its first frame): the next drop
   * waits the shortest time again. */
  steady() {
    this.attempt = 0;
  }

  /** Lets the socket go (it stopped answering: a connection that died without a close) and opens
   * another after the wait; onClose is told at once. */
  drop() {
    if (this.socket) this.lose(this.socket, { code: DROPPED, reason: "" });
  }

  /** The owner is done with the socket: closed, never opened again, no hook called any more. */
  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.listening.abort();
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000);
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.closed || this.final || this.socket) return;
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch {
      this.retry(); // (an address the browser refuses now: try again later)
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      const again = this.opened;
      this.opened = true;
      this.hooks.onOpen(again);
    });
    socket.addEventListener("message", (e) => {
      if (this.socket === socket) this.receive(e.data);
    });
    socket.addEventListener("close", (e) => {
      if (this.socket === socket) this.lose(socket, e);
    });
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (msg === null || typeof msg !== "object") return;
    if (msg.type === "ping") {
      this.send({ type: "pong", n: msg.n });
      return;
    }
    this.hooks.onMessage(msg);
  }

  /** `socket` closed (or let go): its owner is told, and another is opened unless it was final. */
  lose(socket, { code, reason }) {
    this.socket = null;
    if (socket.readyState <= WebSocket.OPEN) socket.close(DROPPED);
    if (FINAL_CODES.has(code)) this.final = true;
    this.hooks.onClose({ code, reason: reason || "", final: this.final });
    this.retry();
  }

  /** Opens the socket again after `delay` ms (by default the backoff's next wait), unless one is
   * open or opening, the owner is done, or the last close was final. */
  retry(delay) {
    if (this.closed || this.final || this.socket) return;
    clearTimeout(this.retryTimer);
    const wait = delay ?? backoff(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }
}

// A live board: a websocket that sends a snapshot, then updates numbered by "seq", each the
// changes since the previous one by player: a row that changed or entered, at its rank; a player
// who left the top; the rows between shift. A gap in the numbers means a lost message: ask for a
// fresh snapshot. Reconnects with backoff. A socket that the server closes with PAUSED (its live
// updates are unavailable) leaves the board "paused": it polls the REST board until a socket
// brings a snapshot again.

/** Close code of a socket whose live updates are unavailable (docs/api.md). */
const PAUSED = 4503;
/** Close code of a socket refused because its network holds too many already: poll as paused. */
const CROWDED = 4429;
/** While paused, the board is fetched this often (milliseconds). */
const POLL_MS = 5000;

/**
 * The rows a watcher holds after an update (leaderboard/live/model.py is this, in Python, and
 * the tests check that both hold the same rows): the players of `left` and of `rows` leave their
 * places, each of `rows` goes in at its rank (best first), the rows between shift, and every row
 * is ranked by its place. A `full` update carries every row. Null when the update cannot be of
 * these rows (a rank past them, too few rows): ask for a snapshot.
 */
export function applyUpdate(rows, update) {
  if (update.full) return update.rows.slice();
  const gone = new Set(update.left);
  for (const row of update.rows) gone.add(row.player);
  const next = rows.filter((row) => !gone.has(row.player));
  for (const row of update.rows.slice().sort((a, b) => a.rank - b.rank)) {
    if (row.rank < 1 || row.rank > next.length + 1) return null;
    next.splice(row.rank - 1, 0, row);
  }
  if (next.length < update.size) return null;
  next.length = update.size;
  next.forEach((row, i) => { row.rank = i + 1; });
  return next;
}

/**
 * Marks each of `rows` with the moment (Date.now() milliseconds) its time_seconds was right, so
 * that an open attempt's time can keep running: a frame's times are as of its `at`, and a
 * snapshot says when it was sent (`now`). Not enumerable: JSON.stringify(row) stays the row.
 */
export function stamp(rows, frame = {}) {
  const lag = frame.at && frame.now ? Date.parse(frame.now) - Date.parse(frame.at) : 0;
  const at = Date.now() - (Number.isFinite(lag) ? lag : 0);
  for (const row of rows) {
    Object.defineProperty(row, "_clock", { value: at, writable: true, enumerable: false });
  }
  return rows;
}

export class LiveBoard {
  /**
   * @param {string} url  ws(s)://host/ws/daily/<date>/
   * @param {{onSnapshot: Function, onUpdate: Function, onState: Function, resync: Function}} handlers
   *   onSnapshot(frame) and onUpdate(frame) both get the whole top of the board in
   *   frame.results (an update's changed rows applied); resync() fetches a fresh board over
   *   REST when the socket cannot send one (returns {seq, results, ...}).
   */
  constructor(url, { onSnapshot, onUpdate, onState = () => {}, resync }) {
    this.url = url;
    this.onSnapshot = onSnapshot;
    this.onUpdate = onUpdate;
    this.onState = onState;
    this.resync = resync;
    this.seq = null;
    this.rows = [];
    this.attempt = 0;
    this.socket = null;
    this.closed = false;
    this.resyncTimer = null;
    this.pollTimer = null;
    this.connect();
    window.addEventListener("online", () => this.reconnectSoon(0));
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && (!this.socket || this.socket.readyState > 1)) this.reconnectSoon(0);
    });
  }

  connect() {
    clearTimeout(this.retryTimer);
    if (!this.pollTimer) this.onState("connecting");
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch {
      this.reconnectSoon();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (!this.pollTimer) this.onState("live");
    });
    socket.addEventListener("message", (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      this.receive(msg);
    });
    socket.addEventListener("close", (e) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (!this.closed) {
        if (e.code === PAUSED || e.code === CROWDED) this.pause();
        else if (!this.pollTimer) this.onState("offline");
        this.reconnectSoon();
      }
    });
  }

  receive(msg) {
    if (msg.type === "snapshot") {
      clearTimeout(this.resyncTimer);
      this.attempt = 0;
      this.resume();
      this.seq = msg.seq;
      this.rows = stamp(msg.results, msg);
      this.onSnapshot(msg);
    } else if (msg.type === "update") {
      if (this.seq === null) return; // waiting for the snapshot
      if (msg.seq <= this.seq) return; // already seen
      if (msg.seq !== this.seq + 1 && !msg.full) {
        this.requestSnapshot();
        return;
      }
      const rows = applyUpdate(this.rows, { ...msg, rows: stamp(msg.rows, msg) });
      if (rows === null) {
        this.requestSnapshot();
        return;
      }
      this.seq = msg.seq;
      this.rows = rows;
      this.onUpdate({ ...msg, results: this.rows });
    }
  }

  /** A message was lost: ask the socket for a snapshot, or fall back to the REST board. */
  requestSnapshot() {
    if (this.resyncTimer) return;
    const fallback = async () => {
      try {
        const fresh = await this.resync();
        if (this.seq === null || fresh.seq >= this.seq) {
          this.seq = fresh.seq;
          this.rows = stamp(fresh.results);
          this.onSnapshot(fresh);
        }
      } catch {
        // the next update or reconnect tries again
      } finally {
        this.resyncTimer = null;
      }
    };
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ type: "resync" }));
      this.resyncTimer = setTimeout(fallback, 2000);
    } else {
      this.resyncTimer = setTimeout(fallback, 0);
    }
  }

  /** Live updates are unavailable: poll the REST board until a socket works again. */
  pause() {
    if (this.pollTimer) return;
    this.onState("paused");
    const poll = async () => {
      try {
        const fresh = await this.resync();
        if (this.pollTimer && (this.seq === null || fresh.seq >= this.seq)) {
          this.seq = fresh.seq;
          this.rows = stamp(fresh.results);
          this.onSnapshot(fresh);
        }
      } catch {
        // the next poll tries again
      }
    };
    this.pollTimer = setInterval(poll, POLL_MS);
    poll();
  }

  resume() {
    if (!this.pollTimer) return;
    clearInterval(this.pollTimer);
    this.pollTimer = null;
    this.onState("live");
  }

  reconnectSoon(delay) {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    if (this.socket && this.socket.readyState <= 1) return;
    const wait = delay ?? Math.min(30000, 500 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pollTimer);
    this.socket?.close();
  }
}

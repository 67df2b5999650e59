// A live board: a websocket that sends a snapshot, then updates numbered by "seq", each the
// changes since the previous one by player: a row that changed or entered, at its rank; a player
// who left the top; the rows between shift. A gap in the numbers means a lost message: ask for a
// fresh snapshot. The connection — opening it again after a drop with backoff and jitter, the
// server's liveness check — is socket.js's. A socket that the server closes with PAUSED (its live
// updates are unavailable) leaves the board "paused": it polls the REST board until a socket
// brings a snapshot again; so does one closed for good (a limit's code: too many sockets from the
// network, …), whose board polls from then on.
import { Socket } from "./socket.js";

/** Close code of a socket whose live updates are unavailable (docs/api.md). */
const PAUSED = 4503;
/** While paused, the board is fetched this often (milliseconds). */
const POLL_MS = 5000;

/**
 * `run` for a burst of changes: a function that calls it once `everyMs` has gone by since its last
 * call (at once after a quiet spell), however often it is called meanwhile — each call in between
 * rides along with the one due. For pages that fetch a board of their own again as the day's live
 * board changes (the Following view, a group's page); `run` handles its own errors.
 */
export function atMostEvery(everyMs, run) {
  let timer = null;
  let last = 0;
  return function soon() {
    if (timer !== null) return; // a call is due already: it will see this change too
    timer = setTimeout(() => {
      timer = null;
      last = Date.now();
      run();
    }, Math.max(0, last + everyMs - Date.now()));
  };
}

/** A page following the day's board for a board of its own fetches it again at most this often
 * (milliseconds), and this often while the day's live updates are paused. */
const REFETCH_MS = 1000;
const FOLLOW_POLL_MS = 10000;

/**
 * A page that shows a board of its own made of the day's (a group's, a league division's) follows
 * the day's live board (/ws/daily/<day>/) to know when to fetch it again: `refetch` (async: it
 * fetches and shows it; only its latest answer should show) runs at most once a second as the
 * day's board changes (`atMostEvery`), and every ten seconds while its live updates are paused;
 * the socket's first snapshot is skipped (the page fetched its board just before). `stateBox`
 * says whether the page is live. Returns the throttled refetch, for the page's own reasons to
 * fetch again.
 */
export function followDay(day, refetch, stateBox) {
  const soon = atMostEvery(REFETCH_MS, () => refetch().catch(() => {
    // the next change, or the poll, tries again
  }));
  const setState = (state) => {
    stateBox.hidden = false;
    stateBox.dataset.state = state;
    stateBox.textContent = {
      live: pgettext("leaderboard", "Live"),
      connecting: gettext("Connecting…"),
      offline: gettext("Reconnecting…"),
      paused: gettext("Live updates paused"),
    }[state];
  };
  let poll = null;
  let first = true;
  setState("connecting");
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const link = new Socket(`${scheme}://${location.host}/ws/daily/${day}/`, {
    onOpen: () => setState("live"),
    onMessage: (msg) => {
      if (msg.type === "snapshot") {
        link.steady();
        clearInterval(poll);
        poll = null;
        setState("live");
        if (first) { first = false; return; }
        soon();
      } else if (msg.type === "update") {
        soon();
      }
    },
    onClose: ({ code, final }) => {
      if (code !== PAUSED && !final) {
        setState("offline");
        return;
      }
      setState("paused");
      if (poll === null) poll = setInterval(soon, FOLLOW_POLL_MS);
    },
  });
  return soon;
}

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
   *   REST when the socket cannot send one (returns {seq, results, ...}); onState(state):
   *   "connecting", "live", "offline" (opening again) or "paused" (polling the REST board).
   */
  constructor(url, { onSnapshot, onUpdate, onState = () => {}, resync }) {
    this.onSnapshot = onSnapshot;
    this.onUpdate = onUpdate;
    this.onState = onState;
    this.resync = resync;
    this.seq = null;
    this.rows = [];
    this.resyncTimer = null;
    this.pollTimer = null;
    this.onState("connecting");
    this.link = new Socket(url, {
      onOpen: () => { if (!this.pollTimer) this.onState("live"); },
      onMessage: (msg) => this.receive(msg),
      onClose: ({ code, final }) => {
        if (code === PAUSED || final) this.pause();
        else if (!this.pollTimer) this.onState("offline");
      },
    });
  }

  receive(msg) {
    if (msg.type === "snapshot") {
      clearTimeout(this.resyncTimer);
      this.link.steady();
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
    this.resyncTimer = setTimeout(fallback, this.link.send({ type: "resync" }) ? 2000 : 0);
  }

  /** Live updates are unavailable: poll the REST board until a socket works again (if one may
   * be opened again at all). */
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

  close() {
    this.link.close();
    clearInterval(this.pollTimer);
    clearTimeout(this.resyncTimer);
  }
}

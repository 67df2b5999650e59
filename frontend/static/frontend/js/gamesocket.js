// A game's websocket (docs/api.md, "The game socket"): the page's moves go over one connection
// it keeps open while the game is in play, instead of a request each, and over REST (api.js)
// whenever the socket is not open and ready. Both answer with the same bodies, so the page
// cannot tell which way a move went, only how soon it came back.
//
// A move in flight when the socket drops (its answer never read) is sent again over REST with
// the same ply: the server answers a repeated action as it answered the first and applies it
// once. Finish and Resign are not repeatable (a second one is refused game_over): one refused so
// after a drop is answered with the game as it now stands. The connection itself — opening it
// again after a drop with backoff and jitter, never after a close that says not to (4401, 4404,
// the limits' 4008, 4009, 4429: the page plays on over REST), the server's liveness check — is
// socket.js's.
import { ApiError, api } from "./api.js";
import { Socket } from "./socket.js";

/** A move unanswered for this long (milliseconds) means a connection that died without a close
 * (a network that went away): the socket is dropped and the move sent over REST. */
const ANSWER_MS = 15000;
/** The socket message of each REST endpoint of a game's moves. */
const TYPES = { actions: "action", finish: "finish", resign: "resign" };

/** A refusal on the socket: api.js's error with the REST body (code, message, extra fields) and
 * no HTTP status: the page tests codes, which both ways share. */
const refusal = (body) => new ApiError(null, body);

export class GameSocket {
  /**
   * @param {string} gameId  the game the socket plays (the player's own, in progress)
   * @param {{onReady?: (game: object) => void}} options  `onReady`: the game as the server has it
   *   each time a socket is admitted ("ready"), the first and every one after a drop
   */
  constructor(gameId, { onReady = () => {} } = {}) {
    this.gameId = gameId;
    this.onReady = onReady;
    this.ready = false; // the server said "ready": moves may go over the socket
    this.pending = new Map(); // ref -> a move sent, not answered yet: {path, body, resolve, reject, timer}
    this.nextRef = 1;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/games/${gameId}/`;
    this.link = new Socket(url, {
      onMessage: (msg) => this.receive(msg),
      onClose: () => this.lost(),
    });
  }

  /**
   * POST /api/games/<id>/<path>/ with `body` ("actions", "finish", "resign"): over the socket when
   * it is ready, else over REST. Resolves with the REST answer's body; rejects with an ApiError
   * (its `code`, `message` and `body` are REST's).
   */
  post(path, body = {}) {
    if (!this.ready) return api.post(this.restUrl(path), body);
    const ref = `m${this.nextRef++}`;
    return new Promise((resolve, reject) => {
      const move = { path, body, resolve, reject, timer: null };
      this.pending.set(ref, move);
      move.timer = setTimeout(() => this.link.drop(), ANSWER_MS);
      if (!this.link.send({ ...body, type: TYPES[path], ref })) {
        this.settle(ref); // (the socket went meanwhile: its close is on its way)
        this.rest(move);
      }
    });
  }

  /** The socket is not needed any more (the game is over, the page goes away). */
  close() {
    this.link.close();
    this.lost();
  }

  restUrl(path = "") {
    return `/api/games/${this.gameId}/${path ? `${path}/` : ""}`;
  }

  receive(msg) {
    if (msg.type === "ready") {
      this.ready = true;
      this.link.steady();
      this.onReady(msg.game);
      return;
    }
    const move = this.pending.get(msg.ref);
    if (!move) return; // (a refusal before a close: the close says it)
    const { type, ref, ...body } = msg;
    if (type === "refused" && body.code === "unavailable") {
      // The database is away: REST waits for it (api.js), the move unplayed meanwhile.
      this.settle(ref);
      this.rest(move);
    } else if (type === "played") {
      this.settle(ref);
      move.resolve(body);
    } else if (type === "refused") {
      this.settle(ref);
      move.reject(refusal(body));
    }
  }

  settle(ref) {
    clearTimeout(this.pending.get(ref)?.timer);
    this.pending.delete(ref);
  }

  /** The socket closed, was dropped or is no longer wanted: until another is ready, moves go over
   * REST — those it did not answer first, in the order they were sent. */
  lost() {
    this.ready = false;
    const lost = [...this.pending.keys()].map((ref) => {
      const move = this.pending.get(ref);
      this.settle(ref);
      return move;
    });
    lost.reduce((before, move) => before.then(() => this.rest(move)), Promise.resolve());
  }

  /** A move sent over REST, because the socket could not answer it. */
  async rest({ path, body, resolve, reject }) {
    try {
      resolve(await api.post(this.restUrl(path), body));
    } catch (err) {
      if (err.code !== "game_over" || path === "actions") {
        reject(err);
        return;
      }
      // Finish or Resign, sent before and maybe played: the game as it stands is the answer.
      try {
        const game = await api.get(this.restUrl());
        resolve(path === "finish" ? { ...game, applied: null } : game);
      } catch {
        reject(err);
      }
    }
  }
}

// The game page: draws the server's state and sends every tap, drop and undo to the server — over
// the game's websocket while it is open, else to the REST API (gamesocket.js).
import { api, serverNow } from "./api.js";
import { Board, COLUMN_IDS, FOUNDATION_IDS } from "./board.js";
import { cardName, suitOf } from "./cards.js";
import { DragController } from "./drag.js";
import { GameSocket } from "./gamesocket.js";
import { difficultyName } from "./chart.js";
import { BoardKeys } from "./keys.js";
import { bindNewGameForm } from "./newgame.js";
import { actionKind, actionToken, moveToken, parseMoveToken } from "./notation.js";
import { sharePractice, showResult } from "./result.js";
import { actionWords } from "./words.js";
import { ask, celebrate, copyText, fmt, formatDuration, formatDay, formatNumber, formatPercent, h, pageMessageArea, reducedMotion, resultLabel, showError } from "./ui.js";

const DOUBLE_CLICK_KEY = "canfield.doubleClick";
const AUTO_HOME_KEY = "canfield.autoHome"; // cards home by themselves: "on", else off
const AUTO_HOME_PAUSE_MS = 250; // between a move and the card that goes home after it (0 under reduced motion)
const VERDICT_IDLE_MS = 2000; // a practice game asks whether it is lost once the player pauses
const VERDICT_TRIES = 3; // asks at one position while the server is busy, at most

/** The page's own words (one place). */
const TEXT = {
  hint: (words) => fmt(gettext("Hint: %(action)s."), { action: words }),
  // (the solver ran out of time: its best move, which no search has shown to lead to a win)
  hintUnproved: (words) => fmt(gettext("Try this: %(action)s — the solver could not prove a win in time."), { action: words }),
  hintNoWin: gettext("No way to win from here."),
  hintUnknown: gettext("I can't tell in time."),
  hintThrottled: (s) => fmt(ngettext("Too many hints: try again in %(seconds)s s.", "Too many hints: try again in %(seconds)s s.", s), { seconds: formatNumber(s) }),
  // The position's `stuck`: nothing the player can see will ever progress again.
  stuck: gettext("Stuck for good: no moves with the cards you can see can turn up a new card or put one on a foundation."),
  undoOrResignPractice: gettext("Undo, or resign to end this game."),
  resignPractice: gettext("Resign to end this game."),
  undoOrResign: gettext("Undo, or resign to end your attempt as it stands."),
  resign: gettext("Resign to end your attempt as it stands."),
  // A practice position the solver proved lost, and how far back the last winnable one is.
  lostUndo: (n) => fmt(ngettext(
    "No win is left from here. Undo %(count)s action to the last position that could still be won.",
    "No win is left from here. Undo %(count)s actions to the last position that could still be won.", n,
  ), { count: formatNumber(n) }),
  lostNoUndo: gettext("No win is left from here, and the solver found no position within reach of Undo that can still be won."),
  // Stuck, and proved lost all the way back: the way out is a new game.
  noWayBack: gettext("The solver found no position within reach of Undo that can still be won."),
  undoBack: (n) => fmt(ngettext("Undo %(count)s action", "Undo %(count)s actions", n), { count: formatNumber(n) }),
  undoButton: gettext("Undo"),
  resignButton: gettext("Resign"),
  newGameButton: gettext("New game"),
  // The day's difficulty, said in full where it is named (docs/difficulty.md: the casual level).
  difficulty: (label, share) => fmt(gettext("%(label)s: our casual simulated player, who sees only what you see, wins %(share)s of its games on this deal."), { label, share }),
  difficultyMore: gettext("What the difficulty means"),
  // A tap that moved nothing although the card can move (the server's list of legal actions
  // says it can), and the taps that are not a card's to make. Why a card cannot move at all is
  // the server's to say (explain()).
  foundationTap: gettext("A foundation's cards move only by dragging, or with the keyboard."),
  wasteTopOnly: gettext("Only the waste's top card can be played."),
  dragIt: (card) => fmt(gettext("%(card)s can go to a column: “Tap or click plays to columns too” is off, so drag it there."), { card }),
  dragRun: (card) => fmt(gettext("A tap never moves a whole column into an empty one: drag %(card)s there."), { card }),
  firstVisit: gettext("New to Canfield? The rules, with pictures and a short tour:"),
  howToPlay: gettext("How to play"),
  close: gettext("Close"),
  changedElsewhere: gettext("The game was changed elsewhere: the board is up to date again."),
};
const RULES_SEEN_KEY = "canfield.rulesSeen";
/** Refusals of a move that mean the game is not where the page thought (docs/api.md): the page
 * shows it as it is. Codes, not statuses: a refusal on the game's socket has no HTTP status. */
const MOVED_ON = new Set(["stale_ply", "game_over", "not_finishable", "attempt_exists"]);

const root = document.querySelector("[data-game]");
let gameId = root.dataset.gameId; // empty on the home page until its deal is played (created())
const $ = (sel) => document.querySelector(sel);
const boardEl = root.querySelector("[data-board]");
const board = new Board(boardEl, { interactive: true });
const doubleClickBox = root.querySelector("[data-double-click]");
const autoHomeBox = root.querySelector("[data-auto-home]");
const undoButton = root.querySelector("[data-undo]");
const announcer = root.querySelector("[data-announce]");
const messages = pageMessageArea();
const winBanner = $("[data-win]");
const hintButton = root.querySelector("[data-hint]");
const finishButton = root.querySelector("[data-finish]");
const resultButton = root.querySelector("[data-open-result]");
resultButton.addEventListener("click", () => showResult(game));

let game = null;
let socket = null; // the game's socket, while it is in play here (gamesocket.js)
let queue = Promise.resolve();
let winShown = false;
let hint = null; // {ply, action}: the hint shown for this position
// What the server knows of a practice position: {ply, outcome, proved, undo}, from the game's
// `verdict`, a hint, or GET /verdict/ once the player pauses (docs/api.md).
let verdict = null;
let verdictTimer = null;
let asked = { ply: -1, tries: 0 }; // GET /verdict/ at this position, so far
let verdictAsking = null; // the request in flight: a hint waits for it (one search at a time)
let undoingBack = false;
let difficultyShown = false;

// ---- settings ----------------------------------------------------------------------------------

doubleClickBox.checked = localStorage.getItem(DOUBLE_CLICK_KEY) !== "off";
doubleClickBox.addEventListener("change", () => {
  localStorage.setItem(DOUBLE_CLICK_KEY, doubleClickBox.checked ? "on" : "off");
});
autoHomeBox.checked = localStorage.getItem(AUTO_HOME_KEY) === "on";
autoHomeBox.addEventListener("change", () => {
  localStorage.setItem(AUTO_HOME_KEY, autoHomeBox.checked ? "on" : "off");
});

// ---- talking to the server ---------------------------------------------------------------------

const inPlay = () => game && game.status === "in_progress";

async function load({ animate = false } = {}) {
  show(gameId ? await api.get(`/api/games/${gameId}/`) : JSON.parse($("#deal").textContent), { animate });
}

/**
 * The home page's board is a deal before it is a game (no row for a page view): the first thing
 * played makes it one (POST /api/games/ with its code; a visitor becomes a guest).
 */
async function created() {
  if (gameId) return;
  game = await api.post("/api/games/", { code: game.code });
  gameId = String(game.id);
  root.dataset.gameId = gameId;
}

/**
 * The game's socket is open while the page shows the game in play — once it is a game: the home
 * page's deal has no socket until its first action has made it one — and closed once it is over.
 */
function keepSocket() {
  if (inPlay() && gameId) socket ??= new GameSocket(gameId, { onReady: caughtUp });
  else closeSocket();
}

/**
 * The game as the server has it when a socket is admitted — after a drop, maybe moved on
 * elsewhere meanwhile (another tab, another device): once the page's own moves in flight are
 * answered, a game ahead of the page's, or ended, is shown as it stands.
 */
function caughtUp(fresh) {
  queue = queue.then(async () => {
    if (!game || String(fresh.id) !== String(gameId)) return;
    if (fresh.ply > game.ply || fresh.status !== game.status) {
      await load().catch(() => {});
      messages.say(TEXT.changedElsewhere, "info");
    }
  });
}

function closeSocket() {
  socket?.close();
  socket = null;
}

/** POST /api/games/<id>/<path>/: over the game's socket when it is open, else over REST. */
function post(path, body = {}) {
  return socket ? socket.post(path, body) : api.post(`/api/games/${gameId}/${path}/`, body);
}

/**
 * Sends one action ({action} or {tap, index, double_click}) — or, with `path` "finish", asks the
 * server to play the rest of the game (Finish) —; requests run one after another, each naming the
 * ply it was made in. Resolves to true when the server applied something.
 */
function send(body, renderOptions = {}, path = "actions") {
  return queued(async () => {
    if (!inPlay()) return false;
    try {
      await created();
      const before = game.state;
      return played(await post(path, { ply: game.ply, ...body }), before, renderOptions);
    } catch (err) {
      await refused(err);
      return false;
    }
  });
}

/** Runs `job` after the requests before it; resolves to its result. */
function queued(job) {
  const result = queue.then(job);
  queue = result.catch(() => false);
  return result;
}

/** The server's answer to an action made in position `before`: shown, and announced if it
 * applied something (true). */
function played(next, before, renderOptions = {}) {
  const changed = next.applied !== null && next.applied !== undefined;
  show(next, changed ? renderOptions : { animate: false });
  if (changed) {
    messages.clear(); // the last message was about the position before
    announce(next, before);
    homeSoon(next.applied);
  }
  return changed;
}

/**
 * Cards home by themselves (the setting): after an action of the player's, the card the server
 * names as safe (the game's `safe_home`: games/engine/auto.py decides it, the page never does) is
 * played as an ordinary action, one at a time — each asks again after the one before — moving
 * as any move does (no animation under prefers-reduced-motion). Never after an undo or a card
 * taken back from a foundation: the player wants it where it is.
 */
function homeSoon(applied) {
  if (!autoHomeBox.checked || !inPlay() || !game.safe_home) return;
  if (actionKind(applied) === "undo" || parseMoveToken(applied)?.src.startsWith("F")) return;
  const { ply, safe_home: action } = game;
  setTimeout(() => {
    if (autoHomeBox.checked && inPlay() && game.ply === ply && game.safe_home === action) send({ action });
  }, reducedMotion() ? 0 : AUTO_HOME_PAUSE_MS);
}

/** A request the server refused: a game that moved on is shown as it is; a move the rules refuse
 * is information (the server's reason, in the reader's language); anything else went wrong. */
async function refused(err) {
  if (MOVED_ON.has(err.code)) {
    messages.say(TEXT.changedElsewhere, "info");
    await load().catch(() => {});
  } else {
    messages.say(err.message, err.code === "illegal_action" ? "refused" : "error");
  }
}

async function tap(pile, index) {
  if (!inPlay()) return;
  const underWasteTop = pile === "W" && index !== null && index !== undefined && index !== game.state.waste.cards.length - 1;
  if (pile.startsWith("F") || underWasteTop) {
    // foundation cards move only by dragging; only the waste's top plays
    shake(pile, index);
    messages.say(pile.startsWith("F") ? TEXT.foundationTap : TEXT.wasteTopOnly, "refused", 6000);
    return;
  }
  const at = tapped(pile, index);
  if (at && !movesOf(at).length) {
    // No move of this card is legal (the server's `legal`): the tap cannot do anything.
    shake(pile, index);
    explain(at);
    return;
  }
  const body = { tap: pile, double_click: doubleClickBox.checked };
  // A column card is named by its index (0 = bottom); elsewhere the pile's top card is meant.
  if (pile.startsWith("T") && index !== null && index !== undefined) body.index = index;
  const before = game.ply;
  const moved = await send(body);
  if (!moved && game.ply === before && at) {
    // The card can move, but not by this tap: where it can go, it is dragged.
    shake(pile, index);
    const name = capital(cardName(at.card));
    const toColumns = movesOf(at).every((m) => COLUMN_IDS.includes(m.dst));
    messages.say(toColumns && !doubleClickBox.checked ? TEXT.dragIt(name) : TEXT.dragRun(name), "refused", 6000);
  }
}

/** The card a tap on (pile, index) is about, and how many cards it carries: {pile, index,
 * count, card}; null for the stock and an empty pile. */
function tapped(pile, index) {
  const s = game.state;
  if (pile === "R" && s.reserve.top) return { pile, index: 0, count: 1, card: s.reserve.top };
  if (pile === "W" && s.waste.cards.length) return { pile, index: s.waste.cards.length - 1, count: 1, card: s.waste.cards.at(-1) };
  if (!COLUMN_IDS.includes(pile)) return null;
  const column = s.columns[COLUMN_IDS.indexOf(pile)];
  const at = index ?? column.length - 1;
  return column[at] ? { pile, index: at, count: column.length - at, card: column[at] } : null;
}

/** The legal moves (the server's `legal`) of a tapped card and the cards on it. */
function movesOf({ pile, count }) {
  return (game.state.legal || []).map(parseMoveToken).filter((m) => m && m.src === pile && m.count === count);
}

/** The card tapped shakes (with the cards on it). */
function shake(pile, index) {
  const els = pile.startsWith("T") || pile.startsWith("F") || index === null || index === undefined
    ? board.runElements(pile, index ?? 0)
    : board.root.querySelectorAll(`.card[data-pile="${pile}"][data-index="${index}"]`);
  for (const el of els) {
    el.classList.remove("shake");
    void el.offsetWidth; // (restarts the animation)
    el.classList.add("shake");
    el.addEventListener("animationend", () => el.classList.remove("shake"), { once: true });
  }
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Why a tapped card cannot move, in the server's words. The moves a tap on it stands for — the
 * card to the foundation of its suit, and the card (with those on it) onto the first other column
 * that has cards — are sent as actions. None of them is legal (the position's `legal` has no move
 * of the card), so the server refuses each, changing nothing, with its reason in the reader's
 * language; the message area says those. The page itself has no words for a rule.
 */
function explain(at) {
  const s = game.state;
  const foundation = FOUNDATION_IDS[s.foundations.findIndex((f) => f.suit === suitOf(at.card))];
  const others = COLUMN_IDS.filter((id) => id !== at.pile);
  const column = others.find((id) => s.columns[COLUMN_IDS.indexOf(id)].length) ?? others[0];
  // (a run has no move to a foundation in the notation: its column's alone is asked about)
  const tokens = [foundation, column].map((dst) => dst && moveToken(at.pile, at.count, dst)).filter(Boolean);
  return queued(async () => {
    if (!inPlay()) return;
    const reasons = [];
    for (const action of tokens) {
      try {
        await created();
        const before = game.state;
        played(await post("actions", { ply: game.ply, action }), before); // (legal after all)
        return;
      } catch (err) {
        if (err.code !== "illegal_action") {
          await refused(err);
          return;
        }
        reasons.push(err.message);
      }
    }
    if (reasons.length) messages.say(reasons.join(" "), "refused", 6000);
  });
}

function move(src, count, dst, renderOptions) {
  const action = moveToken(src, count, dst);
  return action ? send({ action }, renderOptions) : Promise.resolve(false);
}

function undo() {
  if (inPlay() && game.state.can_undo) send({ action: actionToken("undo") });
}

/**
 * Back to the last position that could still be won, `count` actions before position `ply`:
 * one undo after another, each an ordinary action; it stops at the first one refused.
 */
async function undoBack(count, ply) {
  if (undoingBack || !inPlay() || game.ply !== ply) return;
  undoingBack = true;
  try {
    for (let i = 0; i < count; i++) {
      if (!inPlay() || !game.state.can_undo || !(await send({ action: actionToken("undo") }))) break;
    }
  } finally {
    undoingBack = false;
  }
}

// ---- is a practice game lost? --------------------------------------------------------------

/**
 * After each position of a practice game: the verdict the game's payload carries, or, when it
 * has none (null: not known yet), one asked of GET /verdict/ once the player has paused for
 * VERDICT_IDLE_MS. Busy or throttled answers are dropped quietly and asked again at the next
 * pause. Never for a daily attempt: its verdict would know the hidden cards.
 */
function noteVerdict() {
  clearTimeout(verdictTimer);
  if (game.kind !== "practice" || !inPlay()) {
    verdict = null;
    return;
  }
  if (game.verdict) verdict = { ply: game.ply, ...game.verdict };
  else if (verdict && verdict.ply !== game.ply) verdict = null;
  waitForPause();
}

function waitForPause(ms = VERDICT_IDLE_MS) {
  clearTimeout(verdictTimer);
  verdictTimer = null;
  if (!game || !("verdict" in game) || game.kind !== "practice" || !inPlay()) return;
  if (asked.ply !== game.ply) asked = { ply: game.ply, tries: 0 };
  if ((verdict && verdict.ply === game.ply) || asked.tries >= VERDICT_TRIES) return;
  const ply = game.ply;
  verdictTimer = setTimeout(() => askVerdict(ply), ms);
}

async function askVerdict(ply) {
  verdictTimer = null;
  if (!inPlay() || game.ply !== ply || !gameId) return; // (the home page's deal: no game yet)
  if (hintButton.disabled) {
    waitForPause(); // a hint is on its way, and answers this too
    return;
  }
  asked.tries += 1;
  let answer;
  try {
    verdictAsking = api.get(`/api/games/${gameId}/verdict/`).finally(() => { verdictAsking = null; });
    answer = await verdictAsking;
  } catch (err) {
    // 503 busy, 429: not now. Anything else: not at this position.
    if (err.status !== 503 && err.status !== 429) asked.tries = VERDICT_TRIES;
    const wait = Math.max(VERDICT_IDLE_MS, 1000 * (Number(err.body?.retry_after) || 0));
    if (inPlay() && game.ply === ply) waitForPause(wait);
    return;
  }
  if (!inPlay() || game.ply !== ply || !answer) return;
  verdict = { ply, ...answer };
  messages.stand(standingMessage());
}
// A pause is a pause of the player's hands: a key or a pointer pressed starts it again.
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, () => { if (verdictTimer) waitForPause(); }, { capture: true, passive: true });
}

// ---- the day's difficulty (a daily attempt) ------------------------------------------------

/**
 * The deal's difficulty beside the title, with what it means one tap away: from the day's
 * payload (GET /api/daily/ for today's deal, the day's board for another day).
 */
async function showDifficulty() {
  difficultyShown = true;
  const box = root.querySelector("[data-difficulty]");
  const day = game.daily_date;
  if (!box || !day) return;
  let difficulty = null;
  try {
    const today = await api.get("/api/daily/");
    difficulty = today.date === day ? today.difficulty : (await api.get(`/api/daily/${day}/board/`)).difficulty;
  } catch {
    return; // the difficulty is a plus; the game stands without it
  }
  if (!difficulty) return;
  const name = difficultyName(difficulty.label);
  box.querySelector("[data-difficulty-label]").replaceChildren(
    h(`span.pill.difficulty-${difficulty.label}`, {}, name),
    h("span.sr-only", {}, ` ${TEXT.difficultyMore}`),
  );
  box.querySelector("[data-difficulty-text]").textContent = TEXT.difficulty(name, formatPercent(difficulty.share));
  box.dataset.difficulty = difficulty.label;
  box.hidden = false;
}
// The explanation closes as a menu does: a press elsewhere, or Escape.
document.addEventListener("pointerdown", (e) => {
  const box = root.querySelector("[data-difficulty][open]");
  if (box && !box.contains(e.target)) box.open = false;
});
document.addEventListener("keydown", (e) => {
  const box = root.querySelector("[data-difficulty][open]");
  if (box && e.key === "Escape") {
    box.open = false;
    box.querySelector("summary").focus();
  }
});

// ---- drawing -----------------------------------------------------------------------------------

function show(next, renderOptions = {}) {
  const wasInPlay = inPlay();
  game = next;
  keepSocket();
  $("[data-loading]")?.remove();
  drawHud(); // first: the board fits itself to the room the head-up display leaves
  board.render(game.state, renderOptions);
  if (hint && hint.ply === game.ply) highlight(hint.action);
  else hint = null;
  noteVerdict();
  messages.stand(standingMessage());
  if (game.kind === "daily" && wasInPlay && !inPlay()) showResult(game, { celebrate: game.status === "won" }); // ended here
  else if (game.status === "won" && wasInPlay && !winShown) showWin(); // won here, not on an old game
  if (game.kind === "daily" && !difficultyShown) showDifficulty();
}

/** A small button of a notice; `data-action` keeps the keyboard's place when it is drawn again. */
function noticeButton(action, label, onClick, primary = false) {
  return h(`button.button.small${primary ? ".primary" : ""}`, { type: "button", dataset: { action }, onclick: onClick }, label);
}

/** The notice's offer of the last winnable position: its sentence and its button. */
function lostOffer(known) {
  const undo = known.undo;
  if (undo && undo.actions > 0) {
    const ply = game.ply;
    return { text: TEXT.lostUndo(undo.actions), button: noticeButton("undo-back", TEXT.undoBack(undo.actions), () => undoBack(undo.actions, ply), true) };
  }
  return { text: TEXT.lostNoUndo, button: noticeButton("new-game", TEXT.newGameButton, startAnew, true) };
}

/** The way out of a game no undo can save: a new random practice game of the same draw and
 * rules, started at once. */
async function startAnew() {
  try {
    const next = await api.post("/api/games/", { draw: game.draw, variant: game.variant });
    location.assign(`/games/${next.id}/`);
  } catch (err) {
    messages.say(err.message, "error");
  }
}

/** The solver's proof that this practice position is lost, when the page has it. */
function knownLost() {
  return inPlay() && game.kind === "practice" && verdict && verdict.ply === game.ply
    && verdict.outcome === "no_win" && verdict.proved !== false ? verdict : null;
}

/**
 * What the message area says while nothing else is said: that the game is stuck for good (the
 * server's `stuck`, from what the player sees: it holds across reloads and goes with the game's
 * end), with Undo and Resign; in practice, that the solver proved the position lost, with the way
 * back to the last winnable one; else, until the rules have been seen once, where they are.
 */
function standingMessage() {
  const s = game.state;
  const lost = knownLost();
  if (inPlay() && s.stuck) {
    const daily = game.kind === "daily";
    const next = s.can_undo
      ? (daily ? TEXT.undoOrResign : TEXT.undoOrResignPractice)
      : (daily ? TEXT.resign : TEXT.resignPractice);
    const offer = lost?.undo?.actions > 0 ? lostOffer(lost) : null;
    const actions = [];
    if (lost && !offer) {
      // Proved lost, and no position undo reaches can be won: Undo is no way out, a new game is.
      actions.push(noticeButton("new-game", TEXT.newGameButton, startAnew, true));
      actions.push(noticeButton("resign", TEXT.resignButton, resign));
      return { text: [TEXT.stuck, TEXT.noWayBack].join(" "), kind: "stuck", actions };
    }
    if (offer) actions.push(offer.button);
    if (s.can_undo) actions.push(noticeButton("undo", TEXT.undoButton, undo));
    actions.push(noticeButton("resign", TEXT.resignButton, resign));
    return { text: [TEXT.stuck, offer ? offer.text : next].join(" "), kind: "stuck", actions };
  }
  if (lost) {
    const offer = lostOffer(lost);
    return { text: offer.text, kind: "lost", actions: [offer.button] };
  }
  if (inPlay() && !localStorage.getItem(RULES_SEEN_KEY)) {
    const close = h("button.button.small", { type: "button" }, TEXT.close);
    close.addEventListener("click", () => {
      localStorage.setItem(RULES_SEEN_KEY, "1");
      messages.stand(standingMessage());
    });
    return { text: TEXT.firstVisit, kind: "welcome", actions: [h("a.button.small.primary", { href: "/how-to-play/" }, TEXT.howToPlay), close] };
  }
  return null;
}

function drawHud() {
  const s = game.state;
  const title = game.kind === "daily"
    ? (game.daily_date ? fmt(gettext("Daily deal · %(day)s"), { day: formatDay(game.daily_date) }) : gettext("Daily deal"))
    : gettext("Practice");
  const parts = [title, fmt(gettext("Draw %(n)s"), { n: game.draw })];
  if (game.variant === "classic") parts.push(gettext("Classic"));
  // Each part whole on its line ("Draw 3" never leaves its "3" alone), the dot kept with the
  // part before it: a narrow window breaks the title between parts only.
  const last = parts.length - 1;
  root.querySelector("[data-title]").replaceChildren(...parts.flatMap((part, i) => [
    h("span.title-part", {}, i < last ? `${part}\u00a0·` : part),
    i < last ? " " : "",
  ]));
  document.title = `${title} · Canfield Online`;
  root.querySelector("[data-score]").textContent = formatNumber(game.score);
  root.querySelector("[data-actions]").textContent = formatNumber(game.actions);
  root.querySelector("[data-reserve]").textContent = formatNumber(s.reserve.count);
  const codeBox = root.querySelector("[data-code-box]");
  codeBox.hidden = !game.code;
  root.querySelector("[data-code]").textContent = game.code || "";
  const status = root.querySelector("[data-status]");
  status.hidden = game.status === "in_progress";
  status.textContent = resultLabel(game.result);
  status.className = `pill pill-${game.status}`;
  undoButton.disabled = !inPlay() || !s.can_undo;
  const replay = root.querySelector("[data-replay-link]");
  replay.hidden = inPlay();
  replay.href = `/games/${game.id}/replay/`;
  root.querySelector("[data-resign]").hidden = !inPlay();
  hintButton.hidden = !inPlay() || game.kind !== "practice";
  resultButton.hidden = inPlay() || game.kind !== "daily";
  finishButton.hidden = !inPlay() || !s.finishable;
  boardEl.classList.toggle("finished", !inPlay());
  tick();
}

function tick() {
  if (!game) return;
  const start = game.started_at ? Date.parse(game.started_at) : null;
  let elapsed = 0;
  if (start) elapsed = (game.finished_at ? Date.parse(game.finished_at) : serverNow()) - start;
  root.querySelector("[data-timer]").textContent = formatDuration(elapsed);
}
setInterval(tick, 1000);

function announce(next, before) {
  const token = next.applied;
  let text = `${actionWords(token, before)}.`;
  const top = next.state.waste.cards.at(-1);
  const kind = actionKind(token);
  if ((kind === "draw" || kind === "undo") && top) text += ` ${fmt(gettext("Waste top %(card)s."), { card: cardName(top) })}`;
  announcer.textContent = `${text} ${fmt(gettext("Score %(score)s."), { score: formatNumber(next.score) })}`;
  announcer.title = token;
}

/** The win's moment (a practice game; a daily's is its result card): "You won!", read out as
 * focus lands on it, over a short cascade of cards (none under prefers-reduced-motion). */
function showWin() {
  winShown = true;
  const time = root.querySelector("[data-timer]").textContent;
  winBanner.querySelector("[data-win-summary]").textContent = fmt(
    ngettext("Score %(score)s in %(count)s action, %(time)s.", "Score %(score)s in %(count)s actions, %(time)s.", game.actions),
    { score: formatNumber(game.score), count: formatNumber(game.actions), time },
  );
  winBanner.querySelector("[data-win-replay]").href = `/games/${game.id}/replay/`;
  winBanner.querySelector("[data-win-message]").textContent = "";
  celebrate(winBanner);
  winBanner.showModal(); // (a dialog: Escape closes it)
  winBanner.querySelector("#win-title").focus();
}
winBanner.querySelector("[data-win-close]").addEventListener("click", () => winBanner.close());
winBanner.querySelector("[data-win-share]").addEventListener("click", () => sharePractice(game, winBanner.querySelector("[data-win-message]")));

// ---- hints (practice games) ----------------------------------------------------------------

function highlight(action) {
  for (const el of boardEl.querySelectorAll(".hint-source, .hint-target")) el.classList.remove("hint-source", "hint-target");
  const move = parseMoveToken(action);
  if (!move) {
    const kind = actionKind(action);
    if (kind === "draw" || kind === "recycle") board.pileElement("S")?.classList.add("hint-source");
    if (kind === "undo") undoButton.classList.add("hint-source");
    return;
  }
  const els = board.root.querySelectorAll(`.card[data-pile="${move.src}"]`);
  const run = move.src.startsWith("T") ? [...els].slice(-move.count) : [...els].slice(-1);
  for (const el of run) el.classList.add("hint-source");
  board.pileElement(move.dst)?.classList.add("hint-target");
}

// A hint being computed says so: after a moment (a kept answer comes at once, without a
// flicker), the button reads "Thinking…", is marked busy, and its icon turns.
const hintLabel = [...hintButton.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
const hintText = hintLabel?.textContent;
let hintBusyTimer = null;
function hintBusy(busy) {
  clearTimeout(hintBusyTimer);
  const show = (on) => {
    hintButton.classList.toggle("busy", on);
    if (on) hintButton.setAttribute("aria-busy", "true");
    else hintButton.removeAttribute("aria-busy");
    if (hintLabel) hintLabel.textContent = on ? gettext("Thinking…") : hintText;
  };
  if (busy) hintBusyTimer = setTimeout(() => show(true), 150);
  else show(false);
}

async function askHint() {
  if (!inPlay() || game.kind !== "practice" || hintButton.disabled) return;
  hintButton.disabled = true;
  hintBusy(true);
  const ply = game.ply;
  const before = game.state;
  try {
    await created();
    await verdictAsking?.catch(() => {}); // (its search kept its answer: the hint looks it up)
    const answer = await api.get(`/api/games/${gameId}/hint/`);
    if (game.ply !== ply) return; // the game moved on meanwhile
    let text;
    let actions = [];
    if (answer.action && (answer.outcome === "win" || answer.outcome === "unknown")) {
      hint = { ply, action: answer.action };
      highlight(answer.action);
      const words = actionWords(answer.action, before);
      // A move is "a hint" only on a line the solver followed to the win; else it says so.
      text = answer.outcome === "win" && answer.proved !== false ? TEXT.hint(words) : TEXT.hintUnproved(words);
    } else if (answer.outcome === "no_win") {
      verdict = { ply, outcome: "no_win", proved: true, undo: answer.undo ?? null };
      messages.stand(standingMessage());
      if (answer.undo?.actions > 0) {
        const offer = lostOffer(verdict);
        text = offer.text;
        actions = [offer.button];
      } else {
        text = TEXT.hintNoWin;
      }
    } else {
      text = TEXT.hintUnknown;
    }
    messages.say(text, "info", 8000, actions);
  } catch (err) {
    messages.say(err.status === 429 ? TEXT.hintThrottled(err.body.retry_after ?? 60) : err.message, "error");
  } finally {
    hintButton.disabled = false;
    hintBusy(false);
  }
}
hintButton.addEventListener("click", askHint);

// ---- finish --------------------------------------------------------------------------------

/**
 * Finish: offered while the server's `finishable` says the rest needs no decision. One request:
 * the server plays that line — every foundation move there is, and when there is none a draw or a
 * recycle, each logged as an ordinary action — and answers the won game; its cards fly from where
 * they were to where the line put them.
 */
async function finish() {
  if (!inPlay() || !game.state.finishable) return;
  finishButton.disabled = true;
  try {
    await send({}, {}, "finish");
  } finally {
    finishButton.disabled = false;
  }
}
finishButton.addEventListener("click", finish);

// ---- pointer: taps and drags -------------------------------------------------------------------

new DragController(board, {
  enabled: inPlay,
  onTap: (pile, index) => tap(pile, index),
  onDrop: ({ src, count, dst, ghostRects }) => move(src, count, dst, { from: ghostRects }),
});

// ---- keyboard ----------------------------------------------------------------------------------

const keys = new BoardKeys(board, {
  enabled: inPlay,
  tap: (pile, index) => tap(pile, index),
  move: (src, count, dst) => move(src, count, dst),
  say: (text, kind = "info") => messages.say(text, kind, 8000),
});
// The page's first link skips straight to the cards (the first group's place in the Tab order).
document.querySelector(".skip-link")?.addEventListener("click", (e) => {
  const first = keys.first();
  if (!first) return;
  e.preventDefault();
  first.focus();
});

document.addEventListener("keydown", (e) => {
  if (e.defaultPrevented || document.querySelector("dialog[open]")) return; // (the board's keys first)
  const typing = e.target.closest?.("input, textarea, select, [contenteditable]");
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "z" && !typing) {
    e.preventDefault();
    undo();
  } else if (!typing && !e.ctrlKey && !e.metaKey && !e.altKey && (e.key === "n" || e.key === "N")) {
    e.preventDefault();
    openNewGame();
  } else if (!typing && !e.ctrlKey && !e.metaKey && !e.altKey && (e.key === "h" || e.key === "H")) {
    e.preventDefault();
    askHint();
  } else if (!typing && !e.ctrlKey && !e.metaKey && !e.altKey && (e.key === "d" || e.key === "D")) {
    e.preventDefault();
    if (!e.repeat) keys.draw(); // anywhere on the page, as N and H
  }
});

// ---- toolbar -----------------------------------------------------------------------------------

undoButton.addEventListener("click", undo);

root.querySelector("[data-copy-code]").addEventListener("click", async () => {
  const ok = await copyText(game.code);
  messages.say(ok ? fmt(gettext("Copied %(code)s"), { code: game.code }) : gettext("Copy failed: select the code and copy it."), ok ? "success" : "error");
});

/** Resign, once the player confirms it (the toolbar's button and the stuck notice's). */
async function resign() {
  if (!inPlay()) return;
  const question = game.kind === "daily"
    ? gettext("Resign this game? This is your ranked attempt for today.")
    : gettext("Resign this game?");
  if (!(await ask(resignDialog, question))) return;
  if (!inPlay()) return; // (ended meanwhile)
  try {
    await created();
    show(await post("resign"), { animate: false });
  } catch (err) {
    messages.say(err.message, "error");
  }
}
root.querySelector("[data-resign]").addEventListener("click", resign);
const resignDialog = $("[data-resign-dialog]");

const newGameDialog = $("[data-new-game-dialog]");
function openNewGame() {
  if (winBanner.open) winBanner.close();
  const form = newGameDialog.querySelector("form");
  if (game) form.elements.draw.value = String(game.draw);
  newGameDialog.showModal();
}
for (const button of document.querySelectorAll("[data-open-new-game]")) button.addEventListener("click", openNewGame);
bindNewGameForm(newGameDialog.querySelector("form"), { onCancel: () => newGameDialog.close() });

const helpDialog = $("[data-help-dialog]");
root.querySelector("[data-open-help]").addEventListener("click", () => helpDialog.showModal());

// ---- start -------------------------------------------------------------------------------------

load().catch((err) => {
  root.classList.add("failed");
  showError(root.querySelector(".board-wrap"), err);
});
// Back to the page (history, another tab): the game may have moved on elsewhere.
window.addEventListener("pageshow", (e) => {
  if (e.persisted) load().catch(() => {});
});
window.addEventListener("pagehide", closeSocket); // (load() opens it again if the page comes back)
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && game) queue = queue.then(() => load().catch(() => {}));
});

// The game page: draws the server's state and sends every tap, drop and undo to the REST API.
import { api, serverNow } from "./api.js";
import { Board, moveToken, parseMoveToken } from "./board.js";
import { cardName, isRed, rankOf, suitOf } from "./cards.js";
import { DragController } from "./drag.js";
import { BoardKeys } from "./keys.js";
import { bindNewGameForm } from "./newgame.js";
import { showResult } from "./result.js";
import { actionWords } from "./words.js";
import { copyText, fmt, formatDuration, formatDay, formatNumber, h, pageMessageArea, reducedMotion, resultLabel, showError } from "./ui.js";

const DOUBLE_CLICK_KEY = "canfield.doubleClick";
const FINISH_STEP_MS = 160; // between the Finish button's moves, after each one's animation

/** The page's own words (one place). */
const TEXT = {
  hint: (words) => fmt(gettext("Hint: %(action)s."), { action: words }),
  hintNoWin: gettext("No way to win from here."),
  hintUnknown: gettext("I can't tell in time."),
  hintThrottled: (s) => fmt(ngettext("Too many hints: try again in %(seconds)s s.", "Too many hints: try again in %(seconds)s s.", s), { seconds: formatNumber(s) }),
  stuck: gettext("No useful moves left: no card can move, however often you go through the stock."),
  stuckNothing: gettext("No moves left: no card can move."),
  undoOrNew: gettext("Undo, or start a new game."),
  newGame: gettext("Start a new game."),
  undoOrResign: gettext("Undo, or resign to end your attempt as it stands."),
  resign: gettext("Resign to end your attempt as it stands."),
  // Why a tap moved nothing (the server's list of legal actions says what can move).
  foundationTap: gettext("A foundation's cards move only by dragging, or with the keyboard."),
  wasteTopOnly: gettext("Only the waste's top card can be played."),
  dragIt: (card) => fmt(gettext("%(card)s can go to a column: “Double click” is off, so drag it there."), { card }),
  dragRun: (card) => fmt(gettext("A tap never moves a whole column into an empty one: drag %(card)s there."), { card }),
  cannotMove: (card, next, one, other) => fmt(gettext("%(card)s cannot move now: its foundation needs the %(next)s first, and in a column it goes only on the %(one)s or the %(other)s."), { card, next, one, other }),
  cannotMoveDone: (card, one, other) => fmt(gettext("%(card)s cannot move now: in a column it goes only on the %(one)s or the %(other)s."), { card, one, other }),
  runCannotMove: (card, one, other) => fmt(gettext("%(card)s and the cards on it cannot move now: they go only on the %(one)s or the %(other)s."), { card, one, other }),
  firstVisit: gettext("New to Canfield? The rules, with pictures and a short tour:"),
  howToPlay: gettext("How to play"),
  close: gettext("Close"),
  changedElsewhere: gettext("The game was changed elsewhere: the board is up to date again."),
};
const RULES_SEEN_KEY = "canfield.rulesSeen";

const root = document.querySelector("[data-game]");
const gameId = root.dataset.gameId;
const $ = (sel) => document.querySelector(sel);
const boardEl = root.querySelector("[data-board]");
const board = new Board(boardEl, { interactive: true });
const doubleClickBox = root.querySelector("[data-double-click]");
const undoButton = root.querySelector("[data-undo]");
const announcer = root.querySelector("[data-announce]");
const messages = pageMessageArea();
// A message of more than one line takes room from the board: it fits itself again.
new ResizeObserver(() => game && board.layoutColumns()).observe(messages.el);
const winBanner = $("[data-win]");
const hintButton = root.querySelector("[data-hint]");
const finishButton = root.querySelector("[data-finish]");
const resultButton = root.querySelector("[data-open-result]");
resultButton.addEventListener("click", () => showResult(game));

let game = null;
let queue = Promise.resolve();
let winShown = false;
let hint = null; // {ply, action}: the hint shown for this position

// ---- settings ----------------------------------------------------------------------------------

doubleClickBox.checked = localStorage.getItem(DOUBLE_CLICK_KEY) !== "off";
doubleClickBox.addEventListener("change", () => {
  localStorage.setItem(DOUBLE_CLICK_KEY, doubleClickBox.checked ? "on" : "off");
});

// ---- talking to the server ---------------------------------------------------------------------

const inPlay = () => game && game.status === "in_progress";

async function load({ animate = false } = {}) {
  show(await api.get(`/api/games/${gameId}/`), { animate });
}

/**
 * Sends one action ({action} or {tap, index, double_click}); actions run one after another,
 * each naming the ply it was made in. Resolves to true when the server applied something.
 */
function send(body, renderOptions = {}) {
  const run = async () => {
    if (!inPlay()) return false;
    try {
      const before = game.state;
      const next = await api.post(`/api/games/${gameId}/actions/`, { ply: game.ply, ...body });
      const changed = next.applied !== null && next.applied !== undefined;
      show(next, changed ? renderOptions : { animate: false });
      if (changed) {
        messages.clear(); // the last message was about the position before
        announce(next, before);
      }
      return changed;
    } catch (err) {
      if (err.code === "stale_ply" || err.code === "game_over" || (err.status === 409 && err.code !== "game_too_long")) {
        messages.say(TEXT.changedElsewhere, "info");
        await load().catch(() => {});
      } else {
        messages.say(err.message, "error");
      }
      return false;
    }
  };
  const result = queue.then(run);
  queue = result.catch(() => false);
  return result;
}

async function tap(pile, index) {
  if (!inPlay()) return;
  const underWasteTop = pile === "W" && index !== null && index !== undefined && index !== game.state.waste.cards.length - 1;
  if (pile.startsWith("F") || underWasteTop) {
    refuseTap(pile, index); // foundation cards move only by dragging; only the waste's top plays
    return;
  }
  const body = { tap: pile, double_click: doubleClickBox.checked };
  // A column card is named by its index (0 = bottom); elsewhere the pile's top card is meant.
  if (pile.startsWith("T") && index !== null && index !== undefined) body.index = index;
  const before = game.ply;
  const moved = await send(body);
  if (!moved && game.ply === before && pile !== "S") refuseTap(pile, index);
}

/** A tap that moved nothing: the card shakes, and the message area says why. */
function refuseTap(pile, index) {
  const s = game.state;
  const els = pile.startsWith("T") || pile.startsWith("F") || index === null || index === undefined
    ? board.runElements(pile, index ?? 0)
    : board.root.querySelectorAll(`.card[data-pile="${pile}"][data-index="${index}"]`);
  for (const el of els) {
    el.classList.remove("shake");
    void el.offsetWidth; // (restarts the animation)
    el.classList.add("shake");
    el.addEventListener("animationend", () => el.classList.remove("shake"), { once: true });
  }
  const why = whyNot(pile, index, s);
  if (why) messages.say(why, "error", 6000);
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const RANK_ORDER = "A23456789TJQK";

/** The two cards `card` goes on in a column: the other colour, one rank higher (K on A). */
function goesOn(card) {
  const rank = RANK_ORDER[(RANK_ORDER.indexOf(rankOf(card)) + 1) % 13];
  return (isRed(suitOf(card)) ? ["S", "C"] : ["H", "D"]).map((suit) => cardName(rank + suit));
}

/** Why a tap on (pile, index) moved nothing, in words, from the player's view of the board. */
function whyNot(pile, index, s) {
  if (pile.startsWith("F")) return TEXT.foundationTap;
  let card;
  let count = 1;
  if (pile === "R") card = s.reserve.top;
  else if (pile === "W") {
    const cards = s.waste.cards || [];
    if (index !== null && index !== undefined && index !== cards.length - 1) return TEXT.wasteTopOnly;
    card = cards.at(-1);
  } else {
    const column = s.columns[Number(pile.slice(1)) - 1];
    const i = index ?? column.length - 1;
    card = column[i];
    count = column.length - i;
  }
  if (!card) return null;
  const name = capital(cardName(card));
  const moves = (s.legal || []).map(parseMoveToken).filter((m) => m && m.src === pile && m.count === count);
  if (moves.length) return moves.every((m) => m.dst.startsWith("T")) && !doubleClickBox.checked ? TEXT.dragIt(name) : TEXT.dragRun(name);
  const [one, other] = goesOn(card);
  if (count > 1) return TEXT.runCannotMove(name, one, other);
  const f = s.foundations.find((x) => x.suit === suitOf(card));
  if (!f || f.cards.length === 13) return TEXT.cannotMoveDone(name, one, other);
  const next = RANK_ORDER[(RANK_ORDER.indexOf(f.start) + f.cards.length) % 13] + f.suit;
  return TEXT.cannotMove(name, cardName(next), one, other);
}

function move(src, count, dst, renderOptions) {
  return send({ action: moveToken(src, count, dst) }, renderOptions);
}

function undo() {
  if (inPlay() && game.state.can_undo) send({ action: "U" });
}

// ---- drawing -----------------------------------------------------------------------------------

function show(next, renderOptions = {}) {
  const wasInPlay = inPlay();
  game = next;
  $("[data-loading]")?.remove();
  drawHud(); // first: the board fits itself to the room the head-up display leaves
  board.render(game.state, renderOptions);
  if (hint && hint.ply === game.ply) highlight(hint.action);
  else hint = null;
  messages.stand(standingMessage());
  if (game.kind === "daily" && wasInPlay && !inPlay()) showResult(game); // ended here
  else if (game.status === "won" && wasInPlay && !winShown) showWin(); // won here, not on an old game
}

/**
 * What the message area says while nothing else is said: that no card can move (the server's
 * `stuck`, from the position: it holds across reloads and goes with the game's end), offering
 * only what can be done; else, until the rules have been seen once, where they are.
 */
function standingMessage() {
  const s = game.state;
  if (inPlay() && s.stuck) {
    const turns = (s.legal || []).some((t) => t === "D" || t === "C");
    const next = game.kind === "daily"
      ? (s.can_undo ? TEXT.undoOrResign : TEXT.resign)
      : (s.can_undo ? TEXT.undoOrNew : TEXT.newGame);
    return { text: `${turns ? TEXT.stuck : TEXT.stuckNothing} ${next}`, kind: "stuck" };
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
  root.querySelector("[data-title]").textContent = parts.join(" · ");
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
  if ((token === "D" || token === "U") && top) text += ` ${fmt(gettext("Waste top %(card)s."), { card: cardName(top) })}`;
  announcer.textContent = `${text} ${fmt(gettext("Score %(score)s."), { score: formatNumber(next.score) })}`;
  announcer.title = token;
}

function showWin() {
  winShown = true;
  const time = root.querySelector("[data-timer]").textContent;
  winBanner.querySelector("[data-win-summary]").textContent = fmt(
    ngettext("Score %(score)s in %(count)s action, %(time)s.", "Score %(score)s in %(count)s actions, %(time)s.", game.actions),
    { score: formatNumber(game.score), count: formatNumber(game.actions), time },
  );
  winBanner.querySelector("[data-win-replay]").href = `/games/${game.id}/replay/`;
  winBanner.showModal(); // (a dialog: Escape closes it)
  winBanner.querySelector("[data-win-close]").focus();
}
winBanner.querySelector("[data-win-close]").addEventListener("click", () => winBanner.close());

// ---- hints (practice games) ----------------------------------------------------------------

function highlight(action) {
  for (const el of boardEl.querySelectorAll(".hint-source, .hint-target")) el.classList.remove("hint-source", "hint-target");
  const move = parseMoveToken(action);
  if (!move) {
    if (action === "D" || action === "C") board.pileElement("S")?.classList.add("hint-source");
    if (action === "U") undoButton.classList.add("hint-source");
    return;
  }
  const els = board.root.querySelectorAll(`.card[data-pile="${move.src}"]`);
  const run = move.src.startsWith("T") ? [...els].slice(-move.count) : [...els].slice(-1);
  for (const el of run) el.classList.add("hint-source");
  board.pileElement(move.dst)?.classList.add("hint-target");
}

async function askHint() {
  if (!inPlay() || game.kind !== "practice" || hintButton.disabled) return;
  hintButton.disabled = true;
  const ply = game.ply;
  const before = game.state;
  try {
    const answer = await api.get(`/api/games/${gameId}/hint/`);
    if (game.ply !== ply) return; // the game moved on meanwhile
    let text;
    if (answer.outcome === "win") {
      hint = { ply, action: answer.action };
      highlight(answer.action);
      text = TEXT.hint(actionWords(answer.action, before));
    } else {
      text = answer.outcome === "no_win" ? TEXT.hintNoWin : TEXT.hintUnknown;
    }
    messages.say(text, "info", 8000);
  } catch (err) {
    messages.say(err.status === 429 ? TEXT.hintThrottled(err.body.retry_after ?? 60) : err.message, "error");
  } finally {
    hintButton.disabled = false;
  }
}
hintButton.addEventListener("click", askHint);

// ---- finish --------------------------------------------------------------------------------

/**
 * Finish: offered while the server's `finishable` says the rest needs no decision; plays it one
 * ordinary action at a time, each one the player asked for: every foundation move there is (in
 * any order), and when there is none, a draw or a recycle.
 */
async function finish() {
  if (!inPlay() || !game.state.finishable) return;
  finishButton.disabled = true;
  try {
    while (inPlay() && game.state.finishable) {
      const legal = game.state.legal || [];
      const token = legal.find((t) => /^(R|W|T[1-4])-F[1-4]$/.test(t)) || legal.find((t) => t === "D" || t === "C");
      if (!token || !(await send({ action: token }))) break;
      if (!reducedMotion()) await new Promise((resolve) => setTimeout(resolve, FINISH_STEP_MS));
    }
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
  if (document.querySelector("dialog[open]")) return;
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
  }
});

// ---- toolbar -----------------------------------------------------------------------------------

undoButton.addEventListener("click", undo);

root.querySelector("[data-copy-code]").addEventListener("click", async () => {
  const ok = await copyText(game.code);
  messages.say(ok ? fmt(gettext("Copied %(code)s"), { code: game.code }) : gettext("Copy failed: select the code and copy it."), ok ? "success" : "error");
});

root.querySelector("[data-resign]").addEventListener("click", async () => {
  if (!inPlay()) return;
  const question = game.kind === "daily"
    ? gettext("Resign this game? This is your ranked attempt for today.")
    : gettext("Resign this game?");
  if (!window.confirm(question)) return;
  try {
    show(await api.post(`/api/games/${gameId}/resign/`), { animate: false });
  } catch (err) {
    messages.say(err.message, "error");
  }
});

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
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && game) queue = queue.then(() => load().catch(() => {}));
});

// The game page: draws the server's state and sends every tap, drop and undo to the REST API.
import { api, serverNow } from "./api.js";
import { Board, cardCount, moveToken, parseMoveToken, pileName } from "./board.js";
import { cardName } from "./cards.js";
import { DragController } from "./drag.js";
import { bindNewGameForm } from "./newgame.js";
import { showResult } from "./result.js";
import { actionWords } from "./words.js";
import { copyText, fmt, formatDuration, formatDay, formatNumber, reducedMotion, resultLabel, showError, toast } from "./ui.js";

const DOUBLE_CLICK_KEY = "canfield.doubleClick";
const FINISH_STEP_MS = 160; // between the Finish button's moves, after each one's animation

/** The page's own words (one place). */
const TEXT = {
  hint: (words) => fmt(gettext("Hint: %(action)s."), { action: words }),
  hintNoWin: gettext("No way to win from here."),
  hintUnknown: gettext("I can't tell in time."),
  hintThrottled: (s) => fmt(ngettext("Too many hints: try again in %(seconds)s s.", "Too many hints: try again in %(seconds)s s.", s), { seconds: formatNumber(s) }),
  stuck: gettext("No useful moves left: a whole pass through the stock offered no card to move. Undo, or start a new game."),
  stuckNothing: gettext("No moves left: nothing can be played. Undo, or start a new game."),
};

const root = document.querySelector("[data-game]");
const gameId = root.dataset.gameId;
const $ = (sel) => document.querySelector(sel);
const boardEl = root.querySelector("[data-board]");
const board = new Board(boardEl, { interactive: true });
const doubleClickBox = root.querySelector("[data-double-click]");
const undoButton = root.querySelector("[data-undo]");
const announcer = root.querySelector("[data-announce]");
const winBanner = $("[data-win]");
const hintButton = root.querySelector("[data-hint]");
const stuckNotice = root.querySelector("[data-stuck]");
const finishButton = root.querySelector("[data-finish]");
const resultButton = root.querySelector("[data-open-result]");
resultButton.addEventListener("click", () => showResult(game));

let game = null;
let queue = Promise.resolve();
let picked = null; // keyboard move: {pile, index, count}
let winShown = false;
let hint = null; // {ply, action}: the hint shown for this position
// "No useful moves left": a pass through the stock (from a recycle to the next) in which no
// position offered anything but drawing, recycling or undoing.
let passClean = null; // null: no pass watched from its start yet
let stuck = false;

// ---- settings ----------------------------------------------------------------------------------

doubleClickBox.checked = localStorage.getItem(DOUBLE_CLICK_KEY) !== "off";
doubleClickBox.addEventListener("change", () => {
  localStorage.setItem(DOUBLE_CLICK_KEY, doubleClickBox.checked ? "on" : "off");
});

// ---- talking to the server ---------------------------------------------------------------------

const inPlay = () => game && game.status === "in_progress";

async function load({ animate = false } = {}) {
  const fresh = await api.get(`/api/games/${gameId}/`);
  const first = !game;
  show(fresh, { animate });
  if (first && fresh.ply === 0) passClean = onlyIdle(fresh.state.legal || []); // the deal starts a pass
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
        announce(next, before);
        watchPass(next);
      }
      return changed;
    } catch (err) {
      if (err.code === "stale_ply" || err.code === "game_over" || (err.status === 409 && err.code !== "game_too_long")) {
        toast(gettext("The game was changed elsewhere: the board is up to date again."), "info");
        await load().catch(() => {});
      } else {
        toast(err.message, "error");
      }
      return false;
    }
  };
  const result = queue.then(run);
  queue = result.catch(() => false);
  return result;
}

function tap(pile, index) {
  if (!inPlay()) return;
  if (pile.startsWith("F")) return; // foundation cards move only by dragging
  const body = { tap: pile, double_click: doubleClickBox.checked };
  // A column card is named by its index (0 = bottom); elsewhere the pile's top card is meant.
  if (pile.startsWith("T") && index !== null && index !== undefined) body.index = index;
  return send(body);
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
  if (game.kind === "daily" && wasInPlay && !inPlay()) showResult(game); // ended here
  else if (game.status === "won" && wasInPlay && !winShown) showWin(); // won here, not on an old game
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
  finishButton.hidden = !inPlay() || !canFinish(s);
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
  winBanner.hidden = false;
  winBanner.querySelector("[data-win-close]").focus();
}
winBanner.querySelector("[data-win-close]").addEventListener("click", () => { winBanner.hidden = true; });

// ---- hints (practice games) and "no useful moves left" -----------------------------------------

const onlyIdle = (legal) => legal.every((t) => t === "D" || t === "C" || t === "U");

/**
 * The notice shows once a whole pass through the stock (from a recycle, or the deal, to the next
 * recycle) offered no action but drawing, recycling or undoing — the next pass is the same — or
 * when nothing but undo is left; it goes when a card can move again.
 */
function watchPass(next) {
  const legal = next.state.legal || [];
  const idle = onlyIdle(legal);
  if (next.status !== "in_progress") {
    passClean = null;
    stuck = false;
  } else if (!idle) {
    passClean = false;
    stuck = false;
  } else if (!legal.some((t) => t === "D" || t === "C")) {
    stuck = true;
  } else if (next.applied === "C") {
    if (passClean === true) stuck = true;
    passClean = true; // a new pass starts here
  }
  if (stuckNotice.hidden === stuck) {
    stuckNotice.hidden = !stuck;
    board.layoutColumns(); // the notice takes room from the board
  }
  const text = legal.some((t) => t === "D" || t === "C") ? TEXT.stuck : TEXT.stuckNothing;
  if (stuck && stuckNotice.textContent !== text) announcer.textContent = text;
  stuckNotice.textContent = stuck ? text : "";
}

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
    announcer.textContent = text;
    toast(text, "info", 4500);
  } catch (err) {
    toast(err.status === 429 ? TEXT.hintThrottled(err.body.retry_after ?? 60) : err.message, "error");
  } finally {
    hintButton.disabled = false;
  }
}
hintButton.addEventListener("click", askHint);

// ---- finish --------------------------------------------------------------------------------

const RANKS = "A23456789TJQK";

/**
 * True when only foundation moves are left to play: stock, waste and reserve empty and each
 * column in order, every card below a higher one (counted from the foundations' base rank). Then
 * the lowest card left is always a column's last card and the next one its foundation needs.
 */
function canFinish(state) {
  if (state.stock.count || state.waste.count || state.reserve.count) return false;
  const start = RANKS.indexOf(state.foundations[0].start === "10" ? "T" : state.foundations[0].start);
  const rel = (card) => (RANKS.indexOf(card.slice(0, -1)) - start + 13) % 13;
  return state.columns.every((column) => column.every((card, i) => i === 0 || rel(column[i - 1]) > rel(card)));
}

/** Plays the foundation moves one at a time, each an ordinary action the player asked for. */
async function finish() {
  if (!inPlay() || !canFinish(game.state)) return;
  finishButton.disabled = true;
  try {
    while (inPlay() && canFinish(game.state)) {
      const token = (game.state.legal || []).find((t) => /^T[1-4]-F[1-4]$/.test(t));
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

function focusedPlace(target) {
  const el = target.closest("[data-pile]");
  if (!el || !boardEl.contains(el)) return null;
  const pile = el.dataset.pile;
  const index = el.dataset.index !== undefined && el.classList.contains("card") ? Number(el.dataset.index) : null;
  return { pile, index, el };
}

function setPicked(next) {
  for (const el of boardEl.querySelectorAll(".picked")) el.classList.remove("picked");
  picked = next;
  boardEl.classList.toggle("picking", Boolean(picked));
  if (!picked) return;
  for (const el of board.runElements(picked.pile, picked.index ?? 0)) el.classList.add("picked");
}

boardEl.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const place = focusedPlace(e.target);
  if (!place) return;
  if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    if (picked) {
      const { pile, index, count } = picked;
      setPicked(null);
      if (place.pile !== pile && (place.pile.startsWith("T") || place.pile.startsWith("F"))) {
        move(pile, count, place.pile);
      } else {
        announcer.textContent = gettext("Put back.");
      }
      return;
    }
    tap(place.pile, place.index);
  } else if (e.key === "m" || e.key === "M") {
    e.preventDefault();
    if (!inPlay()) return;
    const { pile } = place;
    let { index } = place;
    if (pile === "S") return;
    if (pile.startsWith("F")) {
      const cards = game.state.foundations[Number(pile.slice(1)) - 1].cards;
      if (!cards.length) return;
      index = cards.length - 1;
    }
    if (index === null) return;
    const count = board.runLength(pile, index);
    setPicked({ pile, index, count });
    announcer.textContent = fmt(
      gettext("Picked up %(cards)s from %(pile)s. Move to a pile and press Enter to drop, Escape to cancel."),
      { cards: cardCount(count), pile: pileName(pile, game.state) },
    );
  } else if (e.key === "Escape" && picked) {
    setPicked(null);
    announcer.textContent = gettext("Cancelled.");
  }
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
  toast(ok ? fmt(gettext("Copied %(code)s"), { code: game.code }) : gettext("Copy failed: select the code and copy it."), ok ? "success" : "error");
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
    toast(err.message, "error");
  }
});

const newGameDialog = $("[data-new-game-dialog]");
function openNewGame() {
  winBanner.hidden = true;
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

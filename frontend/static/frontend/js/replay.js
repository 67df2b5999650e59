// The replay viewer: the record's tokens plus the server's view at every ply
// (GET /api/games/<id>/record/?states=1), and where the win slipped away, as the server's analysis
// says it (GET /api/games/<id>/analysis/). Nothing about the rules is computed here.
//
// A game being played (the page says `data-live`) is watched live instead, over its spectators'
// socket (/ws/games/<id>/watch/): the board follows every move the player makes, from the frames
// the server sends — the player's own view, never a hidden card — with "N watching" and the
// socket's state; a frame whose ply does not follow the last one asks for a snapshot (resync).
// A viewer the server refuses is told why, in its words (`data-refused`, or the socket's refusal).
import { api } from "./api.js";
import { Board } from "./board.js";
import { Socket } from "./socket.js";
import { copyText, fmt, formatDay, formatNumber, h, loginUrl, pageMessageArea, resultLabel, toast } from "./ui.js";
import { actionWords } from "./words.js";

const root = document.querySelector("[data-replay]");
const gameId = root.dataset.gameId;
const live = root.dataset.live === "1";
// The record to play: a game's (the default), or another with the same shape given by the page
// (a past day's solution: /api/daily/<date>/solution/?states=1).
const recordUrl = root.dataset.recordUrl || `/api/games/${gameId}/record/?states=1`;
const boardRoot = root.querySelector("[data-board]");
const board = boardRoot ? new Board(boardRoot) : null;
const scrubber = root.querySelector("[data-scrubber]");
const playButton = root.querySelector("[data-play]");
const speedSelect = root.querySelector("[data-speed]");
const tokenList = root.querySelector("[data-tokens]");
const analysisBox = root.querySelector("[data-analysis]");
// A message takes its line above the board only while it shows: the board fits itself again.
new ResizeObserver(() => board?.state && board.layoutColumns()).observe(pageMessageArea().el);
// So does the analysis below the actions, as it appears and grows.
if (analysisBox) new ResizeObserver(() => board?.state && board.layoutColumns()).observe(analysisBox);
// On a phone the list of actions starts folded: the board needs the room.
if (window.matchMedia("(max-width: 699px)").matches) root.querySelector("[data-actions-list]").open = false;

let record = null;
let states = [];
let position = 0; // 0 = the deal; n = after the n-th action
let timer = null;

const TEXT = {
  deal: gettext("The deal"),
  score: (n) => fmt(gettext("Score %(score)s"), { score: formatNumber(n) }),
  start: pgettext("replay position", "Start"),
  action: (n) => fmt(gettext("Action %(n)s"), { n: formatNumber(n) }),
  notation: (n, token, score) => fmt(gettext("Action %(n)s: %(token)s (notation) · score %(score)s"), { n: formatNumber(n), token, score: formatNumber(score) }),
  logIn: gettext("Log in"),
  signUp: gettext("Sign up"),
  needsLogin: gettext("Log in to see this replay: it is not public yet."),
  notFound: gettext("No such game, or not yours to see yet. Another player's daily attempt opens to everyone once its day is over; a practice game once it is finished."),
  analysing: gettext("Analysing…"),
  won: gettext("Won."),
  neverWinnable: gettext("This deal could not be won from the start."),
  stillWinnable: gettext("The game could still be won when it ended."),
  undecided: gettext("Undecided: the solver could not tell in time."),
  slip: (n, played, better, line) => fmt(ngettext(
    "The win slipped away at action %(n)s: %(played)s left no way to win. %(better)s was still winning (a line of %(line)s action).",
    "The win slipped away at action %(n)s: %(played)s left no way to win. %(better)s was still winning (a line of %(line)s actions).",
    line,
  ), { n: formatNumber(n), played, better, line: formatNumber(line) }),
  jump: (n) => fmt(gettext("Go to action %(n)s"), { n: formatNumber(n) }),
  slipMark: gettext("no win after this"),
  watching: (n) => fmt(ngettext("%(count)s watching", "%(count)s watching", n), { count: formatNumber(n) }),
  over: gettext("The game is over."),
  seeReplay: gettext("See the whole replay"),
};

/** The words of the action that led to `position` (1 = the first action). */
function describe(position) {
  return actionWords(record.moves[position - 1].token, states[position - 1]);
}

function go(n, { animate = true } = {}) {
  if (!record) return;
  position = Math.max(0, Math.min(n, states.length - 1));
  const state = states[position];
  scrubber.value = String(position);
  const total = states.length - 1;
  root.querySelector("[data-step]").textContent = `${formatNumber(position)}/${formatNumber(total)}`;
  root.querySelector("[data-score]").textContent = formatNumber(state.score);
  root.querySelector("[data-reserve]").textContent = formatNumber(state.reserve.count);
  root.querySelector("[data-foundation-cards]").textContent = `${formatNumber(state.foundation_cards)}/52`;
  const move = position > 0 ? record.moves[position - 1] : null;
  const caption = root.querySelector("[data-caption]");
  caption.textContent = move ? `${TEXT.action(position)}: ${describe(position)}` : TEXT.deal;
  caption.title = move ? move.token : "";
  board.render(state, { animate: animate && !document.hidden }); // fits the room left above
  for (const button of tokenList.querySelectorAll("button[aria-current]")) button.removeAttribute("aria-current");
  const current = tokenList.querySelector(`button[data-position="${position}"]`);
  if (current) {
    current.setAttribute("aria-current", "step");
    const listBox = tokenList.getBoundingClientRect();
    const box = current.getBoundingClientRect();
    if (box.top < listBox.top || box.bottom > listBox.bottom) {
      tokenList.scrollTop += box.top - listBox.top - listBox.height / 2;
    }
  }
  root.querySelector("[data-first]").disabled = position === 0;
  root.querySelector("[data-back]").disabled = position === 0;
  root.querySelector("[data-forward]").disabled = position === total;
  root.querySelector("[data-last]").disabled = position === total;
  if (position === total) pause();
}

function setPlayButton(playing) {
  playButton.querySelector("use").setAttribute("href", playing ? "#icon-pause" : "#icon-play");
  const label = playing ? pgettext("replay", "Pause") : pgettext("replay", "Play");
  playButton.querySelector("span").textContent = label;
  playButton.setAttribute("aria-label", label);
}

function play() {
  if (!record) return;
  if (position >= states.length - 1) go(0, { animate: false });
  setPlayButton(true);
  clearInterval(timer);
  timer = setInterval(() => go(position + 1), Number(speedSelect.value));
}

function pause() {
  clearInterval(timer);
  timer = null;
  setPlayButton(false);
}

function toggle() {
  if (timer) pause();
  else play();
}

function buildTokens() {
  const items = [h("li", {}, h("button", { type: "button", dataset: { position: "0" } }, TEXT.start))];
  record.moves.forEach((move, i) => {
    items.push(h("li", {}, h("button", {
      type: "button",
      dataset: { position: String(i + 1), token: move.token },
      title: TEXT.notation(i + 1, move.token, move.score),
    }, h("span.ply", {}, `${i + 1}.`), " ", describe(i + 1))));
  });
  tokenList.replaceChildren(...items);
}

/** The title, result and code of the game shown: its record's, or its live payload's (the same
 * summary). */
function drawHead(shown = record) {
  const kind = shown.kind === "daily"
    ? (shown.daily_date ? fmt(gettext("Daily deal · %(day)s"), { day: formatDay(shown.daily_date) }) : gettext("Daily deal"))
    : gettext("Practice");
  root.querySelector("[data-title]").textContent = `${shown.player} · ${kind} · ${fmt(gettext("Draw %(n)s"), { n: shown.draw })}`;
  const title = live ? gettext("Watching %(player)s") : gettext("Replay: %(player)s");
  document.title = `${fmt(title, { player: shown.player })} · Canfield Online`;
  const result = root.querySelector("[data-result]");
  result.hidden = false;
  result.textContent = `${resultLabel(shown.result)} · ${TEXT.score(shown.score)}`;
  result.className = `pill pill-${shown.status}`;
  root.querySelector("[data-code-box]").hidden = !shown.code;
  root.querySelector("[data-code]").textContent = shown.code || "";
}

// ---- where the win slipped away (GET /api/games/<id>/analysis/) --------------------------------

/** The analysis as the server gives it: words for the verdict, and for a slip, its action marked
 * in the list and a way to jump to it. The actions are named as the list names them. */
function drawAnalysis(analysis) {
  const text = analysisBox.querySelector("[data-analysis-text]");
  const jump = analysisBox.querySelector("[data-analysis-jump]");
  analysisBox.dataset.status = analysis.status;
  jump.hidden = true;
  if (analysis.status === "analysing") text.textContent = TEXT.analysing;
  else if (analysis.status !== "ready") text.textContent = TEXT.undecided;
  else if (analysis.won) text.textContent = TEXT.won;
  else if (!analysis.winnable) text.textContent = TEXT.neverWinnable;
  else if (!analysis.slip) text.textContent = TEXT.stillWinnable;
  else {
    const { ply, played, better, line } = analysis.slip;
    const before = states[ply - 1];
    text.textContent = TEXT.slip(ply, actionWords(played, before), actionWords(better, before), line);
    text.title = `${played} · ${better}`;
    jump.textContent = TEXT.jump(ply);
    jump.hidden = false;
    jump.onclick = () => { pause(); go(ply); };
    const item = tokenList.querySelector(`button[data-position="${ply}"]`);
    if (item && !("slip" in item.dataset)) {
      item.dataset.slip = "";
      item.append(" ", h("span.slip-mark", {}, TEXT.slipMark));
    }
  }
}

/** Asks for the analysis until it is ready, waiting longer each time (1 s, 2 s, … 30 s): the
 * worker tier computes it in the background. Only for a game that can have one — over, and its
 * code public (the record shows it): never asked for a day's solution, a game in progress or a
 * daily attempt whose day is not over (the server would answer 404). */
async function showAnalysis() {
  if (root.dataset.recordUrl || !analysisBox) return;
  if (record.code === null || record.status === "in_progress") return;
  let wait = 1000;
  for (;;) {
    let analysis = null;
    try {
      analysis = await api.get(`/api/games/${gameId}/analysis/`);
    } catch (err) {
      if (err?.status === 401 || err?.status === 404) {
        analysisBox.hidden = true;
        return;
      }
    }
    if (analysis) {
      analysisBox.hidden = false;
      drawAnalysis(analysis);
      if (analysis.status !== "analysing") return;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 30000);
  }
}

// ---- events -------------------------------------------------------------------------------------

root.querySelector("[data-first]").addEventListener("click", () => { pause(); go(0); });
root.querySelector("[data-back]").addEventListener("click", () => { pause(); go(position - 1); });
root.querySelector("[data-forward]").addEventListener("click", () => { pause(); go(position + 1); });
root.querySelector("[data-last]").addEventListener("click", () => { pause(); go(states.length - 1); });
playButton.addEventListener("click", toggle);
speedSelect.addEventListener("change", () => { if (timer) play(); });
scrubber.addEventListener("input", () => { pause(); go(Number(scrubber.value), { animate: false }); });
tokenList.addEventListener("click", (e) => {
  const button = e.target.closest("button[data-position]");
  if (!button) return;
  pause();
  go(Number(button.dataset.position));
});
root.querySelector("[data-copy-code]").addEventListener("click", async () => {
  const code = root.querySelector("[data-code]").textContent;
  const ok = await copyText(code);
  toast(ok ? fmt(gettext("Copied %(code)s"), { code }) : gettext("Copy failed: select the code and copy it."), ok ? "success" : "error");
});
document.addEventListener("keydown", (e) => {
  if (!record || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.closest?.("input, select, textarea")) return; // the scrubber moves by itself
  const steps = { ArrowLeft: () => position - 1, ArrowRight: () => position + 1, Home: () => 0, End: () => states.length - 1 };
  if (steps[e.key]) {
    pause();
    go(steps[e.key]());
  } else if (e.key === " " && !e.target.closest?.("button")) {
    toggle();
  } else {
    return;
  }
  e.preventDefault();
});

// ---- start --------------------------------------------------------------------------------------

/** The record could not be read: say why, and leave nothing to press. */
function showFailure(err) {
  root.classList.add("failed");
  for (const control of root.querySelectorAll(".replay-controls button, .replay-controls input, .replay-controls select")) {
    control.disabled = true;
  }
  let message = err?.message || String(err);
  let login = false;
  if (err?.status === 401) {
    message = TEXT.needsLogin;
    login = true;
  } else if (err?.status === 404) {
    // A game's record: say who may see it. Any other record (a day's solution): the server's why.
    message = root.dataset.recordUrl ? message : TEXT.notFound;
  }
  root.querySelector(".board-wrap").replaceChildren(
    h("div.notice.notice-error", { role: "alert", dataset: { replayError: err?.status ? String(err.status) : "" } },
      h("p", {}, message),
      login ? h("p", {}, h("a.button.primary", { href: loginUrl() }, TEXT.logIn), " ", h("a.button", { href: "/signup/" }, TEXT.signUp)) : null,
    ),
  );
}

// ---- watching a game live (/ws/games/<id>/watch/) ----------------------------------------------

const liveState = root.querySelector("[data-live-state]");
const watchingBox = root.querySelector("[data-watching]");
/** The ply of the position shown (-1 before the first snapshot), and whether the game is over
 * (its end comes after its last action: a resignation adds none). */
let livePly = -1;
let liveOver = false;

function setLiveState(state) {
  if (!liveState) return;
  liveState.dataset.state = state;
  liveState.textContent = {
    live: pgettext("leaderboard", "Live"),
    connecting: gettext("Connecting…"),
    offline: gettext("Reconnecting…"),
    over: TEXT.over,
    paused: gettext("Live updates paused"),
  }[state];
}

/** The game as the server sent it (its owner's payload): the head, the counters, the board. */
function showLive(game, { animate = true } = {}) {
  const first = livePly < 0;
  livePly = game.ply;
  liveOver = game.status !== "in_progress";
  root.querySelector("[data-loading]")?.remove();
  drawHead(game);
  const state = game.state;
  root.querySelector("[data-step]").textContent = formatNumber(game.ply);
  root.querySelector("[data-score]").textContent = formatNumber(state.score);
  root.querySelector("[data-reserve]").textContent = formatNumber(state.reserve.count);
  root.querySelector("[data-foundation-cards]").textContent = `${formatNumber(state.foundation_cards)}/52`;
  board.render(state, { animate: animate && !first && !document.hidden });
  if (game.status !== "in_progress") {
    setLiveState("over");
    // Its record opens to everyone once a practice game is over, a daily attempt once its day is.
    if (game.kind === "practice" || game.code) {
      pageMessageArea().stand({ text: TEXT.over, kind: "info", actions: [h("a.button", { href: location.pathname }, TEXT.seeReplay)] });
    }
  }
}

function showWatching(n) {
  if (!watchingBox) return;
  watchingBox.hidden = false;
  watchingBox.textContent = TEXT.watching(n);
}

/** The socket refused the viewer: its reason, in the server's words, and nothing more to try. */
function showRefusal(message) {
  setLiveState("paused");
  showFailure({ message });
}

function watchLive() {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/games/${gameId}/watch/`;
  const socket = new Socket(url, {
    onOpen: () => setLiveState("connecting"),
    onMessage: (msg) => {
      if (msg.type === "snapshot") {
        socket.steady();
        showLive(msg.game, { animate: msg.ply === livePly + 1 });
        showWatching(msg.watching);
        if (msg.game.status === "in_progress") setLiveState("live");
      } else if (msg.type === "update") {
        const over = msg.game.status !== "in_progress";
        if (msg.ply < livePly || (msg.ply === livePly && (!over || liveOver))) return; // (had it)
        if (msg.ply > livePly + 1) socket.send({ type: "resync" }); // a frame was missed
        else showLive(msg.game);
      } else if (msg.type === "watching") {
        showWatching(msg.watching);
      } else if (msg.type === "refused") {
        socket.close(); // (asking again cannot help)
        showRefusal(msg.message);
      }
    },
    onClose: ({ final }) => {
      if (liveState?.dataset.state !== "over") setLiveState(final ? "paused" : "offline");
    },
  });
}

async function start() {
  if (root.dataset.refused) {
    for (const control of root.querySelectorAll(".replay-controls button, .replay-controls input, .replay-controls select")) {
      control.disabled = true;
    }
    return;
  }
  if (live) {
    watchLive();
    return;
  }
  try {
    record = await api.get(recordUrl);
  } catch (err) {
    root.querySelector("[data-loading]")?.remove();
    showFailure(err);
    return;
  }
  states = record.states;
  root.querySelector("[data-loading]")?.remove();
  scrubber.max = String(states.length - 1);
  drawHead();
  buildTokens();
  const asked = Number(new URLSearchParams(location.search).get("ply"));
  go(Number.isInteger(asked) && asked > 0 ? asked : 0, { animate: false });
  showAnalysis();
}
start();

// The result card of a daily attempt that is over, in plain words: the cards placed and the rank
// now (kept live from the day's board), the line's length against par once the day is over, the
// streak of days played, where the win slipped away (after the day), the day's picture so far,
// and a spoiler-free text to share: the day, a row of squares per suit, cards, actions, rank.
import { api } from "./api.js";
import { dayPicture } from "./chart.js";
import { LiveBoard } from "./live.js";
import { celebrate, copyText, fmt, formatDay, formatDuration, formatNumber } from "./ui.js";

const TEXT = {
  won: gettext("You won!"),
  title: gettext("Your daily deal"),
  // (the base card counts: it is on its foundation from the deal)
  place: (game, rank, count) => {
    const cards = formatNumber(game.foundation_cards);
    if (!rank || !count) {
      return game.status === "won" ? gettext("All 52 cards on the foundations") : fmt(gettext("%(cards)s of 52 cards on the foundations"), { cards });
    }
    const values = { cards, rank: formatNumber(rank), count: formatNumber(count) };
    return game.status === "won"
      ? fmt(gettext("All 52 cards on the foundations — rank %(rank)s of %(count)s"), values)
      : fmt(gettext("%(cards)s of 52 cards on the foundations — rank %(rank)s of %(count)s"), values);
  },
  line: (actions, time, par) => (par === null
    ? fmt(ngettext(
      "Your line: %(count)s action in %(time)s. Par, the solver's line, is shown once the day is over.",
      "Your line: %(count)s actions in %(time)s. Par, the solver's line, is shown once the day is over.", actions,
    ), { count: formatNumber(actions), time })
    : fmt(ngettext(
      "Your line: %(count)s action in %(time)s; par (the solver's line): %(par)s.",
      "Your line: %(count)s actions in %(time)s; par (the solver's line): %(par)s.", actions,
    ), { count: formatNumber(actions), time, par: formatNumber(par) })),
  streak: (n) => fmt(ngettext("Streak: %(count)s day in a row played.", "Streak: %(count)s days in a row played.", n), { count: formatNumber(n) }),
  analysing: gettext("Analysing your game…"),
  slip: (action) => fmt(gettext("Your game could be won until action %(action)s."), { action: formatNumber(action) }),
  neverWinnable: gettext("No line could win this deal: the solver searched them all."),
  undecided: gettext("The solver could not tell where your game stopped being winnable."),
  copied: gettext("Result copied: paste it anywhere."),
  copyFailed: gettext("Copy failed: select the text and copy it."),
  shareTitle: (day) => fmt(gettext("Canfield Online · daily deal %(day)s"), { day }),
  shareOutcome: (game) => (game.status === "won"
    ? pgettext("game result", "Won")
    : fmt(ngettext("%(count)s card on the foundations", "%(count)s cards on the foundations", game.foundation_cards), { count: formatNumber(game.foundation_cards) })),
  shareActions: (n) => fmt(ngettext("%(count)s action", "%(count)s actions", n), { count: formatNumber(n) }),
  shareRank: (rank, count) => (count
    ? fmt(gettext("Rank %(rank)s of %(count)s"), { rank: formatNumber(rank), count: formatNumber(count) })
    : fmt(gettext("Rank %(rank)s"), { rank: formatNumber(rank) })),
};

/** The share text's picture: a row per suit, always in this order, whatever the deal's base. */
const SUIT_ROWS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const PLACED = "🟩";
const NOT_PLACED = "⬜";
// While the day's analysis runs: asked again after these waits (ms), the last one repeated.
const ANALYSIS_WAITS = [2000, 4000, 8000, 15000, 30000];

const me = document.body.dataset.username;
const card = document.querySelector("[data-result-card]");
const message = card.querySelector("[data-result-message]"); // (the page's own is behind the dialog)
let current = null; // {game, rank, count, par, streak}
let live = null;
let refetching = null;
let analysisTimer = null;

const elapsed = (game) =>
  game.started_at && game.finished_at ? Date.parse(game.finished_at) - Date.parse(game.started_at) : null;

/** The day's par in actions, when the board has one (published once the day is over). */
function parActions(board) {
  const par = board?.par;
  if (typeof par === "number") return par;
  if (par && typeof par === "object" && typeof par.actions === "number") return par.actions;
  return null;
}

/** A row of 13 squares per suit: the cards of that suit on its foundation, placed or not. Counts
 * only: no card, no move (the base card's suit reads as one placed card, as any other). */
export function shareRows(game) {
  const placed = new Map((game.state?.foundations || []).map((f) => [f.suit, f.cards.length]));
  return SUIT_ROWS.map(([suit, symbol]) => {
    const n = Math.max(0, Math.min(13, placed.get(suit) || 0));
    return `${symbol} ${PLACED.repeat(n)}${NOT_PLACED.repeat(13 - n)}`;
  });
}

export function shareText() {
  if (!current) return "";
  const { game, rank, count } = current;
  return [
    TEXT.shareTitle(game.daily_date),
    ...shareRows(game),
    [TEXT.shareOutcome(game), TEXT.shareActions(game.actions), formatDuration(elapsed(game))].join(" · "),
    rank ? TEXT.shareRank(rank, count) : null,
    `${location.origin}/leaderboard/${game.daily_date}/`,
  ].filter(Boolean).join("\n");
}

/**
 * The share text of a practice win: spoiler-free — no card, no move, no picture of the deal —
 * the draw and rules, the actions and the time, and the game's code when the page shows it (a
 * practice deal's code is public: whoever has it can play the same deal).
 */
export function practiceShareText(game) {
  const rules = [fmt(gettext("Draw %(n)s"), { n: game.draw })];
  if (game.variant === "classic") rules.push(gettext("Classic"));
  return [
    fmt(gettext("Canfield Online · practice · %(rules)s"), { rules: rules.join(" · ") }),
    [TEXT.shareOutcome(game), TEXT.shareActions(game.actions), formatDuration(elapsed(game))].join(" · "),
    game.code ? fmt(gettext("Game code: %(code)s"), { code: game.code }) : null,
    `${location.origin}/`,
  ].filter(Boolean).join("\n");
}

/** Copies a practice win's share text; says so in `messageEl`. */
export async function sharePractice(game, messageEl) {
  const ok = await copyText(practiceShareText(game));
  messageEl.textContent = ok ? TEXT.copied : TEXT.copyFailed;
}

function drawLines() {
  const { game, rank, count, par, streak } = current;
  card.querySelector("[data-result-place]").textContent = TEXT.place(game, rank, count);
  card.querySelector("[data-result-line]").textContent = TEXT.line(game.actions, formatDuration(elapsed(game)), par);
  const streakLine = card.querySelector("[data-result-streak]");
  streakLine.hidden = !streak;
  streakLine.textContent = streak ? TEXT.streak(streak) : "";
  card.dataset.shareText = shareText();
}

function fromBoard(board) {
  const row = board.me || (board.results || []).find((r) => r.player === me);
  if (row?.rank) current.rank = row.rank;
  if (typeof board.count === "number") current.count = board.count;
  const par = parActions(board);
  if (par !== null) current.par = par;
  drawLines();
}

/** The streak of days played (the player's stats), once per card. */
async function drawStreak(game) {
  if (!me) return;
  try {
    const player = await api.get(`/api/players/${encodeURIComponent(me)}/`);
    if (current?.game.id !== game.id) return;
    current.streak = player.stats?.current_streak || null;
    drawLines();
  } catch {
    // the streak is a plus; the card stands without it
  }
}

// ---- where the win slipped away (once the day is over) -----------------------------------------

function slipLine(text, action = null) {
  const line = card.querySelector("[data-result-slip]");
  const link = card.querySelector("[data-result-slip-link]");
  line.hidden = !text;
  line.querySelector("[data-result-slip-text]").textContent = text || "";
  link.hidden = action === null;
  if (action !== null) link.href = `/games/${current.game.id}/replay/?ply=${action}`;
}

/**
 * GET /analysis/ of an attempt whose day is over (its `code` is public then): "Analysing…" while
 * the worker tier searches, asked again with a growing wait while the card is open; then the
 * action after which no win was left, with the replay at that action. Never during the day: the
 * analysis knows the deal's hidden cards.
 */
async function drawSlip(game, attempt = 0) {
  clearTimeout(analysisTimer);
  if (!game.code || current?.game.id !== game.id || !card.open) return;
  let analysis;
  try {
    analysis = await api.get(`/api/games/${game.id}/analysis/`);
  } catch {
    slipLine(null); // not available (404), or not now: the card stands without it
    return;
  }
  if (current?.game.id !== game.id) return;
  if (analysis.status === "analysing") {
    slipLine(TEXT.analysing);
    const wait = ANALYSIS_WAITS[Math.min(attempt, ANALYSIS_WAITS.length - 1)];
    analysisTimer = setTimeout(() => drawSlip(game, attempt + 1), wait);
  } else if (analysis.status === "ready") {
    if (analysis.won) slipLine(null);
    else if (!analysis.winnable) slipLine(TEXT.neverWinnable);
    else if (analysis.slip) {
      const action = analysis.slip.ply; // (its number in the log, undos included: 1 = the first)
      slipLine(TEXT.slip(action), action);
    } else slipLine(null);
  } else {
    slipLine(TEXT.undecided);
  }
}

// ---- the day's picture and the live rank -------------------------------------------------------

// The day's picture so far (counts only), drawn when the card opens and again at most every
// PICTURE_EVERY ms while the board moves.
const PICTURE_EVERY = 15000;
let pictured = 0;

async function drawPicture() {
  if (Date.now() - pictured < PICTURE_EVERY) return;
  pictured = Date.now();
  const box = card.querySelector("[data-result-picture]");
  try {
    const picture = await api.get(`/api/daily/${current.game.daily_date}/picture/`);
    const open = box.querySelector("details")?.open;
    box.replaceChildren(dayPicture(picture));
    if (open) box.querySelector("details").open = true;
    box.hidden = false;
  } catch {
    // the picture is a plus; the card stands without it
  }
}

async function refresh() {
  if (refetching) return;
  refetching = api.get(`/api/daily/${current.game.daily_date}/board/`)
    .then(fromBoard)
    .catch(() => {})
    .finally(() => setTimeout(() => { refetching = null; }, 1000));
}

function watch(day) {
  if (live) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const onFrame = (frame) => {
    drawPicture();
    const row = (frame.results || []).find((r) => r.player === me);
    if (row?.rank && typeof frame.count === "number") fromBoard({ results: [row], count: frame.count, par: frame.par });
    else refresh();
  };
  live = new LiveBoard(`${scheme}://${location.host}/ws/daily/${day}/`, {
    onSnapshot: onFrame,
    onUpdate: onFrame,
    resync: () => api.get(`/api/daily/${day}/board/`),
  });
}

/**
 * Shows the card for `game`, a daily attempt that is over; `celebrate`: it was won just now, on
 * this page (the win's moment: "You won!" with a short cascade of cards).
 */
export function showResult(game, { celebrate: moment = false } = {}) {
  const same = current?.game.id === game.id;
  current = {
    game,
    rank: same ? current.rank : null,
    count: current?.count ?? null,
    par: same ? current.par : null,
    streak: same ? current.streak : null,
  };
  const title = card.querySelector("[data-result-title]");
  title.textContent = game.status === "won" ? TEXT.won : TEXT.title;
  card.querySelector("[data-result-day]").textContent = formatDay(game.daily_date);
  card.querySelector("[data-result-replay]").href = `/games/${game.id}/replay/`;
  card.querySelector("[data-result-board]").href = `/leaderboard/${game.daily_date}/`;
  drawLines();
  slipLine(null);
  message.textContent = "";
  pictured = 0;
  drawPicture();
  if (moment) celebrate(card);
  else card.querySelector(":scope > .celebration")?.remove();
  if (!card.open) card.showModal(); // (a dialog: Escape closes it)
  title.focus(); // (read out: the dialog's name, then what follows)
  card.scrollTop = 0;
  refresh();
  drawStreak(game);
  drawSlip(game);
  watch(game.daily_date);
}

card.addEventListener("close", () => clearTimeout(analysisTimer));
card.querySelector("[data-result-close]").addEventListener("click", () => card.close());
card.querySelector("[data-share]").addEventListener("click", async () => {
  const ok = await copyText(shareText());
  message.textContent = ok ? TEXT.copied : TEXT.copyFailed;
  message.dataset.kind = ok ? "success" : "error";
});

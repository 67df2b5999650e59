// The result card of a daily attempt that is over: won or cards on the foundations, actions, time, the rank
// now (kept live from the day's board), the day's par once published, and a spoiler-free text
// to share (date, result, rank; never a card).
import { api } from "./api.js";
import { dayPicture } from "./chart.js";
import { LiveBoard } from "./live.js";
import { copyText, fmt, formatDay, formatDuration, formatNumber } from "./ui.js";

const TEXT = {
  won: pgettext("game result", "Won"),
  // (the base card counts: it is on its foundation from the deal)
  cards: (n) => fmt(ngettext("%(count)s card on the foundations", "%(count)s cards on the foundations", n), { count: formatNumber(n) }),
  rank: (rank, count) => (count
    ? fmt(gettext("%(rank)s of %(count)s"), { rank: formatNumber(rank), count: formatNumber(count) })
    : formatNumber(rank)),
  par: (n) => fmt(ngettext("%(count)s action", "%(count)s actions", n), { count: formatNumber(n) }),
  copied: gettext("Result copied: paste it anywhere."),
  copyFailed: gettext("Copy failed: select the text and copy it."),
  share: ({ day, outcome, actions, time, rank, count, url }) => [
    fmt(gettext("Canfield Online · daily deal %(day)s"), { day }),
    `${outcome} · ${fmt(ngettext("%(count)s action", "%(count)s actions", actions), { count: formatNumber(actions) })} · ${time}`,
    rank
      ? (count
        ? fmt(gettext("Rank %(rank)s of %(count)s"), { rank: formatNumber(rank), count: formatNumber(count) })
        : fmt(gettext("Rank %(rank)s"), { rank: formatNumber(rank) }))
      : null,
    url,
  ].filter(Boolean).join("\n"),
};

const me = document.body.dataset.username;
const card = document.querySelector("[data-result-card]");
const message = card.querySelector("[data-result-message]"); // (the page's own is behind the dialog)
let current = null; // {game, rank, count}
let live = null;
let refetching = null;

const elapsed = (game) =>
  game.started_at && game.finished_at ? Date.parse(game.finished_at) - Date.parse(game.started_at) : null;

function outcome(game) {
  return game.status === "won" ? TEXT.won : TEXT.cards(game.foundation_cards);
}

/** The day's par in actions, when the board has one (published once the day is over). */
function parActions(board) {
  const par = board?.par;
  if (typeof par === "number") return par;
  if (par && typeof par === "object" && typeof par.actions === "number") return par.actions;
  return null;
}

export function shareText() {
  if (!current) return "";
  const { game, rank, count } = current;
  return TEXT.share({
    day: game.daily_date,
    outcome: outcome(game),
    actions: game.actions,
    time: formatDuration(elapsed(game)),
    rank,
    count,
    url: `${location.origin}/leaderboard/${game.daily_date}/`,
  });
}

function drawRank() {
  const { rank, count } = current;
  card.querySelector("[data-result-rank]").textContent = rank ? TEXT.rank(rank, count) : "–";
  card.dataset.shareText = shareText();
}

function fromBoard(board) {
  const row = board.me || (board.results || []).find((r) => r.player === me);
  if (row?.rank) current.rank = row.rank;
  if (typeof board.count === "number") current.count = board.count;
  const par = parActions(board);
  card.querySelector("[data-result-par-box]").hidden = par === null;
  if (par !== null) card.querySelector("[data-result-par]").textContent = TEXT.par(par);
  drawRank();
}

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

/** Shows the card for `game`, a daily attempt that is over. */
export function showResult(game) {
  current = { game, rank: current?.game.id === game.id ? current.rank : null, count: current?.count ?? null };
  card.querySelector("[data-result-day]").textContent = formatDay(game.daily_date);
  card.querySelector("[data-result-outcome]").textContent = outcome(game);
  card.querySelector("[data-result-actions]").textContent = formatNumber(game.actions);
  card.querySelector("[data-result-time]").textContent = formatDuration(elapsed(game));
  card.querySelector("[data-result-replay]").href = `/games/${game.id}/replay/`;
  card.querySelector("[data-result-board]").href = `/leaderboard/${game.daily_date}/`;
  drawRank();
  message.textContent = "";
  pictured = 0;
  drawPicture();
  if (!card.open) card.showModal(); // (a dialog: Escape closes it)
  card.querySelector("[data-share]").focus();
  refresh();
  watch(game.daily_date);
}

card.querySelector("[data-result-close]").addEventListener("click", () => card.close());
card.querySelector("[data-share]").addEventListener("click", async () => {
  const ok = await copyText(shareText());
  message.textContent = ok ? TEXT.copied : TEXT.copyFailed;
  message.dataset.kind = ok ? "success" : "error";
});

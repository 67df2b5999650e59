// A day's leaderboard: REST for the first view and past days, the websocket for today's changes;
// under it, the standings over the week, the month and all time, and the rating board
// (standings.js).
// A signed-in player may show the Following view instead (?view=following): them and the players
// they follow, ranked among them and on the whole board, fetched again whenever the day's socket
// reports a change (at most once a second).
import { api } from "./api.js";
import { dayPicture, difficultyBadge } from "./chart.js";
import { atMostEvery, LiveBoard, stamp } from "./live.js";
import { replayOrOpens } from "./opens.js";
import { standings } from "./standings.js";
import { fmt, formatDay, formatDuration, formatNumber, h, resultLabel, showError, toast } from "./ui.js";

const root = document.querySelector("[data-leaderboard]");
const day = root.dataset.day;
const isLive = root.dataset.live === "1";
const rowsBody = root.querySelector("[data-rows]");
const meBody = root.querySelector("[data-me-row]");
const liveState = root.querySelector("[data-live-state]");
const me = document.body.dataset.username;
const page = Math.max(1, Number(new URLSearchParams(location.search).get("page")) || 1);
const viewChoice = root.querySelector("[data-board-view]");
const boardRankColumn = root.querySelector("[data-board-rank-col]");
/** The Following view is fetched again at most this often while the board changes (ms). */
const FOLLOWING_EVERY_MS = 1000;

let rows = [];
let myRow = null;
let previous = new Map(); // player -> row, to flash the rows that changed
const loadingText = rowsBody.textContent.trim(); // (the page's own "Loading…")
// "everyone" or "following" (signed-in players only); everyone's latest board, kept while the
// Following view shows.
let view = viewChoice && new URLSearchParams(location.search).get("view") === "following" ? "following" : "everyone";
let everyone = null;


function seconds(row) {
  if (row.time_seconds === null || row.time_seconds === undefined) return null;
  // An attempt still open keeps its clock running from when its row was right (live.js stamp).
  const since = row._clock === undefined ? 0 : (Date.now() - row._clock) / 1000;
  return row.time_seconds + (row.status === "in_progress" && isLive ? since : 0);
}

// Today's attempts of others stay private until the day is over (their records answer 404):
// only my own row links to a replay today; another's says when it opens.
function replayCell(row) {
  if (!isLive || row.player === me) return row.game_id ? h("a", { href: `/games/${row.game_id}/replay/` }, gettext("Replay")) : "";
  return replayOrOpens(day, row.game_id);
}

function rowElement(row) {
  const changed = previous.size && JSON.stringify(previous.get(row.player)) !== JSON.stringify(row);
  const tr = h(`tr${row.player === me ? ".me" : ""}${changed ? ".flash" : ""}${row.rank === 1 ? ".rank-1" : ""}`,
    { dataset: { player: row.player } },
    h("td.rank", {}, row.rank && row.rank <= 3 ? h(`span.medal.medal-${row.rank}`, {}, row.rank) : (row.rank ? formatNumber(row.rank) : "–")),
    h("td.player", {}, h("a", { href: `/players/${encodeURIComponent(row.player)}/` }, row.player)),
    h("td", {}, h(`span.pill.pill-${row.status}`, {}, resultLabel(row.result))),
    h("td.num", { dataset: { col: "cards" }, "data-label": gettext("Cards") }, formatNumber(row.foundation_cards)),
    h("td.num", { dataset: { col: "actions" }, "data-label": gettext("Actions") }, formatNumber(row.actions)),
    h("td.num", { dataset: { col: "time", live: row.status === "in_progress" ? "1" : "" }, "data-label": gettext("Time") }, formatDuration(seconds(row) * 1000)),
    h("td.num", { dataset: { col: "score" }, "data-label": gettext("Score") }, formatNumber(row.score)),
    view === "following"
      ? h("td.num", { dataset: { col: "board-rank" }, "data-label": pgettext("rank on the whole board", "Board") }, row.board_rank ? formatNumber(row.board_rank) : "–")
      : null,
    h("td", {}, replayCell(row)),
  );
  tr._row = row;
  return tr;
}

function render(board) {
  rows = board.results;
  for (const row of rows) if (row._clock === undefined) stamp([row], board);
  if (board.me) stamp([board.me], board);
  if (board.me !== undefined) myRow = board.me;
  else myRow = rows.find((r) => r.player === me) || (myRow && myRow.rank > rows.length ? myRow : null);
  if (!rows.length) {
    const empty = view === "following"
      ? gettext("Nobody among you and the players you follow has played this deal yet. Follow players from their pages.")
      : isLive ? gettext("Nobody has played today's deal yet. Be the first!") : gettext("Nobody played this deal.");
    rowsBody.replaceChildren(h("tr.empty-row", {}, h("td", { colSpan: view === "following" ? 9 : 8 }, empty)));
  } else {
    rowsBody.replaceChildren(...rows.map(rowElement));
  }
  const mineShown = myRow && rows.some((r) => r.player === myRow.player);
  meBody.replaceChildren(...(myRow && !mineShown ? [rowElement(myRow)] : []));
  previous = new Map(rows.map((r) => [r.player, r]));
  const count = board.count ?? rows.length;
  let summary;
  if (view === "following") {
    summary = ngettext("%(count)s player among you and the players you follow.", "%(count)s players among you and the players you follow.", count);
  } else {
    summary = isLive
      ? ngettext("%(count)s player so far.", "%(count)s players so far.", count)
      : ngettext("%(count)s player.", "%(count)s players.", count);
  }
  root.querySelector("[data-board-summary]").textContent = fmt(summary, { count: formatNumber(count) });
}

/** Everyone's board, from REST or the socket: shown unless the Following view is. */
function showEveryone(board) {
  everyone = board;
  if (view === "everyone") render(board);
  else refreshFollowing();
}

// The Following view, fetched again as the board changes: at most once a second however often it
// changes, and only the answer to the latest request shown.
let followingAsked = 0;

async function fetchFollowing() {
  const asked = ++followingAsked;
  try {
    const board = await api.get(`/api/daily/${day}/board/?following=1`);
    if (view === "following" && asked === followingAsked) render(board);
  } catch (err) {
    if (view === "following" && asked === followingAsked && !rows.length) showError(rowsBody.closest(".table-wrap"), err);
  }
}

const refreshFollowing = atMostEvery(FOLLOWING_EVERY_MS, fetchFollowing);

function showView(next) {
  view = next;
  previous = new Map(); // (rows of another view: nothing flashes)
  rows = [];
  boardRankColumn.hidden = view !== "following";
  const pager = root.querySelector("[data-pager]");
  pager.hidden = view === "following" || !pager.childElementCount;
  const url = new URL(location.href);
  if (view === "following") url.searchParams.set("view", "following");
  else url.searchParams.delete("view");
  history.replaceState(null, "", url);
  if (view === "following") {
    rowsBody.replaceChildren(h("tr.empty-row", {}, h("td", { colSpan: 9 }, loadingText)));
    meBody.replaceChildren();
    fetchFollowing();
  } else if (everyone) {
    render(everyone);
  }
}

function tickTimes() {
  for (const cell of rowsBody.querySelectorAll('td[data-live="1"]')) {
    cell.textContent = formatDuration(seconds(cell.parentElement._row) * 1000);
  }
}

function showCode(board) {
  const box = root.querySelector("[data-deal-code]");
  if (!board.code) return;
  const play = h("button.button", { type: "button" }, gettext("Play this deal"));
  play.addEventListener("click", async () => {
    try {
      const game = await api.post("/api/games/", { code: board.code });
      location.assign(`/games/${game.id}/`);
    } catch (err) {
      toast(err.message, "error");
    }
  });
  // Par: the length of the solver's winning line, which certified the deal (not proved shortest).
  const par = board.par === null || board.par === undefined
    ? null
    : h("span.par", { title: gettext("The length of the solver's winning line, not proved shortest") }, fmt(gettext("Par (solver): %(actions)s"), { actions: formatNumber(board.par) }));
  const solution = board.solution
    ? h("a.button", { href: `/leaderboard/${day}/solution/` }, gettext("Watch the solution"))
    : null;
  box.replaceChildren(
    h("span", {}, gettext("Deal code"), " "), h("code", {}, board.code),
    ...[par, solution, me ? play : null].filter((node) => node !== null),
  );
  box.hidden = false;
}

function showPager(board) {
  const pager = root.querySelector("[data-pager]");
  if (!board.pages || board.pages < 2) return;
  pager.hidden = false;
  const link = (n, label) => h("a.button", { href: `?page=${n}`, "aria-current": n === board.page ? "page" : null }, label);
  pager.replaceChildren(
    board.page > 1 ? link(board.page - 1, gettext("← Better")) : null,
    h("span", {}, fmt(gettext("Page %(page)s of %(pages)s"), { page: formatNumber(board.page), pages: formatNumber(board.pages) })),
    board.page < board.pages ? link(board.page + 1, gettext("Next →")) : null,
  );
}

/** Past days, newest first, a page at a time ("More days" asks for the next page). */
async function loadDays(url = "/api/daily/days/") {
  const list = root.querySelector("[data-days]");
  const more = root.querySelector("[data-more-days]");
  more.hidden = true;
  try {
    const data = await api.get(url);
    const days = data.results;
    for (const d of days) {
      list.append(h("li", {}, h("a", { href: `/leaderboard/${d.date}/`, "aria-current": d.date === day ? "page" : null },
        h("span", {}, formatDay(d.date)),
        d.players !== undefined && d.players !== null
          ? h("span.muted", {}, fmt(ngettext("%(winners)s/%(count)s won", "%(winners)s/%(count)s won", d.players), { winners: formatNumber(d.winners ?? 0), count: formatNumber(d.players) }))
          : null)));
    }
    if (data.next) {
      more.hidden = false;
      more.onclick = () => loadDays(data.next);
    }
  } catch {
    // the list of days is a convenience; the board stands without it
  }
}

/** The deal's difficulty beside its date (before, during and after the day). */
function showDifficulty(board) {
  const box = root.querySelector("[data-day-difficulty]");
  const badge = difficultyBadge(board.difficulty);
  box.replaceChildren(...(badge ? [badge] : []));
  box.hidden = !badge;
}

/** A past day's picture: how everyone did. */
async function showPicture() {
  const box = root.querySelector("[data-day-picture]");
  if (!box) return;
  try {
    const picture = await api.get(`/api/daily/${day}/picture/`);
    if (!picture.players) return;
    box.querySelector("[data-picture]").replaceChildren(dayPicture(picture));
    box.hidden = false;
  } catch {
    // the picture is a plus; the board stands without it
  }
}

async function fetchBoard() {
  return api.get(`/api/daily/${day}/board/${page > 1 ? `?page=${page}` : ""}`);
}

async function start() {
  root.querySelector("[data-day-label]").textContent = formatDay(day);
  loadDays();
  if (viewChoice) {
    viewChoice.querySelector(`input[value="${view}"]`).checked = true;
    viewChoice.addEventListener("change", (event) => showView(event.target.value));
    if (view === "following") showView(view);
  }
  let board;
  try {
    board = await fetchBoard();
  } catch (err) {
    showError(rowsBody.closest(".table-wrap"), err);
    return;
  }
  everyone = board;
  if (view === "everyone") render(board);
  showDifficulty(board);
  showCode(board);
  showPager(board);
  if (view === "following") root.querySelector("[data-pager]").hidden = true;
  showPicture();
  if (!isLive || page > 1) return;
  setInterval(tickTimes, 1000);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  new LiveBoard(`${scheme}://${location.host}/ws/daily/${day}/`, {
    onSnapshot: showEveryone,
    onUpdate: showEveryone,
    resync: fetchBoard,
    onState: (state) => {
      if (!liveState) return;
      liveState.dataset.state = state;
      liveState.textContent = {
        live: pgettext("leaderboard", "Live"),
        connecting: gettext("Connecting…"),
        offline: gettext("Reconnecting…"),
        paused: gettext("Live updates paused"),
      }[state];
    },
  });
}
start();
standings(root.querySelector("[data-standings]"), isLive ? null : day);

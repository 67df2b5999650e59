// A group's page: today's board among its members, live (refetched when the day's live board
// reports a change, at most once a second), the week's table with each member's streak, the
// members, and the invite link; for the owner, a new link, renaming and removing a member.
import { api, request } from "./api.js";
import { replayOrOpens } from "./opens.js";
import { followDay } from "./live.js";
import { copyText, fmt, formatDuration, formatNumber, h, LANGUAGE, resultLabel, showError, toast } from "./ui.js";

const root = document.querySelector("[data-group]");
const base = `/api/groups/${root.dataset.groupId}/`;
const day = root.dataset.day;
const me = document.body.dataset.username;
const rowsBody = root.querySelector("[data-rows]");
const weekBox = root.querySelector("[data-week]");
const liveState = root.querySelector("[data-live-state]");
const inviteInput = root.querySelector("[data-invite-link]");

/** The group and the week's table are fetched again at least this often while the page is open
 * and the board changes (members come and go, a day ends). */
const FULL_MS = 60000;

let group = null;

// --- the group ------------------------------------------------------------------------------------

function inviteUrl(invite) {
  return `${location.origin}/groups/join/${invite}/`;
}

/** Shows the group as `data` has it: drawn again only when it changed (a keyboard's place on a
 * member's button is kept while the board refreshes). */
function showGroup(data) {
  if (group !== null && JSON.stringify(group) === JSON.stringify(data)) return;
  group = data;
  root.querySelector("[data-group-name]").textContent = data.name;
  document.title = `${data.name} · Canfield Online`;
  root.querySelector("[data-group-summary]").textContent = fmt(
    ngettext("Owner: %(owner)s · %(count)s member", "Owner: %(owner)s · %(count)s members", data.members.length),
    { owner: data.owner, count: formatNumber(data.members.length) },
  );
  inviteInput.value = inviteUrl(data.invite);
  root.querySelector("[data-members]").replaceChildren(...data.members.map((member) => h("li", {},
    h("a", { href: `/players/${encodeURIComponent(member.player)}/` }, member.player),
    member.owner ? h("span.pill", {}, pgettext("group", "Owner")) : null,
    data.owned && !member.owner
      ? h("button.button.small", { type: "button", "aria-label": fmt(gettext("Remove %(player)s"), { player: member.player }), onclick: () => remove(member.player) }, gettext("Remove"))
      : null,
  )));
}

async function remove(player) {
  try {
    showGroup(await request("DELETE", `${base}members/${encodeURIComponent(player)}/`));
    toast(fmt(gettext("%(player)s is no longer in the group."), { player }));
    refetchSoon();
  } catch (err) {
    toast(err.message, "error");
  }
}

root.querySelector("[data-copy-invite]").addEventListener("click", async () => {
  const copied = await copyText(inviteInput.value);
  if (copied) {
    toast(gettext("Invite link copied."));
  } else {
    inviteInput.select();
    toast(gettext("Select the link and copy it."), "error");
  }
});

root.querySelector("[data-new-invite]")?.addEventListener("click", async () => {
  try {
    showGroup(await api.post(`${base}invite/`));
    toast(gettext("A new invite link: the old one no longer works."));
  } catch (err) {
    toast(err.message, "error");
  }
});

const renameForm = root.querySelector("[data-rename]");
renameForm?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = renameForm.elements.name;
  const error = renameForm.querySelector("[data-field-error]");
  error.textContent = "";
  input.removeAttribute("aria-invalid");
  try {
    showGroup(await request("PATCH", base, { name: input.value }));
    toast(gettext("The group is renamed."));
  } catch (err) {
    error.textContent = err.body?.fields?.name?.join(" ") || err.message;
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
});

// Leaving asks once more, in the page (a second button), before it is done.
const leave = root.querySelector("[data-leave]");
leave.addEventListener("click", async () => {
  if (leave.dataset.confirm !== "1") {
    leave.dataset.confirm = "1";
    leave.textContent = group?.owned && group.members.length > 1
      ? gettext("Click again to leave: the group passes to the longest-standing member")
      : gettext("Click again to leave the group");
    return;
  }
  try {
    await api.post(`${base}leave/`);
    location.assign("/groups/");
  } catch (err) {
    toast(err.message, "error");
  }
});

// --- today's board among the members -------------------------------------------------------------

// Another member's attempt today stays private until the day is over: only my own row links
// to its replay today; another's says when it opens.
function replayCell(row) {
  if (row.player === me) return h("a", { href: `/games/${row.game_id}/replay/` }, gettext("Replay"));
  return replayOrOpens(day, row.game_id);
}

function showBoard(board) {
  if (!board.results.length) {
    rowsBody.replaceChildren(h("tr.empty-row", {}, h("td", { colSpan: 8 }, gettext("No member has played today's deal yet."))));
    return;
  }
  rowsBody.replaceChildren(...board.results.map((row) => h(`tr${row.player === me ? ".me" : ""}`, { dataset: { player: row.player } },
    h("td.rank", {}, row.rank <= 3 ? h(`span.medal.medal-${row.rank}`, {}, row.rank) : formatNumber(row.rank)),
    h("td.player", {}, h("a", { href: `/players/${encodeURIComponent(row.player)}/` }, row.player)),
    h("td", {}, h(`span.pill.pill-${row.status}`, {}, resultLabel(row.result))),
    h("td.num", { "data-label": gettext("Cards") }, formatNumber(row.foundation_cards)),
    h("td.num", { "data-label": gettext("Actions") }, formatNumber(row.actions)),
    h("td.num", { "data-label": gettext("Time") }, row.time_seconds === null ? "–" : formatDuration(row.time_seconds * 1000)),
    h("td.num", { "data-label": pgettext("rank on the whole board", "Board") }, row.board_rank ? `#${formatNumber(row.board_rank)}` : "–"),
    h("td", {}, replayCell(row)),
  )));
}

// --- the week's table ----------------------------------------------------------------------------

const intlSpeaksLanguage = Intl.DateTimeFormat.supportedLocalesOf([LANGUAGE]).length > 0;

/** A day of the week, short: "Mon 17" (in figures where the browser has no names for the
 * page's language). */
function weekday(isoDay) {
  const [year, month, date] = isoDay.split("-").map(Number);
  if (!intlSpeaksLanguage) return fmt(pgettext("short numeric date", "%(day)s/%(month)s"), { day: date, month });
  return new Date(Date.UTC(year, month - 1, date)).toLocaleDateString(LANGUAGE, { weekday: "short", day: "numeric", timeZone: "UTC" });
}

function points(value) {
  return value === null ? "–" : formatNumber(value);
}

function showWeek(table) {
  const days = table.days.map(weekday);
  const streak = (n) => fmt(ngettext("%(count)s day", "%(count)s days", n), { count: formatNumber(n) });
  weekBox.replaceChildren(h("table.data.stack.week-table", { dataset: { testid: "group-week" } },
    h("caption.sr-only", {}, gettext("This week")),
    h("thead", {}, h("tr", {},
      h("th.rank", { scope: "col" }, "#"),
      h("th", { scope: "col" }, gettext("Player")),
      ...days.map((label, i) => h(`th.num${table.days[i] === day ? ".today" : ""}`, { scope: "col" }, label)),
      h("th.num", { scope: "col" }, gettext("Points")),
      h("th.num", { scope: "col" }, gettext("Streak")),
    )),
    h("tbody", {}, table.rows.map((row) => h(`tr${row.player === me ? ".me" : ""}`, { dataset: { player: row.player } },
      h("td.rank", {}, formatNumber(row.rank)),
      h("td.player", {}, row.player),
      ...row.points.map((value, i) => h(`td.num${table.days[i] === day ? ".today" : ""}`, { "data-label": days[i] }, points(value))),
      h("td.num.total", { "data-label": gettext("Points"), dataset: { col: "total" } }, points(row.total)),
      h("td.num", { "data-label": gettext("Streak"), dataset: { col: "streak" } }, streak(row.current_streak)),
    ))),
  ));
}

// --- fetching, live --------------------------------------------------------------------------------

/** What of today's board the week's table reads: who played, and how each stands. */
function standings(board) {
  return JSON.stringify(board.results.map((r) => [r.player, r.result, r.foundation_cards, r.actions]));
}

let shownStandings = null;
let fullAt = 0;
let asked = 0;

/** Today's board among the members; and when a member's standing changed (or a minute went by:
 * members come and go), the group and the week's table too. */
async function refetch() {
  const mine = ++asked;
  const board = await api.get(`${base}board/`);
  if (mine !== asked) return; // a later fetch is under way: its answer shows
  showBoard(board);
  const now = Date.now();
  if (standings(board) === shownStandings && now - fullAt < FULL_MS) return;
  const [data, week] = await Promise.all([api.get(base), api.get(`${base}week/`)]);
  if (mine !== asked) return;
  shownStandings = standings(board);
  fullAt = now;
  showGroup(data);
  showWeek(week);
}

/** Fetch the board and the table again: at most once a second (live.js's followDay, once the
 * page follows the day's board). */
let refetchSoon = () => {};

async function start() {
  try {
    await refetch();
  } catch (err) {
    showError(rowsBody.closest(".table-wrap"), err);
    return;
  }
  refetchSoon = followDay(day, refetch, liveState);
}
start();

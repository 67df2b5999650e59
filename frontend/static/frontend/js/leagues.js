// The leagues page: my division of the week — its tier, its number, its table by place with who
// moves up and down — with today's provisional points live (fetched again when the day's live
// board reports a change, at most once a second), and the weeks I had a division before
// (?week=2026-W48 shows one of them). Results only: the API never sends a card.
import { api } from "./api.js";
import { followDay } from "./live.js";
import { fmt, formatDay, formatNumber, h, showError } from "./ui.js";

const root = document.querySelector("[data-league]");
const day = root.dataset.day;
const thisWeek = root.dataset.week;
const me = document.body.dataset.username;
const body = root.querySelector("[data-league-body]");
const weeksBox = root.querySelector("[data-league-weeks]");
const liveState = root.querySelector("[data-live-state]");

/** An ISO week as the API writes it: 2026-W49. */
const WEEK = /^\d{4}-W\d{2}$/;
const asked = new URLSearchParams(location.search).get("week");
/** The week the page shows: the one in the address, else this week. */
const shownWeek = asked && WEEK.test(asked) ? asked : thisWeek;
const current = shownWeek === thisWeek;


/** How a zone reads while the week is open (where the place goes) and once it is closed (where
 * the player went); "stay" says nothing. */
const ZONES = {
  open: { up: gettext("Moves up"), down: gettext("Moves down"), stay: "" },
  closed: { up: gettext("Moved up"), down: gettext("Moved down"), stay: "" },
};
const ARROWS = { up: "▲", down: "▼" };
/** Where I went, in the list of my weeks. */
const WENT = { up: gettext("moved up"), down: gettext("moved down"), stay: gettext("stayed") };

function points(value) {
  return value === null || value === undefined ? "–" : formatNumber(value);
}

function zoneCell(zone, closed) {
  const words = ZONES[closed ? "closed" : "open"][zone];
  if (!words) return h("td.zone", {});
  return h("td.zone", {}, h(`span.zone-mark.zone-${zone}`, {},
    h("span", { "aria-hidden": "true" }, ARROWS[zone]), " ", words));
}

function divisionTitle(data) {
  return fmt(gettext("%(tier)s · division %(number)s"), { tier: data.tier.name, number: formatNumber(data.division) });
}

function weekDates(data) {
  return fmt(gettext("Week %(week)s: %(start)s to %(end)s"), { week: data.week, start: formatDay(data.start), end: formatDay(data.end) });
}

// --- my division -----------------------------------------------------------------------------------

let shown = null;

/** Shows the division as `data` has it: drawn again only when it changed (a keyboard's place on a
 * player's link is kept while the day's board moves). */
function showDivision(data) {
  const text = JSON.stringify(data);
  if (text === shown) return;
  shown = text;
  const live = current && !data.closed;
  const head = [
    h("th.rank", { scope: "col" }, "#"),
    h("th", { scope: "col" }, gettext("Player")),
    h("th.num", { scope: "col" }, live ? gettext("Week") : gettext("Points")),
  ];
  if (live) head.push(h("th.num", { scope: "col" }, gettext("Today")), h("th.num", { scope: "col" }, gettext("Total")));
  head.push(h("th", { scope: "col" }, gettext("Zone")));
  const note = data.closed
    ? gettext("The week is over: these are its final places.")
    : live
      ? gettext("Points of settled days are final. Today’s are provisional, from your place on today’s board as it stands: they count in the places now and become final when the day is settled.")
      : gettext("The week is over and is being closed: its places will be final soon.");
  body.replaceChildren(
    h("h2", { dataset: { leagueTitle: "" } }, divisionTitle(data)),
    h("p.muted", { dataset: { leagueWeek: "" } }, weekDates(data)),
    h("p", { dataset: { leagueMe: "" } }, fmt(
      data.closed ? gettext("Your final place: %(place)s of %(count)s.") : gettext("Your place now: %(place)s of %(count)s."),
      { place: formatNumber(data.me.place), count: formatNumber(data.rows.length) },
    )),
    h("div.table-wrap", {}, h("table.data.stack.league-table", { dataset: { testid: "league-table" } },
      h("caption.sr-only", {}, divisionTitle(data)),
      h("thead", {}, h("tr", {}, ...head)),
      h("tbody", {}, data.rows.map((row) => {
        const mine = row.player === me;
        const cells = [
          h("td.rank", {}, formatNumber(row.place)),
          h("td.player", {},
            h("a", { href: `/players/${encodeURIComponent(row.player)}/` }, row.player),
            mine ? h("span.pill.league-you", {}, gettext("you")) : null),
          h("td.num", { "data-label": live ? gettext("Week") : gettext("Points"), dataset: { col: "points" } }, points(row.points)),
        ];
        if (live) {
          cells.push(
            h("td.num.today", { "data-label": gettext("Today"), dataset: { col: "today" } }, points(row.today)),
            h("td.num.total", { "data-label": gettext("Total"), dataset: { col: "total" } }, points(row.points + (row.today ?? 0))),
          );
        }
        cells.push(zoneCell(row.zone, data.closed));
        return h(`tr.zone-row-${row.zone}${mine ? ".me" : ""}`, { dataset: { player: row.player, zone: row.zone } }, ...cells);
      })),
    )),
    h("p.muted.league-note", {}, note),
  );
}

function showNone() {
  if (current) {
    body.replaceChildren(h("div.notice", { dataset: { noDivision: "" } },
      h("p", {}, gettext("You have no division this week yet. Play today’s deal: once the day is settled, after midnight UTC, you join a division of your tier and your points start to count.")),
      h("p", {}, h("a.button.primary", { href: "/" }, gettext("Play today’s deal"))),
    ));
  } else {
    body.replaceChildren(h("div.notice", { dataset: { noDivision: "" } },
      h("p", {}, fmt(gettext("You had no division in the week %(week)s."), { week: shownWeek })),
      h("p", {}, h("a.button", { href: "/leagues/" }, gettext("This week"))),
    ));
  }
}

// --- my last weeks -----------------------------------------------------------------------------------

function weekSummary(week) {
  const division = divisionTitle(week);
  if (!week.closed) return fmt(gettext("%(week)s: %(division)s, in play"), { week: week.week, division });
  return fmt(gettext("%(week)s: %(division)s, place %(place)s, %(movement)s"), {
    week: week.week, division, place: formatNumber(week.place), movement: WENT[week.zone] ?? "",
  });
}

function showWeeks(weeks) {
  const items = weeks.map((week) => h("li", {}, h("a", {
    href: week.week === thisWeek ? "/leagues/" : `/leagues/?week=${week.week}`,
    "aria-current": week.week === shownWeek ? "page" : null,
    dataset: { week: week.week },
  }, weekSummary(week))));
  if (!current && !weeks.some((week) => week.week === thisWeek)) {
    items.unshift(h("li", {}, h("a", { href: "/leagues/" }, gettext("This week"))));
  }
  if (!weeks.length) {
    weeksBox.replaceChildren(h("p.muted", {}, gettext("No weeks yet: your first comes with the first daily deal you play.")));
    return;
  }
  weeksBox.replaceChildren(h("ul.league-weeks", {}, items));
}

// --- fetching, live ----------------------------------------------------------------------------------

let asking = 0;

async function refetch() {
  const mine = ++asking;
  const data = await api.get("/api/leagues/current/");
  if (mine === asking) showDivision(data); // else a later answer shows
}

async function start() {
  let weeks;
  try {
    weeks = await api.get("/api/leagues/");
  } catch (err) {
    showError(body, err);
    weeksBox.replaceChildren();
    return;
  }
  showWeeks(weeks);
  // The list says whether I have a division in the week shown: no request that must fail.
  if (!weeks.some((week) => week.week === shownWeek)) {
    showNone();
    return;
  }
  let data;
  try {
    data = await api.get(current ? "/api/leagues/current/" : `/api/leagues/${shownWeek}/`);
  } catch (err) {
    showError(body, err);
    return;
  }
  showDivision(data);
  // (today's points move with the day's board: the division is fetched again as it changes)
  if (current && !data.closed) followDay(day, refetch, liveState);
}
start();

// The leaderboard page's standings: the week's, the month's and all time's tables
// (GET /api/standings/) and the rating board (GET /api/ratings/), one at a time under four tabs.
// The tabs follow the ARIA tabs pattern: buttons with role="tab" and aria-selected, one panel;
// the arrow keys, Home and End move between them (only the selected one is in the Tab order).
// The tab shown is kept in the address (?standings=month) so that a reload shows it again; a past
// day's page shows the week and the month of that day.
import { api } from "./api.js";
import { PROVISIONAL_DAYS, ratingText } from "./ratingchart.js";
import { fmt, formatDay, formatNumber, h, LANGUAGE, showError } from "./ui.js";

/** Rows a page of the rating board holds: ratings.services.BOARD_PAGE_SIZE. */
const RATING_PAGE_SIZE = 50;
const TABS = ["week", "month", "all", "rating"];

// An average percentile with its one decimal, as the page's language writes it (72,2 in Finnish);
// a browser without the language's data writes it the plain way, as formatNumber does.
const decimal = Intl.NumberFormat.supportedLocalesOf([LANGUAGE]).length
  ? new Intl.NumberFormat(LANGUAGE, { minimumFractionDigits: 1, maximumFractionDigits: 1 })
  : { format: (n) => Number(n).toFixed(1) };
const oneDecimal = (n) => decimal.format(n);

/** The standings under `root` ([data-standings]); `day`: the page's day when it is a past day's. */
export function standings(root, day = null) {
  const tabs = [...root.querySelectorAll('[role="tab"]')];
  const panel = root.querySelector('[role="tabpanel"]');
  const periodLine = root.querySelector("[data-standings-period]");
  const minimumLine = root.querySelector("[data-standings-minimum]");
  const tableBox = root.querySelector("[data-standings-table]");
  const pager = root.querySelector("[data-standings-pager]");
  const asked = new URLSearchParams(location.search).get("standings");
  let tab = TABS.includes(asked) ? asked : "week";
  let page = 1;
  let request = 0;

  const better = h("button.button", { type: "button", onclick: () => go(page - 1) }, gettext("← Better"));
  const next = h("button.button", { type: "button", onclick: () => go(page + 1) }, gettext("Next →"));
  const where = h("span", {});
  pager.replaceChildren(better, where, next);

  function select(name, focus = false) {
    tab = name;
    page = 1;
    for (const button of tabs) {
      const on = button.dataset.tab === name;
      button.setAttribute("aria-selected", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
      if (on) {
        panel.setAttribute("aria-labelledby", button.id);
        if (focus) button.focus();
      }
    }
    const url = new URL(location.href);
    if (name === "week") url.searchParams.delete("standings");
    else url.searchParams.set("standings", name);
    history.replaceState(history.state, "", url);
    load();
  }

  function go(n) {
    page = n;
    load();
  }

  async function load() {
    const mine = ++request;
    panel.setAttribute("aria-busy", "true");
    let data;
    try {
      if (tab === "rating") {
        data = await api.get(`/api/ratings/${page > 1 ? `?page=${page}` : ""}`);
      } else {
        const query = new URLSearchParams({ period: tab });
        if (day) query.set("at", day);
        if (page > 1) query.set("page", String(page));
        data = await api.get(`/api/standings/?${query}`);
      }
    } catch (err) {
      if (mine !== request) return;
      panel.removeAttribute("aria-busy");
      periodLine.textContent = "";
      minimumLine.textContent = "";
      pager.hidden = true;
      showError(tableBox, err);
      return;
    }
    if (mine !== request) return; // (another tab or page was asked for meanwhile)
    panel.removeAttribute("aria-busy");
    if (tab === "rating") showRatings(data);
    else showTable(data);
  }

  function showPager(pages) {
    // A button of the pager that had the focus and is hidden now hands it to the one left.
    const active = pager.contains(document.activeElement) ? document.activeElement : null;
    pager.hidden = pages < 2;
    better.hidden = page <= 1;
    next.hidden = page >= pages;
    where.textContent = fmt(gettext("Page %(page)s of %(pages)s"), { page: formatNumber(page), pages: formatNumber(pages) });
    if (active && (pager.hidden || active.hidden)) (pager.hidden ? panel : better.hidden ? next : better).focus();
  }

  function caption() {
    const selected = tabs.find((button) => button.dataset.tab === tab);
    return h("caption.sr-only", {}, selected.textContent.trim());
  }

  function emptyRow(columns, text) {
    return h("tr.empty-row", {}, h("td", { colSpan: columns }, text));
  }

  function playerCell(name) {
    return h("td.player", {}, h("a", { href: `/players/${encodeURIComponent(name)}/` }, name));
  }

  function showTable(data) {
    const period = data.period;
    periodLine.textContent = period.end === null
      ? gettext("Every settled day.")
      : fmt(gettext("From %(start)s to %(end)s."), { start: formatDay(period.start), end: formatDay(period.end) });
    minimumLine.textContent = fmt(ngettext(
      "Players with at least %(count)s day played are listed.",
      "Players with at least %(count)s days played are listed.",
      data.minimum_days,
    ), { count: formatNumber(data.minimum_days) });
    const me = document.body.dataset.username;
    tableBox.replaceChildren(h("table.data.stack.standings-table", { dataset: { period: period.kind } },
      caption(),
      h("thead", {}, h("tr", {},
        h("th.rank", { scope: "col" }, "#"),
        h("th", { scope: "col" }, gettext("Player")),
        h("th.num", { scope: "col" }, gettext("Days")),
        h("th.num", { scope: "col" }, gettext("Wins")),
        h("th.num", { scope: "col" }, gettext("Average percentile")),
        h("th.num", { scope: "col" }, gettext("Longest streak")))),
      h("tbody", {}, data.results.length
        ? data.results.map((row) => h(`tr${row.player === me ? ".me" : ""}`, { dataset: { player: row.player } },
          h("td.rank", {}, formatNumber(row.place)),
          playerCell(row.player),
          h("td.num", { "data-label": gettext("Days") }, formatNumber(row.days)),
          h("td.num", { "data-label": gettext("Wins") }, formatNumber(row.wins)),
          h("td.num", { "data-label": gettext("Average percentile") },
            oneDecimal(row.average_percentile)),
          h("td.num", { "data-label": gettext("Longest streak") }, formatNumber(row.longest_streak))))
        : emptyRow(6, gettext("Nobody is listed for this period yet.")))));
    showPager(data.pages);
  }

  function showRatings(data) {
    periodLine.textContent = gettext("A cautious rating from every settled daily deal played: the skill behind it is very likely higher; ± is its uncertainty.");
    minimumLine.textContent = fmt(ngettext(
      "Players rated on at least %(count)s day are listed.",
      "Players rated on at least %(count)s days are listed.",
      PROVISIONAL_DAYS,
    ), { count: formatNumber(PROVISIONAL_DAYS) });
    const me = document.body.dataset.username;
    tableBox.replaceChildren(h("table.data.stack.standings-table", { dataset: { period: "rating" } },
      caption(),
      h("thead", {}, h("tr", {},
        h("th.rank", { scope: "col" }, "#"),
        h("th", { scope: "col" }, gettext("Player")),
        h("th.num", { scope: "col" }, gettext("Rating")),
        h("th.num", { scope: "col" }, gettext("Days")))),
      h("tbody", {}, data.results.length
        ? data.results.map((row) => h(`tr${row.player === me ? ".me" : ""}`, { dataset: { player: row.player } },
          h("td.rank", {}, formatNumber(row.place)),
          playerCell(row.player),
          h("td.num", { "data-label": gettext("Rating") }, ratingText(row.rating, row.uncertainty)),
          h("td.num", { "data-label": gettext("Days") }, formatNumber(row.days))))
        : emptyRow(4, gettext("Nobody has been rated on enough days yet.")))));
    showPager(Math.max(1, Math.ceil(data.count / RATING_PAGE_SIZE)));
  }

  for (const button of tabs) {
    button.addEventListener("click", () => { if (button.dataset.tab !== tab || page !== 1) select(button.dataset.tab); });
    button.addEventListener("keydown", (event) => {
      const i = tabs.indexOf(button);
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      select(tabs[(to + tabs.length) % tabs.length].dataset.tab, true);
    });
  }
  select(tab);
}

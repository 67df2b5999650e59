// A player's page: stats over their daily deals and their history, with replays; their rating
// with its history (ratingchart.js) and their milestones; their games (playergames.js).
import { api } from "./api.js";
import { daysChart } from "./chart.js";
import { followBlock } from "./follows.js";
import { replayOrOpens } from "./opens.js";
import { playerGames } from "./playergames.js";
import { provisionalText, ratingChart, ratingText } from "./ratingchart.js";
import { fmt, formatDay, formatDuration, formatNumber, formatPercent, h, resultLabel, showError } from "./ui.js";

const root = document.querySelector("[data-profile]");
const name = root.dataset.player;
const page = Math.max(1, Number(new URLSearchParams(location.search).get("page")) || 1);

// Another player's attempt at today's deal is private until the day is over (UTC): no link yet,
// but when it opens.
const mine = (document.body.dataset.username || "").toLowerCase() === name.toLowerCase();
function replayCell(row) {
  if (mine) return row.game_id ? h("a", { href: `/games/${row.game_id}/replay/` }, gettext("Replay")) : "";
  return replayOrOpens(row.date, row.game_id);
}

function stat(key, value) {
  const el = root.querySelector(`[data-stat="${key}"]`);
  if (el) el.textContent = value;
}

async function start() {
  let data;
  try {
    data = await api.get(`/api/players/${encodeURIComponent(name)}/${page > 1 ? `?page=${page}` : ""}`);
  } catch (err) {
    showError(root.querySelector("[data-history]"), err);
    return;
  }
  const s = data.stats || {};
  root.querySelector("[data-player-name]").textContent = data.player || name;
  document.title = `${data.player || name} · Canfield Online`;
  followBlock(root.querySelector("[data-follow]"), data);
  const days = (n) => fmt(ngettext("%(count)s day", "%(count)s days", n), { count: formatNumber(n) });
  stat("played", formatNumber(s.played ?? 0));
  stat("won", formatNumber(s.won ?? 0));
  stat("win_rate", formatPercent(s.win_rate ?? 0));
  stat("best_rank", s.best_rank ? `#${formatNumber(s.best_rank)}` : "–");
  stat("most_cards", s.most_cards === null || s.most_cards === undefined ? "–" : formatNumber(s.most_cards));
  stat("current_streak", days(s.current_streak ?? 0));
  stat("longest_streak", days(s.longest_streak ?? 0));
  const practice = data.practice;
  root.querySelector("[data-practice-stats]").hidden = !practice;
  if (practice) {
    for (const [key, value] of Object.entries({
      played: formatNumber(practice.played), won: formatNumber(practice.won), win_rate: formatPercent(practice.win_rate),
    })) root.querySelector(`[data-practice-stat="${key}"]`).textContent = value;
  }

  const history = data.history || [];
  const chart = daysChart(history);
  const chartBox = root.querySelector("[data-days-chart]");
  chartBox.replaceChildren(...(chart ? [chart] : []));
  chartBox.hidden = !chart;
  const box = root.querySelector("[data-history]");
  if (!history.length) {
    box.replaceChildren(h("p.muted", {}, gettext("No daily deals played yet.")));
    return;
  }
  box.replaceChildren(h("div.table-wrap", {}, h("table.data.stack", {},
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, gettext("Day")), h("th.num", { scope: "col" }, gettext("Rank")), h("th", { scope: "col" }, gettext("Result")),
      h("th.num", { scope: "col" }, gettext("Cards")), h("th.num", { scope: "col" }, gettext("Actions")), h("th.num", { scope: "col" }, gettext("Time")),
      h("th.num", { scope: "col" }, gettext("Score")), h("th", { scope: "col" }, h("span.sr-only", {}, gettext("Replay"))))),
    h("tbody", {}, history.map((row) => h("tr", {},
      h("td.lead", {}, h("a", { href: `/leaderboard/${row.date}/` }, formatDay(row.date))),
      h("td.num", { "data-label": gettext("Rank") }, row.rank === null || row.rank === undefined ? "–" : formatNumber(row.rank)),
      h("td", {}, h(`span.pill.pill-${row.status}`, {}, resultLabel(row.result))),
      h("td.num", { "data-label": gettext("Cards") }, formatNumber(row.foundation_cards)),
      h("td.num", { "data-label": gettext("Actions") }, formatNumber(row.actions)),
      h("td.num", { "data-label": gettext("Time") }, row.time_seconds === null ? "–" : formatDuration(row.time_seconds * 1000)),
      h("td.num", { "data-label": gettext("Score") }, formatNumber(row.score)),
      h("td", {}, replayCell(row)),
    ))),
  )));
  if (data.pages > 1) {
    const pager = root.querySelector("[data-pager]");
    pager.hidden = false;
    pager.replaceChildren(
      page > 1 ? h("a.button", { href: `?page=${page - 1}` }, gettext("← Newer")) : null,
      h("span", {}, fmt(gettext("Page %(page)s of %(pages)s"), { page: formatNumber(page), pages: formatNumber(data.pages) })),
      page < data.pages ? h("a.button", { href: `?page=${page + 1}` }, gettext("Older →")) : null,
    );
  }
}
/** The player's rating, from its history's answer: the number ± its uncertainty, "provisional"
 * with why, and the chart; nothing at all for a player never rated. */
async function showRating() {
  const box = root.querySelector("[data-rating-box]");
  let data;
  try {
    data = await api.get(`/api/players/${encodeURIComponent(name)}/ratings/`);
  } catch {
    return; // (the page stands without it; the stats above say what failed)
  }
  const rating = data.rating;
  box.hidden = !rating;
  if (!rating) return;
  box.querySelector("[data-rating-number]").textContent = ratingText(rating.number, rating.uncertainty);
  box.querySelector("[data-rating-provisional]").hidden = !rating.provisional;
  box.querySelector("[data-rating-note]").textContent = rating.provisional
    ? provisionalText(rating.days)
    : fmt(ngettext(
      "Rated on %(count)s day. A cautious number: the skill it stands for is very likely higher; ± is its uncertainty.",
      "Rated on %(count)s days. A cautious number: the skill it stands for is very likely higher; ± is its uncertainty.",
      rating.days,
    ), { count: formatNumber(rating.days) });
  const chart = ratingChart(data.points);
  box.querySelector("[data-rating-chart]").replaceChildren(...(chart ? [chart] : []));
}

/** The milestones earned, oldest first: each title with its day, or a word on how to earn one. */
async function showMilestones() {
  const box = root.querySelector("[data-milestones]");
  let data;
  try {
    data = await api.get(`/api/players/${encodeURIComponent(name)}/milestones/`);
  } catch (err) {
    showError(box, err);
    return;
  }
  if (!data.milestones.length) {
    box.replaceChildren(h("p.muted", {}, gettext("No milestones yet. A first win or 7 days in a row on the daily deal earns one.")));
    return;
  }
  box.replaceChildren(h("ul.milestone-list", {}, data.milestones.map((m) => h("li", { dataset: { kind: m.kind } },
    h("span.milestone-title", {}, m.title), " ",
    h("time.muted", { dateTime: m.day }, formatDay(m.day))))));
}

start();
showRating();
showMilestones();
playerGames(document.querySelector("[data-games-panel]"), name, mine);

// The games to watch (GET /api/watch/): those being played now, each with a link to watch it live
// (its replay page, which follows it over its spectators' socket), and the day's best finished
// games, with their replays. The server lists only what this viewer may watch. The list of games
// being played is read again every half minute while the page is shown.
import { api } from "./api.js";
import { fmt, formatDay, formatNumber, h, resultLabel, showError } from "./ui.js";

const root = document.querySelector("[data-watch]");
const REFRESH_MS = 30000;

function kindLabel(game) {
  if (game.kind !== "daily") return gettext("Practice");
  return fmt(gettext("Daily deal · %(day)s"), { day: formatDay(game.daily_date) });
}

/** A table of games: player, kind, cards home, actions, (result), and the link to each. */
function table(games, { live }) {
  return h("div.table-wrap", {}, h("table.data.stack", {},
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, gettext("Player")),
      h("th", { scope: "col" }, gettext("Game")),
      live ? null : h("th", { scope: "col" }, gettext("Result")),
      h("th.num", { scope: "col" }, gettext("Cards")),
      h("th.num", { scope: "col" }, gettext("Actions")),
      h("th", { scope: "col" }, h("span.sr-only", {}, live ? gettext("Watch") : gettext("Replay"))))),
    h("tbody", {}, games.map((game) => h("tr", { dataset: { game: String(game.id) } },
      h("td.player", {}, h("a", { href: `/players/${encodeURIComponent(game.player)}/` }, game.player)),
      h("td", {}, kindLabel(game)),
      live ? null : h("td", {}, h(`span.pill.pill-${game.status}`, {}, resultLabel(game.result))),
      h("td.num", { "data-label": gettext("Cards") }, `${formatNumber(game.foundation_cards)}/52`),
      h("td.num", { "data-label": gettext("Actions") }, formatNumber(game.actions)),
      h("td", {}, h("a.button.small", {
        href: `/games/${game.id}/replay/`,
        "aria-label": fmt(live ? gettext("Watch %(player)s") : gettext("Replay of %(player)s"), { player: game.player }),
      }, live ? gettext("Watch") : gettext("Replay"))),
    ))),
  ));
}

/** Puts `games` in `box`, unless it shows them already; the link that had the keyboard's focus
 * keeps it (the list of games being played is drawn again as it changes). */
function fill(box, games, { live, empty }) {
  const shown = JSON.stringify(games);
  if (box.dataset.shown === shown) return;
  box.dataset.shown = shown;
  const focused = box.contains(document.activeElement) ? document.activeElement.closest("tr")?.dataset.game : null;
  box.replaceChildren(games.length ? table(games, { live }) : h("p.muted", {}, empty));
  if (focused) box.querySelector(`tr[data-game="${focused}"] a.button`)?.focus();
}

async function load() {
  let lists;
  try {
    lists = await api.get("/api/watch/");
  } catch (err) {
    showError(root.querySelector("[data-playing]"), err);
    return;
  }
  fill(root.querySelector("[data-playing]"), lists.playing, {
    live: true, empty: gettext("Nobody is playing right now. Start a game, and others can watch yours."),
  });
  fill(root.querySelector("[data-practice]"), lists.practice, {
    live: false, empty: gettext("No practice game has been finished today yet."),
  });
  fill(root.querySelector("[data-daily]"), lists.daily, {
    live: false, empty: gettext("Nobody played that day's deal."),
  });
  root.querySelector("[data-daily-date]").textContent = formatDay(lists.daily_date);
}

load();
setInterval(() => { if (!document.hidden) load(); }, REFRESH_MS);

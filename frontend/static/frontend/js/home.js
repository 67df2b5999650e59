// Home: today's deal and my ranked attempt, what the players I follow did today (follows.js),
// practice games, my recent games.
import { api, serverNow } from "./api.js";
import { difficultyBadge } from "./chart.js";
import { followingToday } from "./follows.js";
import { bindNewGameForm } from "./newgame.js";
import { fmt, formatDay, formatNumber, gameResultLabel, h, resultLabel, showError, toast } from "./ui.js";

const dailyBody = document.querySelector("[data-daily-body]");
const recentBox = document.querySelector("[data-recent]");

function facts(game) {
  return h("dl.daily-facts", {},
    h("div", {}, h("dt", {}, gettext("Score")), h("dd", {}, formatNumber(game.score))),
    h("div", {}, h("dt", {}, gettext("Foundations")), h("dd", {}, `${formatNumber(game.foundation_cards)}/52`)),
    h("div", {}, h("dt", {}, gettext("Actions")), h("dd", {}, formatNumber(game.actions))),
  );
}

/** While today's deal is being dealt (503 deal_pending, or deal_unavailable after a failed try),
 * the button says so and the page asks again by itself when the server says to. */
const DEALING = new Set(["deal_pending", "deal_unavailable"]);

async function startDaily(button, status) {
  button.disabled = true;
  try {
    const game = await api.post("/api/daily/");
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    if (err.status === 409) {
      await loadDaily();
      return;
    }
    if (err.status === 503 && DEALING.has(err.code)) {
      button.setAttribute("aria-busy", "true");
      button.textContent = gettext("Dealing today's cards…");
      status.textContent = err.code === "deal_pending"
        ? gettext("The solver is making sure today's deal can be won. Your game starts as soon as it is ready.")
        : err.message;
      const seconds = Math.min(60, Math.max(1, Number(err.body.retry_after) || 2));
      setTimeout(() => startDaily(button, status), seconds * 1000);
      return;
    }
    toast(err.message, "error");
    button.disabled = false;
  }
}

async function loadDaily() {
  let daily;
  try {
    daily = await api.get("/api/daily/");
  } catch (err) {
    showError(dailyBody, err);
    return;
  }
  const dateLine = document.querySelector("[data-daily-date]");
  const left = daily.ends_at ? Date.parse(daily.ends_at) - serverNow() : NaN;
  dateLine.textContent = formatDay(daily.date);
  if (left > 0) {
    const hours = Math.floor(left / 3600000);
    const minutes = Math.floor((left % 3600000) / 60000);
    const ends = hours
      ? fmt(gettext("ends in %(hours)s h %(minutes)s min"), { hours, minutes })
      : fmt(gettext("ends in %(minutes)s min"), { minutes });
    dateLine.append(" · ", h("span.ends-in", {}, ends)); // (never a lone "min" on a line)
  }
  const badge = difficultyBadge(daily.difficulty);
  if (badge) dateLine.append(h("span.daily-difficulty", {}, badge));
  const board = h("a.button", { href: "/leaderboard/" }, gettext("Leaderboard"));
  const game = daily.attempt;
  if (!game) {
    const play = h("button.button.primary.big", { type: "button", "data-testid": "play-daily" }, gettext("Play today's deal"));
    const status = h("p.muted", { role: "status", "data-daily-status": "" });
    play.addEventListener("click", () => startDaily(play, status));
    dailyBody.replaceChildren(
      h("p", {}, gettext("Everyone gets the same deal today. You have one ranked attempt: the clock starts with your first move.")),
      h("div.daily-status", {}, play, board),
      status,
    );
  } else if (game.status === "in_progress") {
    dailyBody.replaceChildren(
      h("p", {}, h("span.pill.pill-in_progress", {}, resultLabel("in_progress")), " ", gettext("Your ranked attempt is waiting.")),
      facts(game),
      h("div.daily-status", {}, h("a.button.primary.big", { href: `/games/${game.id}/` }, gettext("Continue")), board),
    );
  } else {
    dailyBody.replaceChildren(
      h("p", {}, h(`span.pill.pill-${game.status}`, {}, resultLabel(game.result)), " ", gettext("Your attempt is over. Come back tomorrow for a new deal.")),
      facts(game),
      h("div.daily-status", {},
        h("a.button.primary", { href: "/leaderboard/" }, gettext("See the leaderboard")),
        h("a.button", { href: `/games/${game.id}/replay/` }, gettext("Replay my game"))),
    );
  }
}

function gameName(game) {
  if (game.kind === "daily") {
    return game.daily_date ? fmt(gettext("Daily %(day)s"), { day: formatDay(game.daily_date) }) : gettext("Daily deal");
  }
  return game.code || gettext("Practice");
}

async function loadRecent() {
  let page;
  try {
    page = await api.get("/api/games/");
  } catch (err) {
    showError(recentBox, err);
    return;
  }
  const games = page.results || [];
  if (!games.length) {
    recentBox.replaceChildren(h("p.muted", {}, gettext("No games yet. Start one above.")));
    return;
  }
  const rows = games.slice(0, 12).map((game) => h("tr", {},
    h("td.lead", {}, h("a", { href: `/games/${game.id}/` }, gameName(game))),
    h("td", {}, fmt(gettext("Draw %(n)s"), { n: game.draw }) + (game.variant === "classic" ? ` · ${gettext("classic")}` : "")),
    h("td", {}, h(`span.pill.pill-${game.status}`, {}, gameResultLabel(game))),
    h("td.num", { "data-label": gettext("Score") }, formatNumber(game.score)),
    h("td.num", { "data-label": gettext("Actions") }, formatNumber(game.actions)),
    h("td", {}, game.status === "in_progress"
      ? h("a", { href: `/games/${game.id}/` }, gettext("Continue"))
      : h("a", { href: `/games/${game.id}/replay/` }, gettext("Replay"))),
  ));
  recentBox.replaceChildren(h("div.table-wrap", {}, h("table.data.stack", {},
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, gettext("Game")), h("th", { scope: "col" }, gettext("Mode")), h("th", { scope: "col" }, gettext("Status")),
      h("th.num", { scope: "col" }, gettext("Score")), h("th.num", { scope: "col" }, gettext("Actions")), h("th", { scope: "col" }, h("span.sr-only", {}, gettext("Open"))))),
    h("tbody", {}, rows),
  )));
}

bindNewGameForm(document.querySelector("[data-new-game-form]"));
loadDaily();
followingToday(document.querySelector("[data-following-today]"));
loadRecent();

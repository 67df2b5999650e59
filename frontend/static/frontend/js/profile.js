// A player's page: stats over their daily deals and their history, with replays.
import { api } from "./api.js";
import { formatDay, formatDuration, h, resultLabel, showError } from "./ui.js";

const root = document.querySelector("[data-profile]");
const name = root.dataset.player;
const page = Math.max(1, Number(new URLSearchParams(location.search).get("page")) || 1);

// Another player's attempt at today's deal is private until the day is over (UTC): no link.
const today = new Date().toISOString().slice(0, 10);
const mine = (document.body.dataset.username || "").toLowerCase() === name.toLowerCase();
const canReplay = (row) => Boolean(row.game_id) && (mine || row.date < today);

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
  stat("played", s.played ?? 0);
  stat("won", s.won ?? 0);
  stat("win_rate", `${Math.round((s.win_rate ?? 0) * 100)}%`);
  stat("best_rank", s.best_rank ? `#${s.best_rank}` : "–");
  stat("most_cards", s.most_cards ?? "–");
  stat("current_streak", s.current_streak ?? 0);
  stat("longest_streak", s.longest_streak ?? 0);
  const practice = data.practice;
  root.querySelector("[data-practice-stats]").hidden = !practice;
  if (practice) {
    for (const [key, value] of Object.entries({
      played: practice.played, won: practice.won, win_rate: `${Math.round(practice.win_rate * 100)}%`,
    })) root.querySelector(`[data-practice-stat="${key}"]`).textContent = value;
  }

  const history = data.history || [];
  const box = root.querySelector("[data-history]");
  if (!history.length) {
    box.replaceChildren(h("p.muted", {}, "No daily deals played yet."));
    return;
  }
  box.replaceChildren(h("div.table-wrap", {}, h("table.data.stack", {},
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Day"), h("th.num", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Result"),
      h("th.num", { scope: "col" }, "Cards"), h("th.num", { scope: "col" }, "Actions"), h("th.num", { scope: "col" }, "Time"),
      h("th.num", { scope: "col" }, "Score"), h("th", { scope: "col" }, h("span.sr-only", {}, "Replay")))),
    h("tbody", {}, history.map((row) => h("tr", {},
      h("td.lead", {}, h("a", { href: `/leaderboard/${row.date}/` }, formatDay(row.date))),
      h("td.num", { "data-label": "Rank" }, row.rank ?? "–"),
      h("td", {}, h(`span.pill.pill-${row.status}`, {}, resultLabel(row.result))),
      h("td.num", { "data-label": "Cards" }, row.foundation_cards),
      h("td.num", { "data-label": "Actions" }, row.actions),
      h("td.num", { "data-label": "Time" }, row.time_seconds === null ? "–" : formatDuration(row.time_seconds * 1000)),
      h("td.num", { "data-label": "Score" }, row.score),
      h("td", {}, canReplay(row) ? h("a", { href: `/games/${row.game_id}/replay/` }, "Replay") : ""),
    ))),
  )));
  if (data.pages > 1) {
    const pager = root.querySelector("[data-pager]");
    pager.hidden = false;
    pager.replaceChildren(
      page > 1 ? h("a.button", { href: `?page=${page - 1}` }, "← Newer") : null,
      h("span", {}, `Page ${page} of ${data.pages}`),
      page < data.pages ? h("a.button", { href: `?page=${page + 1}` }, "Older →") : null,
    );
  }
}
start();

// A player's games on their page (GET /api/players/<name>/games/): newest first, filtered by kind
// and result, a page at a time, each with its replay (my own game in progress: to play on). On my
// own page, the setting that keeps my practice games to myself (PATCH /api/auth/me/settings/).
// The filters and the page are kept in the address (?kind=, ?result=, ?games_page=), so that a
// reload or a shared link shows the same list.
import { api, request } from "./api.js";
import { fmt, formatDay, formatNumber, gameResultLabel, h, RESULT_LABELS, showError } from "./ui.js";

/** Games per page, as the API pages them. */
const PAGE_SIZE = 20;
const KINDS = { practice: gettext("Practice"), daily: gettext("Daily deal") };
const SETTINGS_URL = "/api/auth/me/settings/";

function readState(mine) {
  const params = new URLSearchParams(location.search);
  const kind = params.get("kind") || "";
  const result = params.get("result") || "";
  return {
    kind: kind in KINDS ? kind : "",
    result: result in RESULT_LABELS && (mine || result !== "in_progress") ? result : "",
    page: Math.max(1, Math.floor(Number(params.get("games_page"))) || 1),
  };
}

function keepInAddress(state) {
  const params = new URLSearchParams(location.search);
  for (const [key, value] of [["kind", state.kind], ["result", state.result], ["games_page", state.page > 1 ? state.page : ""]]) {
    if (value) params.set(key, value);
    else params.delete(key);
  }
  const query = params.toString();
  history.replaceState(history.state, "", `${location.pathname}${query ? `?${query}` : ""}`);
}

function select(id, name, current, choices) {
  const el = h("select", { id, name }, ...choices.map(([value, label]) => h("option", { value }, label)));
  el.value = current;
  return el;
}

function gameName(game) {
  const rules = fmt(gettext("Draw %(n)s"), { n: game.draw }) + (game.variant === "classic" ? ` · ${gettext("classic")}` : "");
  return `${KINDS[game.kind] || game.kind} · ${rules}`;
}

function linkCell(game, mine) {
  if (mine && game.result === "in_progress") return h("a", { href: `/games/${game.id}/` }, gettext("Continue"));
  return h("a", { href: game.replay_url }, gettext("Replay"));
}

function table(games, mine) {
  return h("div.table-wrap", {}, h("table.data.stack", {},
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, gettext("Day")), h("th", { scope: "col" }, gettext("Game")), h("th", { scope: "col" }, gettext("Result")),
      h("th.num", { scope: "col" }, gettext("Cards")), h("th.num", { scope: "col" }, gettext("Actions")),
      h("th", { scope: "col" }, h("span.sr-only", {}, gettext("Replay"))))),
    h("tbody", {}, games.map((game) => h("tr", { dataset: { gameId: String(game.id) } },
      h("td.lead", {}, formatDay(game.date)),
      h("td", {}, gameName(game)),
      h("td", {}, h(`span.pill.pill-${game.status}`, {}, gameResultLabel(game))),
      h("td.num", { "data-label": gettext("Cards") }, formatNumber(game.foundation_cards)),
      h("td.num", { "data-label": gettext("Actions") }, formatNumber(game.actions)),
      h("td", {}, linkCell(game, mine)),
    ))),
  ));
}

/** The list of `name`'s games in `panel`; `mine`: the page is the viewer's own. */
export function playerGames(panel, name, mine) {
  const box = panel.querySelector("[data-games]");
  const count = panel.querySelector("[data-games-count]");
  const pager = panel.querySelector("[data-games-pager]");
  const state = readState(mine);
  let asked = 0;

  const kinds = select("games-kind", "kind", state.kind, [["", gettext("All games")], ...Object.entries(KINDS)]);
  const results = select("games-result", "result", state.result, [
    ["", gettext("Any result")],
    ...Object.entries(RESULT_LABELS).filter(([value]) => mine || value !== "in_progress"),
  ]);
  const changed = () => {
    state.kind = kinds.value;
    state.result = results.value;
    state.page = 1;
    load();
  };
  kinds.addEventListener("change", changed);
  results.addEventListener("change", changed);
  panel.querySelector("[data-games-filter]").replaceChildren(
    h("label.field", {}, gettext("Kind of game"), kinds),
    h("label.field", {}, gettext("Result"), results),
  );

  function turn(page) {
    state.page = page;
    load().then(() => panel.querySelector("#games-title").focus());
  }

  async function load() {
    const mark = ++asked;
    keepInAddress(state);
    const params = new URLSearchParams();
    if (state.kind) params.set("kind", state.kind);
    if (state.result) params.set("result", state.result);
    if (state.page > 1) params.set("page", String(state.page));
    const query = params.toString();
    box.setAttribute("aria-busy", "true");
    let data;
    try {
      data = await api.get(`/api/players/${encodeURIComponent(name)}/games/${query ? `?${query}` : ""}`);
    } catch (err) {
      if (mark !== asked) return;
      box.removeAttribute("aria-busy");
      count.textContent = "";
      pager.hidden = true;
      showError(box, err);
      return;
    }
    if (mark !== asked) return; // (a later choice's answer is the one to show)
    box.removeAttribute("aria-busy");
    const games = data.results || [];
    count.textContent = fmt(ngettext("%(count)s game", "%(count)s games", data.count), { count: formatNumber(data.count) });
    box.replaceChildren(games.length ? table(games, mine) : h("p.muted", {}, gettext("No games to show.")));
    const pages = Math.max(1, Math.ceil(data.count / PAGE_SIZE));
    pager.hidden = pages < 2;
    pager.replaceChildren(
      data.previous ? h("button.button", { type: "button", onclick: () => turn(state.page - 1) }, gettext("← Newer")) : null,
      h("span", {}, fmt(gettext("Page %(page)s of %(pages)s"), { page: formatNumber(state.page), pages: formatNumber(pages) })),
      data.next ? h("button.button", { type: "button", onclick: () => turn(state.page + 1) }, gettext("Older →")) : null,
    );
  }

  load();
  if (mine) privacySetting(panel);
}

/** My own page's checkbox: my practice games kept to myself, or open to all once over. */
async function privacySetting(panel) {
  const box = panel.querySelector("[data-practice-private]");
  const status = panel.querySelector("[data-privacy-status]");
  if (!box) return;
  try {
    box.checked = (await api.get(SETTINGS_URL)).practice_private;
  } catch (err) {
    status.textContent = err.message;
    return;
  }
  box.disabled = false;
  box.addEventListener("change", async () => {
    const wanted = box.checked;
    box.disabled = true;
    status.textContent = gettext("Saving…");
    try {
      const now = await request("PATCH", SETTINGS_URL, { practice_private: wanted });
      box.checked = now.practice_private;
      status.textContent = now.practice_private
        ? gettext("Saved: only you see your practice games.")
        : gettext("Saved: anyone may see your finished practice games.");
    } catch (err) {
      box.checked = !wanted;
      status.textContent = err.message;
    } finally {
      box.disabled = false;
      box.focus();
    }
  });
}

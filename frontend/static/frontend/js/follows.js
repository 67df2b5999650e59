// Following: a player page's Follow button and counts, and the home page's list of what the
// players I follow did today (results only until my own attempt is over: the server says where a
// game may be watched, never the page).
import { api, request } from "./api.js";
import { fmt, formatNumber, h, resultLabel, showError, toast } from "./ui.js";

function countsText(state) {
  return [
    fmt(ngettext("%(count)s follower", "%(count)s followers", state.followers), { count: formatNumber(state.followers) }),
    fmt(ngettext("follows %(count)s player", "follows %(count)s players", state.following), { count: formatNumber(state.following) }),
  ].join(" · ");
}

/**
 * A player page's follow block (`box`: [data-follow]), from the page's answer of
 * GET /api/players/<name>/ (`page`): their counts, and for a player who may follow them a button
 * that follows or unfollows, saying the outcome to screen readers ([data-follow-status]).
 */
export function followBlock(box, page) {
  if (!box) return;
  const counts = box.querySelector("[data-follow-counts]");
  const button = box.querySelector("[data-follow-button]");
  const status = box.querySelector("[data-follow-status]");
  let state = { player: page.player, followed_by_me: page.followed_by_me, followers: page.followers, following: page.following };

  function show() {
    counts.textContent = countsText(state);
    if (!button) return;
    button.hidden = state.followed_by_me === null;
    button.textContent = state.followed_by_me ? pgettext("following", "Unfollow") : pgettext("following", "Follow");
    button.classList.toggle("primary", !state.followed_by_me);
  }

  if (button) {
    button.addEventListener("click", async () => {
      button.disabled = true;
      const url = `/api/players/${encodeURIComponent(state.player)}/follow/`;
      try {
        state = state.followed_by_me ? await request("DELETE", url) : await api.post(url);
        show();
        status.textContent = fmt(state.followed_by_me ? gettext("You follow %(player)s.") : gettext("You no longer follow %(player)s."), { player: state.player });
      } catch (err) {
        toast(err.message, "error");
      } finally {
        button.disabled = false;
      }
    });
  }
  show();
  box.hidden = false;
}

function resultRow(row) {
  return h("tr", { dataset: { player: row.player } },
    h("td.lead", {}, h("a", { href: `/players/${encodeURIComponent(row.player)}/` }, row.player)),
    h("td", {}, h(`span.pill.pill-${row.status}`, {}, resultLabel(row.result))),
    h("td.num", { dataset: { col: "cards" }, "data-label": gettext("Cards") }, `${formatNumber(row.foundation_cards)}/52`),
    h("td.num", { dataset: { col: "rank" }, "data-label": gettext("Rank") }, row.board_rank ? formatNumber(row.board_rank) : "–"),
    h("td", {}, row.watch
      ? h("a", { href: row.watch }, row.status === "in_progress" ? pgettext("following", "Watch") : pgettext("following", "See the game"))
      : ""),
  );
}

/**
 * The home page's "Following today" (`box`: [data-following-today]): who of the players I
 * follow played today's deal and how it stands for them, 20 at a time ("More").
 */
export async function followingToday(box) {
  if (!box) return;
  const list = box.querySelector("[data-following-list]");
  let data;
  try {
    data = await api.get("/api/me/following/today/");
  } catch (err) {
    showError(list, err);
    return;
  }
  if (!data.following) {
    list.replaceChildren(h("p.muted", {}, gettext("You follow nobody yet. Follow players from their pages (their names on the leaderboard lead there): you will see here how they did each day.")));
    return;
  }
  const body = h("tbody", {});
  const parts = [];
  if (!data.mine_over) parts.push(h("p.muted", { "data-results-only": "" }, gettext("Results only until your own attempt at today's deal is over: then you can watch their games.")));
  if (data.count) {
    parts.push(h("div.table-wrap", {}, h("table.data.stack", { "data-testid": "following-today" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, pgettext("following", "Player")), h("th", { scope: "col" }, gettext("Result")),
        h("th.num", { scope: "col" }, gettext("Cards")), h("th.num", { scope: "col" }, gettext("Rank")),
        h("th", { scope: "col" }, h("span.sr-only", {}, pgettext("following", "Watch"))))),
      body)));
  }
  const waiting = data.waiting
    ? h("p.muted", {}, fmt(ngettext("%(count)s player you follow has not played today's deal yet.", "%(count)s players you follow have not played today's deal yet.", data.waiting), { count: formatNumber(data.waiting) }))
    : null;
  const more = h("button.button.small", { type: "button", hidden: true }, pgettext("following", "More"));
  list.replaceChildren(...parts, waiting || "", more);

  let shown = data;
  body.append(...shown.results.map(resultRow));
  more.hidden = shown.page >= shown.pages;
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      shown = await api.get(`/api/me/following/today/?page=${shown.page + 1}`);
      body.append(...shown.results.map(resultRow));
      more.hidden = shown.page >= shown.pages;
    } catch (err) {
      toast(err.message, "error");
    } finally {
      more.disabled = false;
    }
  });
}

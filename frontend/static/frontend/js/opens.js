// Another player's attempt at a day's deal stays private until the day is over (midnight UTC;
// PRODUCT.md, "Fair play"): where its replay link will be, a page says when it opens, counted
// down on the server's clock, and puts the link there once the day is over.
import { serverNow } from "./api.js";
import { fmt, formatNumber, h } from "./ui.js";

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

/** Milliseconds until the end of the UTC day `isoDay`, on the server's clock. */
function untilDayEnd(isoDay) {
  return Date.parse(`${isoDay}T00:00:00Z`) + 24 * HOUR - serverNow();
}

/** "opens in 23 h", "opens in 5 min": whole hours down, the last hour in minutes up. */
function opensText(left) {
  if (left >= HOUR) return fmt(gettext("opens in %(hours)s h"), { hours: formatNumber(Math.floor(left / HOUR)) });
  return fmt(gettext("opens in %(minutes)s min"), { minutes: formatNumber(Math.max(1, Math.ceil(left / MINUTE))) });
}

/** The replay link of a game, or while its day `isoDay` lasts, when it opens. */
export function replayOrOpens(isoDay, gameId) {
  const link = () => (gameId ? h("a", { href: `/games/${gameId}/replay/` }, gettext("Replay")) : "");
  const left = untilDayEnd(isoDay);
  if (!(left > 0)) return link();
  const label = h("span.opens-in", { dataset: { opensDay: isoDay } }, opensText(left));
  label._link = link;
  tickSoon();
  return label;
}

let ticking = null;

function tickSoon() {
  if (ticking === null) ticking = setInterval(tick, 20 * 1000);
}

function tick() {
  const labels = document.querySelectorAll("[data-opens-day]");
  for (const label of labels) {
    const left = untilDayEnd(label.dataset.opensDay);
    if (left > 0) label.textContent = opensText(left);
    else label.replaceWith(label._link());
  }
  if (!labels.length) {
    clearInterval(ticking);
    ticking = null;
  }
}

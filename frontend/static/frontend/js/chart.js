// Charts drawn by the page as SVG, from counts the API gives (never a card): the day's picture —
// how many players reached each number of foundation cards, the wins, my own place — and a
// player's daily results by day. Each chart has its words in the page's language, a title for
// screen readers (role="img") and its numbers in a table under "The numbers". Colours come from
// classes (site.css, "Charts"), so the dark theme and the CSP (no inline style) hold.
import { fmt, formatDay, formatNumber, formatPercent, h } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
let charts = 0;

/** An SVG element: svg("rect.bar.won", {x: 1, ...}, child, ...). */
export function svg(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElementNS(SVG, name);
  if (classes.length) el.setAttribute("class", classes.join(" "));
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// --- the difficulty ------------------------------------------------------------------------------

const NAMES = {
  gentle: pgettext("difficulty", "Gentle"),
  moderate: pgettext("difficulty", "Moderate"),
  hard: pgettext("difficulty", "Hard"),
  fierce: pgettext("difficulty", "Fierce"),
};

/** The name of a difficulty label in the page's language. */
export function difficultyName(label) {
  return NAMES[label] || label;
}

/** "Simulated players win 40% of their games". */
export function simulatedText(share) {
  return fmt(gettext("Simulated players win %(share)s of their games"), { share: formatPercent(share) });
}

/** The difficulty beside a deal: its name as a pill, and the simulated players' share of wins. */
export function difficultyBadge(difficulty) {
  if (!difficulty) return null;
  return h("span.difficulty", { dataset: { difficulty: difficulty.label } },
    h(`span.pill.difficulty-${difficulty.label}`, {}, difficultyName(difficulty.label)),
    " ",
    h("span.difficulty-share", {}, simulatedText(difficulty.share)));
}

// --- a bar chart ---------------------------------------------------------------------------------

const WIDTH = 360;
const HEIGHT = 170;
const LEFT = 30;
const RIGHT = 8;
const TOP = 18;
const BOTTOM = 26;

/** The top of an axis that reaches `max`, its middle a whole number: 2, 4, 10, 20, 40, 100... */
function axisTop(max) {
  for (let step = 1; ; step *= 10) {
    for (const k of [2, 4, 10]) if (step * k >= max) return step * k;
  }
}

/** The frame of a chart: its <svg> with a title, the y axis (0 to `top`) and the baseline. */
function frame(id, title, top) {
  const height = HEIGHT - TOP - BOTTOM;
  const y = (value) => TOP + height - (value / top) * height;
  const chart = svg("svg.chart-svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-labelledby": `${id}-title`, focusable: "false",
  }, svg("title", { id: `${id}-title` }, title));
  for (const value of [0, top / 2, top]) {
    chart.append(
      svg("line.chart-grid", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(value), y2: y(value) }),
      svg("text.chart-tick", { x: LEFT - 4, y: y(value) + 4, "text-anchor": "end" }, formatNumber(value)),
    );
  }
  return { chart, y, height };
}

/** A figure: the chart, a caption, and its numbers in a table under "The numbers". */
function figure(className, chart, caption, head, rows) {
  return h(`figure.chart.${className}`, {},
    chart,
    h("figcaption.chart-caption", {}, ...caption),
    h("details.chart-numbers", {},
      h("summary", {}, gettext("The numbers")),
      h("table.data.chart-table", {},
        h("thead", {}, h("tr", {}, ...head.map((text) => h("th", { scope: "col" }, text)))),
        h("tbody", {}, rows.map((cells) => h("tr", {}, ...cells.map((text) => h("td", {}, text))))))));
}

// --- the day's picture ---------------------------------------------------------------------------

/** The sentence of a day's picture: players, wins, the real share next to the predicted one. */
function pictureSummary(picture) {
  const parts = [
    fmt(ngettext("%(count)s player", "%(count)s players", picture.players), { count: formatNumber(picture.players) }),
    fmt(ngettext("%(count)s won (%(share)s)", "%(count)s won (%(share)s)", picture.winners),
      { count: formatNumber(picture.winners), share: formatPercent(picture.share) }),
  ];
  if (picture.predicted) parts.push(simulatedText(picture.predicted.share));
  if (typeof picture.par === "number") parts.push(fmt(gettext("Par (solver): %(actions)s"), { actions: formatNumber(picture.par) }));
  return parts.join(" · ");
}

/** Where my attempt stands: its cards, and how many players placed more and fewer. */
function placeText(me) {
  const mine = me.won
    ? gettext("You won")
    : fmt(ngettext("You: %(count)s card", "You: %(count)s cards", me.foundation_cards), { count: formatNumber(me.foundation_cards) });
  const more = fmt(ngettext("%(count)s player placed more cards than you", "%(count)s players placed more cards than you", me.ahead), { count: formatNumber(me.ahead) });
  const fewer = fmt(ngettext("%(count)s player placed fewer", "%(count)s players placed fewer", me.behind), { count: formatNumber(me.behind) });
  return `${mine} · ${more} · ${fewer}`;
}

/**
 * The day's picture: a bar for each number of foundation cards (1 to 52, the wins at 52), its
 * height the players who reached it; my own bar marked. `picture` is GET /api/daily/<date>/picture/.
 */
export function dayPicture(picture) {
  const id = `chart-${++charts}`;
  const counts = new Map(picture.bars.map((bar) => [bar.cards, bar.players]));
  const top = axisTop(Math.max(1, ...counts.values()));
  const summary = pictureSummary(picture);
  const title = picture.me ? `${summary}. ${placeText(picture.me)}.` : `${summary}.`;
  const { chart, y, height } = frame(id, title, top);
  const slot = (WIDTH - LEFT - RIGHT) / 52;
  const x = (cards) => LEFT + (cards - 1) * slot;
  const mine = picture.me ? picture.me.foundation_cards : null;
  for (const [cards, players] of counts) {
    const classes = ["chart-bar", cards === 52 ? "won" : "", cards === mine ? "mine" : ""].filter(Boolean).join(".");
    chart.append(svg(`rect.${classes}`, {
      x: x(cards) + slot * 0.1, width: slot * 0.8, y: y(players), height: Math.max(1, TOP + height - y(players)),
      "data-cards": cards, "data-players": players,
    }));
  }
  if (mine !== null) {
    const cx = x(mine) + slot / 2;
    const tip = y(counts.get(mine) || 0) - 3;
    chart.append(
      svg("path.chart-marker", { d: `M${cx - 4} ${tip - 7} L${cx + 4} ${tip - 7} L${cx} ${tip} Z` }),
      svg("text.chart-marker-label", { x: Math.min(WIDTH - RIGHT - 14, Math.max(LEFT + 14, cx)), y: Math.max(10, tip - 10), "text-anchor": "middle" }, gettext("You")),
    );
  }
  for (const cards of [1, 13, 26, 39, 52]) {
    chart.append(svg("text.chart-tick", { x: x(cards) + slot / 2, y: HEIGHT - BOTTOM + 13, "text-anchor": "middle" }, formatNumber(cards)));
  }
  chart.append(svg("text.chart-axis", { x: LEFT + (WIDTH - LEFT - RIGHT) / 2, y: HEIGHT - 2, "text-anchor": "middle" },
    gettext("Cards on the foundations (52: won)")));
  const caption = [h("span", {}, summary)];
  if (picture.me) caption.push(h("span.chart-place", {}, placeText(picture.me)));
  return figure("day-picture", chart, caption,
    [gettext("Cards on the foundations"), gettext("Players")],
    picture.bars.map((bar) => [formatNumber(bar.cards), formatNumber(bar.players)]));
}

// --- a player's days -----------------------------------------------------------------------------

const DAY = 24 * 3600 * 1000;

/**
 * A player's daily results by day, oldest on the left: a bar of the cards placed for each day
 * played, a star on the wins, nothing on the days not played. `rows` are the history's rows
 * (GET /api/players/<name>/), newest first.
 */
export function daysChart(rows) {
  const played = rows.filter((row) => row.actions > 0).slice().reverse();
  if (!played.length) return null;
  const id = `chart-${++charts}`;
  const first = Date.parse(`${played[0].date}T00:00:00Z`);
  const last = Date.parse(`${played[played.length - 1].date}T00:00:00Z`);
  const days = Math.round((last - first) / DAY) + 1;
  const wins = played.filter((row) => row.won).length;
  const title = fmt(
    ngettext("Cards on the foundations, %(count)s day played", "Cards on the foundations, %(count)s days played", played.length),
    { count: formatNumber(played.length) },
  ) + ` · ${fmt(ngettext("%(count)s won", "%(count)s won", wins), { count: formatNumber(wins) })}`;
  const { chart, y, height } = frame(id, `${title}.`, 52);
  const slot = (WIDTH - LEFT - RIGHT) / Math.max(days, 7);
  for (const row of played) {
    const k = Math.round((Date.parse(`${row.date}T00:00:00Z`) - first) / DAY);
    const x = LEFT + k * slot;
    chart.append(svg(`rect.chart-bar${row.won ? ".won" : ""}`, {
      x: x + slot * 0.15, width: Math.max(1, slot * 0.7), y: y(row.foundation_cards),
      height: Math.max(1, TOP + height - y(row.foundation_cards)), "data-date": row.date, "data-cards": row.foundation_cards,
    }));
    if (row.won) {
      const cx = x + slot / 2;
      chart.append(svg("path.chart-star", { d: star(cx, TOP - 8, 6) }));
    }
  }
  // The first day under the start of the axis, the last under its end: one day is named once.
  const tickY = HEIGHT - BOTTOM + 13;
  chart.append(svg("text.chart-tick.chart-day", { x: LEFT, y: tickY, "text-anchor": "start" }, formatDay(played[0].date)));
  if (days > 1) {
    chart.append(svg("text.chart-tick.chart-day", { x: WIDTH - RIGHT, y: tickY, "text-anchor": "end" }, formatDay(played[played.length - 1].date)));
  }
  return figure("days-chart", chart, [h("span", {}, title)],
    [gettext("Day"), gettext("Cards on the foundations"), gettext("Result")],
    played.slice().reverse().map((row) => [formatDay(row.date), formatNumber(row.foundation_cards), row.won ? pgettext("game result", "Won") : "–"]));
}

/** A five-pointed star's path around (cx, cy). */
function star(cx, cy, r) {
  const points = [];
  for (let k = 0; k < 10; k++) {
    const angle = -Math.PI / 2 + (k * Math.PI) / 5;
    const radius = k % 2 ? r * 0.45 : r;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(1)} ${(cy + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return `M${points.join(" L")} Z`;
}

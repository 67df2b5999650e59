// A player's rating: the number with its uncertainty, in words, and its history as a line chart
// (GET /api/players/<name>/ratings/). The chart is drawn as SVG with a title and a caption that
// say the first, latest and best numbers, and every point is in a table under "The numbers", as
// the charts of chart.js are; colours come from classes (site.css), so the themes and the CSP hold.
import { svg } from "./chart.js";
import { fmt, formatDay, formatNumber, h } from "./ui.js";

/** Days a rating takes before it is no longer provisional: ratings.models.PROVISIONAL_DAYS (the
 * browser test of the player page checks the two agree). */
export const PROVISIONAL_DAYS = 5;

const WIDTH = 360;
const HEIGHT = 170;
const LEFT = 38;
const RIGHT = 10;
const TOP = 14;
const BOTTOM = 26;
let charts = 0;

/** "1130 ± 328": a rating and its uncertainty, as the page's language writes numbers. */
export function ratingText(number, uncertainty) {
  return fmt(gettext("%(rating)s ± %(uncertainty)s"), { rating: formatNumber(number), uncertainty: formatNumber(uncertainty) });
}

/** "Provisional: rated on 2 days so far, fewer than 5." */
export function provisionalText(days) {
  return fmt(ngettext(
    "Provisional: rated on %(count)s day so far, fewer than %(least)s.",
    "Provisional: rated on %(count)s days so far, fewer than %(least)s.",
    days,
  ), { count: formatNumber(days), least: formatNumber(PROVISIONAL_DAYS) });
}

/** The chart's sentence: how many days, the first, the latest and the best number. */
function summary(points) {
  const first = points[0];
  const latest = points[points.length - 1];
  const best = points.reduce((top, point) => (point.rating > top.rating ? point : top), first);
  if (points.length === 1) {
    return fmt(gettext("Rating after %(day)s: %(rating)s."), { day: formatDay(first.date), rating: formatNumber(first.rating) });
  }
  return fmt(ngettext(
    "Rating over %(count)s day: first %(first)s, latest %(latest)s, best %(best)s (%(day)s).",
    "Rating over %(count)s days: first %(first)s, latest %(latest)s, best %(best)s (%(day)s).",
    points.length,
  ), {
    count: formatNumber(points.length), first: formatNumber(first.rating), latest: formatNumber(latest.rating),
    best: formatNumber(best.rating), day: formatDay(best.date),
  });
}

/** Round numbers below and above the ratings for the axis, at least 20 points apart. */
function axis(points) {
  const low = Math.min(...points.map((p) => p.rating));
  const high = Math.max(...points.map((p) => p.rating));
  const step = high - low > 200 ? 100 : high - low > 40 ? 20 : 10;
  let bottom = Math.floor(low / step) * step;
  let top = Math.ceil(high / step) * step;
  if (top - bottom < 2 * step) { bottom -= step; top += step; }
  return { bottom, top };
}

/**
 * The rating's history as a line, oldest on the left, one point a day rated, or null when there
 * are no points. `points`: the history's points (date, rating, uncertainty), oldest first.
 */
export function ratingChart(points) {
  if (!points || !points.length) return null;
  const id = `rating-chart-${++charts}`;
  const text = summary(points);
  const { bottom, top } = axis(points);
  const height = HEIGHT - TOP - BOTTOM;
  const y = (value) => TOP + height - ((value - bottom) / (top - bottom)) * height;
  const span = WIDTH - LEFT - RIGHT;
  const x = (i) => (points.length === 1 ? LEFT + span / 2 : LEFT + (i * span) / (points.length - 1));
  const chart = svg("svg.chart-svg.rating-svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-labelledby": `${id}-title`, focusable: "false",
  }, svg("title", { id: `${id}-title` }, text));
  for (const value of [bottom, (bottom + top) / 2, top]) {
    chart.append(
      svg("line.chart-grid", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(value), y2: y(value) }),
      svg("text.chart-tick", { x: LEFT - 4, y: y(value) + 4, "text-anchor": "end" }, formatNumber(value)),
    );
  }
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)} ${y(p.rating).toFixed(1)}`).join(" ");
  if (points.length > 1) chart.append(svg("path.chart-line", { d: path }));
  points.forEach((p, i) => chart.append(svg("circle.chart-point", {
    cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: points.length > 60 ? 1.5 : 3,
    "data-date": p.date, "data-rating": p.rating,
  })));
  const tickY = HEIGHT - BOTTOM + 14;
  chart.append(svg("text.chart-tick.chart-day", { x: LEFT, y: tickY, "text-anchor": "start" }, formatDay(points[0].date)));
  if (points.length > 1) {
    chart.append(svg("text.chart-tick.chart-day", { x: WIDTH - RIGHT, y: tickY, "text-anchor": "end" }, formatDay(points[points.length - 1].date)));
  }
  return h("figure.chart.rating-chart", {},
    chart,
    h("figcaption.chart-caption", {}, h("span", { dataset: { ratingSummary: "" } }, text)),
    h("details.chart-numbers", {},
      h("summary", {}, gettext("The numbers")),
      h("table.data.chart-table", {},
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, gettext("Day")),
          h("th.num", { scope: "col" }, gettext("Rating")),
          h("th.num", { scope: "col" }, gettext("Uncertainty")))),
        h("tbody", {}, points.slice().reverse().map((p) => h("tr", {},
          h("td", {}, formatDay(p.date)),
          h("td.num", {}, formatNumber(p.rating)),
          h("td.num", {}, `± ${formatNumber(p.uncertainty)}`)))))));
}

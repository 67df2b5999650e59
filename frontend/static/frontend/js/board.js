// Draws a player_view() state: stock, waste, reserve, four foundations, four fanned columns.
// The board decides nothing about legality; `legal` (the server's list of tokens) only marks
// which cards can be picked up and where they may be dropped.
import { backElement, cardElement, cardName, rankName } from "./cards.js";
import { COLUMNS, FOUNDATIONS, parseMoveToken } from "./notation.js";
import { fmt, formatNumber, h, reducedMotion, svgUse } from "./ui.js";

export const COLUMN_IDS = COLUMNS;
export const FOUNDATION_IDS = FOUNDATIONS;
const MIN_CARD_WIDTH = 34; // px: below this a card stops being legible
const MIN_TARGET = 24; // px: the least tap target (WCAG 2.2, 2.5.8)
/** The least offset between fanned cards that still shows each card's rank and suit whole (the
 * corner index fits in the top 28% of a card: site.css, .idx). */
const minFan = (cw) => Math.max(10, Math.ceil(cw * 0.28));
/** "5 cards", in the page's language. */
export function cardCount(n) {
  return fmt(ngettext("%(count)s card", "%(count)s cards", n), { count: formatNumber(n) });
}

const FOUNDATION_NAMES = {
  S: gettext("Spades foundation"),
  H: gettext("Hearts foundation"),
  D: gettext("Diamonds foundation"),
  C: gettext("Clubs foundation"),
};

export function foundationName(suit) {
  return FOUNDATION_NAMES[suit] || gettext("Foundation");
}

export function columnName(n) {
  return fmt(gettext("Column %(n)s"), { n });
}

export function pileName(pile, state) {
  if (pile === "S") return gettext("Stock");
  if (pile === "W") return gettext("Waste");
  if (pile === "R") return gettext("Reserve");
  if (pile.startsWith("T")) return columnName(pile.slice(1));
  const f = state?.foundations?.[Number(pile.slice(1)) - 1];
  return f ? foundationName(f.suit) : fmt(gettext("Foundation %(n)s"), { n: pile.slice(1) });
}

let boards = 0;

export class Board {
  /**
   * @param {HTMLElement} root  the element that receives the board
   * @param {{interactive?: boolean, fit?: boolean}} options  fit: to the window's height (a
   *   board a page is about); else the columns fan out at their ease (a picture in a page)
   */
  constructor(root, { interactive = false, fit = true } = {}) {
    this.root = root;
    this.interactive = interactive;
    this.fit = fit;
    this.state = null;
    /** The keyboard (keys.js), when the board is played by it. */
    this.keys = null;
    this.sources = new Map(); // "R" | "W" | "F1" | "T2:3" -> Set of destinations
    this.uid = `board-${++boards}`; // (a page may draw several boards: ids of their own)
    root.classList.add("board");
    if (interactive) root.classList.add("interactive");
    this._onResize = () => this.state && this.layoutColumns();
    window.addEventListener("resize", this._onResize);
    // Fitted again when the board's top moves (a row above it comes or goes: the first visit's
    // welcome, until it is closed).
    const page = root.closest(".game");
    if (fit && page && typeof ResizeObserver === "function") {
      let top = null;
      new ResizeObserver(() => {
        const now = root.getBoundingClientRect().top + window.scrollY;
        if (!this.state || now === top) return;
        top = now;
        this.layoutColumns();
      }).observe(page);
    }
  }

  /** Renders `state`; animates cards from where they were (FLIP) unless told not to. */
  render(state, { animate = true, from = null } = {}) {
    const before = animate && this.state ? this.cardRects() : null;
    if (before && from) for (const [card, rect] of from) before.set(card, rect);
    const focused = this.focusKey();
    this.state = state;
    this.sources = new Map();
    for (const token of state.legal || []) {
      const move = parseMoveToken(token);
      if (!move) continue;
      const key = move.src.startsWith("T") ? `${move.src}:${move.count}` : move.src;
      if (!this.sources.has(key)) this.sources.set(key, new Set());
      this.sources.get(key).add(move.dst);
    }
    this.root.classList.toggle("draw-1", state.draw === 1);
    this.root.classList.toggle("draw-3", state.draw !== 1);
    this.root.classList.toggle("won", Boolean(state.won));
    // Every pile is named on the board, at every width: each name in a row of its own above its
    // pile (a column grows down), so that a name on two lines never puts piles out of line. The
    // groups' names are their labels; a pile's own label names it already (read once).
    const caption = (area, text) => h(`span.caption.caption-${area}`, { id: `${this.uid}-${area}`, "aria-hidden": "true" }, text);
    this.root.replaceChildren(
      caption("stock", gettext("Stock")),
      caption("waste", gettext("Waste")),
      caption("reserve", gettext("Reserve")),
      caption("foundations", gettext("Foundations")),
      caption("columns", gettext("Columns")),
      h("div.area.area-stock", {}, this.stockPile(state)),
      h("div.area.area-waste", {}, this.wastePile(state)),
      h("div.area.area-reserve", {}, this.reservePile(state)),
      h("div.area.area-foundations", { role: "group", "aria-labelledby": `${this.uid}-foundations` },
        state.foundations.map((f, i) => this.foundationPile(f, i))),
      h("div.area.area-columns", { role: "group", "aria-labelledby": `${this.uid}-columns` },
        state.columns.map((c, i) => this.columnPile(c, i))),
    );
    this.layoutColumns();
    if (this.keys) this.keys.refresh(focused);
    else this.restoreFocus(focused);
    if (before) this.animateFrom(before);
  }

  // ---- piles -------------------------------------------------------------------------------

  stockPile(state) {
    const count = state.stock.count;
    const wasteCount = state.waste.count;
    let label = fmt(gettext("Stock, %(cards)s"), { cards: cardCount(count) });
    // (only a board that is played says what a tap on the stock does; a replay's is a picture)
    if (this.interactive && count) label = fmt(gettext("%(pile)s, draw"), { pile: label });
    else if (this.interactive && wasteCount) label = fmt(gettext("%(pile)s, recycle the waste"), { pile: label });
    const pile = h("div.pile.stock", {
      dataset: { pile: "S" },
      role: this.interactive ? "button" : "img",
      tabIndex: this.interactive ? 0 : -1,
      "aria-label": label,
      "aria-keyshortcuts": this.interactive ? "D" : null, // (keys.js)
    });
    if (count) {
      pile.append(backElement());
      if (count > 1) pile.classList.add("stacked");
    } else {
      pile.append(h("div.slot", {}, wasteCount ? svgUse("icon-recycle", "slot-icon") : null));
    }
    pile.append(h("span.badge", { "aria-hidden": "true" }, formatNumber(count)));
    return pile;
  }

  wastePile(state) {
    const cards = state.waste.cards || [];
    const count = state.waste.count;
    const pile = h("div.pile.waste", { dataset: { pile: "W" } });
    if (!cards.length) pile.append(h("div.slot"));
    if (count > cards.length) pile.classList.add("stacked");
    cards.forEach((card, i) => {
      const el = cardElement(card);
      el.dataset.pile = "W";
      el.dataset.index = String(i);
      el.style.setProperty("--i", i);
      if (i === cards.length - 1) {
        this.makeCardActive(el, "W", fmt(gettext("Waste, %(cards)s, top %(card)s"), { cards: cardCount(count), card: cardName(card) }));
      }
      pile.append(el);
    });
    pile.style.setProperty("--n", cards.length);
    if (count) pile.append(h("span.badge", { "aria-hidden": "true" }, formatNumber(count)));
    return pile;
  }

  reservePile(state) {
    const { top, count } = state.reserve;
    const pile = h("div.pile.reserve", { dataset: { pile: "R" } });
    if (top) {
      const el = cardElement(top);
      el.dataset.pile = "R";
      el.dataset.index = "0";
      this.makeCardActive(el, "R", fmt(gettext("Reserve, %(cards)s, top %(card)s"), { cards: cardCount(count), card: cardName(top) }));
      if (count > 1) pile.classList.add("stacked");
      pile.append(el);
    } else {
      pile.append(h("div.slot", { "aria-hidden": "true" }, h("span.slot-text", { dataset: { text: pgettext("pile", "empty") } })));
      pile.setAttribute("role", "group");
      pile.setAttribute("aria-label", gettext("Reserve, empty"));
    }
    pile.append(h("span.badge", { "aria-hidden": "true", dataset: { testid: "reserve-count" } }, formatNumber(count)));
    return pile;
  }

  foundationPile(f, i) {
    const id = FOUNDATION_IDS[i];
    const cards = f.cards || [];
    const name = foundationName(f.suit);
    const pile = h("div.pile.foundation", {
      dataset: { pile: id, suit: f.suit },
      tabIndex: this.interactive ? 0 : -1,
      role: this.interactive ? "button" : "group", // a place to drop on (keyboard: Enter)
    });
    pile.append(h("div.slot", {},
      svgUse(`suit-${f.suit}`, `slot-suit ${f.suit === "H" || f.suit === "D" ? "red" : "black"}`),
      h("span.slot-rank", { dataset: { rank: f.start === "T" ? "10" : f.start } })));
    if (cards.length) {
      const top = cards[cards.length - 1];
      if (cards.length > 1) {
        const under = cardElement(cards[cards.length - 2]);
        under.classList.add("under");
        pile.append(under);
      }
      const el = cardElement(top);
      el.dataset.pile = id;
      el.dataset.index = String(cards.length - 1);
      if (this.sources.has(id)) el.classList.add("playable");
      pile.append(el);
      if (cards.length === 13) pile.classList.add("complete");
      pile.setAttribute("aria-label", fmt(gettext("%(pile)s, %(cards)s, top %(card)s"), { pile: name, cards: cardCount(cards.length), card: cardName(top) }));
    } else {
      pile.setAttribute("aria-label", fmt(gettext("%(pile)s, empty, starts with the %(rank)s"), { pile: name, rank: rankName(f.start) }));
    }
    // drawn by CSS (content: attr(data-text)): the pile's label says how many cards it holds
    pile.append(h("span.badge.badge-small", { "aria-hidden": "true", dataset: { text: `${cards.length}/13` } }));
    return pile;
  }

  columnPile(cards, i) {
    const id = COLUMN_IDS[i];
    const pile = h("div.pile.column", { dataset: { pile: id } });
    if (!cards.length) {
      pile.append(h("div.slot"));
      pile.tabIndex = this.interactive ? 0 : -1;
      pile.setAttribute("role", this.interactive ? "button" : "group");
      pile.setAttribute("aria-label", fmt(gettext("%(pile)s, empty"), { pile: columnName(i + 1) }));
    }
    cards.forEach((card, index) => {
      const el = cardElement(card);
      el.dataset.pile = id;
      el.dataset.index = String(index);
      const run = cards.length - index;
      const where = run === 1
        ? gettext("last card")
        : fmt(gettext("card %(n)s of %(count)s"), { n: index + 1, count: cards.length });
      this.makeCardActive(el, `${id}:${run}`, fmt(gettext("%(pile)s, %(where)s, %(card)s"), { pile: columnName(i + 1), where, card: cardName(card) }));
      pile.append(el);
    });
    return pile;
  }

  makeCardActive(el, sourceKey, label) {
    el.setAttribute("aria-label", label);
    if (!this.interactive) {
      el.setAttribute("role", "img"); // a picture of a card, named by its label
      return;
    }
    el.tabIndex = 0;
    el.setAttribute("role", "button");
    if (this.sources.has(sourceKey)) el.classList.add("playable");
  }

  // ---- geometry ----------------------------------------------------------------------------

  /**
   * Fits the board to the window: each column's fan shrinks to the room left below the top row,
   * down to a readable minimum (a card's rank and suit stay in view); when even that does not
   * fit, the whole board is scaled down (smaller cards), so that no column runs off the page.
   * On a board that is played, every card a player can tap keeps a strip a finger can hit
   * (MIN_TARGET) while the window has the room: first with every covered card so fanned; when a
   * column is too long for that, with the cards that can move (those a player picks up) fanned so
   * and the others closer, shown as pictures (not controls: a tap on one still says why it
   * cannot move); only when even that cannot fit, with the least fan that shows each card.
   */
  layoutColumns() {
    const area = this.root.querySelector(".area-columns");
    if (!area || !this.root.querySelector(".pile.stock")) return;
    const columns = this.state.columns;
    const movable = columns.map((cards, i) => this.movable(COLUMN_IDS[i], cards.length));
    const moving = movable.map((m) => m.filter(Boolean).length);
    /** What the longest column needs, its covered cards fanned by `fan(cw)`, and with
     * `targets` those that can move by a finger's strip at least. */
    const need = (fan, targets) => (cw, ch) => Math.max(ch, ...columns.map((cards, i) => {
      const covered = Math.max(cards.length - 1, 0);
      const k = targets ? moving[i] : 0;
      return ch + k * Math.max(MIN_TARGET, fan(cw)) + (covered - k) * fan(cw);
    }));
    const roomy = (w) => Math.max(MIN_TARGET, minFan(w));
    this.root.style.removeProperty("--cw");
    const natural = this.cardSize().cw;
    const passes = [[need(roomy, false), Math.max(MIN_CARD_WIDTH, Math.round(natural * 0.85))]];
    if (this.interactive) passes.push([need(minFan, true), MIN_CARD_WIDTH]);
    passes.push([need(minFan, false), MIN_CARD_WIDTH]);
    let cw, ch, room;
    for (const [needs, floor] of passes) {
      this.root.style.removeProperty("--cw");
      ({ cw, ch, room } = this.scaleToFit(area, needs, floor));
      if (needs(cw, ch) <= room) break;
    }
    // Shows a card's rank and corner suit, hides the rest.
    const base = Math.max(MIN_TARGET, Math.round(cw * 0.33));
    const least = Math.min(base, minFan(cw));
    this.root.querySelectorAll(".pile.column").forEach((pile, i) => {
      const cards = [...pile.querySelectorAll(".card")];
      const covered = Math.max(cards.length - 1, 0);
      const free = room - ch;
      const even = covered ? Math.max(Math.min(base, free / covered), least) : base;
      let fans = cards.slice(0, -1).map(() => even);
      let pictures = false;
      const rest = covered - moving[i];
      if (this.interactive && even < MIN_TARGET && rest > 0) {
        const close = Math.min(base, (free - moving[i] * MIN_TARGET) / rest);
        if (close >= least) {
          fans = movable[i].map((can) => (can ? MIN_TARGET : close));
          pictures = true;
        }
      }
      let top = 0;
      cards.forEach((el, j) => {
        el.style.top = `${Math.round(top)}px`;
        if (j < covered) top += fans[j];
        if (this.interactive) el.setAttribute("role", pictures && j < covered && !movable[i][j] ? "img" : "button");
      });
      pile.style.height = `${Math.round(ch + top)}px`;
      pile.dataset.fan = String(Math.min(...fans, base));
    });
  }

  /** For each covered card of column `id` (its `n` cards): whether it can move now (the run
   * from it to the column's end has a legal destination). */
  movable(id, n) {
    return Array.from({ length: Math.max(n - 1, 0) }, (_, j) => this.sources.has(`${id}:${n - j}`));
  }

  /**
   * Scales the board down (its card width, down to `floor`) until the columns' need
   * (`need(cardWidth, cardHeight)`: the longest one's height) fits the room below the top row;
   * returns the sizes it came to.
   */
  scaleToFit(area, need, floor) {
    let { cw, ch } = this.cardSize();
    let room = this.fit ? this.columnRoom(area) : Infinity;
    for (let i = 0; i < 6 && cw > floor; i++) {
      const needed = need(cw, ch);
      if (needed <= room) break;
      // Everything from the board's top edge down scales with the card width.
      const boardTop = this.root.getBoundingClientRect().top;
      const used = area.getBoundingClientRect().top - boardTop + needed;
      const scale = (used - needed + room) / used;
      cw = Math.max(floor, Math.floor(cw * Math.min(scale, 0.97)));
      this.root.style.setProperty("--cw", `${cw}px`);
      ({ cw, ch } = this.cardSize());
      room = this.columnRoom(area);
    }
    return { cw, ch, room };
  }

  cardSize() {
    const sample = this.root.querySelector(".pile.stock");
    return { cw: sample.offsetWidth || 70, ch: sample.offsetHeight || 100 };
  }

  /** Pixels from the columns' top edge down to where the page would start to scroll. */
  columnRoom(area) {
    const main = this.root.closest("main");
    const below = (main ? parseFloat(getComputedStyle(main).paddingBottom) : 0)
      + parseFloat(getComputedStyle(this.root).paddingBottom) + 2;
    return window.innerHeight - (area.getBoundingClientRect().top + window.scrollY) - below;
  }

  cardRects() {
    const rects = new Map();
    for (const el of this.root.querySelectorAll(".card[data-card]:not(.under)")) {
      rects.set(el.dataset.card, el.getBoundingClientRect());
    }
    return rects;
  }

  animateFrom(before) {
    if (reducedMotion()) return;
    for (const el of this.root.querySelectorAll(".card[data-card]:not(.under)")) {
      const old = before.get(el.dataset.card);
      if (!old) continue;
      const now = el.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      el.classList.add("moving");
      const anim = el.animate(
        [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
        { duration: 200, easing: "cubic-bezier(.2,.7,.3,1)" },
      );
      anim.onfinish = anim.oncancel = () => el.classList.remove("moving");
    }
  }

  // ---- lookup ------------------------------------------------------------------------------

  pileElement(pile) {
    return this.root.querySelector(`.pile[data-pile="${pile}"]`);
  }

  /** The destinations the server allows for the run starting at card element `el`. */
  destinationsFor(pile, index) {
    return this.sources.get(this.sourceKey(pile, index)) || new Set();
  }

  sourceKey(pile, index) {
    if (pile.startsWith("T")) {
      const column = this.state.columns[Number(pile.slice(1)) - 1];
      return `${pile}:${column.length - index}`;
    }
    return pile;
  }

  /** How many cards a pick-up at (pile, index) carries. */
  runLength(pile, index) {
    if (pile.startsWith("T")) return this.state.columns[Number(pile.slice(1)) - 1].length - index;
    return 1;
  }

  /** Elements of the cards that move together when (pile, index) is picked up. */
  runElements(pile, index) {
    const els = [...this.root.querySelectorAll(`.card[data-pile="${pile}"]`)];
    if (pile.startsWith("T")) return els.filter((el) => Number(el.dataset.index) >= index);
    return els.slice(-1);
  }

  focusKey() {
    const active = document.activeElement;
    if (!active || !this.root.contains(active)) return null;
    return { pile: active.dataset.pile || active.closest("[data-pile]")?.dataset.pile, card: active.dataset.card, index: active.dataset.index };
  }

  restoreFocus(key) {
    if (!key) return;
    const target =
      (key.card && this.root.querySelector(`.card[data-card="${key.card}"][tabindex="0"]`)) ||
      this.root.querySelector(`.pile[data-pile="${key.pile}"] .card[tabindex="0"]:last-of-type`) ||
      this.root.querySelector(`.pile[data-pile="${key.pile}"][tabindex="0"]`) ||
      this.root.querySelector(`.pile[data-pile="${key.pile}"] [tabindex="0"]`);
    target?.focus({ preventScroll: true });
  }
}

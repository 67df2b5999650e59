// The board by keyboard: one Tab stop per group of piles (the stock, waste and reserve; the
// foundations; the columns) with the arrow keys between piles and cards (a roving tabindex),
// Enter or Space to pick a card up (with those on top of it) and again to put it down on the
// pile in focus — on the card itself, to play it where a tap would — and Escape to put it back;
// D draws (a tap on the stock). A card held shows where it may go (the server's `legal` list,
// as a drag does). The focus moves only when the player moves it: after a move it stays at its
// place (the same pile, the same depth in a column), wherever the card went.
// The board decides nothing: the handlers send what was asked to the server (or the tour).
import { COLUMN_IDS, FOUNDATION_IDS, cardCount } from "./board.js";
import { cardName } from "./cards.js";
import { moveToken } from "./notation.js";
import { fmt } from "./ui.js";

const GROUPS = ["hand", "foundations", "columns"];

const TEXT = {
  picked: (what) => fmt(gettext("Picked up: %(what)s. Go to a pile and press Enter to put it there, or Enter again here to play it as a tap; Escape puts it back."), { what }),
  putBack: gettext("Put back."),
  nothing: gettext("Nothing to pick up here."),
};

/** "T2:1" for the second card of column 2, "F3", "S"...: what a place in the board is. */
function keyOf(el) {
  const pile = el.dataset.pile;
  return pile.startsWith("T") && el.classList.contains("card") ? `${pile}:${el.dataset.index}` : pile;
}

export class BoardKeys {
  /**
   * @param {import("./board.js").Board} board
   * @param {{tap: Function, move: Function, say: Function, enabled?: Function}} handlers
   *   tap(pile, index), move(src, count, dst), say(text, kind): what a key asks for.
   */
  constructor(board, { tap, move, say, enabled = () => true }) {
    this.board = board;
    this.handlers = { tap, move, say, enabled };
    this.current = { hand: "S", foundations: "F1", columns: "T1" };
    this.picked = null; // {pile, index, count, card}
    board.keys = this;
    board.root.addEventListener("keydown", (e) => this.onKey(e));
    board.root.addEventListener("focusin", (e) => {
      const el = e.target.closest("[data-nav-group]");
      if (el) this.remember(el);
    });
  }

  /** The focusable places of each group, in order. */
  items() {
    const root = this.board.root;
    const one = (sel) => root.querySelector(sel);
    const hand = [
      one('.pile[data-pile="S"]'),
      one('.card[data-pile="W"]:last-of-type'),
      one('.card[data-pile="R"]'),
    ].filter(Boolean);
    const foundations = FOUNDATION_IDS.map((id) => one(`.pile[data-pile="${id}"]`)).filter(Boolean);
    const columns = COLUMN_IDS.flatMap((id) => {
      const cards = [...root.querySelectorAll(`.card[data-pile="${id}"]`)];
      return cards.length ? cards : [one(`.pile[data-pile="${id}"]`)];
    }).filter(Boolean);
    return { hand, foundations, columns };
  }

  /** After each drawing of the board: one place per group in the Tab order, the focus kept. */
  refresh(focused) {
    const groups = this.items();
    for (const group of GROUPS) {
      for (const el of groups[group]) {
        el.tabIndex = -1;
        el.dataset.navGroup = group;
      }
      const now = this.find(groups[group], this.current[group]) || groups[group][0];
      if (now) {
        now.tabIndex = 0;
        this.current[group] = keyOf(now);
      }
    }
    if (this.picked) {
      // (the same cards still there: held again; else the position changed under them)
      const els = this.board.runElements(this.picked.pile, this.picked.index);
      if (els.length === this.picked.count && els[0].dataset.card === this.picked.card) this.pick(this.picked);
      else this.pick(null);
    }
    if (focused) {
      // The focus stays at its place, not with a card that moved away (the player moves it).
      const all = GROUPS.flatMap((g) => groups[g]);
      const place = focused.pile?.startsWith("T") && focused.index !== undefined ? `${focused.pile}:${focused.index}` : focused.pile;
      const target = this.find(all, place);
      if (target) {
        this.remember(target);
        target.focus({ preventScroll: true });
      }
    }
  }

  /** The element for a remembered key, or the nearest one of its pile. */
  find(els, key) {
    if (!key) return null;
    const exact = els.find((el) => keyOf(el) === key);
    if (exact) return exact;
    const pile = key.split(":")[0];
    return els.filter((el) => el.dataset.pile === pile).at(-1) || null;
  }

  remember(el) {
    const group = el.dataset.navGroup;
    if (!group) return;
    for (const other of this.board.root.querySelectorAll(`[data-nav-group="${group}"]`)) other.tabIndex = -1;
    el.tabIndex = 0;
    this.current[group] = keyOf(el);
  }

  focus(el) {
    this.remember(el);
    el.focus({ preventScroll: false });
  }

  /** The place in the Tab order of the first group (for a link that skips to the cards). */
  first() {
    return this.board.root.querySelector('[data-nav-group="hand"][tabindex="0"]');
  }

  /** Holds the cards `next` ({pile, index, count, card}) or, with null, none; the piles they
   * may go to are marked, as while dragging. */
  pick(next) {
    for (const el of this.board.root.querySelectorAll(".picked")) el.classList.remove("picked");
    for (const el of this.board.root.querySelectorAll(".drop-ok")) el.classList.remove("drop-ok");
    this.picked = next;
    this.board.root.classList.toggle("picking", Boolean(next));
    if (!next) return;
    for (const el of this.board.runElements(next.pile, next.index)) el.classList.add("picked");
    for (const id of this.board.destinationsFor(next.pile, next.index)) this.board.pileElement(id)?.classList.add("drop-ok");
  }

  /** D: a draw (or the waste turned over), as a tap on the stock; a card held is put back. */
  draw() {
    if (!this.handlers.enabled()) return;
    if (this.picked) this.pick(null);
    this.handlers.tap("S", null);
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const el = e.target.closest?.("[data-nav-group]");
    if (!el || !this.board.root.contains(el)) return;
    const group = el.dataset.navGroup;
    const move = {
      ArrowLeft: "previous", ArrowRight: "next", ArrowUp: "up", ArrowDown: "down", Home: "first", End: "last",
    }[e.key];
    if (move) {
      e.preventDefault();
      const to = this.neighbour(el, group, move);
      if (to) this.focus(to);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      if (!e.repeat) this.activate(el);
    } else if (e.key === "d" || e.key === "D") {
      e.preventDefault();
      if (!e.repeat) this.draw();
    } else if (e.key === "Escape" && this.picked) {
      e.preventDefault();
      e.stopPropagation();
      this.pick(null);
      this.handlers.say(TEXT.putBack);
    }
  }

  neighbour(el, group, move) {
    const els = this.items()[group];
    const i = els.indexOf(el);
    if (group !== "columns") {
      const step = move === "previous" || move === "up" ? -1 : 1;
      if (move === "first") return els[0];
      if (move === "last") return els.at(-1);
      return els[(i + step + els.length) % els.length];
    }
    // Columns: left and right to the next column's last card, up and down along the column.
    const pile = el.dataset.pile;
    const lastOf = (id) => els.filter((x) => x.dataset.pile === id).at(-1);
    const col = COLUMN_IDS.indexOf(pile);
    if (move === "first") return lastOf(COLUMN_IDS[0]);
    if (move === "last") return lastOf(COLUMN_IDS.at(-1));
    if (move === "previous" || move === "next") {
      const step = move === "previous" ? -1 : 1;
      return lastOf(COLUMN_IDS[(col + step + COLUMN_IDS.length) % COLUMN_IDS.length]);
    }
    const same = els.filter((x) => x.dataset.pile === pile);
    const j = same.indexOf(el) + (move === "up" ? -1 : 1);
    return same[Math.max(0, Math.min(j, same.length - 1))];
  }

  activate(el) {
    if (!this.handlers.enabled()) return;
    const pile = el.dataset.pile;
    const index = el.classList.contains("card") ? Number(el.dataset.index) : null;
    const picked = this.picked;
    if (picked) {
      this.pick(null);
      if (pile === picked.pile && (index === picked.index || !pile.startsWith("T"))) {
        this.handlers.tap(pile, pile.startsWith("T") ? index : null); // the card itself: a tap
      } else if (moveToken(picked.pile, picked.count, pile)) { // (a move the notation has)
        this.handlers.move(picked.pile, picked.count, pile);
      } else {
        this.handlers.say(TEXT.putBack);
      }
      return;
    }
    if (pile === "S") {
      this.handlers.tap("S", null);
      return;
    }
    const state = this.board.state;
    let at = index;
    if (pile.startsWith("F")) {
      const cards = state.foundations[Number(pile.slice(1)) - 1].cards;
      at = cards.length ? cards.length - 1 : null;
    }
    if (at === null) {
      this.handlers.say(TEXT.nothing);
      return;
    }
    const count = this.board.runLength(pile, at);
    const card = this.board.runElements(pile, at)[0]?.dataset.card;
    this.pick({ pile, index: at, count, card });
    const what = count > 1 ? fmt(gettext("%(card)s and the cards on it (%(cards)s)"), { card: cardName(card), cards: cardCount(count) }) : cardName(card);
    this.handlers.say(TEXT.picked(what));
  }
}

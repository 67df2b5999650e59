// Pointer events (mouse, pen and touch) on the board: a press that does not travel is a tap;
// a press that travels drags the card and every card on top of it. The drop is only a proposal:
// `onDrop` asks the server and says whether the move was accepted; if not, the cards spring back.
import { COLUMN_IDS, FOUNDATION_IDS } from "./board.js";
import { moveToken } from "./notation.js";
import { reducedMotion } from "./ui.js";

const DRAG_THRESHOLD = 6;
const TARGETS = [...COLUMN_IDS, ...FOUNDATION_IDS];

function overlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const hgt = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && hgt > 0 ? w * hgt : 0;
}

export class DragController {
  /**
   * @param {import("./board.js").Board} board
   * @param {{onTap: Function, onDrop: Function, enabled: Function}} handlers
   *   onTap(pile, index) ; onDrop({src, index, count, dst, ghostRects}) -> Promise<boolean>
   */
  constructor(board, { onTap, onDrop, enabled = () => true }) {
    this.board = board;
    this.onTap = onTap;
    this.onDrop = onDrop;
    this.enabled = enabled;
    this.press = null;
    this.drag = null;
    this.busy = false;
    this.onMove = this.onMove.bind(this);
    this.onUp = this.onUp.bind(this);
    this.onCancel = this.onCancel.bind(this);
    board.root.addEventListener("pointerdown", (e) => this.onDown(e));
    board.root.addEventListener("contextmenu", (e) => {
      if (e.target.closest(".card")) e.preventDefault();
    });
    board.root.addEventListener("dragstart", (e) => e.preventDefault());
  }

  onDown(e) {
    if (this.press || this.drag || this.busy || !this.enabled()) return;
    if (e.pointerType === "mouse" && e.button !== 0) return;
    const cardEl = e.target.closest(".card[data-pile]");
    const pileEl = e.target.closest(".pile[data-pile]");
    if (!pileEl || !this.board.root.contains(pileEl)) return;
    const pile = pileEl.dataset.pile;
    const index = cardEl ? Number(cardEl.dataset.index) : null;
    this.press = { id: e.pointerId, x: e.clientX, y: e.clientY, pile, index, cardEl };
    window.addEventListener("pointermove", this.onMove);
    window.addEventListener("pointerup", this.onUp);
    window.addEventListener("pointercancel", this.onCancel);
  }

  draggable(press) {
    const { pile, cardEl } = press;
    if (!cardEl || pile === "S") return false;
    if (pile === "W") return Number(cardEl.dataset.index) === this.board.state.waste.cards.length - 1;
    return true; // reserve top, foundation top (take-back), any column card with those on top of it
  }

  onMove(e) {
    if (!this.press || e.pointerId !== this.press.id) return;
    if (!this.drag) {
      const dist = Math.hypot(e.clientX - this.press.x, e.clientY - this.press.y);
      if (dist < DRAG_THRESHOLD || !this.draggable(this.press)) return;
      this.startDrag();
    }
    e.preventDefault();
    this.moveGhost(e.clientX - this.press.x, e.clientY - this.press.y);
  }

  startDrag() {
    const { pile, index } = this.press;
    const els = this.board.runElements(pile, index);
    if (!els.length) return;
    const rects = els.map((el) => el.getBoundingClientRect());
    const ghost = document.createElement("div");
    ghost.className = "drag-ghost";
    ghost.style.left = `${rects[0].left}px`;
    ghost.style.top = `${rects[0].top}px`;
    els.forEach((el, i) => {
      const clone = el.cloneNode(true);
      clone.removeAttribute("tabindex");
      clone.removeAttribute("id");
      clone.classList.remove("moving", "playable");
      clone.style.left = `${rects[i].left - rects[0].left}px`;
      clone.style.top = `${rects[i].top - rects[0].top}px`;
      clone.style.width = `${rects[i].width}px`;
      clone.style.height = `${rects[i].height}px`;
      ghost.append(clone);
      el.classList.add("drag-source");
    });
    // Cards are sized by the board's CSS variables; the ghost lives outside it.
    ghost.style.setProperty("--cw", `${rects[0].width}px`);
    ghost.style.setProperty("--ch", `${rects[0].height}px`);
    document.body.append(ghost);
    document.body.classList.add("dragging");
    const allowed = this.board.destinationsFor(pile, index);
    for (const id of allowed) this.board.pileElement(id)?.classList.add("drop-ok");
    this.drag = { els, ghost, origin: rects[0], count: els.length, target: null };
  }

  moveGhost(dx, dy) {
    const { ghost } = this.drag;
    ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    const target = this.findTarget();
    if (target !== this.drag.target) {
      if (this.drag.target) this.board.pileElement(this.drag.target)?.classList.remove("drop-hover");
      if (target) this.board.pileElement(target)?.classList.add("drop-hover");
      this.drag.target = target;
    }
  }

  /** The pile under the dragged card: the one it overlaps most (generous for small screens), of
   * those a move of the dragged cards can go to in the notation (no run onto a foundation). */
  findTarget() {
    const head = this.drag.ghost.firstElementChild.getBoundingClientRect();
    let best = null;
    let bestArea = 0;
    for (const id of TARGETS) {
      if (!moveToken(this.press.pile, this.drag.count, id)) continue;
      const pileEl = this.board.pileElement(id);
      if (!pileEl) continue;
      const r = pileEl.getBoundingClientRect();
      const zone = { left: r.left, right: r.right, top: r.top, bottom: r.bottom + (id.startsWith("T") ? head.height * 0.6 : 0) };
      const area = overlap(head, zone);
      if (area > bestArea) {
        bestArea = area;
        best = id;
      }
    }
    return bestArea > head.width * head.height * 0.08 ? best : null;
  }

  async onUp(e) {
    if (!this.press || e.pointerId !== this.press.id) return;
    const press = this.press;
    const drag = this.drag;
    this.release();
    if (!drag) {
      // A tap: the press ended without travelling.
      this.onTap(press.pile, press.index);
      return;
    }
    this.clearHighlights();
    const dst = drag.target;
    if (!dst) {
      await this.springBack(drag);
      return;
    }
    this.busy = true;
    try {
      const ghostRects = new Map();
      for (const el of drag.ghost.children) ghostRects.set(el.dataset.card, el.getBoundingClientRect());
      const accepted = await this.onDrop({ src: press.pile, index: press.index, count: drag.count, dst, ghostRects });
      if (accepted) this.finish(drag);
      else await this.springBack(drag);
    } finally {
      this.busy = false;
    }
  }

  onCancel(e) {
    if (!this.press || e.pointerId !== this.press.id) return;
    const drag = this.drag;
    this.release();
    if (drag) {
      this.clearHighlights();
      this.springBack(drag);
    }
  }

  release() {
    window.removeEventListener("pointermove", this.onMove);
    window.removeEventListener("pointerup", this.onUp);
    window.removeEventListener("pointercancel", this.onCancel);
    this.press = null;
    this.drag = null;
  }

  clearHighlights() {
    for (const el of this.board.root.querySelectorAll(".drop-ok, .drop-hover")) el.classList.remove("drop-ok", "drop-hover");
  }

  springBack(drag) {
    return new Promise((resolve) => {
      const done = () => {
        this.finish(drag);
        resolve();
      };
      if (reducedMotion()) return done();
      drag.ghost.classList.add("returning");
      const anim = drag.ghost.animate(
        [{ transform: drag.ghost.style.transform || "none" }, { transform: "translate(0, 0)" }],
        { duration: 260, easing: "cubic-bezier(.3,1.4,.5,1)" },
      );
      anim.onfinish = anim.oncancel = done;
    });
  }

  finish(drag) {
    drag.ghost.remove();
    document.body.classList.remove("dragging");
    for (const el of drag.els) el.classList.remove("drag-source");
  }
}

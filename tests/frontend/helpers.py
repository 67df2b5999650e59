"""Reading the rendered board, and acting on it as a person does: clicks, keys, drags."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator, Page, expect

WORKED_EXAMPLE = "CF1-D3-AAAAACL"

READ_BOARD = """() => {
  const cards = (sel) => [...document.querySelectorAll(sel)].map((el) => el.dataset.card);
  const text = (sel) => document.querySelector(sel)?.textContent.trim() ?? null;
  const foundations = {};
  for (const pile of document.querySelectorAll('.pile.foundation')) {
    foundations[pile.dataset.suit] = pile.querySelector('.card[data-pile]')?.dataset.card ?? null;
  }
  return {
    columns: [1, 2, 3, 4].map((i) => cards(`[data-pile="T${i}"] .card[data-card]`)),
    reserve_top: document.querySelector('[data-pile="R"] .card')?.dataset.card ?? null,
    reserve_badge: text('[data-pile="R"] .badge'),
    stock_badge: text('[data-pile="S"] .badge'),
    waste: cards('[data-pile="W"] .card[data-card]'),
    waste_badge: text('[data-pile="W"] .badge'),
    foundations,
    score: text('[data-score]'),
    actions: text('[data-actions]'),
  };
}"""


def read_board(page: Page) -> dict[str, Any]:
    board: dict[str, Any] = page.evaluate(READ_BOARD)
    return board


def settle(page: Page) -> None:
    """Wait until no card is moving (animations, a drag springing back)."""
    page.wait_for_function("() => !document.querySelector('.card.moving, .drag-ghost')")


def wait_actions(page: Page, n: int) -> None:
    expect(page.locator("[data-actions]")).to_have_text(str(n))
    settle(page)


def start_by_code(page: Page, code: str) -> str:
    """From the home page's practice form: start the deal `code`; returns the game's id."""
    form = page.locator("form[data-new-game-form]")
    form.locator("input[name=deal][value=code]").check()
    form.locator("input[name=code]").fill(code)
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/games/*/")
    page.wait_for_selector(".pile.stock")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def card(page: Page, pile: str, index: int | None = None) -> Locator:
    """A card of a pile: `index` counts from the bottom of a column; the top card when None."""
    cards = page.locator(f'.card[data-pile="{pile}"]')
    return cards.last if index is None else cards.nth(index)


def pile(page: Page, pile_id: str) -> Locator:
    return page.locator(f'.pile[data-pile="{pile_id}"]')


def foundation(page: Page, suit: str) -> Locator:
    return page.locator(f'.pile.foundation[data-suit="{suit}"]')


def tap(page: Page, target: Locator) -> None:
    """Click a card on its visible top strip (cards of a column overlap)."""
    target.click(position={"x": 12, "y": 6})


def grip(target: Locator) -> tuple[float, float]:
    """A point on the visible top strip of a card."""
    box = target.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + 7


def centre(target: Locator) -> tuple[float, float]:
    box = target.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + min(box["height"], 120) / 2


def mouse_drag(page: Page, source: Locator, target: Locator) -> None:
    x0, y0 = grip(source)
    x1, y1 = centre(target)
    page.mouse.move(x0, y0)
    page.mouse.down()
    steps = 12
    for i in range(1, steps + 1):
        page.mouse.move(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
    page.mouse.up()


def touch_drag(page: Page, source: Locator, target: Locator) -> None:
    """A finger drag: raw touch events through the DevTools protocol (the context needs
    has_touch), which Chromium turns into pointer events of type "touch"."""
    x0, y0 = grip(source)
    x1, y1 = centre(target)
    cdp = page.context.new_cdp_session(page)
    send = cdp.send
    send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    steps = 10
    for i in range(1, steps + 1):
        point = {"x": x0 + (x1 - x0) * i / steps, "y": y0 + (y1 - y0) * i / steps}
        send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def assert_worked_example_done(page: Page) -> None:
    """The position after R-T2, R-F1, T2:2-T4 on CF1-D3-AAAAACL (RULES.md, worked example)."""
    board = read_board(page)
    assert board["columns"] == [["6C"], ["QS"], ["QH"], ["AS", "KH", "QC"]]
    assert board["reserve_badge"] == "10"
    assert board["reserve_top"] == "JS"
    assert board["foundations"] == {"H": "8H", "S": None, "D": None, "C": None}
    assert board["score"] == "5"
    assert board["stock_badge"] == "34"
    assert board["waste"] == []


def tokens(text: str) -> list[str]:
    """Action tokens written as text, separated by blanks."""
    return text.split()


#: A draw-one deal and a line of play that builds a 20-card column (T3), found with the engine.
LONG_COLUMN_CODE = "CF1-D1-EEEEEEE"
LONG_COLUMN_LINE = tokens(
    """
    T4-T1 D D D D D D D D D W-T4 T1:2-T4 T2-T4 D D D D D D D W-T4 F1-T4 T1-T2 D D D D D D D D D
    W-T2 D D D D D D D D D C D D D D D D W-T4 W-F4 D D D D D D D D W-T2 T4:8-T2 T2:12-T4 R-F3 D
    D W-F3 T3-F3 T1-T3 D D D D D W-T3 D D D W-T4 D D W-T4 R-F4 D D D D D C D D D D D W-T4 D D D
    D D W-T1 R-T1 T3:3-T1 D D D W-T1 D D D W-T4 T3-T1 F3-T1 F4-T1 F4-T3 W-T3 T4:17-T3
    """
)

PAGE_FITS = """() => {
  const doc = document.documentElement;
  return { scroll_height: doc.scrollHeight, height: window.innerHeight,
           scroll_width: doc.scrollWidth, width: window.innerWidth };
}"""


def play_line(player: Any, code: str, line: list[str]) -> int:
    """Starts a practice game of `code` through the API and plays `line`; returns its id."""
    game = player.api("POST", "/api/games/", {"code": code})
    for ply, token in enumerate(line):
        player.api("POST", f"/api/games/{game['id']}/actions/", {"ply": ply, "action": token})
    return int(game["id"])


def assert_no_page_scroll(page: Page) -> None:
    size = page.evaluate(PAGE_FITS)
    assert size["scroll_height"] <= size["height"], size
    assert size["scroll_width"] <= size["width"], size


#: A draw-one deal and a line (a solver's win, then cards taken back from the foundations) to a
#: position with the stock, waste and reserve empty and every column in order: 14 cards to finish.
FINISH_CODE = "CF1-D1-CZPWVII"
FINISH_LINE = tokens(
    """
    T3-T2 T4-T1 D D D D D D D D D W-T2 D W-T2 T3-T2 D D D D D D D D D W-T4 D W-T2 T1:2-T2 R-T4
    R-F3 D D D D D D D D W-F2 T1-F2 T2-F2 D D D D W-T4 D D C D W-T3 D D D D W-F3 T1-F3 R-F4
    T2-F3 D D D D D D D D W-F4 D D W-F2 D D D W-F2 D W-T3 T1-T3 R-F1 R-F3 W-F1 W-F1 R-T1 D D D
    W-F1 D D W-F4 D W-F2 T4-F2 W-T3 T2:6-T1 W-T2 W-F4 T1-F4 T1-F1 T3-F1 T4-F1 T1:6-T2 T3-T1
    T3-F1 D D D C D D W-F3 D W-F2 W-T3 D D D D W-F4 T2-F4 T1-F4 T4-F4 D W-F4 W-T1 W-T1 T2:2-T4
    T2-F1 T2-F4 D W-F4 D W-F4 D W-F1 W-F1 D W-F1 D D W-F3 T4-F3 T3-F3 T4-F2 T3-F2 W-F2 F2-T2
    F2-T3 F3-T3 F2-T4 F2-T3 F3-T4 F2-T4 F3-T3
    """
)


#: WCAG 2.2's "Target size (minimum)" (2.5.8), measured in the page: see `small_targets`.
SMALL_TARGETS = """(least) => {
  const selector = [
    "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary",
    "[role=button]", "[role=link]", "[role=checkbox]", "[role=radio]", "[role=tab]",
    "[role=menuitem]", "[tabindex]:not([tabindex='-1'])",
  ].join(", ");
  const describe = (el, r) => {
    const classes = typeof el.className === "string" ? el.className.trim().split(/\\s+/) : [];
    const name = [el.tagName.toLowerCase(), ...classes.filter(Boolean)].join(".");
    const label = (el.getAttribute("aria-label") || el.textContent || el.value || "")
      .trim().replace(/\\s+/g, " ").slice(0, 40);
    return `${name} "${label}" ${Math.round(r.width)}×${Math.round(r.height)}`;
  };
  const shown = (el) => {
    if (el.closest("dialog:not([open]), [hidden], [inert]")) return false;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible" || style.display === "none") return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return false; // read to screen readers only
    // off the page until it has the focus (a skip link)
    return r.right + window.scrollX > 0 && r.bottom + window.scrollY > 0;
  };
  // A control inside its label is one target with it: the label is what a finger hits.
  const targets = [...new Set([...document.querySelectorAll(selector)]
    .map((el) => (el.matches("input, select, textarea") && el.closest("label")) || el)
    .filter(shown))];
  // What a finger can hit of each: its box less the part of it that a target after it in the
  // page (drawn over it: a card fanned over the one below) covers from its bottom or its right.
  const related = (a, b) => a.contains(b) || b.contains(a);
  const boxes = targets.map((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
  targets.forEach((el, i) => {
    const box = boxes[i];
    targets.forEach((other, j) => {
      if (j <= i || related(el, other)) return;
      if (!(el.compareDocumentPosition(other) & Node.DOCUMENT_POSITION_FOLLOWING)) return;
      const o = other.getBoundingClientRect();
      const spansX = o.left <= box.left + 1 && o.right >= box.right - 1;
      const spansY = o.top <= box.top + 1 && o.bottom >= box.bottom - 1;
      const fromBelow = o.top > box.top && o.top < box.bottom && o.bottom >= box.bottom - 1;
      const fromRight = o.left > box.left && o.left < box.right && o.right >= box.right - 1;
      if (spansX && fromBelow) box.bottom = o.top;
      else if (spansY && fromRight) box.right = o.left;
    });
  });
  const size = (b) => ({ width: b.right - b.left, height: b.bottom - b.top });
  const small = boxes.map((b) => size(b).width < least - 0.5 || size(b).height < least - 0.5);
  const centre = (b) => ({ x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 });
  const distanceTo = (p, b) => Math.hypot(
    Math.max(b.left - p.x, 0, p.x - b.right), Math.max(b.top - p.y, 0, p.y - b.bottom));
  // The exceptions: a link in a sentence (its size is the text's), and spacing (a circle of
  // `least` px across on a small target's centre meets no other target, nor the circle of
  // another small one).
  const inSentence = (el) => el.tagName === "A" && [...(el.parentElement?.childNodes || [])]
    .some((n) => n !== el && n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  const offending = [];
  targets.forEach((el, i) => {
    if (!small[i] || inSentence(el)) return;
    const c = centre(boxes[i]);
    const crowded = targets.some((other, j) => {
      if (j === i || related(el, other)) return false;
      if (distanceTo(c, boxes[j]) < least / 2) return true;
      if (!small[j]) return false;
      const d = centre(boxes[j]);
      return Math.hypot(c.x - d.x, c.y - d.y) < least;
    });
    if (crowded) offending.push(describe(el, size(boxes[i])));
  });
  // The layout measured: every target's box, to tell a page that still moves from one that holds.
  const layout = targets.map((el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height].map(Math.round).join(",");
  }).join(" ");
  return { offending, layout };
}"""

#: How often, and how many times at most, the layout is read until it holds still.
SETTLE_EVERY_MS = 250
SETTLE_READINGS = 40


def small_targets(page: Page, least: int = 24) -> list[str]:
    """The page's tap targets smaller than `least` × `least` CSS px that WCAG 2.2's "Target size
    (minimum)" (2.5.8) does not excuse, described ("button.icon-button "Copy" 20×20"): every link,
    button, form control (in its label: the label is the target), summary and focusable element
    shown, measured by what of it a finger can hit (a card fanned over another hides the one
    below it, but for its top strip). Excused, as WCAG allows: a link within a sentence, and a
    small target whose circle of `least` px across, on its centre, meets no other target nor
    another small target's circle. An empty list: every target is large enough.

    The page is measured once its layout holds still (the same boxes in two readings a quarter
    of a second apart), as a finger meets it: a page that is still drawing what it fetched (a
    busy machine's replay, its list not yet in place) may overlap for a moment. A page that never
    holds still is measured as it is at the last reading."""
    reading = page.evaluate(SMALL_TARGETS, least)
    for _ in range(SETTLE_READINGS):
        page.wait_for_timeout(SETTLE_EVERY_MS)
        previous, reading = reading, page.evaluate(SMALL_TARGETS, least)
        if reading["layout"] == previous["layout"]:
            break
    offending: list[str] = reading["offending"]
    return offending

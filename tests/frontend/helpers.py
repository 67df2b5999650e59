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

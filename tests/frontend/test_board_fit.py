"""The board on a phone and on a desktop, in each language: every pile named on screen above it;
a message area of fixed height (a refusal of three or four lines on a phone moves and resizes
nothing: the board's box and a card's size are measured before, during and after it); the rules'
tour step and its board on one 360×740 screen; no tap target under 24 × 24 px (WCAG 2.2, 2.5.8)
on the game page, the homes and the rules; while a card is dragged, the piles it may go to are
outlined more strongly than the pile under it that may not take it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import PHONE, SIZES, STEP_TIMEOUT_MS
from .helpers import (
    WORKED_EXAMPLE,
    card,
    centre,
    grip,
    pile,
    play_line,
    settle,
    small_targets,
    tap,
    wait_actions,
)

LANGUAGES = ("en", "tr", "fi", "sq")

#: The piles' names as each language's catalog has them (locale/*/LC_MESSAGES/djangojs.po).
PILE_NAMES = {
    "en": ["Stock", "Waste", "Reserve", "Foundations", "Columns"],
    "tr": ["Çekme destesi", "Atık yığını", "Yedek deste", "Temel yığınlar", "Sütunlar"],
    "fi": ["Nostopakka", "Hylkypino", "Varanto", "Perustukset", "Sarakkeet"],
    "sq": ["Grumbulli i tërheqjes", "Grumbulli i hedhjes", "Rezerva", "Themelet", "Kolonat"],
}

#: Each pile's name on the board: its words, whether it is drawn whole in the window (no word out
#: of its box), and where it is against what it names (the pile, or the group's piles).
PILE_CAPTIONS = """() => {
  const named = { stock: ".pile.stock", waste: ".pile.waste", reserve: ".pile.reserve",
                  foundations: ".area-foundations", columns: ".area-columns" };
  return Object.entries(named).map(([area, selector]) => {
    const caption = document.querySelector(`[data-board] .caption-${area}`);
    const target = document.querySelector(`[data-board] ${selector}`).getBoundingClientRect();
    const box = caption.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(caption);
    const overflows = [...range.getClientRects()].some((r) =>
      r.left < box.left - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1);
    const style = getComputedStyle(caption);
    return {
      text: caption.textContent,
      shown: style.visibility === "visible" && style.display !== "none" && box.width > 0
        && box.left >= 0 && box.right <= window.innerWidth && !overflows,
      above: box.bottom <= target.top + 1,
      beside: box.left < target.right && box.right > target.left,
    };
  });
}"""

#: The board's box, a card's size, and the message: its lines, and whether it fits its box.
GEOMETRY = """() => {
  const rect = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 10) / 10);
  };
  const area = document.querySelector("[data-messages]");
  const text = area.querySelector("[data-message-text]");
  const line = parseFloat(getComputedStyle(text).lineHeight);
  return {
    board: rect(document.querySelector("[data-board]")),
    stock: rect(document.querySelector(".pile.stock")).slice(2),
    card: rect(document.querySelector('.card[data-pile="T1"]')).slice(2),
    area: rect(area),
    lines: Math.round(text.getBoundingClientRect().height / line),
    message_fits: area.scrollHeight <= area.clientHeight + 1,
  };
}"""


def choose_language(page: Page, base: str, language: str) -> None:
    """The page's language, by its cookie (after a sign-up, which sets the account's)."""
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base}])


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_pile_is_named_and_a_message_never_moves_the_board(
    new_player: Any, daphne_server: str, artifacts: Path, language: str
) -> None:
    alice = new_player(has_touch=True)
    choose_language(alice.page, daphne_server, language)
    alice.context.add_init_script("localStorage.setItem('canfield.rulesSeen', '1')")
    for size, viewport in SIZES.items():
        page = alice.page
        page.set_viewport_size(viewport)
        page = alice.goto(f"/games/{play_line(alice, WORKED_EXAMPLE, [])}/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        page.wait_for_selector(".pile.stock")
        page.evaluate("document.fonts.ready")

        captions = page.evaluate(PILE_CAPTIONS)
        assert [c["text"] for c in captions] == PILE_NAMES[language], size
        for caption in captions:
            assert caption["shown"] and caption["above"] and caption["beside"], (size, caption)

        before = page.evaluate(GEOMETRY)
        tap(page, card(page, "T1"))  # the six of clubs cannot move: why, in three lines or four
        expect(page.locator("[data-messages]")).to_have_attribute("data-kind", "refused")
        during = page.evaluate(GEOMETRY)
        page.screenshot(path=str(artifacts / f"board-message-{size}-{language}.png"))
        page.keyboard.press("d")  # a draw: the message goes (it was about the position before)
        wait_actions(page, 1)
        expect(page.locator("[data-message-text]")).to_have_text("")
        after = page.evaluate(GEOMETRY)

        if size == "phone":
            assert during["lines"] >= 3, during
        assert during["message_fits"], during
        for key in ("board", "stock", "card", "area"):
            assert before[key] == during[key] == after[key], (size, key, before, during, after)
    assert alice.errors == []


#: The tour's step in play and its board, against the window below the sticky header.
TOUR_GEOMETRY = """() => {
  const header = document.querySelector(".topbar").getBoundingClientRect();
  const step = document.querySelector("[data-tour-steps] li.current").getBoundingClientRect();
  const board = document.querySelector("[data-tour-board]").getBoundingClientRect();
  return { header: header.bottom, step_top: step.top, board_bottom: board.bottom,
           height: window.innerHeight };
}"""


def test_the_tours_step_and_its_board_fit_one_phone_screen(
    browser: Browser, daphne_server: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport=PHONE, base_url=daphne_server, has_touch=True)
    context.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        for language in LANGUAGES:
            choose_language(page, daphne_server, language)
            page.goto("about:blank")  # (a load, not a jump to the same page's #tour)
            page.goto("/how-to-play/#tour")
            page.wait_for_selector(".tour-board .pile.stock")
            page.evaluate("document.fonts.ready")
            items = page.locator("[data-tour-steps] li")
            for step in range(4):
                expect(page.locator("[data-tour-steps] li.current")).to_have_count(1)
                fit = page.evaluate(TOUR_GEOMETRY)
                assert fit["step_top"] >= fit["header"] - 0.5, (language, step, fit)
                assert fit["board_bottom"] <= fit["height"], (language, step, fit)
                if step == 0:
                    page.screenshot(path=str(artifacts / f"tour-phone-{language}.png"))
                # (as a player sees it: the last step's cards have landed — a card still in
                # flight lies over the one a step marks)
                expect(page.locator(".tour-board .card.moving")).to_have_count(0)
                marked = page.locator(".tour-board .hint-source").first
                # What the step asks for: a card near its top-left corner (the part a covered
                # card shows); the stock in its middle, where a player taps it.
                is_stock = "stock" in (marked.get_attribute("class") or "")
                marked.tap(position=None if is_stock else {"x": 12, "y": 6})
                if step < 3:  # the next step, checked where the page is: no scroll in between
                    # (by its item: the progress "Step 3 of 4" holds a 4 before step 4 is due)
                    expect(items.nth(step + 1)).to_have_class(re.compile(r"\bcurrent\b"))
            expect(page.locator("[data-tour-done]")).to_be_visible()
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("size", SIZES)
def test_no_tap_target_is_under_24_px(
    browser: Browser, new_player: Any, daphne_server: str, size: str
) -> None:
    offending: dict[str, list[str]] = {}
    visitor = browser.new_context(viewport=SIZES[size], base_url=daphne_server)
    try:
        page = visitor.new_page()
        for path, ready in (("/", ".pile.stock"), ("/how-to-play/", ".tour-board .pile.stock")):
            page.goto(path)
            page.wait_for_selector(ready)
            offending[f"{path} (visitor)"] = small_targets(page)
    finally:
        visitor.close()

    alice = new_player(viewport=SIZES[size])
    page = alice.goto("/")
    expect(page.locator("[data-daily-body] .button").first).to_be_visible()
    offending["/ (player)"] = small_targets(page)
    # The day's countdown keeps its numbers with their units: never a lone "min" on a line.
    countdown = page.locator("[data-daily-date] .ends-in")
    expect(countdown).to_have_text(re.compile(r"\d+ min$"))
    assert countdown.evaluate("(e) => e.getClientRects().length") == 1
    # A game on its way: three cards in a column, the waste spread, a foundation begun.
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2", "R-F1", "T2:2-T4", "D"])
    page = alice.goto(f"/games/{game_id}/")
    expect(page.locator('.card[data-pile="T4"]')).to_have_count(3)
    offending["game"] = small_targets(page)
    assert offending == {key: [] for key in offending}
    assert alice.errors == []


#: The outline a pile shows while a card is dragged (its ::after): its border's width and style.
OUTLINE = """(id) => {
  const style = getComputedStyle(document.querySelector(`.pile[data-pile="${id}"]`), "::after");
  return { drawn: style.content !== "none", width: parseFloat(style.borderTopWidth) || 0,
           style: style.borderTopStyle };
}"""


def test_while_dragging_the_legal_piles_stand_out_over_the_pile_below(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, [])
    legal = alice.api("GET", f"/api/games/{game_id}/")["state"]["legal"]
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")

    # The queen of clubs, from the reserve, held over the six of clubs (which cannot take it).
    x0, y0 = grip(card(page, "R"))
    x1, y1 = centre(pile(page, "T1"))
    page.mouse.move(x0, y0)
    page.mouse.down()
    for i in range(1, 13):
        page.mouse.move(x0 + (x1 - x0) * i / 12, y0 + (y1 - y0) * i / 12)
    expect(pile(page, "T1")).to_have_class("pile column drop-hover")
    outlined = page.evaluate(
        "() => [...document.querySelectorAll('.pile.drop-ok')].map((el) => el.dataset.pile)"
    )
    assert outlined == sorted(t.split("-")[1] for t in legal if t.startswith("R-")) == ["T2"]
    legal_pile = page.evaluate(OUTLINE, "T2")
    pile_below = page.evaluate(OUTLINE, "T1")
    assert legal_pile["drawn"] and legal_pile["style"] == "solid", legal_pile
    assert legal_pile["width"] > pile_below["width"], (legal_pile, pile_below)

    x2, y2 = centre(pile(page, "T2"))  # over the king of hearts, which takes it: stronger still
    for i in range(1, 7):
        page.mouse.move(x1 + (x2 - x1) * i / 6, y1 + (y2 - y1) * i / 6)
    expect(pile(page, "T2")).to_have_class("pile column drop-ok drop-hover")
    assert page.evaluate(OUTLINE, "T2")["width"] > legal_pile["width"]
    page.mouse.up()
    wait_actions(page, 1)
    settle(page)
    expect(page.locator(".drop-ok, .drop-hover")).to_have_count(0)
    assert alice.errors == []

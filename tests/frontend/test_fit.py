"""The board always fits the window: a 20-card column at 1440×900 and at 360×740 leaves no page
to scroll, every card of it shows its corner whole; at 360×740 every card a player can tap in a
13-card column is a target of 24 px at least, and a message never moves the board; an 11-card
column and longer fit 1440×900 and 1280×800; tables fit a phone's width."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PHONE, SIZES
from .helpers import (
    LONG_COLUMN_CODE,
    LONG_COLUMN_LINE,
    assert_no_page_scroll,
    play_line,
    small_targets,
)

COLUMN_GEOMETRY = """() => {
  const cards = [...document.querySelectorAll('.pile[data-pile="T3"] .card')];
  const boxes = cards.map((el) => el.getBoundingClientRect());
  // Each covered card's rank, its ink down to a Q's tail or a J's foot, ends above the next card:
  // the glyph's own depth below the baseline, as the font measures it.
  const pen = document.createElement("canvas").getContext("2d");
  const inkBottom = (rank) => {
    const style = getComputedStyle(rank);
    pen.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const glyph = getComputedStyle(rank, "::before").content.replaceAll('"', "");
    const m = pen.measureText(glyph);
    const font = m.fontBoundingBoxAscent + m.fontBoundingBoxDescent;
    const top = rank.getBoundingClientRect().top;
    const baseline = top + (parseFloat(style.lineHeight) - font) / 2 + m.fontBoundingBoxAscent;
    return baseline + m.actualBoundingBoxDescent;
  };
  const hidden = cards.slice(0, -1)
    .filter((el, i) => inkBottom(el.querySelector(".idx-rank")) > boxes[i + 1].top + 0.5)
    .map((el) => el.dataset.card);
  return {
    n: cards.length,
    bottom: boxes.at(-1).bottom,
    width: boxes[0].width,
    least_step: Math.min(...boxes.slice(1).map((b, i) => b.top - boxes[i].top)),
    ranks_cut: hidden,
  };
}"""


@pytest.mark.parametrize("size", SIZES)
def test_a_long_column_fits_the_window(new_player: Any, artifacts: Path, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    alice.context.add_init_script(WELCOME_SEEN)
    game_id = play_line(alice, LONG_COLUMN_CODE, LONG_COLUMN_LINE)
    for path in (f"/games/{game_id}/", f"/games/{game_id}/replay/?ply={len(LONG_COLUMN_LINE)}"):
        page = alice.goto(path)
        expect(page.locator('.pile[data-pile="T3"] .card')).to_have_count(20)
        column = page.evaluate(COLUMN_GEOMETRY)
        assert column["bottom"] <= SIZES[size]["height"], column
        # every card's rank and suit stay in view: at least a quarter of a card's width apart
        assert column["least_step"] >= column["width"] * 0.24, column
        assert column["width"] >= 34, column
        assert column["ranks_cut"] == [], column  # (a queen's index once read "O")
        assert_no_page_scroll(page)
        page.screenshot(
            path=str(
                artifacts / f"long-column-{'replay' if 'replay' in path else 'game'}-{size}.png"
            )
        )
    assert alice.errors == []


def test_tables_fit_a_phone(new_player: Any, artifacts: Path) -> None:
    alice = new_player("xyzzy_quokka_bumpy_", viewport=PHONE)
    game_id = play_line(alice, LONG_COLUMN_CODE, LONG_COLUMN_LINE[:3])
    alice.api("POST", f"/api/games/{game_id}/resign/")
    daily = alice.start_daily()
    state = alice.api("GET", f"/api/games/{daily['id']}/")["state"]
    alice.api("POST", f"/api/games/{daily['id']}/actions/", {"ply": 0, "action": state["legal"][0]})
    for path, table in (
        ("/", "[data-recent] table"),
        ("/leaderboard/", "table[data-testid=leaderboard]"),
        (f"/players/{alice.username}/", "[data-history] table"),
    ):
        page = alice.goto(path)
        expect(page.locator(f"{table} tbody tr").first).to_be_visible()
        expect(page.locator(f"{table} .empty-row")).to_have_count(0)
        clipped = page.evaluate(
            """(sel) => {
              const table = document.querySelector(sel);
              const box = table.closest('.panel').getBoundingClientRect();
              const cells = [...table.querySelectorAll('tbody td')];
              return cells
                .map((td) => [td.textContent, td.getBoundingClientRect()])
                .filter(([, r]) => r.width > 0
                  && (r.left < box.left - 0.5 || r.right > box.right + 0.5))
                .map(([text]) => text);
            }""",
            table,
        )
        assert clipped == [], (path, clipped)
        assert_no_page_scroll_x(page)
        page.screenshot(
            path=str(artifacts / f"table-phone-{path.strip('/').split('/')[0] or 'home'}.png"),
            full_page=True,
        )
    assert alice.errors == []


def assert_no_page_scroll_x(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


#: Each card of the columns: its pile, whether it is a control (a button) or a picture, whether
#: it can move now (``playable``), and the strip of it a finger can hit (to the next card's top).
COLUMN_TARGETS = """() => [...document.querySelectorAll("[data-board] .pile.column")]
.flatMap((pile) => {
  const cards = [...pile.querySelectorAll(".card")];
  return cards.map((el, i) => {
    const box = el.getBoundingClientRect();
    const next = cards[i + 1]?.getBoundingClientRect();
    return { pile: pile.dataset.pile, card: el.dataset.card, role: el.getAttribute("role"),
             playable: el.classList.contains("playable"), width: box.width,
             strip: (next ? next.top : box.bottom) - box.top };
  });
})"""

BOARD_TOP = "() => document.querySelector('[data-board]').getBoundingClientRect().top"

#: The first visit's welcome seen and closed before (it stands in a row of its own above the
#: board until it is closed): the board as a player sees it from then on.
WELCOME_SEEN = "localStorage.setItem('canfield.rulesSeen', '1')"


def column_game(player: Any, cards: int) -> int:
    """A practice game whose longest column has ``cards`` cards (12 or 13: the long column's
    line, so far)."""
    return play_line(player, LONG_COLUMN_CODE, LONG_COLUMN_LINE[: {12: 61, 13: 62}[cards]])


def test_on_a_phone_every_card_of_a_13_card_column_a_finger_can_tap_is_24_px(
    new_player: Any, artifacts: Path
) -> None:
    """At 360×740 a 13-card column fits with no page scroll, and every card a player can tap in
    it — every one that can move, and the last — is a strip of at least 24 px (the others, closer,
    are pictures: a tap on one still says why it cannot move), and the page is axe clean. The
    board's top stays where it is with a message and without (the message lies over the figures,
    not above the board)."""
    from .test_accessibility import violations

    alice = new_player(viewport=PHONE, has_touch=True, bypass_csp=True)  # (axe injected)
    alice.context.add_init_script(WELCOME_SEEN)
    for cards in (13, 12):
        page = alice.goto(f"/games/{column_game(alice, cards)}/")
        expect(page.locator(".pile.column .card")).to_have_count(cards + 3)
        columns = page.evaluate(COLUMN_TARGETS)
        taps = [card for card in columns if card["role"] == "button"]
        assert [c for c in taps if c["strip"] < 24 or c["width"] < 24] == [], columns
        assert all(card["role"] == "button" for card in columns if card["playable"]), columns
        assert {card["role"] for card in columns} <= {"button", "img"}
        assert small_targets(page) == []
        assert_no_page_scroll(page)
        page.locator('.pile.column .card[role="img"]').first.focus()  # (as the arrow keys do)
        assert violations(page) == []
    page.screenshot(path=str(artifacts / "long-column-12-phone.png"))

    # No message; then one (a hint's): the board has not moved.
    expect(page.locator("[data-messages]")).not_to_have_class(re.compile("has-message"))
    top = page.evaluate(BOARD_TOP)
    hud = page.locator(".hud").bounding_box()
    page.locator("[data-hint]").click()
    message = page.locator("[data-messages].has-message")
    expect(message).to_be_visible(timeout=30_000)
    assert page.evaluate(BOARD_TOP) == top
    box = message.bounding_box()
    assert hud is not None and box is not None and box["y"] + box["height"] <= top
    assert_no_page_scroll(page)
    page.screenshot(path=str(artifacts / "long-column-12-phone-message.png"))
    assert alice.errors == []


@pytest.mark.parametrize("size", [(1440, 900), (1280, 800)], ids=["1440x900", "1280x800"])
def test_on_a_desktop_an_11_card_column_and_longer_fit_with_no_page_scroll(
    new_player: Any, artifacts: Path, size: tuple[int, int]
) -> None:
    width, height = size
    alice = new_player(viewport={"width": width, "height": height})
    alice.context.add_init_script(WELCOME_SEEN)
    for cards in (12, 13):
        page = alice.goto(f"/games/{column_game(alice, cards)}/")
        expect(page.locator(".pile.column .card")).to_have_count(cards + 3)
        assert_no_page_scroll(page)
        bottom = page.evaluate(
            "() => Math.max(...[...document.querySelectorAll('.pile.column .card')]"
            ".map((el) => el.getBoundingClientRect().bottom))"
        )
        assert bottom <= height
        assert small_targets(page) == []
        page.screenshot(path=str(artifacts / f"long-column-{cards}-{width}x{height}.png"))
    assert alice.errors == []

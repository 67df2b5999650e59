"""The board by keyboard alone: one Tab stop per group of piles (the stock, waste and reserve;
the foundations; the columns), the arrow keys between piles and along a column, Enter or Space
to pick a card up and to put it down (on the same card again: a tap), Escape to put it back and
to close a dialog. The rules' worked example takes 18 key presses from the page's first Tab."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import SIZES
from .helpers import (
    WORKED_EXAMPLE,
    assert_worked_example_done,
    card,
    play_line,
    read_board,
    wait_actions,
)

TAB_STOPS = "() => [...document.querySelectorAll('[data-board] [tabindex=\"0\"]')].length"


class Keys:
    """The keyboard, counting the presses."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def __call__(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)
            self.count += 1


@pytest.mark.parametrize("size", SIZES)
def test_the_worked_example_by_keyboard_alone(new_player: Any, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    game_id = play_line(alice, WORKED_EXAMPLE, [])
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    assert page.evaluate(TAB_STOPS) == 3  # one per group of piles
    press = Keys(page)

    press("Tab")  # the page's first link: "Skip to the cards"
    expect(page.locator(".skip-link")).to_be_focused()
    expect(page.locator(".skip-link")).to_have_text("Skip to the cards")
    press("Enter")
    expect(page.locator('.pile[data-pile="S"]')).to_be_focused()
    press("ArrowRight")  # the reserve (the waste is empty)
    expect(card(page, "R")).to_be_focused()
    press("Enter")  # pick up the queen of clubs
    expect(card(page, "R")).to_have_class(re.compile(r"\bpicked\b"))
    expect(page.locator("[data-message-text]")).to_contain_text("Picked up: queen of clubs.")
    press("Tab", "Tab", "ArrowRight")  # the foundations, the columns, column 2
    expect(card(page, "T2")).to_be_focused()
    press("Enter")  # put it on the king of hearts
    wait_actions(page, 1)

    press("Shift+Tab", "Shift+Tab")  # back to the reserve, where the focus was in its group
    expect(card(page, "R")).to_be_focused()
    press("Enter", "Enter")  # the eight of hearts, picked up and played as a tap: its foundation
    wait_actions(page, 2)

    press("Tab", "Tab")  # the columns: column 2 again, at its king
    expect(card(page, "T2", 0)).to_be_focused()
    press("Enter")  # the king with the queen on it
    expect(page.locator(".card.picked")).to_have_count(2)
    press("ArrowRight", "ArrowRight", "Enter")  # onto the ace of spades in column 4
    wait_actions(page, 3)
    assert_worked_example_done(page)
    assert press.count == 18
    assert page.evaluate(TAB_STOPS) == 3

    # Along a column: up and down; Escape puts a picked card back.
    press("ArrowUp", "ArrowUp")
    expect(card(page, "T4", 0)).to_be_focused()
    press("ArrowDown")
    expect(card(page, "T4", 1)).to_be_focused()
    press("Space")
    expect(page.locator(".card.picked")).to_have_count(2)
    press("Escape")
    expect(page.locator(".card.picked")).to_have_count(0)
    expect(page.locator("[data-message-text]")).to_have_text("Put back.")
    assert alice.errors == []


def test_escape_closes_the_dialogs(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, [])
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    for open_it, dialog in (
        (lambda: page.keyboard.press("n"), "[data-new-game-dialog]"),
        (lambda: page.locator("[data-open-help]").click(), "[data-help-dialog]"),
    ):
        open_it()
        expect(page.locator(dialog)).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.locator(dialog)).to_be_hidden()
    expect(page.locator("[data-help-dialog]")).to_contain_text("Esc")
    assert alice.errors == []


#: How a board card looks: lifted or not, its edge, its outline.
LOOK = """(el) => {
  const style = getComputedStyle(el);
  return { transform: style.transform, shadow: style.boxShadow, outline: style.outlineStyle };
}"""

OUTLINED = "() => [...document.querySelectorAll('.pile.drop-ok')].map((el) => el.dataset.pile)"


def test_a_held_card_looks_held_and_shows_where_it_may_go(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2"])
    legal = alice.api("GET", f"/api/games/{game_id}/")["state"]["legal"]
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # "Skip to the cards": the stock
    page.keyboard.press("ArrowRight")  # the reserve: the eight of hearts, in focus
    reserve = card(page, "R")
    expect(reserve).to_be_focused()
    focused = reserve.evaluate(LOOK)
    assert focused["outline"] == "solid" and focused["transform"] == "none", focused
    assert page.evaluate(OUTLINED) == []

    page.keyboard.press("Enter")  # held: it looks it, and its places are outlined
    expect(reserve).to_have_class(re.compile(r"\bpicked\b"))
    held = reserve.evaluate(LOOK)
    assert held["transform"] != "none" and held["shadow"] != focused["shadow"], (held, focused)
    # the server's legal actions for the reserve's card, and no other pile
    assert sorted(page.evaluate(OUTLINED)) == sorted(
        t.split("-")[1] for t in legal if t.startswith("R-")
    )
    assert page.evaluate(OUTLINED) == ["F1"]
    page.keyboard.press("Escape")
    assert page.evaluate(OUTLINED) == []
    expect(page.locator(".card.picked")).to_have_count(0)

    # Columns: the king of hearts with the queen on it, held: the ace of spades takes them.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowRight")
    expect(card(page, "T2")).to_be_focused()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    expect(page.locator(".card.picked")).to_have_count(2)
    assert page.evaluate(OUTLINED) == ["T4"]
    assert alice.errors == []


def test_the_focus_stays_where_the_player_put_it_and_d_draws(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, [])
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    press = Keys(page)

    press("Tab", "Enter", "ArrowRight")  # the reserve's queen of clubs
    expect(card(page, "R")).to_have_attribute("data-card", "QC")
    press("Enter", "Enter")  # played as a tap: onto the king of hearts in column 2
    wait_actions(page, 1)
    assert read_board(page)["columns"][1] == ["KH", "QC"]
    # The queen went to column 2; the focus stayed at the reserve, on its new top card.
    expect(card(page, "R")).to_be_focused()
    expect(card(page, "R")).to_have_attribute("data-card", "8H")

    press("d")  # D draws, the focus where it was
    wait_actions(page, 2)
    assert len(read_board(page)["waste"]) == 3
    expect(card(page, "R")).to_be_focused()

    page.evaluate("document.activeElement.blur()")
    press("D")  # anywhere on the page; the focus is not taken to the board
    wait_actions(page, 3)
    assert read_board(page)["stock_badge"] == "28"
    assert page.evaluate("document.activeElement === document.body")

    page.locator("[data-open-help]").click()  # the key, in the keyboard's help
    expect(page.locator("[data-help-dialog]")).to_contain_text(
        "draw from the stock; when it is empty, turn the waste over"
    )
    page.keyboard.press("Escape")
    press("d")  # (a dialog open: its keys only; closed again, D draws)
    wait_actions(page, 4)
    expect(page.locator(".pile.stock")).to_have_attribute("aria-keyshortcuts", "D")

    rules = alice.goto("/how-to-play/")
    expect(rules.locator("section[aria-labelledby=keys-title]")).to_contain_text(
        "D draws from the stock, or turns the waste over when the stock is empty."
    )
    assert alice.errors == []

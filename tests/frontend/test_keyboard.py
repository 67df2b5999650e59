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
from .helpers import WORKED_EXAMPLE, assert_worked_example_done, card, play_line, wait_actions

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

"""The game page's messages: one at a time, in a line of their own that never covers the cards,
read out to screen readers; a tap on a card that cannot move shakes it and says why, in the
server's words."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import SIZES
from .helpers import WORKED_EXAMPLE, card, foundation, play_line, read_board, tap

OVERLAP = """() => {
  const area = document.querySelector('[data-messages]').getBoundingClientRect();
  const board = document.querySelector('[data-board]').getBoundingClientRect();
  return area.bottom <= board.top && area.height > 0;
}"""


@pytest.mark.parametrize("size", SIZES)
def test_a_card_that_cannot_move_shakes_and_says_why(new_player: Any, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    page = alice.goto(f"/games/{play_line(alice, WORKED_EXAMPLE, [])}/")
    area = page.locator("[data-messages]")
    text = area.locator("[data-message-text]")
    expect(text).to_have_attribute("role", "status")  # read out when it changes

    tap(page, card(page, "T1"))  # the six of clubs: no foundation, no column takes it
    expect(card(page, "T1")).to_have_class(re.compile(r"\bshake\b"))
    expect(area).to_have_attribute("data-kind", "refused")  # information, not an error
    # Why, as the server refuses the moves the tap stands for (to its foundation, onto a column).
    expect(text).to_have_text(
        "The clubs foundation starts with the seven."
        " The six of clubs cannot go on the king of hearts: a six goes on a seven."
    )
    assert page.evaluate(OVERLAP)  # above the board, never over it
    assert read_board(page)["actions"] == "0"

    foundation(page, "H").click()  # a foundation's cards are dragged, not tapped
    expect(text).to_have_text("A foundation's cards move only by dragging, or with the keyboard.")
    expect(area.locator("[data-message-text]")).to_have_count(1)  # one message at a time

    page.locator("[data-double-click]").uncheck()
    tap(page, card(page, "R"))  # the queen of clubs could go onto the king of hearts
    expect(text).to_have_text(
        "Queen of clubs can go to a column: “Tap or click plays to columns too” is off, so drag"
        " it there."
    )
    assert page.evaluate(OVERLAP)
    assert alice.errors == []

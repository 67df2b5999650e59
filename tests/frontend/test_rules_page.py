"""How to play: linked from the header and from a first visit to a game, its pictures drawn by
the board's own components (the layout is the engine's view of the worked example's deal), and a
tour through that deal's first actions that waits for the right one — by tap, drag or keyboard."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import SIZES
from .helpers import WORKED_EXAMPLE, card, mouse_drag, pile, play_line, settle

PICTURES = """() => ({
  layout: [...document.querySelectorAll('[data-layout-board] .card[data-card]')]
    .map((el) => el.dataset.card),
  row: [...document.querySelectorAll('.card-row .card')].map((el) => el.dataset.card),
  fan: [...document.querySelectorAll('.card-fan .card')].map((el) => el.dataset.card),
  spread: [...document.querySelectorAll('.card-spread .card')].map((el) => el.dataset.card),
})"""


@pytest.mark.parametrize("size", SIZES)
def test_the_rules_page_and_its_tour(new_player: Any, artifacts: Path, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    page = alice.goto(f"/games/{play_line(alice, WORKED_EXAMPLE, [])}/")
    # A first visit to a game points to the rules.
    welcome = page.locator("[data-messages]")
    expect(welcome).to_have_attribute("data-kind", "welcome")
    welcome.get_by_role("link", name="How to play").click()
    page.wait_for_url("**/how-to-play/")
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play Canfield")

    pictures = page.evaluate(PICTURES)
    # the deal's layout as the game page draws it: reserve top, base card, the four columns
    assert pictures["layout"] == ["QC", "7H", "6C", "KH", "QH", "AS"]
    assert pictures["row"][:3] == ["7H", "8H", "9H"] and len(pictures["row"]) == 13
    assert pictures["fan"] == ["AS", "KH", "QC"]
    assert pictures["spread"] == ["9C", "4D", "JS"]
    page.screenshot(path=str(artifacts / f"rules-{size}.png"), full_page=True)

    tour = page.locator("[data-tour]")
    board = page.locator("[data-tour-board]")
    progress = tour.locator("[data-tour-progress]")
    expect(progress).to_have_text("Step 1 of 4")
    card(board, "T1").click()  # not the card the step asks for: nothing moves
    expect(tour.locator("[data-tour-message]")).to_contain_text("Not that one")
    expect(progress).to_have_text("Step 1 of 4")
    expect(card(board, "R")).to_have_class(re.compile(r"\bhint-source\b"))  # the card to play
    card(board, "R").click(position={"x": 12, "y": 6})  # the queen of clubs onto column 2
    expect(progress).to_have_text("Step 2 of 4")
    card(board, "R").focus()  # the eight of hearts, from the keyboard: picked up, played
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(progress).to_have_text("Step 3 of 4")
    pile(board, "T4").scroll_into_view_if_needed()
    settle(page)
    mouse_drag(page, card(board, "T2", 0), pile(board, "T4"))  # the run, dragged
    expect(progress).to_have_text("Step 4 of 4")
    columns = [board.locator(f'.card[data-pile="T{i}"]') for i in range(1, 5)]
    expect(columns[1]).to_have_count(1)  # the reserve filled the emptied column 2
    assert [c.evaluate_all("els => els.map((el) => el.dataset.card)") for c in columns] == [
        ["6C"],
        ["QS"],
        ["QH"],
        ["AS", "KH", "QC"],
    ]
    pile(board, "S").click()
    expect(progress).to_have_text("Done: all four steps.")
    expect(tour.locator("[data-tour-done]")).to_be_visible()
    expect(pile(board, "S")).to_contain_text("31")

    tour.get_by_role("button", name="Play this deal").click()
    page.wait_for_url("**/games/*/")
    expect(page.locator("[data-code]")).to_have_text(WORKED_EXAMPLE)
    expect(page.locator("[data-messages]")).not_to_have_attribute("data-kind", "welcome")

    # The header links to the rules (on a phone, in its menu).
    if size == "phone":
        page.locator("[data-nav-toggle]").click()
    expect(page.locator("[data-nav]").get_by_role("link", name="How to play")).to_be_visible()
    assert alice.errors == []

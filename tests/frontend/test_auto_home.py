"""Cards home by themselves: with the setting on, after the player's move the card the server
names safe (the game's `safe_home`) goes to its foundation as an ordinary logged action — moving
as any move does, with no animation under prefers-reduced-motion — and one that may still be
needed stays; with the setting off (as at first), nothing moves by itself."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.engine.test_auto_home import WON

from .helpers import pile, play_line, tap, wait_actions

CODE = "CF1-D3-AAAAACL"
#: Then a draw turns up the 8 of clubs, safe (both red 7s are home); under it the 9 of clubs,
#: which the 8 of diamonds may still need.
BEFORE_DRAW = WON[:58]

#: Every card element that starts moving, by its card (the board's FLIP animation).
WATCH_MOVING = """() => {
  window.movedCards = [];
  new MutationObserver((changes) => {
    for (const c of changes) {
      if (c.target.classList?.contains("moving")) window.movedCards.push(c.target.dataset.card);
    }
  }).observe(document.querySelector("[data-board]"),
    { attributes: true, attributeFilter: ["class"], subtree: true });
}"""


def tokens_logged(player: Any, game_id: int) -> list[str]:
    record = player.api("GET", f"/api/games/{game_id}/record/")
    return [m["token"] for m in record["moves"]]


def draw_on(page: Page) -> None:
    """The player draws: a tap on the stock."""
    tap(page, pile(page, "S"))


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_with_the_setting_on_a_safe_card_goes_home_as_a_logged_action(
    new_player: Any, motion: str
) -> None:
    alice = new_player(reduced_motion=motion)
    assert WON[58] == "D"
    game_id = play_line(alice, CODE, BEFORE_DRAW)
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    setting = page.get_by_role("checkbox", name="Cards home by themselves")
    expect(setting).not_to_be_checked()  # (off at first)
    setting.check()
    page.evaluate(WATCH_MOVING)

    draw_on(page)
    wait_actions(page, 60)  # the draw, then the 8 of clubs by itself
    assert tokens_logged(alice, game_id)[-2:] == ["D", "W-F4"]
    expect(page.locator('.pile.foundation[data-suit="C"] .card').last).to_have_attribute(
        "data-card", "8C"
    )
    # The 9 of clubs may still be needed: it stays on the waste.
    page.wait_for_timeout(800)
    expect(page.locator("[data-actions]")).to_have_text("60")
    game = alice.api("GET", f"/api/games/{game_id}/")
    assert game["state"]["waste"]["cards"][-1] == "9C" and game["safe_home"] is None
    moved = page.evaluate("window.movedCards")
    if motion == "reduce":
        assert moved == []
    else:
        assert "8C" in moved
    # An undo takes the card back, and it stays back: the player wants it there.
    page.locator("[data-undo]").click()
    wait_actions(page, 61)
    page.wait_for_timeout(800)
    expect(page.locator("[data-actions]")).to_have_text("61")
    assert alice.api("GET", f"/api/games/{game_id}/")["safe_home"] == "W-F4"

    page.reload()  # the setting is remembered
    expect(page.get_by_role("checkbox", name="Cards home by themselves")).to_be_checked()
    assert alice.errors == []


def test_with_the_setting_off_nothing_goes_home_by_itself(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, CODE, BEFORE_DRAW)
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    expect(page.get_by_role("checkbox", name="Cards home by themselves")).not_to_be_checked()
    draw_on(page)
    wait_actions(page, 59)
    page.wait_for_timeout(1000)
    expect(page.locator("[data-actions]")).to_have_text("59")
    assert tokens_logged(alice, game_id)[-1] == "D"
    assert alice.api("GET", f"/api/games/{game_id}/")["safe_home"] == "W-F4"  # (it was safe)
    assert alice.errors == []

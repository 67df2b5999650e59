"""A game opened and never played (no action) is "Not started" in the lists of the player's
games — their page and the home page's recent games — not "In progress" as one being played."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .helpers import WORKED_EXAMPLE, play_line


def test_an_unplayed_game_is_not_started_in_the_lists(new_player: Any) -> None:
    alice = new_player("ungame")
    unplayed = play_line(alice, WORKED_EXAMPLE, [])
    playing = play_line(alice, WORKED_EXAMPLE, ["R-T2"])

    page = alice.goto(f"/players/{alice.username}/")
    rows = page.locator("[data-games] tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator(f'[data-game-id="{unplayed}"] .pill')).to_have_text("Not started")
    expect(page.locator(f'[data-game-id="{playing}"] .pill')).to_have_text("In progress")

    page = alice.goto("/")
    recent = page.locator("[data-recent] tbody tr")
    expect(recent).to_have_count(2)
    expect(recent.locator(".pill")).to_have_text(["In progress", "Not started"])
    assert alice.errors == []

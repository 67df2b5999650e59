"""A player's games on their page (/players/<name>/), in Chromium: another player sees their
finished games with a replay link, filters them and reads none in progress; the player sees theirs
all, a game in progress to play on, and keeps their practice games private with a checkbox, by
keyboard — then the other player sees none, and their replay says there is no such game."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .helpers import WORKED_EXAMPLE, play_line


def rows(page: Any) -> Any:
    return page.locator("[data-games] tbody tr")


def test_a_player_s_games_are_listed_filtered_and_kept_private(new_player: Any) -> None:
    alice, bob = new_player("lista"), new_player("katso")
    finished = play_line(alice, WORKED_EXAMPLE, ["R-T2", "R-F1"])
    alice.api("POST", f"/api/games/{finished}/resign/")
    playing = play_line(alice, WORKED_EXAMPLE, ["R-T2"])

    # Another player: the finished game alone, with its replay.
    page = bob.goto(f"/players/{alice.username}/")
    expect(rows(page)).to_have_count(1)
    row = rows(page).first
    expect(row).to_have_attribute("data-game-id", str(finished))
    expect(row.get_by_role("link", name="Replay")).to_have_attribute(
        "href", f"/games/{finished}/replay/"
    )
    expect(page.locator("[data-games-count]")).to_have_text("1 game")
    assert page.locator("[data-practice-private]").count() == 0  # (not theirs to change)
    page.get_by_label("Result").select_option("won")
    expect(page.locator("[data-games]")).to_have_text("No games to show.")
    assert page.url.endswith("?result=won")  # (kept in the address)
    page.get_by_label("Result").select_option("resigned")
    expect(rows(page)).to_have_count(1)

    # The player: both games, the one in progress to play on; then practice kept private.
    page = alice.goto(f"/players/{alice.username}/")
    expect(rows(page)).to_have_count(2)
    expect(rows(page).first.get_by_role("link", name="Continue")).to_have_attribute(
        "href", f"/games/{playing}/"
    )
    private = page.get_by_label("Keep my practice games private")
    expect(private).to_be_enabled()
    expect(private).not_to_be_checked()
    private.focus()
    page.keyboard.press("Space")
    expect(page.locator("[data-privacy-status]")).to_have_text(
        "Saved: only you see your practice games."
    )
    expect(private).to_be_checked()
    expect(private).to_be_focused()
    page.reload()
    expect(page.get_by_label("Keep my practice games private")).to_be_checked()
    expect(rows(page)).to_have_count(2)

    page = bob.goto(f"/players/{alice.username}/")
    expect(page.locator("[data-games]")).to_have_text("No games to show.")
    page = bob.goto(f"/games/{finished}/replay/")
    expect(page.locator('[data-replay-error="404"]')).to_be_visible()
    assert alice.errors == [] and bob.errors == []

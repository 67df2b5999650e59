"""Following in the browser: the leaderboard's Following view, live (a followed player's move
appears without a reload, a stranger's never), chosen by keyboard; the Follow button of a
player's page, by keyboard; and the home page's list of what the players I follow did today —
results only until my own attempt is over, then a way to watch their games."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect


def test_the_following_view_shows_a_followed_player_s_move_live(
    new_player: Any, artifacts: Path
) -> None:
    alice, bob, carol = new_player("alice"), new_player("bob"), new_player("carol")
    alice.api("POST", f"/api/players/{bob.username}/follow/")

    page = alice.goto("/leaderboard/")
    expect(page.locator("[data-live-state]")).to_have_text("Live")
    everyone = page.locator('[data-board-view] input[value="everyone"]')
    everyone.focus()
    page.keyboard.press("ArrowRight")  # the radio group, by keyboard: Following
    expect(page.locator('[data-board-view] input[value="following"]')).to_be_checked()
    expect(page.locator("[data-board-rank-col]")).to_be_visible()
    expect(page.locator("[data-rows] .empty-row")).to_contain_text("Nobody among you")
    assert page.url.endswith("/leaderboard/?view=following")

    # Bob, whom Alice follows, plays: his row comes in over the day's socket, no reload.
    attempt = bob.start_daily()
    bob.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    row = page.locator(f'[data-rows] tr[data-player="{bob.username}"]')
    expect(row).to_have_count(1, timeout=5000)
    expect(row.locator("td.rank")).to_have_text("1")
    # Beside it, his rank on the whole board — which, for an attempt still open, moves with the
    # clock among the day's other open attempts: a number between 1 and the day's count, as the
    # API gives it too.
    whole = alice.api("GET", f"/api/daily/{attempt['daily_date']}/board/")
    expect(row.locator('[data-col="board-rank"]')).to_have_text(re.compile(r"^\d+$"))
    shown = int(row.locator('[data-col="board-rank"]').inner_text())
    assert 1 <= shown <= whole["count"], (shown, whole["count"])
    assert (
        alice.api("GET", f"/api/daily/{attempt['daily_date']}/board/?following=1")["results"][0][
            "player"
        ]
        == bob.username
    )

    # Carol, whom she does not follow, plays, then Bob again: his second action shows, and
    # Carol never does.
    theirs = carol.start_daily()
    carol.api("POST", f"/api/games/{theirs['id']}/actions/", {"ply": 0, "action": "D"})
    bob.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 1, "action": "D"})
    expect(row.locator('[data-col="actions"]')).to_have_text("2", timeout=5000)
    expect(page.locator(f'tr[data-player="{carol.username}"]')).to_have_count(0)
    page.screenshot(path=str(artifacts / "leaderboard-following.png"))

    # The view is kept in the address: a reload shows it again.
    page.reload()
    expect(page.locator('[data-board-view] input[value="following"]')).to_be_checked()
    expect(page.locator(f'[data-rows] tr[data-player="{bob.username}"]')).to_have_count(1)
    assert alice.errors == []


def test_following_from_a_player_page_shows_their_day_at_home(
    new_player: Any, artifacts: Path
) -> None:
    alice, bob = new_player("alice"), new_player("bob")
    theirs = bob.start_daily()
    bob.api("POST", f"/api/games/{theirs['id']}/actions/", {"ply": 0, "action": "D"})

    # Alice follows Bob from his page, by keyboard; the counts and a screen reader hear of it.
    page = alice.goto(f"/players/{bob.username}/")
    button = page.locator("[data-follow-button]")
    expect(button).to_have_text("Follow")
    expect(page.locator("[data-follow-counts]")).to_have_text("0 followers · follows 0 players")
    button.focus()
    page.keyboard.press("Enter")
    expect(button).to_have_text("Unfollow")
    expect(page.locator("[data-follow-counts]")).to_have_text("1 follower · follows 0 players")
    expect(page.locator("[data-follow-status]")).to_have_text(f"You follow {bob.username}.")

    # At home: Bob's day so far, results only — Alice has not played hers.
    home = alice.goto("/")
    row = home.locator(f'[data-testid="following-today"] tr[data-player="{bob.username}"]')
    expect(row).to_have_count(1)
    expect(row.locator('[data-col="cards"]')).to_have_text("1/52")
    expect(row.get_by_role("link", name="Watch")).to_have_count(0)
    expect(home.locator("[data-results-only]")).to_be_visible()
    home.screenshot(path=str(artifacts / "home-following.png"), full_page=True)

    # Once her own attempt is over, his game is hers to watch.
    mine = alice.start_daily()
    alice.api("POST", f"/api/games/{mine['id']}/resign/")
    home = alice.goto("/")
    watch = row.get_by_role("link", name="Watch")
    expect(watch).to_have_attribute("href", f"/games/{theirs['id']}/replay/")
    expect(home.locator("[data-results-only]")).to_have_count(0)
    assert alice.errors == []

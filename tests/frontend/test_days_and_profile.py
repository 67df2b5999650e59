"""Past days listed on the leaderboard page, a page at a time; the profile's daily and practice
stats, each labelled."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import SIZES
from .helpers import WORKED_EXAMPLE, play_line

CODE = "CF1-D3-AAAAACL"


def add_past_days(database: Path, n: int) -> None:
    """`n` finished days before yesterday, as the server keeps them once dealt and played (counts
    settled); their deal is a CF1 code, as days dealt before the keyed deals kept."""
    today = dt.datetime.now(dt.UTC).date()
    with sqlite3.connect(database) as db:
        db.executemany(
            "INSERT OR IGNORE INTO leaderboard_dailydeal"
            " (date, seq, players, winners, code, outcome, dealing_error)"
            " VALUES (?, 0, 0, 0, ?, 'legacy', '')",
            [((today - dt.timedelta(days=2 + i)).isoformat(), CODE) for i in range(n)],
        )


@pytest.mark.parametrize("size", SIZES)
def test_past_days_are_listed_a_page_at_a_time(
    new_player: Any, server_workdir: Path, artifacts: Path, size: str
) -> None:
    add_past_days(server_workdir / "db.sqlite3", 35)
    alice = new_player(viewport=SIZES[size])
    total = alice.api("GET", "/api/daily/days/")["count"]
    assert total >= 35
    page = alice.goto("/leaderboard/")
    days = page.locator("[data-days] a")
    expect(days).to_have_count(1 + 30)  # today, then the first page of past days
    more = page.locator("[data-more-days]")
    more.click()
    expect(days).to_have_count(1 + min(total, 60))
    if total <= 60:
        expect(more).to_be_hidden()
    oldest = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=36)).isoformat()
    expect(page.locator(f'[data-days] a[href="/leaderboard/{oldest}/"]')).to_have_count(1)
    page.screenshot(path=str(artifacts / f"leaderboard-days-{size}.png"), full_page=True)
    assert alice.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_the_profile_labels_daily_and_practice_stats(
    new_player: Any, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size])
    finished = play_line(alice, WORKED_EXAMPLE, ["R-T2"])
    alice.api("POST", f"/api/games/{finished}/resign/")
    play_line(alice, WORKED_EXAMPLE, ["D"])  # in progress: not counted until it ends
    page = alice.goto(f"/players/{alice.username}/")
    expect(
        page.get_by_role("heading", name="Daily deals ranked, one attempt a day")
    ).to_be_visible()
    expect(page.get_by_role("heading", name="Practice unranked games")).to_be_visible()
    expect(page.locator('[data-practice-stat="played"]')).to_have_text("1")
    expect(page.locator('[data-practice-stat="won"]')).to_have_text("0")
    expect(page.locator('[data-stat="played"]')).to_have_text("0")
    page.screenshot(path=str(artifacts / f"profile-{size}.png"), full_page=True)
    assert alice.errors == []

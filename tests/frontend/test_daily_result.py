"""After the daily: the result card (cards on the foundations, actions, time, the rank now) and a
share text without spoilers, copied to the clipboard; Escape closes the card."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import SIZES


@pytest.mark.parametrize("size", SIZES)
def test_the_daily_result_card_and_its_share_text(
    new_player: Any, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size])
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game = alice.start_daily()
    alice.api("POST", f"/api/games/{game['id']}/actions/", {"ply": 0, "action": "D"})

    page = alice.goto(f"/games/{game['id']}/")
    page.wait_for_selector(".pile.stock")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("[data-resign]").click()

    result = page.locator("[data-result-card]")
    expect(result).to_be_visible()
    over = alice.api("GET", f"/api/games/{game['id']}/")
    board = alice.api("GET", f"/api/daily/{over['daily_date']}/board/")
    rank = f"{board['me']['rank']} of {board['count']}"
    n = over["foundation_cards"]
    outcome = f"{n} card{'' if n == 1 else 's'} on the foundations"  # (the base card counts)
    expect(result.locator("[data-result-outcome]")).to_have_text(outcome)
    expect(result.locator("[data-result-actions]")).to_have_text("1")
    expect(result.locator("[data-result-rank]")).to_have_text(rank)
    expect(result.locator("[data-result-time]")).to_have_text(re.compile(r"^\d+:\d\d$"))
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
    page.screenshot(path=str(artifacts / f"daily-result-{size}.png"))

    result.locator("[data-share]").click()
    expect(result.locator("[data-result-message]")).to_have_text(
        "Result copied: paste it anywhere."
    )
    copied = page.evaluate("navigator.clipboard.readText()")
    time = result.locator("[data-result-time]").inner_text()
    assert copied == (
        f"Canfield Online · daily deal {over['daily_date']}\n"
        f"{outcome} · 1 action · {time}\n"
        f"Rank {rank}\n"
        f"{alice.base}/leaderboard/{over['daily_date']}/"
    )
    assert not re.search(r"\b[A2-9TJQK][SHDC]\b|CF[12]-", copied)  # no card, no deal code

    # Someone places a card (the test server's deal has one to place at once): Alice's rank
    # moves on her card while she looks at it, pushed by the day's live board.
    bob = new_player()
    attempt = bob.start_daily()
    legal = bob.api("GET", f"/api/games/{attempt['id']}/")["state"]["legal"]
    scoring = next(t for t in legal if "-F" in t)
    bob.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": scoring})
    board = alice.api("GET", f"/api/daily/{over['daily_date']}/board/")
    moved = f"{board['me']['rank']} of {board['count']}"
    assert moved != rank
    expect(result.locator("[data-result-rank]")).to_have_text(moved)
    rank = moved

    # Later, the same card from the game page's toolbar.
    page.reload()
    page.locator("[data-open-result]").click()
    expect(result.locator("[data-result-rank]")).to_have_text(rank)
    page.keyboard.press("Escape")  # a dialog: Escape closes it
    expect(result).to_be_hidden()
    expect(page.locator("[data-open-result]")).to_be_focused()
    assert alice.errors == []


def test_a_won_daily_says_so_on_its_card_and_in_its_share_text(
    new_player: Any, server_workdir: Path
) -> None:
    """Today's deal played to a win along the solver's line (as the server stored it): the card
    and the share text say "Won", with the line's length as the actions."""
    alice = new_player()
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game = alice.start_daily()
    with sqlite3.connect(server_workdir / "db.sqlite3") as db:
        (line,) = db.execute(
            "SELECT line FROM leaderboard_dailydeal WHERE date = ?", (game["daily_date"],)
        ).fetchone()
    line = json.loads(line)
    for ply, action in enumerate(line):
        alice.api("POST", f"/api/games/{game['id']}/actions/", {"ply": ply, "action": action})
    over = alice.api("GET", f"/api/games/{game['id']}/")
    assert over["status"] == "won"

    page = alice.goto(f"/games/{game['id']}/")
    page.locator("[data-open-result]").click()
    result = page.locator("[data-result-card]")
    expect(result.locator("[data-result-outcome]")).to_have_text("Won")
    expect(result.locator("[data-result-actions]")).to_have_text(str(len(line)))
    expect(result.locator("[data-result-rank]")).to_have_text(re.compile(r"^\d+ of \d+$"))
    result.locator("[data-share]").click()
    expect(result.locator("[data-result-message]")).not_to_be_empty()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.splitlines()[1].startswith(f"Won · {len(line)} actions · ")
    assert not re.search(r"\b[A2-9TJQK][SHDC]\b|CF[12]-", copied)
    assert alice.errors == []

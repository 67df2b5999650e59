"""The leagues page (/leagues/) in Chromium: my division of this week in order, with who moves up
and down in words; a member's attempt at today's deal moves the table without a reload (today's
provisional points and the order); my last weeks; the page by keyboard, on a phone (no sideways
scroll) and in the four languages (the tier's name); a visitor is asked to log in.

The divisions are written into the session server's database as the worker leaves them: this
week's, with settled points, and a closed past week."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from .conftest import PHONE
from .test_accessibility import violations
from .test_languages import choose_language


def divide(workdir: Path, tier: int, members: list[tuple[str, int]], past: bool = False) -> int:
    """A division of ``tier`` this week with ``members`` (name, settled points; players made as
    needed), written into the server's database as the worker leaves one, and, with ``past``, a
    closed Bronze division of ten weeks before where the first member came 1st and went up.
    Returns its number (one of its own: tests share the server)."""
    number = 100 + uuid.uuid4().int % 900  # (three figures: no grouping in any language)
    today = dt.datetime.now(dt.UTC).date()
    monday = today - dt.timedelta(days=today.weekday())
    before = monday - dt.timedelta(days=70)
    joined = dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(" ")
    with closing(sqlite3.connect(workdir / "db.sqlite3", timeout=30)) as db, db:

        def row(sql: str, *values: object) -> int:
            made = db.execute(sql, values).lastrowid
            assert made is not None
            return made

        def week(day: dt.date, closed: str | None) -> int:
            db.execute(
                "INSERT OR IGNORE INTO leagues_week (monday, closed_at) VALUES (?, ?)",
                (day.isoformat(), closed),
            )
            return row(
                "INSERT INTO leagues_division (week_id, tier, number) VALUES (?, ?, ?)",
                day.isoformat(), tier if closed is None else 0, number,
            )  # fmt: skip

        division = week(monday, None)
        ids = []
        for name, points in members:
            db.execute(
                "INSERT OR IGNORE INTO auth_user (password, is_superuser, username, first_name,"
                " last_name, email, is_staff, is_active, date_joined)"
                " VALUES ('!', 0, ?, '', '', '', 0, 1, ?)",
                (name, joined),
            )
            (player,) = db.execute(
                "SELECT id FROM auth_user WHERE username = ?", (name,)
            ).fetchone()
            ids.append(player)
            membership = row(
                "INSERT INTO leagues_membership (week_id, division_id, player_id, points, days,"
                " best) VALUES (?, ?, ?, 0, 0, 0)",
                monday.isoformat(), division, player,
            )  # fmt: skip
            # (dated today: no settled day of the week is scored again over them meanwhile)
            row(
                "INSERT INTO leagues_daypoints (membership_id, day, points) VALUES (?, ?, ?)",
                membership, today.isoformat(), points,
            )  # fmt: skip
        if past:
            old = week(before, "2026-01-01 00:00:00")
            row(
                "INSERT INTO leagues_membership (week_id, division_id, player_id, points, days,"
                " best, place, movement, tier_after) VALUES (?, ?, ?, 180, 2, 100, 1, 1, 1)",
                before.isoformat(), old, ids[0],
            )  # fmt: skip
    return number


#: The table's rows as shown: [place, player, the zone's words].
READ_TABLE = r"""(rows) => rows.map((r) => [
  r.querySelector("td.rank").textContent,
  r.querySelector("td.player a").textContent,
  r.querySelector("td.zone").textContent.replace(/\s+/g, " ").trim(),
])"""

#: Where the keyboard's focus is: "week" in the list of weeks, a link's text in the table.
FOCUSED = """(() => {
  const el = document.activeElement;
  if (el.closest("[data-league-weeks]")) return "week";
  return el.closest("[data-testid=league-table]") ? el.textContent : "";
})()"""


def table(page: Page) -> list[tuple[str, str, str]]:
    """The table's rows as shown: (place, player, zone's words)."""
    rows = page.eval_on_selector_all('[data-testid="league-table"] tbody tr', READ_TABLE)
    return [(place, player, zone) for place, player, zone in rows]


def test_the_division_is_shown_in_order_and_moves_live(
    new_player: Any, server_workdir: Path, artifacts: Path
) -> None:
    alice, carol = new_player("alice", bypass_csp=True), new_player("carol")  # (axe injected)
    tag = uuid.uuid4().hex[:6]
    top, second, fourth, last = (f"{name}{tag}" for name in ("top", "second", "fourth", "last"))
    # Sapphire, 6 members: a zone of 6 // 3 = 2 up and 2 down.
    number = divide(
        server_workdir,
        3,
        [(top, 300), (second, 250), (alice.username, 200), (fourth, 95), (carol.username, 90),
         (last, 30)],
    )  # fmt: skip

    page = alice.goto("/leagues/")
    expect(page.locator("[data-league-title]")).to_have_text(f"Sapphire · division {number}")
    expect(page.locator("[data-live-state]")).to_have_text("Live")
    up, down = "▲ Moves up", "▼ Moves down"
    assert table(page) == [
        ("1", top, up),
        ("2", second, up),
        ("3", alice.username, ""),
        ("4", fourth, ""),
        ("5", carol.username, down),
        ("6", last, down),
    ]
    mine = page.locator(f'[data-testid="league-table"] tr[data-player="{alice.username}"]')
    expect(mine).to_have_class(re.compile(r"\bme\b"))
    expect(mine.locator('[data-col="today"]')).to_have_text("–")
    expect(page.locator("[data-league-me]")).to_have_text("Your place now: 3 of 6.")
    expect(page.locator("[data-league-weeks] a[aria-current=page]")).to_contain_text("in play")

    # Carol plays today's deal: her 90 and today's 10 to 100 pass the fourth's 95 and stay under
    # my 200, however many play today; her row moves without a reload.
    attempt = carol.start_daily()
    carol.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    row = page.locator(f'[data-testid="league-table"] tr[data-player="{carol.username}"]')
    expect(row.locator("td.rank")).to_have_text("4", timeout=5000)
    today = alice.api("GET", "/api/leagues/current/")
    provisional = next(r["today"] for r in today["rows"] if r["player"] == carol.username)
    assert 10 <= provisional <= 100
    # (today's points follow her place on the whole day's board, which moves as the session's
    # other attempts of today stand against her open one: the page shows them as of its latest
    # frame, the answer above as of its read — each within the formula's bounds, the total hers)
    expect(row.locator('[data-col="today"]')).to_have_text(re.compile(r"^\d+$"))
    shown, total = row.evaluate(
        """(r) => ["today", "total"].map(
            (col) => Number(r.querySelector(`[data-col="${col}"]`).textContent))"""
    )  # (both cells at one moment: a frame changes them together)
    assert 10 <= shown <= 100 and total == 90 + shown
    assert table(page)[3:] == [
        ("4", carol.username, ""),
        ("5", fourth, down),
        ("6", last, down),
    ]
    page.screenshot(path=str(artifacts / "leagues-desktop.png"))
    assert violations(page) == []

    # By keyboard: the players' links and the weeks are reached with Tab from the page's top.
    page.locator("body").focus()
    reached = set()
    for _press in range(40):
        page.keyboard.press("Tab")
        reached.add(page.evaluate(FOCUSED))
        if "week" in reached:
            break
    assert {top, alice.username, carol.username, "week"} <= reached
    assert alice.errors == [] and carol.errors == []


def test_the_page_on_a_phone_in_four_languages_and_last_weeks(
    new_player: Any, browser: Browser, daphne_server: str, server_workdir: Path, artifacts: Path
) -> None:
    dave = new_player("dave", viewport=PHONE, has_touch=True, color_scheme="dark", bypass_csp=True)
    tag = uuid.uuid4().hex[:6]
    # Ruby, 4 members: 1 up, 1 down; dave had a closed Bronze week before, where he went up.
    number = divide(
        server_workdir,
        4,
        [(dave.username, 140), (f"ann{tag}", 150), (f"bob{tag}", 60), (f"cy{tag}", 20)],
        past=True,
    )
    page = dave.goto("/leagues/")
    heading = page.locator("[data-league-title]")
    expect(heading).to_have_text(f"Ruby · division {number}")
    expect(page.locator('[data-testid="league-table"] tbody tr')).to_have_count(4)
    assert [zone for _place, _name, zone in table(page)] == ["▲ Moves up", "", "", "▼ Moves down"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(artifacts / "leagues-phone-dark.png"), full_page=True)
    assert violations(page) == []

    # The last weeks: the closed one shows its final places.
    weeks = page.locator("[data-league-weeks] li")
    expect(weeks).to_have_count(2)
    expect(weeks.nth(1)).to_contain_text("place 1, moved up")
    weeks.nth(1).get_by_role("link").click()
    expect(page.locator("[data-league-me]")).to_have_text("Your final place: 1 of 1.")
    expect(page.locator('[data-testid="league-table"] td.zone')).to_have_text("▲ Moved up")
    expect(page.locator("[data-live-state]")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # The tier's name in each language.
    page = dave.goto("/leagues/")
    for language, tier in (("fi", "Rubiini"), ("sq", "Rubin"), ("tr", "Yakut"), ("en", "Ruby")):
        choose_language(page, language)
        expect(heading).to_have_text(re.compile(rf"^{tier} · "))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert dave.errors == []

    # A visitor is asked to log in or sign up, and brought back.
    visitor = browser.new_context(viewport=PHONE)
    try:
        seen = visitor.new_page()
        seen.goto(f"{daphne_server}/leagues/")
        expect(seen.get_by_role("link", name="Log in").last).to_have_attribute(
            "href", "/login/?next=/leagues/"
        )
        expect(seen.locator("[data-league-body]")).to_have_count(0)
    finally:
        visitor.close()

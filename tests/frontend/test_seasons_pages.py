"""Ratings, milestones and standings on the pages, in Chromium: a player's page shows their
rating (the number, its uncertainty, "provisional" with why), its history as a chart with its
words and its numbers, and their milestones, or says there are none; the leaderboard page's
standings switch between the week, the month, all time and the rating board by mouse and by
keyboard, in the order of the rows set in the database, a page at a time; both pages fit a
phone's width and axe finds nothing serious on them.

The rows are written into the server's SQLite database as the worker writes them. The past days
they belong to (January 2020, March 2021) are far from the days the session's other tests deal,
settle and count, so that no recount of a period drops them while a test reads them."""

from __future__ import annotations

import datetime as dt
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from ratings.models import PROVISIONAL_DAYS

from .conftest import PHONE
from .test_accessibility import at_rest, violations

#: A past day whose week (2021-03-08 to 03-14) and month hold the hand-set standings.
DAY = dt.date(2021, 3, 10)
WEEK = dt.date(2021, 3, 8)
MONTH = dt.date(2021, 3, 1)


def user_id(db: sqlite3.Connection, username: str) -> int:
    row = db.execute("SELECT id FROM auth_user WHERE username = ?", (username,)).fetchone()
    assert row is not None, username
    return int(row[0])


def add_user(db: sqlite3.Connection, username: str) -> int:
    """A player who never signs in (an unusable password), for the tables' other rows."""
    db.execute(
        "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email,"
        " is_staff, is_active, date_joined) VALUES ('!', 0, ?, '', '', '', 0, 1, ?)",
        (username, "2020-01-01 00:00:00"),
    )
    return user_id(db, username)


def add_rating(
    db: sqlite3.Connection, player: int, points: list[tuple[str, int, int]], days: int
) -> None:
    """A rating and its history as the worker stores them, from the numbers shown: a point's
    rating is 1000 + 40 × ordinal and its uncertainty 40 × sigma (docs/ratings.md), so the
    ordinal is (rating − 1000) / 40, sigma uncertainty / 40 and mu ordinal + 3 sigma."""

    def stored(rating: int, uncertainty: int) -> tuple[float, float, float]:
        ordinal, sigma = (rating - 1000) / 40, uncertainty / 40
        return ordinal + 3 * sigma, sigma, ordinal

    for k, (day, rating, uncertainty) in enumerate(points):
        mu, sigma, ordinal = stored(rating, uncertainty)
        db.execute(
            "INSERT INTO ratings_ratingpoint (player_id, day, mu, sigma, ordinal, days)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (player, day, mu, sigma, ordinal, days - len(points) + k + 1),
        )
    day, rating, uncertainty = points[-1]
    mu, sigma, ordinal = stored(rating, uncertainty)
    db.execute(
        "INSERT INTO ratings_rating (player_id, mu, sigma, ordinal, days, last_day)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (player, mu, sigma, ordinal, days, day),
    )


#: Bob's history: first 1130, latest 1240, best 1255 on 2020-01-10.
BOB_POINTS = [
    ("2020-01-06", 1130, 328),
    ("2020-01-07", 1062, 322),
    ("2020-01-08", 1210, 300),
    ("2020-01-09", 1180, 290),
    ("2020-01-10", 1255, 280),
    ("2020-01-11", 1240, 270),
]


def seed_players(database: Path) -> tuple[str, str, str]:
    """Three players of names of their own: one rated on 2 days (provisional), one on 6 with two
    milestones, and one established above them both on the rating board; returns their names."""
    alice, bob, top = (f"{who}{uuid.uuid4().hex[:8]}" for who in ("ra", "rb", "rt"))
    with sqlite3.connect(database) as db:
        add_rating(
            db, add_user(db, alice), [("2020-01-10", 1130, 328), ("2020-01-11", 1062, 322)], 2
        )
        add_rating(db, add_user(db, bob), BOB_POINTS, 6)
        add_rating(db, add_user(db, top), [("2020-01-11", 1600, 100)], 30)
        db.executemany(
            "INSERT INTO leaderboard_milestone (user_id, kind, day) VALUES (?, ?, ?)",
            [
                (user_id(db, bob), "first_win", "2020-01-06"),
                (user_id(db, bob), "streak_7", "2020-01-12"),
            ],
        )
    return alice, bob, top


def standing(
    db: sqlite3.Connection,
    period: str,
    start: dt.date,
    player: int,
    name: str,
    days: int,
    wins: int,
    percentile_sum: int,
    longest: int,
    place: int | None,
) -> None:
    """A row of a period's table, listed at ``place`` (as ``periods.place`` numbers them) or
    not listed (``None``)."""
    db.execute(
        "INSERT INTO leaderboard_periodstanding (period, start, user_id, name, days, wins,"
        " percentile_sum, average, longest_streak, run, run_end, listed, place)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?)",
        (
            period,
            start.isoformat(),
            player,
            name,
            days,
            wins,
            percentile_sum,
            percentile_sum / days,
            longest,
            place is not None,
            place,
        ),
    )


def seed_standings(database: Path, prefix: str) -> None:
    """The week of 2021-03-08 as in docs/standings.md's worked example (bob 77.8, ann 72.2, cat
    83.3 on two days: not listed) and 99 more listed players below them (70.0, 69.9, … 60.2): 101
    rows, two pages. The month: ann 81.0 above bob 75.0. All time: nobody has 30 days.
    The day itself is dealt and settled, and marked counted and rated, so that the worker
    leaves it alone."""
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO leaderboard_dailydeal (date, seq, players, winners, code, outcome,"
            " dealing_error, difficulty_band, settled_at)"
            " VALUES (?, 0, 0, 0, 'CF1-D3-AAAAACL', 'legacy', '', '', ?)",
            (DAY.isoformat(), f"{DAY.isoformat()} 23:59:00"),
        )
        db.execute(
            "INSERT INTO leaderboard_standingsday (day, counted_at) VALUES (?, ?)",
            (DAY.isoformat(), "2021-03-11 00:01:00"),
        )
        db.execute(
            "INSERT INTO ratings_ratedday (day, rated_at, players, matches) VALUES (?, ?, 0, 0)",
            (DAY.isoformat(), "2021-03-11 00:01:00"),
        )
        ann, bob, cat = (add_user(db, f"{prefix}{n}") for n in ("ann", "bob", "cat"))
        standing(db, "week", WEEK, bob, f"{prefix}bob", 3, 1, 2_333_334, 3, 1)
        standing(db, "week", WEEK, ann, f"{prefix}ann", 3, 1, 2_166_667, 3, 2)
        standing(db, "week", WEEK, cat, f"{prefix}cat", 2, 0, 1_666_667, 1, None)
        for i in range(99):
            name = f"{prefix}f{i:03d}"
            standing(
                db, "week", WEEK, add_user(db, name), name, 3, 0, 3 * (700_000 - i * 1000), 2, i + 3
            )
        standing(db, "month", MONTH, bob, f"{prefix}bob", 12, 4, 9_000_000, 8, 2)
        standing(db, "month", MONTH, ann, f"{prefix}ann", 10, 2, 8_100_000, 10, 1)
        db.executemany(
            "INSERT INTO leaderboard_periodtable (period, start, players, listed)"
            " VALUES (?, ?, ?, ?)",
            [("week", WEEK.isoformat(), 102, 101), ("month", MONTH.isoformat(), 2, 2)],
        )


def table_rows(page: Page) -> list[list[str]]:
    rows: list[list[str]] = page.locator("[data-standings-table] tbody tr").evaluate_all(
        "(rows) => rows.map((row) => [...row.cells].map((cell) => cell.textContent.trim()))"
    )
    return rows


def test_the_player_page_shows_the_rating_its_chart_and_the_milestones(
    new_player: Any, server_workdir: Path, artifacts: Path
) -> None:
    carol = new_player("rc", bypass_csp=True)
    alice, bob, _top = seed_players(server_workdir / "db.sqlite3")

    # Bob: established (6 days), his history drawn and told, his two milestones.
    page = carol.goto(f"/players/{bob}/")
    box = page.locator("[data-rating-box]")
    expect(box.locator("[data-rating-number]")).to_have_text("1,240 ± 270")
    expect(box.locator("[data-rating-provisional]")).to_be_hidden()
    expect(box.locator("[data-rating-note]")).to_contain_text("Rated on 6 days.")
    summary = "Rating over 6 days: first 1,130, latest 1,240, best 1,255 (Fri, Jan 10, 2020)."
    chart = box.get_by_role("img", name=summary)
    expect(chart).to_be_visible()
    expect(chart.locator("circle.chart-point")).to_have_count(6)
    expect(box.locator("[data-rating-summary]")).to_have_text(summary)
    numbers = box.locator(".chart-numbers tbody tr")
    expect(numbers).to_have_count(6)  # (in the page for screen readers, under "The numbers")
    expect(numbers.first).to_have_text("Sat, Jan 11, 20201,240± 270")  # newest first
    milestones = page.locator("[data-milestones] li")
    expect(milestones).to_have_count(2)
    expect(milestones.locator(".milestone-title")).to_have_text(["First win", "7 days in a row"])
    expect(milestones.first.locator("time")).to_have_attribute("datetime", "2020-01-06")
    expect(milestones.nth(1).locator("time")).to_have_text("Sun, Jan 12, 2020")
    page.locator("[data-games] table, [data-games] p:not(:has-text('Loading'))").first.wait_for()
    page.wait_for_load_state("networkidle")
    assert violations(page) == []
    page.screenshot(path=str(artifacts / "player-rating-desktop.png"), full_page=True)
    page.emulate_media(color_scheme="dark")  # (the dark theme follows the system's)
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert at_rest(page) == []

    # Alice: provisional (2 days, fewer than PROVISIONAL_DAYS), and no milestones yet.
    page = carol.goto(f"/players/{alice}/")
    expect(box.locator("[data-rating-number]")).to_have_text("1,062 ± 322")
    expect(box.locator("[data-rating-provisional]")).to_have_text("Provisional")
    expect(box.locator("[data-rating-note]")).to_have_text(
        f"Provisional: rated on 2 days so far, fewer than {PROVISIONAL_DAYS}."
    )
    expect(box.get_by_role("img")).to_have_accessible_name(
        "Rating over 2 days: first 1,130, latest 1,062, best 1,130 (Fri, Jan 10, 2020)."
    )
    expect(page.locator("[data-milestones]")).to_have_text(
        "No milestones yet. A first win or 7 days in a row on the daily deal earns one."
    )

    # Carol: never rated, so no rating at all.
    page = carol.goto(f"/players/{carol.username}/")
    expect(page.locator("[data-milestones] p")).to_contain_text("No milestones yet.")
    expect(box).to_be_hidden()
    assert carol.errors == []


def test_the_standings_tabs_switch_by_mouse_and_keyboard(
    new_player: Any, server_workdir: Path, artifacts: Path
) -> None:
    viewer = new_player("sv", bypass_csp=True)
    other, rated, top = seed_players(server_workdir / "db.sqlite3")
    prefix = f"s{viewer.username[-6:]}"
    seed_standings(server_workdir / "db.sqlite3", prefix)

    page = viewer.goto(f"/leaderboard/{DAY.isoformat()}/")
    section = page.locator("[data-standings]")
    tab = lambda name: section.get_by_role("tab", name=name)  # noqa: E731
    expect(tab("Week")).to_have_attribute("aria-selected", "true")
    expect(section.get_by_role("tabpanel")).to_have_accessible_name("Week")
    expect(section.locator("[data-standings-period]")).to_have_text(
        "From Mon, Mar 8, 2021 to Sun, Mar 14, 2021."
    )
    expect(section.locator("[data-standings-minimum]")).to_have_text(
        "Players with at least 3 days played are listed."
    )
    expect(section.locator("[data-standings-table] tbody tr")).to_have_count(100)
    rows = table_rows(page)
    assert rows[:3] == [
        ["1", f"{prefix}bob", "3", "1", "77.8", "3"],
        ["2", f"{prefix}ann", "3", "1", "72.2", "3"],
        ["3", f"{prefix}f000", "3", "0", "70.0", "2"],
    ]
    assert all(row[1] != f"{prefix}cat" for row in rows)  # (two days: not listed)
    expect(section.get_by_role("link", name=f"{prefix}bob")).to_have_attribute(
        "href", f"/players/{prefix}bob/"
    )
    pager = section.locator("[data-standings-pager]")
    expect(pager).to_contain_text("Page 1 of 2")
    pager.get_by_role("button", name="Next →").click()
    expect(pager).to_contain_text("Page 2 of 2")
    assert table_rows(page) == [["101", f"{prefix}f098", "3", "0", "60.2", "2"]]
    expect(pager.get_by_role("button", name="← Better")).to_be_focused()

    # By mouse: the month, where ann leads.
    tab("Month").click()
    expect(tab("Month")).to_have_attribute("aria-selected", "true")
    expect(tab("Week")).to_have_attribute("aria-selected", "false")
    expect(section.locator("[data-standings-minimum]")).to_contain_text("at least 10 days")
    expect(section.locator("[data-standings-table] tbody tr")).to_have_count(2)
    assert table_rows(page) == [
        ["1", f"{prefix}ann", "10", "2", "81.0", "10"],
        ["2", f"{prefix}bob", "12", "4", "75.0", "8"],
    ]
    expect(pager).to_be_hidden()
    assert "standings=month" in page.url

    # By keyboard: the arrow to all time (nobody has 30 days), End to the rating board.
    page.keyboard.press("ArrowRight")
    expect(tab("All time")).to_be_focused()
    expect(tab("All time")).to_have_attribute("aria-selected", "true")
    expect(section.locator("[data-standings-period]")).to_have_text("Every settled day.")
    expect(section.locator("[data-standings-table]")).to_have_text(
        "All time#PlayerDaysWinsAverage percentileLongest streak"
        "Nobody is listed for this period yet."
    )
    page.keyboard.press("End")
    expect(tab("Rating")).to_be_focused()
    expect(section.locator("[data-standings-table] thead")).to_contain_text("Rating")
    expect(section.locator("[data-standings-minimum]")).to_have_text(
        f"Players rated on at least {PROVISIONAL_DAYS} days are listed."
    )
    # (The board is everyone's: the session's other tests may have set players level with these,
    # who share their place.)
    rows = table_rows(page)
    above = sum(1 for row in rows if row[2] == "1,600 ± 100")
    assert ["1", top, "1,600 ± 100", "30"] in rows
    assert [str(1 + above), rated, "1,240 ± 270", "6"] in rows
    assert rows.index(["1", top, "1,600 ± 100", "30"]) < above
    assert all(row[1] != other for row in rows)  # (provisional: not on the board)
    page.wait_for_load_state("networkidle")
    assert violations(page) == []  # (the tabs, the panel and a table, in both themes)
    page.screenshot(path=str(artifacts / "standings-desktop.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert at_rest(page) == []
    tab("Rating").focus()
    page.keyboard.press("Tab")  # (out of the tabs: the selected one alone is in the Tab order)
    expect(section.get_by_role("tabpanel")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(tab("Rating")).to_be_focused()
    page.keyboard.press("Home")
    expect(tab("Week")).to_have_attribute("aria-selected", "true")
    expect(section.locator("[data-standings-table] tbody tr")).to_have_count(100)

    # Today's page keeps the tab asked for in its address.
    page = viewer.goto("/leaderboard/?standings=rating")
    expect(tab("Rating")).to_have_attribute("aria-selected", "true")
    expect(page.locator(f'[data-standings-table] tr[data-player="{top}"]')).to_contain_text("1,600")
    assert viewer.errors == []


def test_the_seasons_sections_fit_a_phone(
    new_player: Any, server_workdir: Path, artifacts: Path
) -> None:
    viewer = new_player("sp", viewport=PHONE, has_touch=True)
    _other, rated, _top = seed_players(server_workdir / "db.sqlite3")
    wide = "document.documentElement.scrollWidth"
    page = viewer.goto(f"/players/{rated}/")
    expect(page.locator(".rating-chart")).to_be_visible()
    expect(page.locator("[data-milestones] li")).to_have_count(2)
    assert page.evaluate(wide) <= PHONE["width"]
    page.screenshot(path=str(artifacts / "player-rating-phone.png"), full_page=True)
    page = viewer.goto("/leaderboard/?standings=rating")
    expect(page.locator("[data-standings-table] tbody tr").first).to_be_visible()
    page.locator("[data-standings] [role=tab]", has_text="Month").tap()
    expect(page.locator("[data-standings] [role=tab]", has_text="Month")).to_have_attribute(
        "aria-selected", "true"
    )
    assert page.evaluate(wide) <= PHONE["width"]
    page.screenshot(path=str(artifacts / "standings-phone.png"), full_page=True)
    assert viewer.errors == []

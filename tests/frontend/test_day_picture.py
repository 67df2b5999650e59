"""The day's difficulty and pictures, drawn by the pages as SVG: a past day's picture on its board
(the bars against the board's rows, my own bar marked, the numbers under the chart), the day's
picture so far on the after-daily result card (counts only), and the profile's chart of the
player's days — at 1440×900 and 360×740, in the light and the dark theme, in the page's language,
under the site's Content-Security-Policy, axe finding nothing serious."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.support import ROOT, django_env

from .conftest import SIZES, yesterday
from .test_accessibility import violations
from .test_languages import check_page

#: A past day of this test's own (no other test reads or changes it): its deal is yesterday's
#: (dealt by the session's server, with a difficulty), its attempts these, settled — the cards on
#: the foundations of each (52: won), mine first.
AGO = 60
RESULTS = [12, 52, 52, 30, 12, 12, 5, 3, 3, 1, 1]

ADD_DAY = """
import datetime as dt, json, sys
from django.contrib.auth.models import User
from django.forms.models import model_to_dict
from games.models import Game
from leaderboard.models import DailyDeal
day, dealt_as, mine = dt.date.fromisoformat(sys.argv[1]), sys.argv[2], sys.argv[3]
results = json.loads(sys.argv[4])
dealt = model_to_dict(DailyDeal.objects.get(date=dealt_as))
dealt.update(date=day, seq=0, players=None, winners=None)
DailyDeal.objects.update_or_create(date=day, defaults=dealt)
Game.objects.filter(kind="daily", daily_date=day).delete()
owners = [User.objects.get(username=mine)] + [
    User.objects.get_or_create(username=f"picture{k}")[0] for k in range(len(results) - 1)
]
end = dt.datetime.combine(day, dt.time(20), tzinfo=dt.UTC)
for owner, cards in zip(owners, results):
    Game.objects.create(
        owner=owner, kind="daily", daily_date=day, code="CF1-D3-AAAAACL",
        status="won" if cards == 52 else "resigned", ply=40 + cards, foundation_cards=cards,
        score=5 * (cards - 1), started_at=end - dt.timedelta(minutes=cards), finished_at=end)
"""


def add_day(workdir: Path, day: dt.date, mine: str, results: list[int]) -> None:
    """``day`` dealt as yesterday was, with attempts of ``results`` cards, the first ``mine``'s
    (the others' players made as needed), written through the server's models."""
    env = django_env(f"sqlite:///{workdir / 'db.sqlite3'}", settings="tests.frontend.live_settings")
    subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{ADD_DAY}", str(day),
         str(yesterday()), mine, json.dumps(results)],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def fill(page: Page, selector: str) -> str:
    """The computed fill of the first element ``selector`` finds."""
    colour: str = page.eval_on_selector(selector, "(el) => getComputedStyle(el).fill")
    return colour


def bars(page: Page, root: str) -> list[dict[str, int]]:
    drawn: list[dict[str, int]] = page.eval_on_selector_all(
        f"{root} rect.chart-bar",
        "(rects) => rects.map((r) => ({cards: +r.dataset.cards, players: +r.dataset.players}))",
    )
    return drawn


def at_both_sizes(page: Page, selector: str, shot: Path) -> None:
    """At 1440×900 and at 360×740: the chart drawn at a size of its own inside the window, and
    nothing of its figure (caption, numbers) past the window's edge; a screenshot at each
    (``shot`` with the size in its name)."""
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        chart = page.locator(selector)
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        assert box is not None and box["width"] > 250 and box["height"] > 100, (size, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (size, box)
        wider = page.eval_on_selector(
            selector,
            """(svg) => [...svg.closest("figure").querySelectorAll("*")]
              .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5)
              .map((el) => el.tagName)""",
        )
        assert wider == [], size
        page.screenshot(path=str(shot).replace("SIZE", size))
    page.set_viewport_size(SIZES["desktop"])


def test_the_days_pictures_and_difficulty(
    new_player: Any, browser: Browser, server_workdir: Path, artifacts: Path
) -> None:
    alice = new_player("pic", viewport=SIZES["desktop"])
    day = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=AGO)
    add_day(server_workdir, day, alice.username, RESULTS)
    page = alice.page
    csp: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            csp.append(f"{page.url}: {message.text}")

    page.on("console", on_console)

    # --- a past day's board: its difficulty, and its picture against its rows --------------------
    board = alice.api("GET", f"/api/daily/{day}/board/")
    picture = alice.api("GET", f"/api/daily/{day}/picture/")
    alice.goto(f"/leaderboard/{day}/")
    chart = "[data-day-picture] svg"
    expect(page.locator(chart)).to_be_visible()
    by_cards = Counter(row["foundation_cards"] for row in board["results"])
    assert bars(page, "[data-day-picture]") == [
        {"cards": c, "players": n} for c, n in sorted(by_cards.items())
    ]
    assert bars(page, "[data-day-picture]") == picture["bars"]
    assert (picture["players"], picture["winners"], board["count"]) == (11, 2, 11)
    # Mine: 12 cards; 3 players placed more (52, 52, 30), 5 fewer (5, 3, 3, 1, 1).
    assert picture["me"] == {"foundation_cards": 12, "won": False, "ahead": 3, "behind": 5}
    mine = page.locator("[data-day-picture] rect.chart-bar.mine")
    expect(mine).to_have_attribute("data-cards", "12")
    expect(mine).to_have_attribute("data-players", "3")
    won = page.locator("[data-day-picture] rect.chart-bar.won")
    expect(won).to_have_attribute("data-players", "2")
    difficulty = board["difficulty"]  # (the day's deal was dealt with one)
    assert difficulty is not None and picture["predicted"] == difficulty
    share = f"{round(difficulty['share'] * 100)}%"
    expect(page.locator("[data-day-difficulty] .pill")).to_have_text(difficulty["label"].title())
    expect(page.locator("[data-day-difficulty]")).to_contain_text(
        f"Simulated players win {share} of their games"
    )
    caption = page.locator("[data-day-picture] figcaption")
    expect(caption).to_contain_text(f"11 players · 2 won (18%) · Simulated players win {share}")
    expect(caption).to_contain_text(f"Par (solver): {board['par']}")
    expect(caption).to_contain_text(
        "You: 12 cards · 3 players placed more cards than you · 5 players placed fewer"
    )
    title = page.locator(f"{chart} title").text_content() or ""
    assert "11 players" in title and "You: 12 cards" in title  # the chart's text alternative
    assert page.get_attribute(chart, "role") == "img"
    numbers = page.locator("[data-day-picture] details")
    numbers.locator("summary").click()
    expect(numbers.locator("tbody tr")).to_have_count(len(picture["bars"]))
    expect(numbers.locator("tbody tr").last).to_have_text(re.compile(r"^\s*52\s*2\s*$"))
    at_both_sizes(page, chart, artifacts / "day-picture-SIZE-light.png")
    light = fill(page, "[data-day-picture] rect.chart-bar:not(.won):not(.mine)")
    page.locator("[data-theme-toggle]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert fill(page, "[data-day-picture] rect.chart-bar:not(.won):not(.mine)") != light
    at_both_sizes(page, chart, artifacts / "day-picture-SIZE-dark.png")

    # --- today's result card: the picture so far, counts only -------------------------------------
    daily = alice.start_daily()
    alice.api("POST", f"/api/games/{daily['id']}/actions/", {"ply": 0, "action": "D"})
    alice.api("POST", f"/api/games/{daily['id']}/resign/")
    so_far = alice.api("GET", f"/api/daily/{daily['daily_date']}/picture/")
    alice.goto(f"/games/{daily['id']}/")
    page.locator("[data-open-result]").click()
    card_chart = "[data-result-picture] svg"
    expect(page.locator(card_chart)).to_be_visible()
    assert bars(page, "[data-result-picture]") == so_far["bars"]
    assert so_far["me"]["foundation_cards"] == 1 and so_far["par"] is None
    text = page.locator("[data-result-picture]").inner_text()
    assert not re.search(r"\b[A2-9TJQK][SHDC]\b|CF[12]-", text)  # no card, no deal code
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
    at_both_sizes(page, card_chart, artifacts / "result-picture-SIZE.png")

    # --- the profile: my daily results by day, the wins marked ---------------------------------
    history = alice.api("GET", f"/api/players/{alice.username}/")["history"]
    alice.goto(f"/players/{alice.username}/")
    days = "[data-days-chart] svg"
    expect(page.locator(days)).to_be_visible()
    drawn = page.eval_on_selector_all(
        "[data-days-chart] rect.chart-bar",
        "(rects) => rects.map((r) => [r.dataset.date, +r.dataset.cards])",
    )
    assert drawn == sorted([row["date"], row["foundation_cards"]] for row in history)
    at_both_sizes(page, days, artifacts / "profile-days-SIZE.png")
    assert csp == []
    assert alice.errors == []

    # --- axe (its script injected past the CSP): the day's page and the profile in the light
    # theme at 1440×900, the day's page in the dark one at 360×740; the day's page in Finnish ---
    found = {}
    runs: list[tuple[Literal["light", "dark"], str, list[tuple[str, str]]]] = [
        (
            "light",
            "desktop",
            [(f"/leaderboard/{day}/", chart), (f"/players/{alice.username}/", days)],
        ),
        ("dark", "phone", [(f"/leaderboard/{day}/", chart)]),
    ]
    for scheme, size, paths in runs:
        context = browser.new_context(
            viewport=SIZES[size], color_scheme=scheme, bypass_csp=True,
            storage_state={"cookies": alice.context.cookies(), "origins": []},
        )  # fmt: skip
        try:
            checked = context.new_page()
            for path, ready in paths:
                checked.goto(alice.url(path))
                expect(checked.locator(ready)).to_be_visible()
                checked.wait_for_load_state("networkidle")
                found[f"{path} {scheme} {size}"] = violations(checked)
        finally:
            context.close()
    assert {name: v for name, v in found.items() if v} == {}, json.dumps(found, indent=1)

    context = browser.new_context(viewport=SIZES["desktop"])
    try:
        context.add_cookies([{"name": "django_language", "value": "fi", "url": alice.base}])
        finnish = context.new_page()
        finnish.goto(alice.url(f"/leaderboard/{day}/"))
        expect(finnish.locator(chart)).to_be_visible()
        check_page(finnish, "fi")
        expect(finnish.locator("[data-day-picture] figcaption")).to_contain_text(
            "11 pelaajaa · 2 voitti"
        )
    finally:
        context.close()

"""What a player used to run into: a replay that could not load, "null" on a past day's board,
Django's bare error pages, the raw "Authentication credentials were not provided."."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from .conftest import SIZES, STEP_TIMEOUT_MS
from .helpers import WORKED_EXAMPLE, play_line


@pytest.fixture
def visitor(browser: Browser, daphne_server: str) -> Iterator[Any]:
    """`visitor(size)` -> (page, errors): a logged-out browser at that size."""
    contexts = []

    def make(size: str) -> tuple[Page, list[str]]:
        viewport = ViewportSize(width=SIZES[size]["width"], height=SIZES[size]["height"])
        context = browser.new_context(viewport=viewport, base_url=daphne_server)
        context.set_default_timeout(STEP_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page, errors

    yield make
    for context in contexts:
        context.close()


CONTROLS = "[data-first], [data-back], [data-play], [data-forward], [data-last], [data-scrubber]"


@pytest.mark.parametrize("size", SIZES)
def test_a_replay_that_cannot_load_says_why_and_offers_nothing_to_press(
    new_player: Any, visitor: Any, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size])
    bob = new_player(viewport=SIZES[size])
    # Private practice, in progress: not Bob's to see (a public one is anyone's to watch live).
    alice.api("PATCH", "/api/auth/me/settings/", {"practice_private": True})
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2"])

    for who, path, status in ((bob, f"/games/{game_id}/replay/", "404"),):
        page = who.goto(path)
        notice = page.locator(f'[data-replay-error="{status}"]')
        expect(notice).to_contain_text("not yours to see yet")
        controls = page.locator(CONTROLS)
        assert controls.count() == 6
        for i in range(6):
            expect(controls.nth(i)).to_be_disabled()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("End")
    page.screenshot(path=str(artifacts / f"replay-error-{size}.png"))
    assert bob.errors == []

    page, errors = visitor(size)
    page.goto(f"/games/{game_id}/replay/")
    notice = page.locator('[data-replay-error="401"]')
    expect(notice).to_contain_text("Log in to see this replay")
    expect(notice.get_by_role("link", name="Log in")).to_have_attribute(
        "href", f"/login/?next=%2Fgames%2F{game_id}%2Freplay%2F"
    )
    expect(page.locator("[data-play]")).to_be_disabled()
    page.keyboard.press("End")

    # A game that does not exist: the 404 page, which does not ask the visitor to log in.
    response = page.goto("/games/999999/replay/")
    assert response is not None and response.status == 404
    expect(page.locator("[data-error-status='404']")).to_contain_text("No such game")
    expect(page.locator("main").get_by_role("link", name="Log in")).to_have_count(0)
    assert errors == []


@pytest.mark.parametrize("size", SIZES)
def test_a_past_days_board_shows_its_code_without_null_to_a_visitor(
    visitor: Any, size: str
) -> None:
    page, errors = visitor(size)
    yesterday = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    page.goto(f"/leaderboard/{yesterday}/")
    code = page.locator("[data-deal-code]")
    expect(code).to_contain_text("Deal code CF")
    expect(page.locator("[data-rows]")).not_to_contain_text("Loading")
    assert "null" not in page.locator("main").inner_text()
    assert "undefined" not in page.locator("main").inner_text()
    assert errors == []


@pytest.mark.parametrize("size", SIZES)
def test_error_pages_are_the_sites_own(visitor: Any, artifacts: Path, size: str) -> None:
    page, errors = visitor(size)
    for path in ("/no-such-page/", "/players/nobody/", "/leaderboard/2999-01-01/"):
        response = page.goto(path)
        assert response is not None and response.status == 404
        expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
        if size == "phone":  # the header's links are in its menu
            page.locator("[data-nav-toggle]").click()
        expect(page.locator("nav.nav").get_by_role("link", name="Leaderboard")).to_be_visible()
        assert (
            page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgba(0, 0, 0, 0)"
        )
    expect(page.locator("main")).to_contain_text("That day has not come yet")
    page.screenshot(path=str(artifacts / f"not-found-{size}.png"))
    assert errors == []


@pytest.mark.parametrize("size", SIZES)
def test_a_visitor_on_a_game_page_is_asked_to_log_in(
    new_player: Any, visitor: Any, size: str
) -> None:
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, [])
    page, errors = visitor(size)
    page.goto(f"/games/{game_id}/")
    prompt = page.locator("[data-login-prompt]")
    expect(prompt.get_by_role("heading")).to_have_text("Log in to play")
    expect(prompt.get_by_role("link", name="Log in")).to_have_attribute(
        "href", f"/login/?next=/games/{game_id}/"
    )
    assert "credentials" not in page.locator("main").inner_text()
    assert errors == []

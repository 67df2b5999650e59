"""Play first: a visitor finds a board to play on the home page, with no account; their first
action makes the deal a game and them a guest of the browser's session; the game is still theirs
after a reload, and signing up keeps it — in "My recent games", with its moves. The new home page
is axe clean at both sizes; the rules page's tour deal is a visitor's to play too."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from games.engine import Action, Canfield

from .conftest import PASSWORD, SIZES, STEP_TIMEOUT_MS
from .helpers import WORKED_EXAMPLE, card, pile, read_board, tap, wait_actions
from .test_accessibility import violations

TAPPABLE = ("W", "R", "T1", "T2", "T3", "T4")


@pytest.fixture
def browse(browser: Browser, daphne_server: str) -> Iterator[Any]:
    """`browse(size, **options)` -> (page, errors): a fresh browser with no session."""
    contexts: list[BrowserContext] = []

    def make(size: str = "desktop", **options: Any) -> tuple[Page, list[str]]:
        context = browser.new_context(viewport=SIZES[size], base_url=daphne_server, **options)
        context.set_default_timeout(STEP_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page, errors

    yield make
    for context in contexts:
        context.close()


def the_deal(page: Page) -> dict[str, Any]:
    deal: dict[str, Any] = json.loads(page.locator("#deal").text_content() or "")
    return deal


def api_get(page: Page, path: str) -> Any:
    response = page.context.request.get(path)
    assert response.ok, f"GET {path}: {response.status} {response.text()}"
    return response.json()


def test_a_visitor_plays_on_the_home_page_keeps_the_game_and_signs_up_to_keep_it(
    browse: Any, artifacts: Path
) -> None:
    page, errors = browse()
    page.goto("/")
    expect(page.locator("[data-play-first] h1")).to_have_text("Canfield solitaire, every day")
    expect(page.get_by_role("link", name="Sign up to rank on today's deal")).to_be_visible()
    expect(
        page.locator("[data-play-first]").get_by_role("link", name="How to play")
    ).to_be_visible()
    expect(page.locator(".pile.stock")).to_be_visible()
    deal = the_deal(page)
    code = deal["code"]
    expect(page.locator("[data-code]")).to_have_text(code)
    assert page.context.cookies() and not any(
        c["name"] == "sessionid" for c in page.context.cookies()
    )  # nothing made for a look

    # A draw, then a card that a tap moves (the engine finds one), else another draw.
    engine = Canfield(code)
    tap(page, pile(page, "S"))
    engine.push(Action.parse("D"))
    wait_actions(page, 1)
    moved = next((p for p in TAPPABLE if engine.tap(p) is not None), None)
    if moved is not None:
        tap(page, card(page, moved))
        found = engine.tap(moved)
        assert found is not None
        engine.push(found)
    else:
        tap(page, pile(page, "S"))
        engine.push(Action.parse("D"))
    wait_actions(page, 2)
    line = [action.token() for action in engine.history]
    board = read_board(page)
    assert any(c["name"] == "sessionid" for c in page.context.cookies())  # a guest now
    page.screenshot(path=str(artifacts / "home-visitor-played.png"))

    page.reload()
    expect(page.locator("[data-actions]")).to_have_text("2")
    expect(page.locator("[data-code]")).to_have_text(code)
    assert read_board(page) == board
    assert page.locator("#deal").count() == 0  # the game, not a new deal

    nav = page.locator("nav.nav")
    nav.get_by_role("link", name="Sign up to keep your games").click()
    page.wait_for_url("**/signup/")
    name = f"g{uuid.uuid4().hex[:10]}"
    form = page.locator("form[data-auth-form]")
    form.locator("input[name=username]").fill(name)
    form.locator("[name=password]").fill(PASSWORD)
    form.locator("[name=password2]").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    page.wait_for_url(lambda url: url.rstrip("/").count("/") == 2)  # home

    recent = page.locator("[data-recent] table tbody tr")
    expect(recent).to_have_count(1)
    row = recent.first
    expect(row.get_by_role("link", name=code)).to_be_visible()
    expect(row.locator("td[data-label=Actions]")).to_have_text("2")
    expect(nav.get_by_role("link", name=name)).to_be_visible()
    game_id = row.get_by_role("link", name=code).get_attribute("href").strip("/").split("/")[-1]
    game = api_get(page, f"/api/games/{game_id}/")
    assert (game["player"], game["code"], game["actions"]) == (name, code, 2)
    record = api_get(page, f"/api/games/{game_id}/record/")
    assert [move["token"] for move in record["moves"]] == line
    assert api_get(page, "/api/auth/me/") == {"username": name, "guest": False}
    assert errors == []


def test_a_visitor_plays_the_rules_tour_s_deal(browse: Any) -> None:
    page, errors = browse()
    page.goto("/how-to-play/")
    page.locator("[data-tour-play]").click()
    page.wait_for_url("**/games/*/")
    expect(page.locator("[data-code]")).to_have_text(WORKED_EXAMPLE)
    expect(page.locator("nav.nav")).to_contain_text("Sign up to keep your games")
    expect(page.locator("[data-login-prompt]")).to_have_count(0)
    tap(page, pile(page, "S"))
    wait_actions(page, 1)
    assert errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_visitor_s_home_page_is_axe_clean_at_both_sizes(
    browse: Any, artifacts: Path, scheme: Literal["light", "dark"]
) -> None:
    found = {}
    for size in SIZES:
        page, errors = browse(size, color_scheme=scheme, bypass_csp=True)
        page.goto("/")
        expect(page.locator(".pile.stock")).to_be_visible()
        page.wait_for_load_state("networkidle")
        found[size] = violations(page)
        size_of = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert size_of[0] <= size_of[1], f"{size}: the page scrolls sideways {size_of}"
        # The board fits the first screen, under the welcome.
        box = page.locator(".area-columns").bounding_box()
        assert box is not None and box["y"] + box["height"] <= SIZES[size]["height"]
        page.screenshot(path=str(artifacts / f"home-visitor-{size}-{scheme}.png"))
        assert errors == []
    assert found == {size: [] for size in SIZES}

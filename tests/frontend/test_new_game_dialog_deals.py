"""The New game form's deals: a random deal is one proved winnable unless "Any deal" is ticked;
a code of a deal proved lost says so before its game is played; the Hint button says when a hint
is being computed."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, Route, expect

from tests.frontend.helpers import WORKED_EXAMPLE, start_by_code

#: A deal the solver proves lost from its start at once (3 positions: no move leads anywhere).
LOST = "CF1-D3-BBPCSXN"


def new_games(page: Page) -> list[tuple[Any, Any]]:
    """The body and the answer of each POST /api/games/ the page makes (read before the page
    goes to the game)."""
    seen: list[tuple[Any, Any]] = []

    def through(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        response = route.fetch()
        seen.append((route.request.post_data_json, response.json()))
        route.fulfill(response=response)

    page.route("**/api/games/", through)
    return seen


def test_any_deal_asks_for_any_random_deal(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    form = page.locator("form[data-new-game-form]")
    any_deal = form.get_by_role("checkbox", name="Any deal")
    expect(any_deal).not_to_be_checked()
    any_deal.check()
    seen = new_games(page)

    form.locator("button[type=submit]").click()

    page.wait_for_url("**/games/*/")
    [(body, answer)] = seen
    assert body == {"draw": 3, "variant": "app", "any_deal": True}
    assert answer["deal"]["source"] == "any"
    assert alice.errors == []


def test_a_random_deal_is_one_proved_winnable_unless_none_is_ready(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    form = page.locator("form[data-new-game-form]")
    seen = new_games(page)

    form.locator("button[type=submit]").click()

    page.wait_for_url("**/games/*/")
    [(body, answer)] = seen
    assert body == {"draw": 3, "variant": "app"}
    deal = answer["deal"]
    assert (deal["source"], deal["winnable"]) in {("pool", True), ("random", None)}


def test_a_code_proved_lost_says_so_before_it_is_played(new_player: Any) -> None:
    # Another player's hint at the deal's start has proved it lost.
    bob = new_player()
    bob.goto("/")
    lost = bob.api("POST", "/api/games/", {"code": LOST})
    assert bob.api("GET", f"/api/games/{lost['id']}/hint/")["outcome"] == "no_win"

    alice = new_player()
    page = alice.goto("/")
    form = page.locator("form[data-new-game-form]")
    form.locator("input[name=deal][value=code]").check()
    form.locator("input[name=code]").fill(LOST)
    form.locator("button[type=submit]").click()

    notice = form.locator("[data-deal-notice]")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("The solver has proved that this deal cannot be won.")
    play = notice.get_by_role("button", name="Play it anyway")
    expect(play).to_be_focused()
    assert "/games/" not in page.url
    play.click()
    page.wait_for_url("**/games/*/")
    expect(page.locator("[data-code]")).to_have_text(LOST)
    assert alice.errors == []


def test_the_hint_button_says_a_hint_is_being_computed(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)
    held: list[Route] = []
    page.route("**/hint/", lambda route: held.append(route))  # held until the test lets it go
    button = page.locator("[data-hint]")

    button.click()

    expect(button).to_have_attribute("aria-busy", "true")
    expect(button).to_have_text("Thinking…")
    expect(button).to_have_class("button busy")
    expect(button).to_have_css("opacity", "1")  # not just greyed
    held[0].continue_()
    expect(button).not_to_have_attribute("aria-busy", "true")
    expect(button).to_have_text("Hint")
    expect(button).to_be_enabled()
    assert alice.errors == []

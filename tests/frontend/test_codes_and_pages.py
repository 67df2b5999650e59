"""Codes that paste, and the pages off the board: a game code is taken as it was given (the
server judges it; the form shows the server's words), so a past day's mixed-case CF2 code copied
from its page starts that game; a missing game's page is the 404 page; another player's daily
says when it opens; a player's chart names one day once; no tap target under 24 px on the
replay, leaderboard, past day, profile, sign-up and log-in pages (WCAG 2.2, 2.5.8).
At 360×740 and 1440×900."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import SIZES, yesterday
from .helpers import WORKED_EXAMPLE, play_line, small_targets


def select_and_copy(page: Page, selector: str) -> str:
    """Select the text of the element as a person does with the pointer, and copy it."""
    text: str = page.evaluate(
        """(selector) => {
          const el = document.querySelector(selector);
          const range = document.createRange();
          range.selectNodeContents(el);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
          return getSelection().toString();
        }""",
        selector,
    )
    page.keyboard.press("Control+C")
    return text


def refusal(player: Any, body: dict[str, str]) -> dict[str, Any]:
    """The API's answer to starting this game (a refusal), as the form asks it."""
    csrf = next(c["value"] for c in player.context.cookies(player.base) if c["name"] == "csrftoken")
    response = player.context.request.post(
        player.url("/api/games/"),
        data=body,
        headers={"X-CSRFToken": csrf, "Referer": player.base + "/"},
    )
    assert response.status == 400, response.text()
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize("size", SIZES)
def test_a_past_days_code_copied_from_its_page_starts_that_game(
    new_player: Any, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size], has_touch=size == "phone")
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    day = yesterday().isoformat()
    board = alice.goto(f"/leaderboard/{day}/")
    code_box = board.locator("[data-deal-code] code")
    expect(code_box).to_have_text(re.compile(r"^CF2-D3-\w{41}$"))
    code = select_and_copy(board, "[data-deal-code] code")
    assert code == alice.api("GET", f"/api/daily/{day}/board/")["code"]
    assert code != code.upper() and code != code.lower()  # base58: a mixed-case code
    assert small_targets(board) == []

    home = alice.goto("/")
    form = home.locator("form[data-new-game-form]")
    by_code = form.locator("input[name=deal][value=code]")
    code_input = form.locator("input[name=code]")
    expect(code_input).to_be_hidden()
    by_code.check()
    # Focus stays on the choice; the code field comes next, the draw and rules are the code's.
    expect(by_code).to_be_focused()
    expect(form.locator("input[name=draw]").first).to_be_hidden()
    expect(form.locator("input[name=variant]").first).to_be_hidden()
    home.keyboard.press("Tab")
    expect(code_input).to_be_focused()
    home.keyboard.press("Control+V")
    expect(code_input).to_have_value(code)
    assert small_targets(home) == []
    form.screenshot(path=str(artifacts / f"code-form-{size}.png"))
    form.locator("button[type=submit]").click()
    home.wait_for_url("**/games/*/")
    expect(home.locator("[data-code]")).to_have_text(code)
    game_id = home.url.rstrip("/").rsplit("/", 1)[-1]
    game = alice.api("GET", f"/api/games/{game_id}/")
    assert (game["code"], game["kind"], game["draw"], game["variant"]) == (
        code,
        "practice",
        3,
        "app",
    )
    home.screenshot(path=str(artifacts / f"code-pasted-{size}.png"))
    assert alice.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_the_form_takes_a_code_as_it_is_typed_and_shows_the_servers_words(
    new_player: Any, size: str
) -> None:
    alice = new_player(viewport=SIZES[size])
    code = alice.api("GET", f"/api/daily/{yesterday().isoformat()}/board/")["code"]
    classic = code.replace("-D3-", "-H1-", 1)  # the same rank: its check characters differ
    for mistake in (WORKED_EXAMPLE.lower(), classic):
        page = alice.goto("/")
        form = page.locator("form[data-new-game-form]")
        form.locator("input[name=deal][value=code]").check()
        form.locator("input[name=code]").press_sequentially(mistake)
        form.locator("button[type=submit]").click()
        expected = refusal(alice, {"code": mistake})
        assert expected["code"] == "invalid_code"
        expect(form.locator("[data-form-error]")).to_have_text(expected["message"])
        expect(form.locator("input[name=code]")).to_have_value(mistake)
        assert page.url == alice.url("/")

    # A CF1 code of the classic rules, drawing one, typed in the home page's form.
    form.locator("input[name=code]").fill("")
    form.locator("input[name=code]").press_sequentially("CF1-H1-AAAAACL")
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/games/*/")
    expect(page.locator("[data-code]")).to_have_text("CF1-H1-AAAAACL")
    expect(page.locator("[data-title]")).to_contain_text("Draw 1")
    expect(page.locator("[data-title]")).to_contain_text("Classic")

    # The past day's mixed-case CF2 code, typed in the game page's dialog: that deal.
    first = page.url
    page.locator("[data-open-new-game]").first.click()
    dialog = page.locator("dialog[data-new-game-dialog]")
    dialog.locator("input[name=deal][value=code]").check()
    dialog.locator("input[name=code]").press_sequentially(code)
    dialog.locator("button[type=submit]").click()
    page.wait_for_url(lambda url: url != first and "/games/" in url)
    expect(page.locator("[data-code]")).to_have_text(code)
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert alice.api("GET", f"/api/games/{game_id}/")["code"] == code
    assert alice.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_a_missing_or_anothers_game_is_the_404_page(new_player: Any, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    bob = new_player(viewport=SIZES[size])
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2"])
    for path in ("/games/999999/", f"/games/{game_id}/", "/games/seven/"):
        response = bob.page.goto(bob.url(path))
        assert response is not None and response.status == 404, path
        page = bob.page
        expect(page.locator("[data-error-status='404']")).to_be_visible()
        expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
        expect(page.locator("main")).to_contain_text("No such game.")
        expect(page.locator("[data-game]")).to_have_count(0)
        assert small_targets(page) == []
    page = alice.goto(f"/games/{game_id}/")  # its owner plays it
    expect(page.locator("[data-code]")).to_have_text(WORKED_EXAMPLE)
    assert alice.errors == [] and bob.errors == []


def opens_pattern() -> re.Pattern[str]:
    """'opens in N h' (N whole hours left of the UTC day) or, in its last hour, 'opens in N min'."""
    return re.compile(r"^opens in ([1-9]\d* min|([1-9]|1\d|2[0-3]) h)$")


@pytest.mark.parametrize("size", SIZES)
def test_anothers_daily_says_when_it_opens_and_one_day_is_named_once(
    new_player: Any, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size])
    bob = new_player(viewport=SIZES[size])
    attempt = alice.start_daily()
    alice.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    today = dt.datetime.now(dt.UTC).date().isoformat()

    board = bob.goto("/leaderboard/")
    row = board.locator(f'[data-rows] tr[data-player="{alice.username}"]')
    opens = row.locator(".opens-in")
    expect(opens).to_have_text(opens_pattern())
    expect(row.get_by_role("link", name="Replay")).to_have_count(0)
    assert small_targets(board) == []
    board.screenshot(path=str(artifacts / f"opens-in-board-{size}.png"), full_page=True)

    profile = bob.goto(f"/players/{alice.username}/")
    history = profile.locator("[data-history] tbody tr")
    expect(history).to_have_count(1)
    expect(history.locator(".opens-in")).to_have_text(opens_pattern())
    # One day played: its bar, and its date once under the chart.
    chart = profile.locator("[data-days-chart] svg")
    expect(chart.locator("rect.chart-bar")).to_have_count(1)
    expect(chart.locator("rect.chart-bar")).to_have_attribute("data-date", today)
    days = chart.locator("text.chart-day")
    expect(days).to_have_count(1)
    expect(days).to_have_text(history.locator("td.lead").inner_text())
    assert small_targets(profile) == []
    profile.screenshot(path=str(artifacts / f"opens-in-profile-{size}.png"), full_page=True)

    # Her own page: her replay, no waiting.
    mine = alice.goto(f"/players/{alice.username}/")
    expect(
        mine.locator("[data-history] tbody tr").get_by_role("link", name="Replay")
    ).to_have_attribute("href", f"/games/{attempt['id']}/replay/")
    assert alice.errors == [] and bob.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_no_tap_target_under_24_px_on_the_replay_and_the_account_pages(
    new_player: Any, browser: Any, daphne_server: str, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size], has_touch=size == "phone")
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2", "R-F1", "T2:2-T4", "D", "D", "D"])
    alice.api("POST", f"/api/games/{game_id}/resign/")
    for path in (f"/games/{game_id}/replay/", f"/leaderboard/{yesterday().isoformat()}/solution/"):
        page = alice.goto(path)
        expect(page.locator("[data-tokens] button").first).to_be_attached()
        if size == "phone":  # folded at first on a phone
            page.locator("[data-actions-list] summary").click()
        expect(page.locator("[data-tokens] button").first).to_be_visible()
        rows = page.evaluate(
            "[...document.querySelectorAll('[data-tokens] button')]"
            ".map((b) => b.getBoundingClientRect().height)"
        )
        assert len(rows) > 6 and min(rows) >= 24, rows
        assert small_targets(page) == []
        page.screenshot(path=str(artifacts / f"replay-targets-{size}.png"))
    assert alice.errors == []

    context = browser.new_context(viewport=SIZES[size], base_url=daphne_server)
    try:
        page = context.new_page()
        for path in ("/signup/", "/login/"):
            page.goto(path)
            expect(page.locator("form[data-auth-form]")).to_be_visible()
            assert small_targets(page) == [], path
    finally:
        context.close()

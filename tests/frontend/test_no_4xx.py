"""No request a page makes answers 4xx in normal use: every response of a page's load is recorded
and none is a client error — on one's own daily attempt's replay (its analysis, which cannot
exist before the day is over, is not asked for), a finished practice game's replay (whose
analysis is), and a game's page."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, Response, expect

from .helpers import WORKED_EXAMPLE, play_line, settle


def record_responses(page: Page) -> list[tuple[int, str]]:
    """Every response the page receives from now on: (status, URL)."""
    seen: list[tuple[int, str]] = []

    def keep(response: Response) -> None:
        seen.append((response.status, response.url))

    page.on("response", keep)
    return seen


def client_errors(seen: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return [(status, url) for status, url in seen if 400 <= status < 500]


def test_own_daily_replay_asks_for_no_analysis_that_cannot_exist_yet(new_player: Any) -> None:
    alice = new_player()
    attempt = alice.start_daily()
    alice.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    alice.api("POST", f"/api/games/{attempt['id']}/resign/")
    seen = record_responses(alice.page)

    page = alice.goto(f"/games/{attempt['id']}/replay/")
    expect(page.locator("[data-step]")).to_have_text("0/1")
    page.wait_for_load_state("networkidle")

    urls = [url for _, url in seen]
    assert any(f"/api/games/{attempt['id']}/record/" in url for url in urls), urls
    assert not any("/analysis/" in url for url in urls), urls
    expect(page.locator("[data-analysis]")).to_be_hidden()
    assert client_errors(seen) == []
    assert alice.errors == []


def test_a_practice_replay_and_a_game_page_load_without_a_client_error(new_player: Any) -> None:
    alice = new_player()
    finished = play_line(alice, WORKED_EXAMPLE, ["R-T2", "R-F1"])
    alice.api("POST", f"/api/games/{finished}/resign/")
    playing = play_line(alice, WORKED_EXAMPLE, ["R-T2"])
    seen = record_responses(alice.page)

    page = alice.goto(f"/games/{finished}/replay/")
    expect(page.locator("[data-step]")).to_have_text("0/2")
    expect(page.locator("[data-analysis]")).to_be_visible(timeout=30_000)  # (it is asked for)
    page.wait_for_load_state("networkidle")
    assert any(f"/api/games/{finished}/analysis/" in url for _, url in seen)

    page = alice.goto(f"/games/{playing}/")
    expect(page.locator("[data-code]")).to_have_text(WORKED_EXAMPLE, timeout=30_000)
    page.wait_for_load_state("networkidle")
    settle(page)

    assert any(f"/games/{playing}/" in url for _, url in seen)
    assert client_errors(seen) == []
    assert alice.errors == []

"""Hints for practice games (the card and its target highlighted, in words), none for a daily
attempt; Finish on an all-open position plays the foundation moves one by one, to a win."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import SIZES
from .helpers import (
    FINISH_CODE,
    FINISH_LINE,
    WORKED_EXAMPLE,
    pile,
    play_line,
    settle,
    start_by_code,
    tap,
    wait_actions,
)


@pytest.mark.parametrize("size", SIZES)
def test_a_hint_highlights_the_card_to_play_and_where_it_goes(
    new_player: Any, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size])
    game_id = play_line(alice, FINISH_CODE, FINISH_LINE[:-6])
    page = alice.goto(f"/games/{game_id}/")
    hint = page.locator("[data-hint]")
    expect(hint).to_be_visible()
    with page.expect_response(re.compile(r"/hint/$")) as answer:
        page.keyboard.press("h")
    action = answer.value.json()["action"]
    source, target = action.split("-")
    source = source.split(":")[0]
    expect(page.locator(f'.pile[data-pile="{target}"].hint-target')).to_have_count(1)
    expect(page.locator(f'.card.hint-source[data-pile="{source}"]').first).to_be_visible()
    expect(page.locator("[data-announce]")).to_have_text(re.compile(r"^Hint: [A-Z][a-z]+ .* to "))
    page.screenshot(path=str(artifacts / f"hint-{size}.png"))

    hint.click()  # the button asks too; the same answer for the same position
    expect(page.locator(".hint-target")).to_have_count(1)
    assert alice.errors == []


def test_a_daily_attempt_has_no_hint(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    page.get_by_test_id("play-daily").click()
    page.wait_for_url("**/games/*/")
    page.wait_for_selector(".pile.stock")
    expect(page.locator("[data-hint]")).to_be_hidden()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.keyboard.press("h")
    page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 200))")
    assert not [url for url in asked if "/hint/" in url]
    assert alice.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_finish_plays_the_last_cards_to_a_win(new_player: Any, artifacts: Path, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    ordinary = play_line(alice, WORKED_EXAMPLE, [])
    page = alice.goto(f"/games/{ordinary}/")
    page.wait_for_selector(".pile.stock")
    expect(page.locator("[data-finish]")).to_be_hidden()

    game_id = play_line(alice, FINISH_CODE, FINISH_LINE)
    page = alice.goto(f"/games/{game_id}/")
    finish = page.locator("[data-finish]")
    expect(finish).to_be_visible()
    page.screenshot(path=str(artifacts / f"finish-{size}.png"))
    finish.click()
    expect(page.locator("[data-win]")).to_be_visible(timeout=20_000)
    settle(page)
    game = alice.api("GET", f"/api/games/{game_id}/")
    assert game["status"] == "won"
    assert game["actions"] == len(FINISH_LINE) + 14  # each card an ordinary logged action
    record = alice.api("GET", f"/api/games/{game_id}/record/")
    assert all(re.fullmatch(r"T[1-4]-F[1-4]", m["token"]) for m in record["moves"][-14:])
    assert alice.errors == []


def test_a_pass_through_the_stock_without_a_move_says_no_useful_moves_are_left(
    new_player: Any,
) -> None:
    """CF1-D3-LQTCNKR offers nothing but draws through its first pass (found with the engine),
    so the second pass would be the same."""
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, "CF1-D3-LQTCNKR")
    notice = page.locator("[data-stuck]")
    for n in range(1, 13):  # 34 stock cards: 12 draws
        tap(page, pile(page, "S"))
        wait_actions(page, n)
        expect(notice).to_be_hidden()
    tap(page, pile(page, "S"))  # the recycle ends the pass
    wait_actions(page, 13)
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("No useful moves left")
    page.locator("[data-undo]").click()  # back before the recycle: still nothing to move
    wait_actions(page, 14)
    expect(notice).to_be_visible()
    assert alice.errors == []


def test_a_hint_says_when_there_is_no_way_to_win(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, "CF1-D3-LQTCNKR")  # no card can ever move: the solver proves it
    page.locator("[data-hint]").click()
    expect(page.locator("[data-announce]")).to_have_text("No way to win from here.")
    expect(page.locator(".toast")).to_contain_text("No way to win from here.")
    expect(page.locator(".hint-source, .hint-target")).to_have_count(0)
    assert alice.errors == []

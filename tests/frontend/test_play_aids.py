"""Hints for practice games (the card and its target highlighted, in words), none for a daily
attempt; Finish on an all-open position plays the foundation moves one by one, to a win."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from games.engine import DealCode

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
    expect(page.locator("[data-message-text]")).to_have_text(
        re.compile(r"^Hint: [A-Z][a-z]+ .* to ")
    )
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
    # What the page asks to play: POSTs to the games API, and messages on the game's socket.
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.method == "POST" else None)
    page.on("websocket", lambda ws: ws.on("framesent", lambda m: asked.append(m)))
    page = alice.goto(f"/games/{game_id}/")
    finish = page.locator("[data-finish]")
    expect(finish).to_be_visible()
    page.screenshot(path=str(artifacts / f"finish-{size}.png"))
    finish.click()
    expect(page.locator("[data-win]")).to_be_visible(timeout=20_000)
    settle(page)
    # One request plays the 14 cards — a finish message on the game's socket, or POST .../finish/
    # while the socket is not ready —; nothing else was asked to play them.
    assert len(asked) == 1
    if asked[0].startswith("{"):
        frame = json.loads(asked[0])
        assert (frame["type"], frame["ply"]) == ("finish", len(FINISH_LINE))
    else:
        assert asked == [f"{alice.base}/api/games/{game_id}/finish/"]
    game = alice.api("GET", f"/api/games/{game_id}/")
    assert game["status"] == "won"
    assert game["actions"] == len(FINISH_LINE) + 14  # each card an ordinary logged action
    record = alice.api("GET", f"/api/games/{game_id}/record/")
    assert all(re.fullmatch(r"T[1-4]-F[1-4]", m["token"]) for m in record["moves"][-14:])
    assert alice.errors == []


def test_the_stuck_notice_comes_from_the_position(new_player: Any) -> None:
    """CF1-D3-LQTCNKR: drawing three, no card of it can ever move (the engine proves it). From
    what the player sees that is known only once the whole stock has been turned: no notice at
    the deal, the notice after the twelfth draw and across a reload, offering Undo and Resign;
    it goes once the game is over."""
    alice = new_player()
    game_id = play_line(alice, "CF1-D3-LQTCNKR", ["D"] * 11)
    page = alice.goto(f"/games/{game_id}/")
    area = page.locator("[data-messages]")
    text = page.locator("[data-message-text]")
    page.wait_for_selector(".pile.stock")
    expect(area).not_to_have_attribute("data-kind", "stuck")  # one stock card still unseen

    tap(page, pile(page, "S"))
    wait_actions(page, 12)
    expect(area).to_have_attribute("data-kind", "stuck")
    expect(text).to_have_text(
        "Stuck for good: no moves with the cards you can see can turn up a new card or put one"
        " on a foundation. Undo, or resign to end this game."
    )
    expect(page.locator("[data-message-actions] button")).to_have_text(["Undo", "Resign"])
    page.reload()
    expect(area).to_have_attribute("data-kind", "stuck")
    box = area.bounding_box()
    board = page.locator("[data-board]").bounding_box()
    assert box and board and box["y"] + box["height"] <= board["y"]  # never over the cards

    page.locator("[data-resign]").click()
    page.locator("[data-resign-confirm]").click()  # (the site's own dialog)
    expect(page.locator("[data-status]")).to_have_text("Resigned")
    expect(text).to_be_empty()
    expect(area).not_to_have_attribute("data-kind", "stuck")
    assert alice.errors == []


def test_a_hint_says_when_there_is_no_way_to_win(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, "CF1-D3-LQTCNKR")  # no card can ever move: the solver proves it
    page.locator("[data-hint]").click()
    expect(page.locator("[data-message-text]")).to_have_text("No way to win from here.")
    expect(page.locator(".hint-source, .hint-target")).to_have_count(0)
    assert alice.errors == []


def dealt_by_the_server(workdir: Path, code: str) -> str:
    """``code``, its deck recorded in the test server's database as one the server dealt (as a
    random deal's is): the decks these tests build are no random deal, and the server plays only
    decks it dealt."""
    from games.models import DealtDeck

    fingerprint = DealtDeck.fingerprint_of(DealCode.parse(code).deck())
    with closing(sqlite3.connect(workdir / "db.sqlite3", timeout=30)) as db, db:
        db.execute(
            f"INSERT OR IGNORE INTO {DealtDeck._meta.db_table} (fingerprint, created_at) "
            "VALUES (?, ?)",
            (fingerprint, dt.datetime.now(dt.UTC).replace(tzinfo=None).isoformat(" ")),
        )
    return code


@pytest.mark.parametrize("size", SIZES)
def test_finish_comes_while_cards_are_in_the_stock(
    new_player: Any, server_workdir: Path, size: str
) -> None:
    """Finish is offered as soon as the rest needs no decision — here with all 34 stock cards to
    go, each coming up on top when its foundation needs it — and plays the draws too; where the
    stock's order leaves nothing to play without a decision, it is not offered."""
    from tests.engine.helpers import FRIENDLY, OPENING, UNFRIENDLY, built_deal

    friendly = dealt_by_the_server(server_workdir, built_deal(FRIENDLY, 3))
    unfriendly = dealt_by_the_server(server_workdir, built_deal(UNFRIENDLY, 3))
    alice = new_player(viewport=SIZES[size], reduced_motion="reduce")
    stalled = play_line(alice, unfriendly, OPENING)
    page = alice.goto(f"/games/{stalled}/")
    page.wait_for_selector(".pile.stock")
    expect(page.locator("[data-finish]")).to_be_hidden()

    game_id = play_line(alice, friendly, OPENING)
    page = alice.goto(f"/games/{game_id}/")
    expect(page.locator('.pile[data-pile="S"] .badge')).to_have_text("34")
    page.locator("[data-finish]").click()
    expect(page.locator("[data-win]")).to_be_visible(timeout=20_000)
    record = alice.api("GET", f"/api/games/{game_id}/record/")
    played = [m["token"] for m in record["moves"][len(OPENING) :]]
    assert played.count("D") == 12  # 34 cards, three at a time
    assert len(played) == 12 + 34
    assert alice.errors == []

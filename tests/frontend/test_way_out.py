"""A way out: a practice game stuck for good that the solver proved lost all the way back — no
position Undo reaches can still be won — says so, and offers a new game (a button that starts
one) instead of "Undo, or resign"; and a practice win's share text, which gives away no card."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from games.engine import Canfield
from games.engine.solver import last_winnable, solve

from .helpers import WORKED_EXAMPLE, card, play_line, tap, tokens
from .test_moments import WON, notice, record_verdicts, wait_for

#: Lost from the deal (the solver: 21 positions), and stuck for good after these actions; every
#: position Undo reaches is proved lost too. Found with the engine and the solver, playing random
#: deals.
DEAD_CODE = "CF1-D3-NDMTLEK"
DEAD_LINE = tokens("T1-F1 T4-F4 R-F4 D D D D D D D D D D W-T4 D D")


def test_a_game_no_undo_can_save_offers_a_new_game(new_player: Any) -> None:
    engine = Canfield.replay(DEAD_CODE, DEAD_LINE)
    assert engine.player_view()["stuck"] and engine.player_view()["can_undo"]
    assert solve(engine, seconds=10).outcome == "no_win"
    walk = last_winnable(engine, seconds=30)
    assert walk.undos is None and len(walk.results) == engine.undo_depth == len(DEAD_LINE)
    assert {r.outcome for r in walk.results} == {"no_win"}

    alice = new_player()
    game_id = play_line(alice, DEAD_CODE, DEAD_LINE)
    page = alice.page
    answers = record_verdicts(page)
    alice.goto(f"/games/{game_id}/")  # the page asks by itself, after a pause
    assert wait_for(page, answers, 1) == {"outcome": "no_win", "proved": True, "undo": None}
    expect(page.locator("[data-message-text]")).to_have_text(
        "Stuck for good: no moves with the cards you can see can turn up a new card or put one"
        " on a foundation. The solver found no position within reach of Undo that can still be won."
    )
    expect(notice(page)).to_have_attribute("data-kind", "stuck")
    buttons = page.locator("[data-message-actions] button")
    expect(buttons).to_have_text(["New game", "Resign"])

    buttons.first.click()  # a new game, started at once: same draw, same rules
    page.wait_for_url(re.compile(rf"/games/(?!{game_id}/)\d+/$"))
    page.wait_for_selector(".pile.stock")
    fresh = alice.api("GET", f"/api/games/{page.url.rstrip('/').rsplit('/', 1)[-1]}/")
    assert fresh["kind"] == "practice" and fresh["status"] == "in_progress"
    assert fresh["ply"] == 0 and fresh["draw"] == 3 and fresh["variant"] == "app"
    assert alice.api("GET", f"/api/games/{game_id}/")["status"] == "in_progress"  # (left as is)
    assert alice.errors == []


CARD = re.compile(
    r"\b(?:10|[A2-9TJQK])\s?[SHDC♠♥♦♣]\b|[♠♥♦♣]|\b(?:spades|hearts|diamonds|clubs)\b", re.I
)


def test_a_practice_win_shares_a_text_that_gives_away_no_card(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, WON[:-1])
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    page.evaluate(
        "() => { navigator.clipboard.writeText = async (text) => { window.shared = text; }; }"
    )
    tap(page, card(page, "T2"))  # the last card goes home: won
    dialog = page.get_by_role("dialog", name="You won!")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Share").click()
    expect(dialog.locator("[data-win-message]")).to_have_text("Result copied: paste it anywhere.")
    text = page.evaluate("window.shared")
    lines = text.split("\n")
    assert lines[0] == "Canfield Online · practice · Draw 3"
    assert re.fullmatch(rf"Won · {len(WON)} actions · \d+:\d\d", lines[1]), lines[1]
    assert lines[2] == f"Game code: {WORKED_EXAMPLE}"  # (a practice deal's code is public)
    assert lines[3] == alice.url("/")
    assert len(lines) == 4
    assert not CARD.search("\n".join(lines[:2] + lines[3:])), text
    assert alice.errors == []

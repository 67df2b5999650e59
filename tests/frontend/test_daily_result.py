"""After the daily: the result card in plain words — cards placed and the rank now, the line
against par (once the day is over), the streak, where the win slipped away (after the day) — and
a share text without spoilers, a row of squares per suit, copied to the clipboard; a daily won on
the page is the win's moment; Escape closes the card."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.engine import Canfield
from games.engine.solver import solve

from .conftest import SIZES
from .helpers import WORKED_EXAMPLE, card, play_line, tap, tokens

#: No card, no deal code: what a share text must never hold.
SPOILER = re.compile(
    r"\b[A2-9TJQK][SHDC]\b|CF[12]-"
    r"|\b(ace|king|queen|jack|10|[2-9]) of (spades|hearts|diamonds|clubs)\b",
    re.IGNORECASE,
)

SUITS = (("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣"))


def emoji_rows(game: dict[str, Any]) -> list[str]:
    """The share text's picture of a game: a row per suit, 🟩 for each card on its foundation."""
    placed = {f["suit"]: len(f["cards"]) for f in game["state"]["foundations"]}
    return [f"{symbol} {'🟩' * placed[suit]}{'⬜' * (13 - placed[suit])}" for suit, symbol in SUITS]


def card_time(page: Page) -> str:
    line = page.locator("[data-result-line]").inner_text()
    found = re.search(r" in (\d+:\d\d)[.;]", line)
    assert found, line
    return found.group(1)


@pytest.mark.parametrize("size", SIZES)
def test_the_daily_result_card_and_its_share_text(
    new_player: Any, artifacts: Path, size: str
) -> None:
    alice = new_player(viewport=SIZES[size])
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game = alice.start_daily()
    alice.api("POST", f"/api/games/{game['id']}/actions/", {"ply": 0, "action": "D"})

    page = alice.goto(f"/games/{game['id']}/")
    page.wait_for_selector(".pile.stock")
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.locator("[data-resign]").click()
    page.locator("[data-resign-confirm]").click()  # (the site's own dialog)

    result = page.locator("[data-result-card]")
    expect(result).to_be_visible()
    expect(result.get_by_role("heading", name="Your daily deal")).to_be_focused()
    over = alice.api("GET", f"/api/games/{game['id']}/")
    board = alice.api("GET", f"/api/daily/{over['daily_date']}/board/")
    rank, count = board["me"]["rank"], board["count"]
    n = over["foundation_cards"]  # (the base card counts)
    expect(result.locator("[data-result-place]")).to_have_text(
        f"{n} of 52 cards on the foundations — rank {rank} of {count}"
    )
    expect(result.locator("[data-result-line]")).to_have_text(
        re.compile(
            r"^Your line: 1 action in \d+:\d\d\. Par, the solver's line, is shown once the day"
            r" is over\.$"
        )
    )
    stats = alice.api("GET", f"/api/players/{alice.username}/")["stats"]
    assert stats["current_streak"] == 1
    expect(result.locator("[data-result-streak]")).to_have_text("Streak: 1 day in a row played.")
    expect(result.locator("[data-result-slip]")).to_be_hidden()  # never during the day
    assert not [url for url in asked if "/analysis/" in url]
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
    page.screenshot(path=str(artifacts / f"daily-result-{size}.png"))

    result.locator("[data-share]").click()
    expect(result.locator("[data-result-message]")).to_have_text(
        "Result copied: paste it anywhere."
    )
    copied = page.evaluate("navigator.clipboard.readText()")
    outcome = f"{n} card{'' if n == 1 else 's'} on the foundations"
    assert copied == "\n".join(
        [
            f"Canfield Online · daily deal {over['daily_date']}",
            *emoji_rows(over),
            f"{outcome} · 1 action · {card_time(page)}",
            f"Rank {rank} of {count}",
            f"{alice.base}/leaderboard/{over['daily_date']}/",
        ]
    )
    assert sum(row.count("🟩") for row in copied.splitlines()[1:5]) == n
    assert not SPOILER.search(copied)  # no card, no deal code

    # Someone places a card (the test server's deal has one to place at once): Alice's rank
    # moves on her card while she looks at it, pushed by the day's live board.
    bob = new_player()
    attempt = bob.start_daily()
    legal = bob.api("GET", f"/api/games/{attempt['id']}/")["state"]["legal"]
    scoring = next(t for t in legal if "-F" in t)
    bob.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": scoring})
    board = alice.api("GET", f"/api/daily/{over['daily_date']}/board/")
    moved = f"rank {board['me']['rank']} of {board['count']}"
    assert moved != f"rank {rank} of {count}"
    expect(result.locator("[data-result-place]")).to_contain_text(moved)

    # Later, the same card from the game page's toolbar.
    page.reload()
    page.locator("[data-open-result]").click()
    expect(result.locator("[data-result-place]")).to_contain_text(moved)
    expect(result.locator(".celebration")).to_have_count(0)  # (no win, and not its moment)
    page.keyboard.press("Escape")  # a dialog: Escape closes it
    expect(result).to_be_hidden()
    expect(page.locator("[data-open-result]")).to_be_focused()
    assert alice.errors == []


def test_a_daily_won_on_the_page_is_its_moment(new_player: Any, server_workdir: Path) -> None:
    """Today's deal played to a win along the solver's line (as the server stored it), the last
    card home on the page: "You won!", the cascade, and the card and share text say so."""
    alice = new_player()
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game = alice.start_daily()
    with sqlite3.connect(server_workdir / "db.sqlite3") as db:
        (line,) = db.execute(
            "SELECT line FROM leaderboard_dailydeal WHERE date = ?", (game["daily_date"],)
        ).fetchone()
    line = json.loads(line)
    for ply, action in enumerate(line[:-1]):
        alice.api("POST", f"/api/games/{game['id']}/actions/", {"ply": ply, "action": action})
    last = re.fullmatch(r"(R|W|T[1-4])-F[1-4]", line[-1])
    assert last, line[-1]  # (the 52nd card goes to a foundation)

    page = alice.goto(f"/games/{game['id']}/")
    page.wait_for_selector(".pile.stock")
    tap(page, card(page, last.group(1)))
    result = page.locator("[data-result-card]")
    expect(result).to_be_visible()
    expect(result.get_by_role("heading", name="You won!")).to_be_focused()
    expect(result.locator(".celebration-card")).to_have_count(16)
    expect(page.locator("[data-win]")).to_be_hidden()  # (the card is the daily's win dialog)
    over = alice.api("GET", f"/api/games/{game['id']}/")
    assert over["status"] == "won"
    expect(result.locator("[data-result-place]")).to_have_text(
        re.compile(r"^All 52 cards on the foundations — rank \d+ of \d+$")
    )
    expect(result.locator("[data-result-line]")).to_contain_text(
        f"Your line: {len(line)} actions in "
    )
    result.locator("[data-share]").click()
    expect(result.locator("[data-result-message]")).not_to_be_empty()
    copied = page.evaluate("navigator.clipboard.readText()").splitlines()
    assert copied[1:5] == [f"{symbol} {'🟩' * 13}" for _, symbol in SUITS]
    assert copied[5].startswith(f"Won · {len(line)} actions · ")
    assert not SPOILER.search("\n".join(copied))
    assert alice.errors == []


#: The worked example's won game (its length: the past day's par), and a line of the same deal
#: that the solver proves lost after its 9th action (W-T3; winnable after the 8th).
WON_LINE = [
    t
    for text in (Path(__file__).parents[1] / "engine/corpus/won-AAAAACL.txt")
    .read_text()
    .splitlines()
    if not text.startswith("[")
    for t in text.split()
]
LOST_LINE = tokens("R-T2 R-F1 T2:2-T4 R-T3 D D D D W-T3 D D")
SLIP = 9


def past_attempt(player: Any, database: Path, day: dt.date) -> int:
    """An attempt at a past day's deal, as the server keeps one: `day` dealt (the worked
    example's deal, its par and line the won game's), and `player`'s game of it played along
    LOST_LINE from noon to five past, then resigned. (A game can only be started today: it is
    played as a practice game, then made that day's attempt.)"""
    game_id = play_line(player, WORKED_EXAMPLE, LOST_LINE)
    noon = dt.datetime.combine(day, dt.time(12))  # (UTC, as the database keeps times)
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO leaderboard_dailydeal (date, seq, code, line, par, outcome,"
            " dealing_error, difficulty_band) VALUES (?, 0, ?, ?, ?, 'win', '', '')",
            (day.isoformat(), WORKED_EXAMPLE, json.dumps(WON_LINE), len(WON_LINE)),
        )
        db.execute(
            "UPDATE games_game SET kind = 'daily', daily_date = ?, status = 'resigned',"
            " started_at = ?, finished_at = ?, views = '{}', views_version = 0 WHERE id = ?",
            (
                day.isoformat(),
                noon.isoformat(sep=" "),
                (noon + dt.timedelta(minutes=5)).isoformat(sep=" "),
                game_id,
            ),
        )
    return game_id


def test_after_the_day_the_card_says_par_and_where_the_win_slipped_away(
    new_player: Any, server_workdir: Path, artifacts: Path
) -> None:
    # The slip, checked with the solver: winnable after action 8, proved lost after action 9.
    assert solve(Canfield.replay(WORKED_EXAMPLE, LOST_LINE[: SLIP - 1])).outcome == "win"
    assert solve(Canfield.replay(WORKED_EXAMPLE, LOST_LINE[:SLIP])).outcome == "no_win"
    alice = new_player()
    day = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=90)
    game_id = past_attempt(alice, server_workdir / "db.sqlite3", day)

    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    page.locator("[data-open-result]").click()
    result = page.locator("[data-result-card]")
    cards = Canfield.replay(WORKED_EXAMPLE, LOST_LINE).foundation_cards
    assert alice.api("GET", f"/api/games/{game_id}/")["result"] == "resigned"
    expect(result.locator("[data-result-place]")).to_have_text(
        f"{cards} of 52 cards on the foundations — rank 1 of 1"
    )
    expect(result.locator("[data-result-line]")).to_have_text(
        f"Your line: {len(LOST_LINE)} actions in 5:00; par (the solver's line): {len(WON_LINE)}."
    )
    slip = result.locator("[data-result-slip]")
    expect(slip).to_be_visible()  # "Analysing…" first, while the worker tier searches
    expect(slip).to_contain_text(re.compile(r"Analysing your game…|could be won"))
    # The page asks again 2, 6, 14, 29, 59, 89 s after it opens the card (result.js,
    # ANALYSIS_WAITS): a search that the worker tier finishes after 14 s on a busy machine is read
    # at 29 s, one after 29 s at 59 s.
    expect(slip.locator("[data-result-slip-text]")).to_have_text(
        f"Your game could be won until action {SLIP}.", timeout=95_000
    )
    analysis = alice.api("GET", f"/api/games/{game_id}/analysis/")
    assert analysis["slip"]["ply"] == SLIP
    link = slip.get_by_role("link", name="See that action in the replay")
    expect(link).to_have_attribute("href", f"/games/{game_id}/replay/?ply={SLIP}")
    page.screenshot(path=str(artifacts / "daily-result-after-the-day.png"))
    link.click()
    page.wait_for_url(f"**/games/{game_id}/replay/?ply={SLIP}")
    expect(page.locator("[data-step]")).to_have_text(f"{SLIP}/{len(LOST_LINE)}")
    assert alice.errors == []

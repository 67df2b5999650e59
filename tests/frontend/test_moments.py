"""The game page's moments: a win ("You won!", focus on it, a short cascade of cards, none under
reduced motion); the notices that say what is left — stuck for good (Undo, Resign), a practice
game proved lost (found by itself, once the player pauses, with the way back to the last
winnable position), a hint the solver could not prove; the explanations beside the numbers (the
daily's difficulty, the ranking order, the score, Standard and Classic); axe on the game page with
each of them showing, at 1440×900 and 360×740."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.engine import Canfield
from tests.support import Daphne, django_env, migrate

from .conftest import PHONE, REPO, SIZES, WIDE
from .helpers import WORKED_EXAMPLE, card, play_line, read_board, settle, tap, tokens, wait_actions
from .test_accessibility import RUN_AXE, violations

#: The worked example's won game (tests/engine/corpus), every action but the last: the last card
#: goes home with a tap.
WON = [
    t
    for line in (REPO / "tests/engine/corpus/won-AAAAACL.txt").read_text().splitlines()
    if not line.startswith("[")
    for t in line.split()
]

#: The worked example's opening, then the waste's five of diamonds onto column 3 instead of
#: waiting, and two draws: proved lost (the solver, 286 positions), and the last position that
#: could still be won is 3 undos back (after the 8th action). Found with the solver offline.
LOST_CODE = WORKED_EXAMPLE
LOST_LINE = tokens("R-T2 R-F1 T2:2-T4 R-T3 D D D D W-T3 D D")
LOST_UNDOS = 3

#: Stuck for good once the stock has been gone through (the engine's `stuck`, from what the
#: player sees): the run of column 1 can still go to column 4 and back, and nothing else will
#: ever move. One action earlier, a stock card not seen yet is left: not stuck. Found with the
#: engine, playing random deals.
STUCK_CODE = "CF1-D3-SEEQJWM"
STUCK_LINE = tokens("D D D D D D D D D W-T4 D D T4-T1 D")

#: A deal the solver cannot decide within 300,000 positions (about 14 s here): with the hint's
#: search cut to 0.1 s, its hint is always a best move without proof.
UNDECIDED_CODE = "CF1-D3-TMEUILT"

ANIMATIONS = """(sel) => [...document.querySelectorAll(sel)].map((el) => {
  const style = getComputedStyle(el);
  return [style.animationName, style.animationDuration, style.display];
})"""


def notice(page: Page) -> Any:
    return page.locator("[data-messages]")


def record_verdicts(page: Page) -> list[Any]:
    """The page's answers from GET /verdict/ that were 200s (a busy server's 503 is asked again
    at the next pause), as they come."""
    answers: list[Any] = []

    def seen(response: Any) -> None:
        if re.search(r"/verdict/$", response.url) and response.status == 200:
            answers.append(response.json())

    page.on("response", seen)
    return answers


def wait_for(page: Page, found: list[Any], n: int) -> Any:
    """The n-th entry of `found` once it is there (the page's own pace: a pause first)."""
    for _ in range(200):
        if len(found) >= n:
            return found[n - 1]
        page.wait_for_timeout(100)
    raise AssertionError(f"only {len(found)} of {n} answers came")


# --- the win -------------------------------------------------------------------------------------


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_win_is_a_moment_and_quiet_under_reduced_motion(
    new_player: Any, artifacts: Path, motion: Any
) -> None:
    alice = new_player(viewport=WIDE, reduced_motion=motion)
    game_id = play_line(alice, WORKED_EXAMPLE, WON[:-1])
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    assert WON[-1] == "T2-F2"
    tap(page, card(page, "T2"))  # the last card goes home

    dialog = page.locator("[data-win]")
    expect(dialog).to_be_visible()
    heading = dialog.get_by_role("heading", name="You won!")
    expect(heading).to_be_focused()  # read out as the dialog opens
    expect(page.get_by_role("dialog", name="You won!")).to_be_visible()
    pieces = dialog.locator(".celebration-card")
    expect(pieces).to_have_count(16)
    expect(dialog.locator(".celebration")).to_have_attribute("aria-hidden", "true")
    drawn = page.evaluate(ANIMATIONS, "[data-win] .celebration-card")
    pop = page.evaluate(ANIMATIONS, "[data-win]")
    if motion == "reduce":
        assert {name for name, _, _ in drawn} == {"none"}
        assert page.evaluate(ANIMATIONS, "[data-win] .celebration") == [["none", "0s", "none"]]
        assert pop[0][0] == "none"
    else:
        assert {(name, duration) for name, duration, _ in drawn} == {("win-cascade", "1.1s")}
        # Each card waits its turn: the whole cascade is over within 1.5 s of the win.
        delays = page.evaluate(
            """() => [...document.querySelectorAll("[data-win] .celebration-card")]
                .map((el) => parseFloat(getComputedStyle(el).animationDelay))"""
        )
        assert 0 in delays and max(delays) + 1.1 <= 1.5
        assert pop[0][0] == "pop-in"
        page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
        page.screenshot(path=str(artifacts / "win-moment.png"))
    expect(dialog).to_contain_text("Score 255")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert alice.errors == []


# --- stuck for good --------------------------------------------------------------------------


def test_stuck_for_good_offers_undo_and_resign(new_player: Any) -> None:
    """A practice game where moves are left but none gets anywhere: the notice says so in
    words, with Undo and Resign (after a confirmation); it goes with the undo that leaves a card
    to see, and comes back with the draw that shows it."""
    view = Canfield.replay(STUCK_CODE, STUCK_LINE).player_view()
    assert view["stuck"] and "T1-T4" in view["legal"]  # (a move is left: back and forth)
    assert not Canfield.replay(STUCK_CODE, STUCK_LINE[:-1]).player_view()["stuck"]
    alice = new_player()
    game_id = play_line(alice, STUCK_CODE, STUCK_LINE)
    page = alice.goto(f"/games/{game_id}/")
    text = page.locator("[data-message-text]")
    expect(notice(page)).to_have_attribute("data-kind", "stuck")
    expect(text).to_have_text(
        "Stuck for good: no moves with the cards you can see can turn up a new card or put one"
        " on a foundation. Undo, or resign to end this game."
    )
    buttons = page.locator("[data-message-actions] button")
    expect(buttons).to_have_text(["Undo", "Resign"])

    # The column move left changes nothing: still stuck, the keyboard keeps its place.
    alice.api("POST", f"/api/games/{game_id}/actions/", {"ply": len(STUCK_LINE), "action": "T1-T4"})
    page.reload()
    expect(notice(page)).to_have_attribute("data-kind", "stuck")
    undo = page.locator("[data-message-actions] [data-action=undo]")
    undo.focus()
    page.keyboard.press("Enter")  # (back to the stuck position: the notice is drawn again)
    wait_actions(page, len(STUCK_LINE) + 2)
    expect(notice(page)).to_have_attribute("data-kind", "stuck")
    expect(undo).to_be_focused()

    # Undo of the last draw: a stock card is left to see, and the notice goes; drawing it brings
    # the notice back.
    undo.click()
    wait_actions(page, len(STUCK_LINE) + 3)
    assert alice.api("GET", f"/api/games/{game_id}/")["state"]["moves"] == len(STUCK_LINE) - 1
    expect(notice(page)).not_to_have_attribute("data-kind", "stuck")
    tap(page, page.locator('.pile[data-pile="S"]'))
    wait_actions(page, len(STUCK_LINE) + 4)
    expect(notice(page)).to_have_attribute("data-kind", "stuck")

    # Resign asks first: refused, nothing changes; confirmed, the game is over and the notice goes.
    page.locator("[data-message-actions] [data-action=resign]").click()
    page.locator("[data-resign-cancel]").click()  # (the site's own dialog)
    expect(page.locator("[data-status]")).to_be_hidden()
    assert alice.api("GET", f"/api/games/{game_id}/")["status"] == "in_progress"
    page.locator("[data-message-actions] [data-action=resign]").click()
    page.locator("[data-resign-confirm]").click()
    expect(page.locator("[data-status]")).to_have_text("Resigned")
    expect(notice(page)).not_to_have_attribute("data-kind", "stuck")
    expect(buttons).to_have_count(0)
    assert alice.errors == []


# --- a practice game proved lost ----------------------------------------------------------------


def test_a_lost_practice_game_says_so_by_itself_and_undoes_to_the_last_winnable_position(
    new_player: Any,
) -> None:
    alice = new_player()
    game_id = play_line(alice, LOST_CODE, LOST_LINE)
    assert alice.api("GET", f"/api/games/{game_id}/")["verdict"] is None  # (nobody asked yet)
    page = alice.page
    answers = record_verdicts(page)
    alice.goto(f"/games/{game_id}/")  # the page asks by itself, after a pause
    assert wait_for(page, answers, 1) == {
        "outcome": "no_win",
        "proved": True,
        "undo": {"actions": LOST_UNDOS, "ply": len(LOST_LINE) + LOST_UNDOS},
    }
    expect(notice(page)).to_have_attribute("data-kind", "lost")
    expect(page.locator("[data-message-text]")).to_have_text(
        "No win is left from here. Undo 3 actions to the last position that could still be won."
    )
    back = page.locator("[data-message-actions] button")
    expect(back).to_have_text("Undo 3 actions")
    back.click()
    wait_actions(page, len(LOST_LINE) + LOST_UNDOS)
    winnable = Canfield.replay(LOST_CODE, LOST_LINE[: len(LOST_LINE) - LOST_UNDOS])
    board = read_board(page)
    assert board["columns"] == winnable.player_view()["columns"]
    assert board["waste"] == winnable.player_view()["waste"]["cards"]
    expect(notice(page)).not_to_have_attribute("data-kind", "lost")
    # Winnable: the game's payload says so when the way back was kept with the proof, else the
    # page asks again once the player pauses; either way, nothing is said.
    winning = {"outcome": "win", "proved": True, "undo": None}
    known = alice.api("GET", f"/api/games/{game_id}/")["verdict"]
    assert known in (None, winning)
    if known is None:
        assert wait_for(page, answers, 2) == winning
    expect(notice(page)).not_to_have_attribute("data-kind", "lost")
    assert alice.errors == []


def test_a_daily_attempt_never_asks_whether_it_is_lost(new_player: Any) -> None:
    alice = new_player()
    attempt = alice.start_daily()
    alice.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    page = alice.page
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    alice.goto(f"/games/{attempt['id']}/")
    page.wait_for_selector(".pile.stock")
    page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 2600))")  # past a pause
    assert not [url for url in asked if "/verdict/" in url or "/hint/" in url]
    assert alice.errors == []


# --- a hint the solver could not prove ---------------------------------------------------------


@pytest.fixture(scope="module")
def hurried_server() -> Iterator[str]:
    """A Daphne whose hints search for 0.1 s only (HINT_SECONDS, the least allowed)."""
    with tempfile.TemporaryDirectory(prefix="canfield-hurried-") as workdir:
        env = django_env(
            f"sqlite:///{workdir}/db.sqlite3",
            settings="tests.frontend.live_settings",
            HINT_SECONDS="0.1",
        )
        migrate(env)
        with Daphne(env, Path(workdir) / "daphne.log") as server:
            yield server.url


def test_a_hint_without_proof_still_gives_a_move_and_says_so(
    new_player: Any, hurried_server: str
) -> None:
    alice = new_player(base=hurried_server, viewport=WIDE, bypass_csp=True)
    game_id = play_line(alice, UNDECIDED_CODE, [])
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    # (The server's first search starts its solver pool: until a worker is up it answers busy,
    # and the player asks again.)
    for _ in range(20):
        with page.expect_response(re.compile(r"/hint/$")) as answer:
            page.locator("[data-hint]").click()
        if answer.value.status != 503:
            break
        page.wait_for_timeout(1000 * float(answer.value.json().get("retry_after", 1)))
    assert answer.value.status == 200, answer.value.text()
    hint = answer.value.json()
    assert hint["outcome"] == "unknown" and hint["proved"] is False and hint["action"]
    expect(page.locator("[data-message-text]")).to_have_text(
        re.compile(r"^Try this: .+ — the solver could not prove a win in time\.$")
    )
    highlighted = page.locator(".hint-source")
    expect(highlighted.first).to_be_visible()
    assert "No way to win" not in (page.locator("[data-message-text]").text_content() or "")
    found = {"desktop": violations(page)}
    page.set_viewport_size(PHONE)
    found["phone"] = page.evaluate(RUN_AXE)
    assert found == {"desktop": [], "phone": []}
    assert alice.errors == []


# --- explanations --------------------------------------------------------------------------------


def test_the_numbers_are_explained_where_they_appear(new_player: Any) -> None:
    alice = new_player()
    today = alice.api("GET", "/api/daily/")
    difficulty = today["difficulty"]
    assert difficulty is not None
    attempt = alice.start_daily()

    # The game page of the daily: its difficulty, and what it means one tap away.
    page = alice.goto(f"/games/{attempt['id']}/")
    box = page.locator("[data-difficulty]")
    summary = box.locator("summary")
    name = difficulty["label"].title()
    expect(summary.locator(".pill")).to_have_text(name)
    expect(box.locator("[data-difficulty-text]")).to_be_hidden()
    summary.click()
    share = f"{round(difficulty['share'] * 100)}%"
    expect(box.locator("[data-difficulty-text]")).to_have_text(
        f"{name}: our casual simulated player, who sees only what you see, wins {share} of its"
        " games on this deal."
    )
    page.keyboard.press("Escape")
    expect(box.locator("[data-difficulty-text]")).to_be_hidden()
    expect(summary).to_be_focused()

    order = (
        "Ranked by: won first, then cards on the foundations, then fewer actions (an undo counts"
        " as an action), then less time."
    )
    page = alice.goto("/")
    expect(page.locator("[data-daily] [data-ranking-order]")).to_have_text(order)
    page = alice.goto("/leaderboard/")
    expect(page.locator("[data-ranking-order]")).to_have_text(order)
    expect(page.locator("[data-difficulty-why]")).to_be_visible()

    page = alice.goto("/how-to-play/")
    expect(page.locator("[data-ranking-order]")).to_have_text(order)
    expect(page.locator("[data-rules]")).to_contain_text(
        "The score does not rank: a card taken back and placed again scores again"
    )
    variants = page.locator("[data-variants]")
    expect(variants.get_by_role("heading")).to_have_text("Standard and Classic (Hoyle) rules")
    expect(variants).to_contain_text("Classic: only a whole column at once.")
    expect(variants).to_contain_text("Classic: never.")

    # The New game form: each rule set with its description, read with it.
    page = alice.goto("/")
    form = page.locator("form[data-new-game-form]")
    standard = form.get_by_role("radio", name="Standard")
    classic = form.get_by_role("radio", name="Classic (Hoyle)")
    expect(standard).to_be_checked()
    expect(standard).to_have_accessible_description(
        "Any card in a column moves with the cards on it; a foundation's top card can be taken"
        " back."
    )
    expect(classic).to_have_accessible_description(re.compile(r"^The casino game: a column"))
    classic.check(force=True)  # (the radio is drawn as its label)
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/games/*/")
    page.wait_for_selector(".pile.stock")
    game = alice.api("GET", page.url.replace(alice.base, "/api").rstrip("/") + "/")
    assert game["variant"] == "classic"
    assert alice.errors == []


# --- axe with each notice showing ------------------------------------------------------------


def test_the_game_page_with_each_moment_showing_is_accessible(
    new_player: Any, artifacts: Path
) -> None:
    alice = new_player(viewport=WIDE, bypass_csp=True)
    stuck = play_line(alice, STUCK_CODE, STUCK_LINE)
    lost = play_line(alice, LOST_CODE, LOST_LINE)
    won = play_line(alice, WORKED_EXAMPLE, WON[:-1])
    attempt = alice.start_daily()
    alice.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    found: dict[str, Any] = {}

    def check(name: str) -> None:
        settle(alice.page)
        alice.page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
        found[f"{name} (desktop)"] = violations(alice.page)
        alice.page.set_viewport_size(PHONE)
        found[f"{name} (phone)"] = alice.page.evaluate(RUN_AXE)
        alice.page.screenshot(path=str(artifacts / f"moment-{name}-phone.png"))
        alice.page.set_viewport_size(WIDE)

    page = alice.goto(f"/games/{stuck}/")
    expect(notice(page)).to_have_attribute("data-kind", "stuck")
    check("stuck")
    page = alice.goto(f"/games/{lost}/")
    expect(notice(page)).to_have_attribute("data-kind", "lost", timeout=20_000)
    check("lost")
    page = alice.goto(f"/games/{won}/")
    page.wait_for_selector(".pile.stock")
    tap(page, card(page, "T2"))
    expect(page.locator("[data-win]")).to_be_visible()
    check("won")
    page = alice.goto(f"/games/{attempt['id']}/")
    page.locator("[data-difficulty] summary").click()
    expect(page.locator("[data-difficulty-text]")).to_be_visible()
    check("difficulty")
    alice.api("POST", f"/api/games/{attempt['id']}/resign/")
    page = alice.goto(f"/games/{attempt['id']}/")
    page.locator("[data-open-result]").click()
    expect(page.locator("[data-result-streak]")).to_be_visible()
    check("result")
    bad = {name: v for name, v in found.items() if v}
    assert bad == {}, bad
    assert alice.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_the_difficulty_explanation_stays_in_the_window(new_player: Any, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    attempt = alice.start_daily()
    page = alice.goto(f"/games/{attempt['id']}/")
    page.locator("[data-difficulty] summary").click()
    text = page.locator("[data-difficulty-text]")
    expect(text).to_be_visible()
    box = text.bounding_box()
    width = page.evaluate("window.innerWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert alice.errors == []

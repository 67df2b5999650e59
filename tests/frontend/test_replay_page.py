"""The replay viewer: stepping, jumping to an action, playing, and the board it shows."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .conftest import PASSWORD
from .helpers import WORKED_EXAMPLE, assert_worked_example_done, read_board, settle


def test_the_replay_viewer_steps_to_an_action_and_shows_its_board(
    new_player: Any, artifacts: Path
) -> None:
    alice = new_player()
    game = alice.api("POST", "/api/games/", {"code": WORKED_EXAMPLE})
    for ply, token in enumerate(["R-T2", "R-F1", "T2:2-T4", "D"]):
        alice.api("POST", f"/api/games/{game['id']}/actions/", {"ply": ply, "action": token})
    alice.api("POST", f"/api/games/{game['id']}/resign/")

    page = alice.goto(f"/games/{game['id']}/replay/")
    position = page.locator("[data-step]")
    expect(position).to_have_text("0/4")
    # The stock is a picture here, not a button that draws.
    expect(page.locator('.pile[data-pile="S"]')).to_have_attribute("role", "img")
    expect(page.locator('.pile[data-pile="S"]')).to_have_attribute("aria-label", "Stock, 34 cards")
    expect(page.locator("[data-board]").get_by_role("button")).to_have_count(0)
    board = read_board(page)
    assert board["reserve_top"] == "QC"
    assert board["score"] == "0"
    expect(page.locator("[data-tokens] button")).to_have_text(
        [
            "Start",
            "1. Queen of clubs from the reserve to column 2",
            "2. Eight of hearts from the reserve to the hearts foundation",
            "3. King of hearts with 1 card on it from column 2 to column 4",
            "4. Draw from the stock",
        ]
    )
    # the notation stays at hand, in a tooltip
    expect(page.locator('[data-tokens] button[data-position="3"]')).to_have_attribute(
        "title", "Action 3: T2:2-T4 (notation) · score 5"
    )

    page.locator('[data-tokens] button[data-position="2"]').click()  # jump to action 2
    expect(position).to_have_text("2/4")
    expect(page.locator('[data-tokens] button[aria-current="step"]')).to_have_attribute(
        "data-token", "R-F1"
    )
    board = read_board(page)
    assert board["columns"] == [["6C"], ["KH", "QC"], ["QH"], ["AS"]]
    assert board["foundations"]["H"] == "8H"
    assert board["reserve_badge"] == "11"
    assert board["score"] == "5"

    page.locator("[data-forward]").click()
    expect(position).to_have_text("3/4")
    assert_worked_example_done(page)
    settle(page)
    page.screenshot(path=str(artifacts / "replay.png"))

    page.locator("[data-back]").click()
    expect(position).to_have_text("2/4")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text("4/4")
    assert read_board(page)["stock_badge"] == "31"

    scrubber = page.locator("[data-scrubber]")
    scrubber.fill("1")  # the range input, as a person drags it
    expect(position).to_have_text("1/4")
    assert read_board(page)["columns"][1] == ["KH", "QC"]

    page.locator("[data-speed]").select_option(label="5×")
    page.locator("[data-first]").click()
    page.locator("[data-play]").click()
    expect(position).to_have_text("4/4", timeout=5000)
    expect(page.locator("[data-play]")).to_have_attribute("aria-label", "Play")
    assert alice.errors == []


def test_a_stranger_cannot_replay_a_practice_game(new_player: Any) -> None:
    alice = new_player()
    # (her practice kept private: a public one in progress is anyone's to watch live)
    alice.api("PATCH", "/api/auth/me/settings/", {"practice_private": True})
    game = alice.api("POST", "/api/games/", {"code": WORKED_EXAMPLE})
    bob = new_player()
    page = bob.goto(f"/games/{game['id']}/replay/")
    expect(page.locator(".notice-error")).to_be_visible()
    assert read_board(page)["columns"] == [[], [], [], []]


def test_a_past_days_board_shows_its_code_par_and_plays_its_solution(new_player: Any) -> None:
    from .conftest import yesterday

    alice = new_player()
    day = yesterday().isoformat()
    board = alice.api("GET", f"/api/daily/{day}/board/")
    assert board["par"] and board["solution"] == f"/api/daily/{day}/solution/"

    page = alice.goto(f"/leaderboard/{day}/")
    box = page.locator("[data-deal-code]")
    expect(box).to_be_visible()
    expect(box.locator("code")).to_have_text(board["code"])
    expect(box).to_contain_text(f"Par (solver): {board['par']}")
    box.get_by_role("link", name="Watch the solution").click()

    page.wait_for_url(f"**/leaderboard/{day}/solution/")
    position = page.locator("[data-step]")
    expect(position).to_have_text(f"0/{board['par']}")
    expect(page.locator("[data-title]")).to_contain_text("(solver)")
    expect(page.locator("[data-code]")).to_have_text(board["code"])
    page.locator("[data-last]").click()
    expect(position).to_have_text(f"{board['par']}/{board['par']}")
    expect(page.locator("[data-foundation-cards]")).to_have_text("52/52")
    assert alice.errors == []


def test_todays_solution_is_not_served(new_player: Any) -> None:
    import datetime as dt

    alice = new_player()
    today = dt.datetime.now(dt.UTC).date().isoformat()
    page = alice.goto(f"/leaderboard/{today}/solution/")

    expect(page.locator(".board-wrap")).to_contain_text(f"There is no solution for {today}")


#: Every text the analysis line shows, in order, from the page's first script on.
WATCH_ANALYSIS = """() => {
  window.analysisTexts = [];
  new MutationObserver(() => {
    const text = document.querySelector("[data-analysis-text]")?.textContent;
    if (text && window.analysisTexts.at(-1) !== text) window.analysisTexts.push(text);
  }).observe(document, { subtree: true, childList: true, characterData: true });
}"""


def test_the_replay_shows_where_the_win_slipped_away_and_marks_that_action(
    new_player: Any, artifacts: Path
) -> None:
    # A lost game the solver proves winnable up to action 21 and lost from action 22 on.
    from tests.games.test_analysis import LOST, LOST_CODE

    from .helpers import play_line

    alice = new_player()
    game_id = play_line(alice, LOST_CODE, LOST)
    alice.api("POST", f"/api/games/{game_id}/resign/")  # the worker tier analyses it now

    alice.page.add_init_script(f"({WATCH_ANALYSIS})()")
    page = alice.goto(f"/games/{game_id}/replay/")
    text = page.locator("[data-analysis-text]")
    expect(text).to_contain_text("The win slipped away at action 22:", timeout=120_000)

    analysis = alice.api("GET", f"/api/games/{game_id}/analysis/")
    assert analysis["status"] == "ready" and analysis["slip"]["ply"] == 22
    line = analysis["slip"]["line"]
    expect(text).to_contain_text("left no way to win.")
    expect(text).to_contain_text(f"was still winning (a line of {line} actions).")
    shown = page.evaluate("() => window.analysisTexts")
    assert shown[-1] == text.text_content()
    assert set(shown[:-1]) <= {"Analysing…"}  # nothing else on the way
    # The action is marked in the list, and only that one.
    marked = page.locator("[data-tokens] button[data-slip]")
    expect(marked).to_have_count(1)
    expect(marked).to_have_attribute("data-position", "22")
    expect(marked.locator(".slip-mark")).to_have_text("no win after this")

    jump = page.locator("[data-analysis-jump]")
    expect(jump).to_have_text("Go to action 22")
    jump.click()
    expect(page.locator("[data-step]")).to_have_text(f"22/{len(LOST)}")
    expect(page.locator('[data-tokens] button[aria-current="step"]')).to_have_attribute(
        "data-position", "22"
    )
    settle(page)
    page.screenshot(path=str(artifacts / "replay-slip.png"))
    assert alice.errors == []


def test_a_game_kept_by_signing_up_is_replayed_under_the_account_s_name(
    browser: Any, daphne_server: str, new_player: Any
) -> None:
    """A guest's finished game, kept by signing up: its replay names the account, to its player
    and to anyone, in the title and the page's heading — never the old guest-… name."""
    context = browser.new_context(base_url=daphne_server)
    try:
        guest = context.new_page()
        guest.goto("/")  # (the CSRF cookie)

        def post(path: str, data: Any = None) -> Any:
            csrf = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
            headers = {"X-CSRFToken": csrf, "Referer": daphne_server + "/"}
            response = context.request.post(path, data=data, headers=headers)
            assert response.ok, f"POST {path}: {response.status} {response.text()}"
            return response.json()

        game = post("/api/games/", {"code": WORKED_EXAMPLE})
        for ply, token in enumerate(["R-T2", "R-F1"]):
            post(f"/api/games/{game['id']}/actions/", {"ply": ply, "action": token})
        post(f"/api/games/{game['id']}/resign/")
        bob = new_player()
        page = bob.goto(f"/games/{game['id']}/replay/")
        expect(page.locator("[data-title]")).to_contain_text("guest-")  # (a guest's, so far)

        name = f"kept{uuid.uuid4().hex[:8]}"
        post("/api/auth/signup/", {"username": name, "password": PASSWORD})

        for viewer in (guest, bob.page):
            viewer.goto(f"{daphne_server}/games/{game['id']}/replay/")
            expect(viewer.locator("[data-title]")).to_contain_text(f"{name} · ")
            expect(viewer.locator("[data-title]")).not_to_contain_text("guest-")
            expect(viewer).to_have_title(f"Replay: {name} · Canfield Online")
        assert bob.errors == []
    finally:
        context.close()


def test_a_replay_address_naming_no_game_is_the_404_page(new_player: Any) -> None:
    alice = new_player()
    for path in ("/games/999999/replay/", "/games/abc/replay/"):
        response = alice.page.goto(alice.url(path))
        assert response is not None and response.status == 404, path
        page = alice.page
        expect(page.locator("[data-error-status='404']")).to_be_visible()
        expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
        expect(page.locator("main")).to_contain_text("No such game.")
        expect(page.locator(".replay-controls")).to_have_count(0)
    alice.context.add_cookies([{"name": "django_language", "value": "fi", "url": alice.base}])
    response = alice.page.goto(alice.url("/games/abc/replay/"))
    assert response is not None and response.status == 404
    expect(alice.page.locator("html")).to_have_attribute("lang", "fi")
    assert alice.page.get_by_role("heading", level=1).text_content() != "Page not found"
    assert alice.errors == []

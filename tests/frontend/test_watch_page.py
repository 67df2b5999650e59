"""Watching, in Chromium: a practice game found on /watch/ and watched live on its page (a move of
its player appears on the watcher's board, with "N watching"); another player's attempt at today's
deal refused by every path — its page, its socket, the /watch/ list, the API — until the watcher's
own attempt is over, then admitted by each."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .helpers import WORKED_EXAMPLE, read_board

#: The first frame (a ping aside) of a spectators' socket the page opens on game ``id``.
FIRST_FRAME = """(id) => new Promise((resolve, reject) => {
  const socket = new WebSocket(`ws://${location.host}/ws/games/${id}/watch/`);
  socket.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type === "ping") return;
    resolve(frame);
    socket.close();
  };
  socket.onerror = () => reject(new Error("the socket failed"));
})"""

TO_A_PLAYER = (
    "You may watch another player's attempt at this daily deal once your own attempt is over "
    "(won or resigned). Once the day is over, anyone may watch it."
)
LIVE = '[data-live-state][data-state="live"]'


def listed(page: Page) -> list[int]:
    """The games the /watch/ page lists as being played, once it has drawn them."""
    page.wait_for_selector("[data-playing][data-shown]", state="attached")
    rows = page.locator("[data-playing] tr[data-game]")
    return [int(row.get_attribute("data-game") or 0) for row in rows.all()]


def test_a_practice_game_is_found_on_the_watch_page_and_watched_live(new_player: Any) -> None:
    alice, bob = new_player("plays"), new_player("watches")
    game = alice.api("POST", "/api/games/", {"code": WORKED_EXAMPLE})
    actions = f"/api/games/{game['id']}/actions/"
    alice.api("POST", actions, {"ply": 0, "action": "R-T2"})

    page = bob.goto("/watch/")
    assert game["id"] in listed(page)
    page.locator(f"[data-playing] tr[data-game='{game['id']}'] a.button").click()
    page.wait_for_url(f"**/games/{game['id']}/replay/")
    expect(page.locator(LIVE)).to_be_visible()
    expect(page.locator("[data-step]")).to_have_text("1")
    expect(page.locator("[data-watching]")).to_have_text("1 watching")
    before = read_board(page)

    alice.api("POST", actions, {"ply": 1, "action": "R-F1"})  # the reserve's top card, home
    expect(page.locator("[data-step]")).to_have_text("2")
    after = read_board(page)
    assert before["reserve_top"] in after["foundations"].values()
    assert after["reserve_top"] != before["reserve_top"]
    expect(page.locator("[data-score]")).to_have_text("5")

    alice.goto(f"/games/{game['id']}/replay/")  # its player watches too
    expect(page.locator("[data-watching]")).to_have_text("2 watching")
    alice.api("POST", f"/api/games/{game['id']}/resign/")
    expect(page.locator("[data-live-state]")).to_have_attribute("data-state", "over")
    expect(page.locator("[data-result]")).to_contain_text("Resigned")
    assert bob.errors == [] and alice.errors == []


def test_today_s_attempt_is_refused_by_every_path_until_the_watcher_s_own_is_over(
    new_player: Any,
) -> None:
    alice, bob = new_player("daily"), new_player("waits")
    attempt = alice.start_daily()
    alice.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})

    page = bob.goto(f"/games/{attempt['id']}/replay/")
    expect(page.locator("[data-refusal]")).to_have_text(TO_A_PLAYER)
    assert page.evaluate(FIRST_FRAME, attempt["id"]) == {
        "type": "refused",
        "code": "own_attempt_not_over",
        "message": TO_A_PLAYER,
    }
    assert attempt["id"] not in [g["id"] for g in bob.api("GET", "/api/watch/")["playing"]]
    assert attempt["id"] not in listed(bob.goto("/watch/"))

    own = bob.start_daily()
    bob.api("POST", f"/api/games/{own['id']}/resign/")

    assert attempt["id"] in [g["id"] for g in bob.api("GET", "/api/watch/")["playing"]]
    assert attempt["id"] in listed(bob.goto("/watch/"))
    page = bob.goto(f"/games/{attempt['id']}/replay/")
    expect(page.locator(LIVE)).to_be_visible()
    expect(page.locator("[data-step]")).to_have_text("1")
    snapshot = page.evaluate(FIRST_FRAME, attempt["id"])
    assert (snapshot["type"], snapshot["ply"], snapshot["game"]["code"]) == ("snapshot", 1, None)
    assert bob.errors == []

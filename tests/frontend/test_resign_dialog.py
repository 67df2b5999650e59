"""Resign asks in the site's own dialog, not the browser's confirm box: a modal labelled by its
heading, the question read with it, the focus on the safe answer and kept inside while it is open
(Tab and Shift+Tab go round its buttons), Escape closes it changing nothing — all by keyboard."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .helpers import WORKED_EXAMPLE, play_line


def test_resign_asks_in_the_sites_own_dialog_by_keyboard(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2"])
    # What the page and the server say to each other, for a failure's message.
    page = alice.page
    said: list[str] = []
    page.on("console", lambda m: said.append(f"console {m.type}: {m.text}"))
    page.on("request", lambda r: said.append(f"request {r.method} {r.url}"))
    page.on("response", lambda r: said.append(f"response {r.status} {r.url}"))

    def watch_socket(ws: Any) -> None:
        said.append(f"socket {ws.url}")
        ws.on("framesent", lambda f: said.append(f"sent {f}"))
        ws.on("framereceived", lambda f: said.append(f"received {f}"))
        ws.on("close", lambda _ws: said.append("socket closed"))

    page.on("websocket", watch_socket)
    alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    browser_boxes: list[str] = []

    def browser_box(box: Any) -> None:
        browser_boxes.append(box.message)
        box.dismiss()

    page.on("dialog", browser_box)

    resign = page.locator("[data-resign]")
    resign.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Resign")
    expect(dialog).to_be_visible()
    expect(dialog).to_have_accessible_description("Resign this game?")
    keep = dialog.get_by_role("button", name="Keep playing")
    confirm = dialog.get_by_role("button", name="Resign")
    expect(keep).to_be_focused()  # (the safe answer first)
    page.keyboard.press("Tab")
    expect(confirm).to_be_focused()
    page.keyboard.press("Tab")
    expect(keep).to_be_focused()  # round again: the focus stays in the dialog
    page.keyboard.press("Shift+Tab")
    expect(confirm).to_be_focused()

    page.keyboard.press("Escape")  # closes, nothing changes
    expect(dialog).to_be_hidden()
    expect(resign).to_be_focused()
    assert alice.api("GET", f"/api/games/{game_id}/")["status"] == "in_progress"

    page.keyboard.press("Enter")
    expect(keep).to_be_focused()
    page.keyboard.press("Tab")
    expect(confirm).to_be_focused()
    page.keyboard.press("Enter")  # Resign
    expect(dialog).to_be_hidden()
    # Up to 30 s: a socket's move not answered in 15 s is sent again over REST (gamesocket.js),
    # still one resignation.
    try:
        expect(page.locator("[data-status]")).to_have_text("Resigned", timeout=30_000)
    except AssertionError as failed:
        server = alice.api("GET", f"/api/games/{game_id}/")["status"]
        raise AssertionError(
            f"the page never showed the resignation (the server: {server}); "
            f"what was said:\n" + "\n".join(said)
        ) from failed
    assert alice.api("GET", f"/api/games/{game_id}/")["status"] == "resigned"
    assert browser_boxes == []  # never the browser's confirm box
    assert alice.errors == []


def test_a_question_asked_again_before_the_last_close_is_told_waits_for_its_own_answer(
    new_player: Any,
) -> None:
    """A dialog's ``close`` event comes after it has closed (a task of its own), and a busy page
    may take a key press first: the question can be asked again while the last closing is still
    untold. That late ``close`` belongs to the last opening: the new one still waits for its own
    answer, and the player's "Resign" resigns."""
    alice = new_player()
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2"])
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    resign = page.locator("[data-resign]")
    resign.click()
    dialog = page.get_by_role("dialog", name="Resign")
    expect(dialog).to_be_visible()
    # Closed (as Escape closes it), and asked again in the same task: its close event comes after.
    page.evaluate(
        """() => {
          document.querySelector("[data-resign-dialog]").close();
          document.querySelector("[data-resign]").click();
        }"""
    )
    expect(dialog).to_be_visible()
    page.wait_for_timeout(200)  # (the late close event told: the dialog stays open)
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Resign").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("[data-status]")).to_have_text("Resigned")
    assert alice.api("GET", f"/api/games/{game_id}/")["status"] == "resigned"
    assert alice.errors == []

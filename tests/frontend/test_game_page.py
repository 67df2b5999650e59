"""The game page in a real browser: taps, drags (mouse and touch), draw and recycle, undo, the
New game dialog, the "Tap or click plays to columns too" setting, a refused drop."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .conftest import PHONE, REPO
from .helpers import (
    WORKED_EXAMPLE,
    assert_worked_example_done,
    card,
    foundation,
    mouse_drag,
    pile,
    read_board,
    settle,
    start_by_code,
    tap,
    touch_drag,
    wait_actions,
)


def test_it_plays_the_worked_example_by_taps(new_player: Any, artifacts: Path) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)
    expect(page.locator("[data-code]")).to_have_text(WORKED_EXAMPLE)
    expect(pile(page, "R")).to_contain_text("13")

    tap(page, card(page, "R"))  # QC: no foundation takes it; the longest column that does: T2
    wait_actions(page, 1)
    assert read_board(page)["columns"][1] == ["KH", "QC"]

    tap(page, card(page, "R"))  # 8H: to the hearts foundation
    wait_actions(page, 2)
    assert read_board(page)["foundations"]["H"] == "8H"

    tap(page, card(page, "T2", 0))  # KH with QC on it: onto AS in T4; QS fills T2
    wait_actions(page, 3)
    assert_worked_example_done(page)
    expect(foundation(page, "H").locator('.card[data-card="8H"]')).to_be_visible()
    page.screenshot(path=str(artifacts / "board-desktop.png"))
    assert alice.errors == []


def test_it_plays_the_worked_example_by_mouse_drags(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)

    mouse_drag(page, card(page, "R"), pile(page, "T2"))
    wait_actions(page, 1)
    mouse_drag(page, card(page, "R"), foundation(page, "H"))
    wait_actions(page, 2)
    mouse_drag(page, card(page, "T2", 0), pile(page, "T4"))  # the run KH QC
    wait_actions(page, 3)
    assert_worked_example_done(page)
    assert alice.errors == []


def test_it_plays_by_touch_at_phone_width(new_player: Any, artifacts: Path) -> None:
    alice = new_player(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    touch_drag(page, card(page, "R"), pile(page, "T2"))
    wait_actions(page, 1)
    card(page, "R").tap()  # 8H to its foundation
    wait_actions(page, 2)
    touch_drag(page, card(page, "T2", 0), pile(page, "T4"))
    wait_actions(page, 3)
    assert_worked_example_done(page)
    pile(page, "S").tap()
    wait_actions(page, 4)
    page.screenshot(path=str(artifacts / "board-phone.png"), full_page=True)
    assert alice.errors == []


def test_it_draws_and_recycles(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)

    pile(page, "S").click()
    wait_actions(page, 1)
    board = read_board(page)
    assert board["stock_badge"] == "31"
    assert len(board["waste"]) == 3
    assert board["waste_badge"] == "3"

    # The rest of the stock from the keyboard: 31 cards are 11 more draws.
    pile(page, "S").focus()
    for n in range(2, 13):
        page.keyboard.press("Enter")
        wait_actions(page, n)
    board = read_board(page)
    assert board["stock_badge"] == "0"
    assert board["waste_badge"] == "34"
    expect(pile(page, "S")).to_have_attribute("aria-label", "Stock, 0 cards, recycle the waste")

    pile(page, "S").click()  # recycle
    wait_actions(page, 13)
    board = read_board(page)
    assert board["stock_badge"] == "34"
    assert board["waste"] == []
    assert alice.errors == []


def test_it_undoes_with_the_button_and_ctrl_z(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)
    undo = page.locator("[data-undo]")
    expect(undo).to_be_disabled()

    card(page, "R").focus()
    expect(card(page, "R")).to_have_attribute("aria-label", "Reserve, 13 cards, top queen of clubs")
    page.keyboard.press("Enter")  # picked up...
    page.keyboard.press("Enter")  # ...and played where a tap plays it: R-T2
    wait_actions(page, 1)
    tap(page, card(page, "R"))  # R-F1
    wait_actions(page, 2)
    assert read_board(page)["score"] == "5"

    page.keyboard.press("Control+z")
    wait_actions(page, 3)
    board = read_board(page)
    assert board["reserve_top"] == "8H"
    assert board["foundations"]["H"] == "7H"
    assert board["score"] == "0"

    undo.click()
    wait_actions(page, 4)
    board = read_board(page)
    assert board["reserve_top"] == "QC"
    assert board["reserve_badge"] == "13"
    assert board["columns"][1] == ["KH"]
    expect(undo).to_be_disabled()
    assert alice.errors == []


def test_it_starts_a_new_game_by_code_from_the_dialog(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    form = page.locator("form[data-new-game-form]")
    form.locator("input[name=draw][value='1']").check()
    form.locator("button[type=submit]").click()  # a random deal, draw 1 ("Easy")
    page.wait_for_url("**/games/*/")
    expect(page.locator("[data-title]")).to_contain_text("Draw 1")
    first = page.url

    page.locator("[data-open-new-game]").first.click()
    dialog = page.locator("dialog[data-new-game-dialog]")
    expect(dialog).to_be_visible()
    dialog.locator("input[name=deal][value=code]").check()
    dialog.locator("input[name=code]").fill(WORKED_EXAMPLE)
    dialog.locator("button[type=submit]").click()
    page.wait_for_url(lambda url: url != first and "/games/" in url)
    expect(page.locator("[data-code]")).to_have_text(WORKED_EXAMPLE)
    expect(page.locator("[data-title]")).to_contain_text("Draw 3")
    assert read_board(page)["reserve_top"] == "QC"

    # A code that is not one: the server's message, and no navigation.
    page.locator("[data-open-new-game]").first.click()
    dialog.locator("input[name=deal][value=code]").check()
    dialog.locator("input[name=code]").fill("CF1-D3-HELLO")
    dialog.locator("button[type=submit]").click()
    expect(dialog.locator("[data-form-error]")).not_to_be_empty()
    assert alice.errors == []


def test_the_double_click_setting_is_remembered(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)
    box = page.locator("[data-double-click]")
    expect(box).to_be_checked()
    box.uncheck()

    # Off: a tap only tries the foundation, and no foundation takes QC: the page says to drag it.
    tap(page, card(page, "R"))
    expect(page.locator("[data-message-text]")).to_contain_text(
        "“Tap or click plays to columns too” is off"
    )
    assert read_board(page)["actions"] == "0"

    page.reload()
    page.wait_for_selector(".pile.stock")
    expect(box).not_to_be_checked()
    box.check()
    tap(page, card(page, "R"))
    wait_actions(page, 1)
    assert read_board(page)["columns"][1] == ["KH", "QC"]


def test_a_refused_drop_springs_back_with_the_servers_reason(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    game_id = start_by_code(page, WORKED_EXAMPLE)

    mouse_drag(page, card(page, "T1"), pile(page, "T3"))  # 6C onto QH
    # (the page's move went over the game's socket or REST: the same refusal either way)
    csrf = next(c["value"] for c in alice.context.cookies(alice.base) if c["name"] == "csrftoken")
    refused = alice.context.request.post(
        alice.url(f"/api/games/{game_id}/actions/"),
        data={"ply": 0, "action": "T1-T3"},
        headers={"X-CSRFToken": csrf, "Referer": alice.base + "/"},
    )
    assert refused.status == 400
    reason = refused.json()["message"]
    expect(page.locator("[data-messages]")).to_have_attribute("data-kind", "refused")
    expect(page.locator("[data-message-text]")).to_have_text(reason)
    page.wait_for_function("() => !document.querySelector('.drag-ghost')")
    board = read_board(page)
    assert board["columns"] == [["6C"], ["KH"], ["QH"], ["AS"]]
    assert board["actions"] == "0"
    expect(card(page, "T1")).to_be_visible()
    assert alice.errors == []


def test_the_last_card_home_shows_the_win_banner(new_player: Any, artifacts: Path) -> None:
    alice = new_player()
    text = (REPO / "tests/engine/corpus/won-AAAAACL.txt").read_text()
    tokens = [t for line in text.splitlines() if not line.startswith("[") for t in line.split()]
    game = alice.api("POST", "/api/games/", {"code": WORKED_EXAMPLE})
    for ply, token in enumerate(tokens[:-1]):
        alice.api("POST", f"/api/games/{game['id']}/actions/", {"ply": ply, "action": token})

    page = alice.goto(f"/games/{game['id']}/")
    page.wait_for_selector(".pile.stock")
    assert tokens[-1] == "T2-F2"
    tap(page, card(page, "T2"))  # the last card goes home by a tap
    banner = page.locator("[data-win]")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Score 255")
    expect(page.locator("[data-status]")).to_have_text("Won")
    settle(page)
    page.screenshot(path=str(artifacts / "won.png"))
    page.keyboard.press("Escape")  # a dialog: Escape closes it, as its button does
    expect(banner).to_be_hidden()
    expect(page.locator("[data-undo]")).to_be_disabled()
    expect(page.locator("[data-replay-link]")).to_be_visible()
    assert alice.errors == []


def test_a_card_moves_with_the_keyboard_alone(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    start_by_code(page, WORKED_EXAMPLE)

    card(page, "R").focus()
    page.keyboard.press("Enter")  # pick up QC
    expect(card(page, "R")).to_have_class(re.compile(r"\bpicked\b"))
    card(page, "T4").focus()
    page.keyboard.press("Enter")  # put it on AS: refused, nothing moves
    expect(page.locator("[data-messages]")).to_have_attribute("data-kind", "refused")
    assert read_board(page)["actions"] == "0"

    card(page, "R").focus()
    page.keyboard.press(" ")  # Space picks up too
    page.keyboard.press("Escape")  # and Escape puts it back
    expect(page.locator(".card.picked")).to_have_count(0)
    page.keyboard.press("Enter")
    card(page, "T2").focus()
    page.keyboard.press("Enter")  # onto KH
    wait_actions(page, 1)
    assert read_board(page)["columns"][1] == ["KH", "QC"]


def test_a_stale_page_catches_up_with_the_game(new_player: Any) -> None:
    alice = new_player()
    page = alice.goto("/")
    game_id = start_by_code(page, WORKED_EXAMPLE)
    other_tab = alice.context.new_page()
    other_tab.goto(alice.url(f"/games/{game_id}/"))
    other_tab.wait_for_selector(".pile.stock")

    tap(page, card(page, "R"))  # R-T2 in the first tab
    wait_actions(page, 1)

    pile(other_tab, "S").click()  # made in position 0: stale (409 stale_ply)
    expect(other_tab.locator("[data-actions]")).to_have_text("1")
    assert read_board(other_tab)["columns"][1] == ["KH", "QC"]
    expect(other_tab.locator("[data-message-text]")).to_contain_text("changed elsewhere")

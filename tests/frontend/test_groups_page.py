"""A group of friends end to end, in two browsers: Alice makes a group and copies its invite
link; Bob, a stranger to it, gets the 404 page, then joins by the link with a click (a page view
joins nothing); his move on the daily deal appears on Alice's group board, live, and in the
week's table; Alice makes a new link and Carol, with the old one, is refused."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect


def test_a_group_is_made_joined_by_its_link_and_played_live(
    new_player: Any, artifacts: Path
) -> None:
    alice, bob, carol = new_player("alice"), new_player("bob"), new_player("carol")
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=alice.base)

    # Alice makes the group from her groups page: its page, with its invite link.
    page = alice.goto("/groups/")
    expect(page.locator("[data-group-list]")).to_contain_text("no group yet")
    page.get_by_label("Name").fill("  Friday   club ")
    page.get_by_role("button", name="Make the group").click()
    page.wait_for_url(re.compile(r"/groups/\d+/$"))
    group_path = page.url.removeprefix(alice.base)
    expect(page.locator("[data-group-name]")).to_have_text("Friday club")
    link = page.locator("[data-invite-link]")
    expect(link).to_have_value(re.compile(r"/groups/join/[A-Za-z0-9_-]{32}/$"))
    old_link = link.input_value()
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#toasts")).to_contain_text("Invite link copied.")
    assert page.evaluate("navigator.clipboard.readText()") == old_link
    expect(page.locator("[data-live-state]")).to_have_text("Live")

    # Bob is no member: the group's page is not there for him.
    stranger = bob.goto(group_path)
    expect(stranger.locator("[data-error-status]")).to_have_attribute("data-error-status", "404")

    # The link joins nothing by itself; his click (here by the keyboard) joins him.
    joining = bob.goto(old_link.removeprefix(alice.base))
    expect(joining.get_by_role("heading", name="Join a group")).to_be_visible()
    assert [m["name"] for m in bob.api("GET", "/api/groups/")] == []
    joining.locator("[data-join]").focus()
    joining.keyboard.press("Enter")
    joining.wait_for_url(f"**{group_path}")
    expect(joining.locator("[data-members] li")).to_have_count(2)
    expect(joining.locator("[data-new-invite]")).to_have_count(0)  # (the owner's alone)

    # Bob plays today's deal: his row appears on Alice's group board without a reload.
    attempt = bob.start_daily()
    bob.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    row = page.locator(f'[data-rows] tr[data-player="{bob.username}"]')
    expect(row).to_have_count(1, timeout=5000)
    expect(row.locator("td.rank")).to_have_text("1")
    expect(row.get_by_role("link", name="Replay")).to_have_count(0)  # his, private today
    expect(page.locator("[data-members] li")).to_have_count(2)
    week = page.locator(f'[data-testid="group-week"] tr[data-player="{bob.username}"]')
    expect(week.locator('[data-col="total"]')).to_have_text("1")
    expect(week.locator('[data-col="streak"]')).to_have_text("1 day")
    page.screenshot(path=str(artifacts / "group-desktop.png"))

    # Alice makes a new link: Carol, with the old one, is refused; the new one still works.
    page.get_by_role("button", name="New link").click()
    expect(link).not_to_have_value(old_link)
    refused = carol.goto(old_link.removeprefix(alice.base))
    refused.get_by_role("button", name="Join the group").click()
    expect(refused.locator("[data-join-error]")).to_contain_text("This invite does not work")
    expect(carol.goto(group_path).locator("[data-error-status]")).to_have_attribute(
        "data-error-status", "404"
    )
    assert alice.errors == [] and bob.errors == [] and carol.errors == []

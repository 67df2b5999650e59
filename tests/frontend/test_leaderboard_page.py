"""The live leaderboard: a second browser sees the first one's scoring move on the daily deal."""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import WebSocketRoute, expect

from tests.leaderboard.tops import boards
from tests.support import Daphne, deal_days, django_env, free_port, migrate

from .helpers import card, read_board, tap, wait_actions


def test_a_watcher_sees_a_scoring_move_on_the_daily_deal_arrive(
    new_player: Any, artifacts: Path
) -> None:
    alice = new_player("alice")
    bob = new_player("bob")

    # Alice starts her ranked attempt from the home page.
    page = alice.goto("/")
    page.get_by_test_id("play-daily").click()
    page.wait_for_url("**/games/*/")
    page.wait_for_selector(".pile.stock")
    expect(page.locator("[data-code-box]")).to_be_hidden()  # the daily code stays secret
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]

    # Bob watches today's board, live.
    board = bob.goto("/leaderboard/")
    expect(board.locator("[data-live-state]")).to_have_text("Live")
    expect(board.locator(f'tr[data-player="{alice.username}"]')).to_have_count(0)

    # Alice's first move puts a card on a foundation (the test server's daily deal has one).
    state = alice.api("GET", f"/api/games/{game_id}/")["state"]
    token = next(t for t in state["legal"] if "-F" in t)
    source = token.split("-")[0]
    tap(page, card(page, source))  # a tap tries the foundation first
    wait_actions(page, 1)
    assert read_board(page)["score"] == "5"

    row = board.locator(f'tr[data-player="{alice.username}"]')
    expect(row).to_have_count(1, timeout=3000)  # pushed over the websocket, no reload
    expect(row.locator('[data-col="score"]')).to_have_text("5")
    expect(row.locator('[data-col="actions"]')).to_have_text("1")
    # Her rank as the server ranks her (other tests of the session may have won today's deal).
    day = alice.api("GET", f"/api/games/{game_id}/")["daily_date"]
    rank = alice.api("GET", f"/api/daily/{day}/board/")["me"]["rank"]
    expect(row.locator("td.rank")).to_have_text(str(rank))
    board.screenshot(path=str(artifacts / "leaderboard.png"))

    # Her attempt is private until the day is over: no replay link for Bob today.
    expect(row.get_by_role("link", name="Replay")).to_have_count(0)

    # Her own view of the board marks her row, and links her own replay.
    mine = alice.goto("/leaderboard/")
    expect(mine.locator(f'tr.me[data-player="{alice.username}"]')).to_have_count(1)
    own = mine.locator(f'tr.me[data-player="{alice.username}"]')
    expect(own.get_by_role("link", name="Replay")).to_have_count(1)
    assert alice.errors == [] and bob.errors == []


def test_a_lost_update_brings_a_fresh_snapshot_and_a_lost_socket_reconnects(
    new_player: Any,
) -> None:
    """Between page and server: every update's seq is bumped by one, as if one had been lost;
    then the socket is cut. (Carol's attempt is broadcast before the page connects: the page's
    snapshot is then a stored one, which the next update follows, not a full one.)"""
    carol = new_player("carol")
    dave = new_player("dave")
    day = carol.api("GET", "/api/daily/")["date"]
    seq = carol.api("GET", f"/api/daily/{day}/board/")["seq"]
    attempt = carol.start_daily()
    for _ in range(50):
        if carol.api("GET", f"/api/daily/{day}/board/")["seq"] > seq:
            break
        time.sleep(0.1)
    sockets: list[WebSocketRoute] = []
    from_page: list[str] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        sockets.append(ws)

        def to_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame["type"] == "update":
                frame["seq"] += 1
            ws.send(json.dumps(frame))

        def to_server(message: str | bytes) -> None:
            from_page.append(str(message))
            server.send(message)

        server.on_message(to_page)
        ws.on_message(to_server)

    page = dave.page
    page.route_web_socket(re.compile(r"/ws/daily/"), route)
    dave.goto("/leaderboard/")
    live = page.locator("[data-live-state]")
    expect(live).to_have_text("Live")

    carol.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})

    row = page.locator(f'tr[data-player="{carol.username}"]')
    expect(row).to_have_count(1, timeout=5000)  # from the snapshot the page asked for
    assert json.loads(from_page[0]) == {"type": "resync"}

    sockets[0].close(code=1011, reason="gone")
    expect(live).not_to_have_text("Live")
    expect(live).to_have_text("Live", timeout=10_000)
    assert len(sockets) == 2
    expect(row).to_have_count(1)


@pytest.fixture(scope="module")
def server_without_redis() -> Iterator[str]:
    """A Daphne server whose Redis (a closed port) never answers."""
    with tempfile.TemporaryDirectory(prefix="canfield-no-redis-") as workdir:
        env = django_env(
            f"sqlite:///{workdir}/db.sqlite3",
            f"redis://127.0.0.1:{free_port()}/0",
            settings="tests.frontend.live_settings",
        )
        migrate(env)
        deal_days(env)  # (today dealt, as the worker tier deals it)
        with Daphne(env, Path(workdir) / "daphne.log") as server:
            yield server.url


def test_without_redis_the_board_says_live_updates_are_paused_and_polls(
    new_player: Any, server_without_redis: str
) -> None:
    erin = new_player("erin", base=server_without_redis)
    fay = new_player("fay", base=server_without_redis)

    page = fay.goto("/leaderboard/")
    expect(page.locator("[data-live-state]")).to_have_text("Live updates paused")

    attempt = erin.start_daily()
    erin.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})

    row = page.locator(f'tr[data-player="{erin.username}"]')
    expect(row).to_have_count(1, timeout=12_000)  # from a poll of the REST board
    expect(row.locator('[data-col="actions"]')).to_have_text("1")
    expect(page.locator("[data-live-state]")).to_have_text("Live updates paused")
    assert fay.errors == [] and erin.errors == []


@pytest.fixture
def live_js_page(new_player: Any) -> Any:
    """A page that has loaded live.js (the leaderboard), shared by a test's examples."""
    return new_player("erin").goto("/leaderboard/")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(board=boards(), lost=st.lists(st.booleans(), min_size=12, max_size=12))
def test_the_page_applies_updates_as_the_server_does(live_js_page: Any, board: Any, lost: Any):
    """live.js's applyUpdate, given the updates between random boards (leaderboard.live.frames)
    — newcomers above crowds of ties, rows moving, leaving, entering from below, now and then a
    full update over a lost one — holds each board in turn, as the client's model in Python does:
    an open attempt's running time aside, which the page counts itself."""
    from leaderboard.live import frames, model

    snapshots, _ = board
    updates = [
        frames.update_frame(None if gone else a, b)
        for a, b, gone in zip(snapshots, snapshots[1:], lost, strict=False)
    ]
    held = live_js_page.evaluate(
        """async ([first, updates]) => {
            const { applyUpdate } = await import("/static/frontend/js/live.js");
            let rows = first.results;
            const out = [];
            for (const update of updates) {
                rows = applyUpdate(rows, update);
                out.push(JSON.parse(JSON.stringify(rows)));
            }
            return out;
        }""",
        [snapshots[0], updates],
    )

    modelled = snapshots[0]
    for rows, update, fresh in zip(held, updates, snapshots[1:], strict=True):
        modelled = model.apply_update(modelled, update)
        assert len(rows) == len(fresh["results"]) == update["size"]
        for mine, python, theirs in zip(rows, modelled["results"], fresh["results"], strict=True):
            if theirs["status"] == "in_progress":  # its time runs on in the page
                mine = {**mine, "time_seconds": theirs["time_seconds"]}
                python = {**python, "time_seconds": theirs["time_seconds"]}
            assert mine == python == theirs


def test_the_page_asks_for_a_snapshot_when_an_update_is_not_of_its_rows(live_js_page: Any):
    held = live_js_page.evaluate(
        """async () => {
            const { applyUpdate } = await import("/static/frontend/js/live.js");
            const row = (rank, player) => ({ rank, player });
            const rows = [row(1, "a"), row(2, "b")];
            return [
                applyUpdate(rows, { rows: [row(4, "c")], left: [], size: 4, full: false }),
                applyUpdate(rows, { rows: [], left: ["a"], size: 2, full: false }),
                applyUpdate(rows, { rows: [row(1, "c")], left: ["b"], size: 2, full: false }),
            ];
        }"""
    )

    assert held == [None, None, [{"rank": 1, "player": "c"}, {"rank": 2, "player": "a"}]]

"""The pages' one websocket client (``socket.js``), under the live board and the game page: it
answers the server's liveness check (``{"type": "ping", "n"}`` -> ``{"type": "pong", "n"}``, the
same number, at once) and passes the ping no further; it opens a dropped socket again after a wait
that doubles, with jitter; and never after a close whose code says not to — a limit's (4008,
4009, 4429): the game page plays on over REST, the live board polls the REST board."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from .helpers import WORKED_EXAMPLE, card, play_line, read_board, tap, wait_actions

GAME_SOCKET = re.compile(r"/ws/games/\d+/$")
BOARD_SOCKET = re.compile(r"/ws/daily/")


def until(page: Page, done: Callable[[], bool], what: str) -> None:
    """Let the page run until `done()` (10 s at most)."""
    for _ in range(400):
        if done():
            return
        page.wait_for_timeout(25)
    raise AssertionError(f"never: {what}")


class Relay:
    """Each socket the page opens on a route, relayed to the real server; the test speaks as the
    server (`to_page`) or closes it (`close`). Frames are kept parsed, by socket number."""

    def __init__(self, page: Page, route: re.Pattern[str]) -> None:
        self.routes: list[WebSocketRoute] = []
        self.servers: list[WebSocketRoute] = []
        self.from_page: list[tuple[int, dict[str, Any]]] = []
        self.from_server: list[tuple[int, dict[str, Any]]] = []
        page.route_web_socket(route, self.open)

    def open(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        number = len(self.routes)
        self.routes.append(ws)
        self.servers.append(server)

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            self.from_page.append((number, frame))
            if frame.get("type") != "pong":  # (an answer to the test's ping, not the server's)
                server.send(message)

        def from_server(message: str | bytes) -> None:
            self.from_server.append((number, json.loads(message)))
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    def to_page(self, frame: dict[str, Any], number: int = -1) -> None:
        self.routes[number].send(json.dumps(frame))

    def close(self, code: int, reason: str, number: int = -1) -> None:
        self.servers[number].close()
        self.routes[number].close(code=code, reason=reason)

    def sent(self, kind: str) -> list[dict[str, Any]]:
        return [frame for _, frame in self.from_page if frame.get("type") == kind]

    def received(self, kind: str) -> list[dict[str, Any]]:
        return [frame for _, frame in self.from_server if frame.get("type") == kind]


def wake(page: Page) -> None:
    """What makes a page open a dropped socket at once: the network back, the page shown."""
    page.evaluate(
        """() => {
            window.dispatchEvent(new Event("online"));
            document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )


def test_the_game_page_answers_a_ping_and_plays_on(new_player: Any) -> None:
    alice = new_player()
    page = alice.page
    relay = Relay(page, GAME_SOCKET)
    alice.goto(f"/games/{play_line(alice, WORKED_EXAMPLE, [])}/")
    until(page, lambda: len(relay.received("ready")) == 1, "the socket is ready")

    relay.to_page({"type": "ping", "n": 7})
    relay.to_page({"type": "ping", "n": 123456789})
    until(page, lambda: len(relay.sent("pong")) == 2, "both pings answered")
    assert relay.sent("pong") == [{"type": "pong", "n": 7}, {"type": "pong", "n": 123456789}]

    tap(page, card(page, "R"))  # the queen of clubs onto the king: over the same socket
    wait_actions(page, 1)
    assert [frame["type"] for frame in relay.sent("action")] == ["action"]
    assert len(relay.routes) == 1
    assert alice.errors == []


def test_the_live_board_answers_a_ping_and_stays_live(new_player: Any) -> None:
    dave = new_player("dave")
    page = dave.page
    relay = Relay(page, BOARD_SOCKET)
    dave.goto("/leaderboard/")
    live = page.locator("[data-live-state]")
    expect(live).to_have_text("Live")
    until(page, lambda: len(relay.received("snapshot")) == 1, "the snapshot")

    relay.to_page({"type": "ping", "n": 42})
    until(page, lambda: len(relay.sent("pong")) == 1, "the ping answered")
    assert relay.sent("pong") == [{"type": "pong", "n": 42}]
    assert relay.sent("resync") == []  # a ping is no update: nothing is asked again
    expect(live).to_have_text("Live")
    assert dave.errors == []


@pytest.mark.parametrize(
    ("code", "reason"),
    [(4008, "not_reading"), (4008, "too_many_messages"), (4009, "too_large"), (4429, "x")],
)
def test_a_game_socket_closed_by_a_limit_is_not_opened_again(
    new_player: Any, code: int, reason: str
) -> None:
    alice = new_player()
    page = alice.page
    relay = Relay(page, GAME_SOCKET)
    game_id = play_line(alice, WORKED_EXAMPLE, [])
    alice.goto(f"/games/{game_id}/")
    until(page, lambda: len(relay.received("ready")) == 1, "the socket is ready")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    relay.close(code, reason)
    wake(page)  # (a socket that may be opened again is, at once)
    tap(page, card(page, "R"))  # played over REST
    wait_actions(page, 1)
    assert read_board(page)["columns"][1] == ["KH", "QC"]
    assert posts == [alice.url(f"/api/games/{game_id}/actions/")]
    assert len(relay.routes) == 1  # never opened again
    assert alice.errors == []


def test_a_game_socket_dropped_otherwise_is_opened_again(new_player: Any) -> None:
    alice = new_player()
    page = alice.page
    relay = Relay(page, GAME_SOCKET)
    alice.goto(f"/games/{play_line(alice, WORKED_EXAMPLE, [])}/")
    until(page, lambda: len(relay.received("ready")) == 1, "the socket is ready")

    relay.close(1011, "gone")
    until(page, lambda: len(relay.received("ready")) == 2, "a new socket is ready")
    assert len(relay.routes) == 2
    assert alice.errors == []


def test_a_live_board_refused_for_its_network_polls_and_is_not_opened_again(
    new_player: Any,
) -> None:
    erin = new_player("erin")
    fay = new_player("fay")
    page = fay.page
    relay = Relay(page, BOARD_SOCKET)
    fay.goto("/leaderboard/")
    live = page.locator("[data-live-state]")
    expect(live).to_have_text("Live")

    relay.close(4429, "too_many_sockets")
    expect(live).to_have_text("Live updates paused")
    wake(page)
    attempt = erin.start_daily()
    erin.api("POST", f"/api/games/{attempt['id']}/actions/", {"ply": 0, "action": "D"})
    row = page.locator(f'tr[data-player="{erin.username}"]')
    expect(row).to_have_count(1, timeout=12_000)  # from a poll of the REST board
    expect(live).to_have_text("Live updates paused")
    assert len(relay.routes) == 1
    assert fay.errors == [] and erin.errors == []


def test_the_wait_before_opening_again_doubles_within_its_jitter(new_player: Any) -> None:
    page = new_player().goto("/how-to-play/")
    waits = page.evaluate(
        """async () => {
            const { backoff } = await import("/static/frontend/js/socket.js");
            return [0, 1, 2, 3, 4, 5, 6, 7, 8, 20].map((attempt) =>
                [backoff(attempt, 0), backoff(attempt, 0.5), backoff(attempt, 0.999999)]);
        }"""
    )
    for attempt, (least, middle, most) in zip([0, 1, 2, 3, 4, 5, 6, 7, 8, 20], waits, strict=True):
        base = min(30_000, 500 * 2**attempt)
        assert least == pytest.approx(base * 0.75)
        assert middle == pytest.approx(base)
        assert most == pytest.approx(base * 1.25, rel=1e-5)

"""The game page plays over the game's websocket (docs/api.md, "The game socket") while it is open
— no request per move — and over REST when it is not: refused for good (4404), or dropped with a
move in flight, which is then sent again over REST with its ply and played once. A guest plays
over the socket as a player does."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Browser, Page, Request, WebSocket, WebSocketRoute, expect

from .conftest import STEP_TIMEOUT_MS, WIDE
from .helpers import (
    FINISH_CODE,
    FINISH_LINE,
    WORKED_EXAMPLE,
    assert_worked_example_done,
    card,
    mouse_drag,
    pile,
    play_line,
    read_board,
    start_by_code,
    tap,
    wait_actions,
)

GAME_SOCKET = re.compile(r"/ws/games/\d+/$")


class Wire:
    """What a page says about its game: the frames on its game sockets, each parsed, and what it
    POSTs to the games API (the path under /api/games/, and the body)."""

    def __init__(self, page: Page) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.posts: list[str] = []
        self.bodies: list[Any] = []
        self.sockets: list[WebSocket] = []
        page.on("websocket", self.watch)
        page.on("request", self.note)

    def watch(self, ws: WebSocket) -> None:
        if GAME_SOCKET.search(ws.url):
            self.sockets.append(ws)
            ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
            ws.on("framereceived", lambda payload: self.received.append(json.loads(payload)))

    def note(self, request: Request) -> None:
        if request.method == "POST" and "/api/games/" in request.url:
            self.posts.append(request.url.split("/api/games/", 1)[1])
            self.bodies.append(request.post_data_json)

    def played(self) -> list[dict[str, Any]]:
        return [frame for frame in self.received if frame["type"] == "played"]


def until(page: Page, done: Callable[[], bool], what: str) -> None:
    """Let the page run until `done()`: what it sends and reads is reported while it runs."""
    for _ in range(400):
        if done():
            return
        page.wait_for_timeout(25)
    raise AssertionError(f"never: {what}")


def ready_count(frames: list[dict[str, Any]]) -> int:
    return sum(frame["type"] == "ready" for frame in frames)


def shown(state: dict[str, Any]) -> dict[str, Any]:
    """The part of `read_board` that a game's `state` (the server's) decides."""
    return {
        "columns": state["columns"],
        "reserve_top": state["reserve"]["top"],
        "waste": state["waste"]["cards"],
        "foundations": {f["suit"]: (f["cards"] or [None])[-1] for f in state["foundations"]},
    }


def on_board(page: Page) -> dict[str, Any]:
    board = read_board(page)
    return {key: board[key] for key in ("columns", "reserve_top", "waste", "foundations")}


def test_it_plays_drags_taps_undo_and_finish_over_the_socket(new_player: Any) -> None:
    alice = new_player()
    game_id = play_line(alice, FINISH_CODE, FINISH_LINE[:-1])
    page = alice.page
    wire = Wire(page)
    alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    until(page, lambda: ready_count(wire.received) == 1, "the socket is ready")
    ply = len(FINISH_LINE) - 1

    def answered(n: int) -> dict[str, Any]:
        """The n-th `played` frame, once the board shows its game."""
        until(page, lambda: len(wire.played()) >= n, f"{n} moves answered")
        game = wire.played()[n - 1]
        wait_actions(page, game["actions"])
        assert on_board(page) == shown(game["state"])
        return game

    mouse_drag(page, card(page, "F3"), pile(page, "T3"))  # a foundation's card back to a column
    dragged = answered(1)
    assert dragged["applied"] == FINISH_LINE[-1]
    top = len(dragged["state"]["columns"][2]) - 1
    tap(page, card(page, "T3"))  # and home again
    assert answered(2)["applied"] == "T3-F3"
    page.locator("[data-undo]").click()
    assert answered(3)["applied"] == "U"
    page.locator("[data-finish]").click()
    won = answered(4)
    assert won["status"] == "won" and len(won["applied"]) == 14
    expect(page.locator("[data-win]")).to_be_visible()

    moves = [{k: v for k, v in frame.items() if k != "ref"} for frame in wire.sent]
    assert moves == [
        {"type": "action", "ply": ply, "action": FINISH_LINE[-1]},
        {"type": "action", "ply": ply + 1, "tap": "T3", "double_click": True, "index": top},
        {"type": "action", "ply": ply + 2, "action": "U"},
        {"type": "finish", "ply": ply + 3},
    ]
    assert wire.posts == []  # no move went over REST
    game = alice.api("GET", f"/api/games/{game_id}/")
    assert (game["status"], game["actions"]) == ("won", ply + 3 + 14)
    assert alice.errors == []


def test_it_plays_over_rest_when_the_socket_is_refused(new_player: Any) -> None:
    alice = new_player()
    page = alice.page
    opened: list[str] = []

    def refuse(ws: WebSocketRoute) -> None:
        opened.append(ws.url)
        ws.close(code=4404, reason="not found")

    page.route_web_socket(GAME_SOCKET, refuse)
    wire = Wire(page)
    page.goto(alice.url("/"))
    game_id = start_by_code(page, WORKED_EXAMPLE)
    until(page, lambda: len(opened) == 1, "the socket is tried")

    tap(page, card(page, "R"))
    wait_actions(page, 1)
    mouse_drag(page, card(page, "R"), pile(page, "F1"))
    wait_actions(page, 2)
    tap(page, card(page, "T2", 0))
    wait_actions(page, 3)
    assert_worked_example_done(page)
    assert wire.posts == ["", *[f"{game_id}/actions/"] * 3]  # (the game, then its moves)
    assert len(opened) == 1  # 4404: not tried again
    assert alice.errors == []


def test_a_move_whose_answer_the_dropped_socket_lost_is_played_once(new_player: Any) -> None:
    alice = new_player()
    page = alice.page
    sockets: list[WebSocketRoute] = []
    to_page: list[dict[str, Any]] = []  # each frame let through, with its socket's number
    lost: list[dict[str, Any]] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        sockets.append(ws)
        number = len(sockets)
        first = number == 1

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if first and frame["type"] == "action" and not lost:
                lost.append(frame)  # its answer will not reach the page
            server.send(message)

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message)
            if lost and frame.get("ref") == lost[0]["ref"] and first:
                # The server played it; the page's connection breaks before the answer.
                ws.close(code=1011, reason="gone")
                server.close()
                return
            to_page.append({"socket": number, **frame})
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(GAME_SOCKET, route)
    wire = Wire(page)
    page.goto(alice.url("/"))
    game_id = start_by_code(page, WORKED_EXAMPLE)
    until(page, lambda: ready_count(to_page) == 1, "the socket is ready")

    pile(page, "S").click()  # a draw: on the socket, played, its answer lost
    wait_actions(page, 1)
    assert lost and lost[0]["tap"] == "S"
    assert wire.posts == ["", f"{game_id}/actions/"]  # sent again over REST, same ply
    assert wire.bodies[-1] == {k: v for k, v in lost[0].items() if k not in ("type", "ref")}
    assert lost[0]["ply"] == 0
    board = read_board(page)
    assert (board["stock_badge"], len(board["waste"])) == ("31", 3)  # one draw, not two
    record = alice.api("GET", f"/api/games/{game_id}/record/")
    assert [move["token"] for move in record["moves"]] == ["D"]

    # The page opens a socket again, and plays on over it.
    until(page, lambda: ready_count(to_page) == 2, "a new socket is ready")
    assert len(sockets) == 2
    tap(page, card(page, "R"))  # QC onto KH
    wait_actions(page, 2)
    assert read_board(page)["columns"][1] == ["KH", "QC"]
    assert wire.posts == ["", f"{game_id}/actions/"]
    assert [f["type"] for f in to_page if f["socket"] == 2] == ["ready", "played"]
    game = alice.api("GET", f"/api/games/{game_id}/")
    assert (game["ply"], game["state"]["stock"]["count"]) == (2, 31)
    assert alice.errors == []


def test_a_guest_plays_over_the_socket(browser: Browser, daphne_server: str) -> None:
    context = browser.new_context(viewport=WIDE, base_url=daphne_server)
    context.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        wire = Wire(page)
        page.goto("/")
        pile(page, "S").click()  # the first action makes the deal a game (over REST)
        wait_actions(page, 1)
        game_id = page.locator("[data-game]").get_attribute("data-game-id")
        assert wire.posts == ["", f"{game_id}/actions/"]
        until(page, lambda: ready_count(wire.received) == 1, "the guest's socket is ready")

        pile(page, "S").click()
        wait_actions(page, 2)
        pile(page, "S").click()
        wait_actions(page, 3)
        assert [(f["type"], f.get("tap"), f.get("ply")) for f in wire.sent] == [
            ("action", "S", 1),
            ("action", "S", 2),
        ]
        assert wire.posts == ["", f"{game_id}/actions/"]
        last = wire.played()[-1]
        assert last["ply"] == 3
        assert on_board(page) == shown(last["state"])
        game = context.request.get(f"/api/games/{game_id}/").json()
        assert game["ply"] == 3

        page.locator("[data-resign]").click()
        page.locator("[data-resign-confirm]").click()  # over the socket too; then it is closed
        expect(page.locator("[data-status]")).to_be_visible()
        assert {k: v for k, v in wire.sent[-1].items() if k != "ref"} == {"type": "resign"}
        assert wire.posts == ["", f"{game_id}/actions/"]
        until(page, lambda: wire.sockets[0].is_closed(), "the socket is closed")
        assert len(wire.sockets) == 1
        game = context.request.get(f"/api/games/{game_id}/").json()
        assert game["status"] == "resigned"
        assert errors == []
    finally:
        context.close()


def test_a_socket_opened_again_brings_the_moves_made_elsewhere_meanwhile(new_player: Any) -> None:
    """While the page's socket was down, the game moved on in another tab: the socket that opens
    again says so ("ready" with the game), and the page shows the game as it stands, with no move
    of its own and no reload."""
    alice = new_player()
    page = alice.page
    sockets: list[tuple[WebSocketRoute, WebSocketRoute]] = []
    readies: list[dict[str, Any]] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        sockets.append((ws, server))

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame["type"] == "ready":
                readies.append(frame)
            ws.send(message)

        ws.on_message(lambda message: server.send(message))
        server.on_message(from_server)

    page.route_web_socket(GAME_SOCKET, route)
    page.goto(alice.url("/"))
    game_id = start_by_code(page, WORKED_EXAMPLE)
    until(page, lambda: len(readies) == 1, "the socket is ready")
    assert readies[0]["game"]["ply"] == 0
    assert read_board(page)["columns"][1] == ["KH"]

    # Another tab plays the reserve's queen onto the king; then this page's socket drops.
    alice.api("POST", f"/api/games/{game_id}/actions/", {"ply": 0, "action": "R-T2"})
    first, server = sockets[0]
    server.close()
    first.close(code=1011, reason="gone")

    until(page, lambda: len(readies) == 2, "a new socket is ready")
    assert readies[1]["game"]["ply"] == 1
    expect(page.locator("[data-message-text]")).to_contain_text("changed elsewhere")
    assert read_board(page)["columns"][1] == ["KH", "QC"]
    tap(page, card(page, "R"))  # and the page plays on from there, over the new socket
    wait_actions(page, 2)
    assert alice.api("GET", f"/api/games/{game_id}/")["ply"] == 2
    assert alice.errors == []

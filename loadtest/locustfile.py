"""A crowd on today's daily deal, for Locust: players and websocket watchers.

- :class:`PlayerUser` signs up, starts its ranked daily attempt and plays it one legal action at a
  time with its ply (a hurried player: a scoring move when there is one), starts practice games
  once the attempt is over, and now and then reads a page of today's board and its own game.
- :class:`WatcherUser` watches today's board over ``/ws/daily/<date>/``: its snapshot is one
  request ("WS snapshot": the time to connect and receive it), every update another ("WS update":
  the time from the update's ``at`` to its arrival, on this machine's one clock). A gap in
  ``seq`` is a failure ("WS gap") and is answered with a resync, as the page does.

``make loadtest`` runs it headless against a local two-process deployment behind nginx
(``loadtest/run.py``); by hand: ``locust -f loadtest/locustfile.py --host http://127.0.0.1:8080``.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import secrets
import time
from typing import Any

from locust import User, between, events, task
from locust.contrib.fasthttp import FastHttpUser
from locust.exception import StopUser

#: What a hurried player plays first (tests/support.py's next_action, without importing Django).
SCORING_PREFIXES = ("R-", "W-", "T1-", "T2-", "T3-", "T4-")


def today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def choose(game: dict[str, Any]) -> str | None:
    """A legal action for a hurried player, or ``None`` when only undo is left (or it is over)."""
    if game.get("status") != "in_progress":
        return None
    legal: list[str] = [token for token in game["state"]["legal"] if token != "U"]
    if not legal:
        return None
    for token in legal:
        if token.startswith(SCORING_PREFIXES) and "-F" in token and ":" not in token:
            return token
    for prefix in ("R-T", "W-T"):
        for token in legal:
            if token.startswith(prefix):
                return token
    return "D" if "D" in legal else ("C" if "C" in legal else legal[0])


class PlayerUser(FastHttpUser):
    weight = 3
    wait_time = between(0.5, 1.5)

    def on_start(self) -> None:
        self.game: dict[str, Any] | None = None
        self.headers: dict[str, str] = {}
        name = f"lt{secrets.token_hex(6)}"
        with self.client.post(
            "/api/auth/signup/",
            json={"username": name, "password": secrets.token_hex(10)},
            name="POST /api/auth/signup/",
            catch_response=True,
        ) as response:
            if response.status_code != 201:
                response.failure(f"sign-up answered {response.status_code}")
                raise StopUser()
            self.headers = {"Authorization": f"Token {response.json()['token']}"}
        with self.client.post(
            "/api/daily/", headers=self.headers, name="POST /api/daily/", catch_response=True
        ) as response:
            if response.status_code == 201:
                self.game = response.json()
            else:
                response.failure(f"the daily attempt answered {response.status_code}")

    def practice(self) -> None:
        with self.client.post(
            "/api/games/", json={}, headers=self.headers, name="POST /api/games/",
            catch_response=True,
        ) as response:  # fmt: skip
            if response.status_code == 201:
                self.game = response.json()
            else:
                response.failure(f"a practice game answered {response.status_code}")

    @task(20)
    def act(self) -> None:
        if self.game is None:
            return
        action = choose(self.game)
        if action is None:
            self.practice()
            return
        game_id = self.game["id"]
        with self.client.post(
            f"/api/games/{game_id}/actions/",
            json={"ply": self.game["ply"], "action": action},
            headers=self.headers,
            name="POST /api/games/[id]/actions/",
            catch_response=True,
        ) as response:
            if response.status_code == 200:
                self.game = response.json()
            else:
                response.failure(f"{response.status_code} {response.text[:120]}")
                self.read_game()

    @task(2)
    def board(self) -> None:
        page = random.choice([1, 1, 1, 2, 5])
        with self.client.get(
            f"/api/daily/{today()}/board/?page={page}",
            headers=self.headers,
            name="GET /api/daily/[date]/board/",
            catch_response=True,
        ) as response:
            if response.status_code == 404:  # a page past the last: a small board
                response.success()

    @task(1)
    def read_game(self) -> None:
        if self.game is None:
            return
        with self.client.get(
            f"/api/games/{self.game['id']}/",
            headers=self.headers,
            name="GET /api/games/[id]/",
            catch_response=True,
        ) as response:
            if response.status_code == 200:
                self.game = response.json()


class WatcherUser(User):
    """Watches today's board; each frame is reported as a request of type WS."""

    weight = 1
    wait_time = between(1, 2)

    def fire(self, name: str, started: float, length: int, error: str | None = None) -> None:
        events.request.fire(
            request_type="WS",
            name=name,
            response_time=(time.time() - started) * 1000,
            response_length=length,
            exception=Exception(error) if error else None,
            context={},
        )

    @task
    def watch(self) -> None:
        from websockets.sync.client import connect
        from websockets.typing import Origin

        assert self.host is not None
        ws_url = self.host.replace("http://", "ws://", 1) + f"/ws/daily/{today()}/"
        started = time.time()
        try:
            socket = connect(ws_url, origin=Origin(self.host), open_timeout=30, compression=None)
            snapshot = socket.recv(timeout=30)
        except Exception as exc:
            self.fire("snapshot", started, 0, repr(exc))
            return
        self.fire("snapshot", started, len(snapshot))
        seq = json.loads(snapshot)["seq"]
        until = time.time() + random.uniform(20, 40)  # then reconnect, as people come and go
        try:
            while time.time() < until:
                try:
                    text = socket.recv(timeout=1)
                except TimeoutError:
                    continue
                frame = json.loads(text)
                if frame.get("type") == "ping":  # the server's: answered, as the page does
                    socket.send(json.dumps({"type": "pong", "n": frame["n"]}))
                elif frame.get("type") == "snapshot":
                    seq = frame["seq"]
                elif frame.get("type") == "update":
                    sent = dt.datetime.fromisoformat(frame["at"]).timestamp()
                    if frame["seq"] != seq + 1 and not frame["full"] and frame["seq"] > seq:
                        self.fire("gap", sent, len(text), f"seq {seq} then {frame['seq']}")
                        socket.send(json.dumps({"type": "resync"}))
                    else:
                        self.fire("update", sent, len(text))
                    seq = max(seq, frame["seq"])
        finally:
            socket.close()

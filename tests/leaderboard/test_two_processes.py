"""Across processes: a move handled by one Daphne process reaches the watchers of another.

Two real Daphne processes share a PostgreSQL database (created, migrated and dropped by this test)
and Redis (channel layer and cache). A websocket client (the ``websockets`` package) watches
today's board on process A; a player signs up, starts the daily attempt and plays a scoring move
over HTTP on process B; the update must reach the watcher on A within a second.

Runs only when DATABASE_URL (PostgreSQL) and REDIS_URL are set, as on CI's second pass.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from games.engine import Action, DealCode
from games.engine import Game as Engine
from leaderboard import services

BASE_DIR = Path(__file__).resolve().parents[2]
DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")

pytestmark = pytest.mark.skipif(
    not (DATABASE_URL.startswith(("postgres://", "postgresql://")) and REDIS_URL),
    reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL",
)

SCORING = re.compile(r"^(R|W|T[1-4])-F[1-4]$")


def next_action(legal: list[str]) -> tuple[str, bool]:
    """A scoring move if there is one (and True), else what a hurried player does."""
    for token in legal:
        if SCORING.match(token):
            return token, True
    for prefix in ("R-T", "W-T"):
        for token in legal:
            if token.startswith(prefix):
                return token, False
    return ("D" if "D" in legal else "C"), False


def scores_soon(code: DealCode, within: int = 30) -> bool:
    engine = Engine(code)
    for _ in range(within):
        token, scoring = next_action([a.token() for a in engine.legal_moves])
        if scoring:
            return True
        engine.push(Action.parse(token))
    return False


def secret_for(day: dt.date) -> str:
    """A DAILY_DEAL_SECRET whose deal of ``day`` offers a scoring move within a few actions
    (the servers will not tell the test the deal; the test only picks the secret)."""
    while True:
        secret = secrets.token_hex(16)
        if scores_soon(DealCode(services.deal_number(day, secret), 3, "app")):
            return secret


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture
def database() -> Iterator[str]:
    """A fresh PostgreSQL database (URL) on DATABASE_URL's server, dropped afterwards."""
    import psycopg

    name = f"canfield_twoproc_{secrets.token_hex(5)}"
    admin = with_database(DATABASE_URL, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(DATABASE_URL, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Server:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
            + ["canfield_site.asgi:application"],
            cwd=BASE_DIR,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            assert self.process.poll() is None, self.log.read_text()
            try:
                with urllib.request.urlopen(f"{self.url}/api/health/", timeout=1) as response:
                    if response.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                time.sleep(0.1)
        raise AssertionError(f"Daphne never answered:\n{self.log.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def post(self, path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(body or {}).encode(),
            headers={"Content-Type": "application/json"}
            | ({"Authorization": f"Token {token}"} if token else {}),
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


def test_it_reaches_a_watcher_connected_to_another_process(database, tmp_path):
    from websockets.sync.client import connect

    today = dt.datetime.now(dt.UTC).date()
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "REDIS_URL": REDIS_URL,
        "DAILY_DEAL_SECRET": secret_for(today),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "THROTTLE_SIGNUP": "off",
        "THROTTLE_LOGIN": "off",
        "THROTTLE_ACTIONS": "off",
        "DJANGO_SETTINGS_MODULE": "canfield_site.settings",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=BASE_DIR,
        env=env,
        check=True,
        timeout=180,
    )
    a, b = Server(env, tmp_path / "a.log"), Server(env, tmp_path / "b.log")
    try:
        a.wait_ready()
        b.wait_ready()
        name = f"p{secrets.token_hex(6)}"
        ws_url = f"ws://127.0.0.1:{a.port}/ws/daily/{today.isoformat()}/"
        with connect(ws_url, origin=f"http://127.0.0.1:{a.port}", open_timeout=10) as watcher:
            snapshot = json.loads(watcher.recv(timeout=10))
            assert (snapshot["type"], snapshot["date"]) == ("snapshot", today.isoformat())

            token = b.post(
                "/api/auth/signup/", {"username": name, "password": secrets.token_hex()}
            )["token"]
            game = b.post("/api/daily/", token=token)
            assert (game["kind"], game["code"]) == ("daily", None)
            for _ in range(30):
                action, scoring = next_action(game["state"]["legal"])
                game = b.post(
                    f"/api/games/{game['id']}/actions/",
                    {"ply": game["ply"], "action": action},
                    token,
                )
                if scoring:
                    break
            assert scoring and game["score"] == 5
            moved = time.monotonic()

            seqs = [snapshot["seq"]]
            while True:
                left = moved + 5 - time.monotonic()
                assert left > 0, "the update never reached the other process's watcher"
                message = json.loads(watcher.recv(timeout=left))
                assert message["type"] == "update" and message["seq"] > seqs[-1]
                seqs.append(message["seq"])
                rows = {row["player"]: row for row in message["results"]}
                if name in rows and rows[name]["score"] == 5:
                    break
            arrived = time.monotonic() - moved
        assert arrived < 1.0, f"took {arrived:.3f} s"
        assert rows[name]["foundation_cards"] == 2
        assert rows[name]["actions"] == game["actions"]
    finally:
        a.stop()
        b.stop()

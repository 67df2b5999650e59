"""A flood of log-ins from many networks takes no database connection away from other players.

A live Daphne (on a PostgreSQL database of its own when DATABASE_URL is PostgreSQL — with a pool
of 2 connections and a 1 s wait for one —, else SQLite; Redis when REDIS_URL is set) with one
password hashing slot and a short wait for it (``LOGIN_HASH_SLOTS=1``, ``LOGIN_HASH_WAIT=0.1``)
and Django's real password hasher. A burst of log-ins, each from an address of its own /24 (the
client socket bound to 127.0.<n>.1: loopback answers every 127.x address; the site trusts no
proxy header), right and wrong passwords, known and unknown usernames, while another player reads
``GET /api/daily/`` in a loop. The log-ins beyond the slot are answered 503 ``busy`` (not queued),
the others 200 or 400; the other player gets 200 every time — before, each log-in held a
connection while it hashed, and the pool ran dry for everyone (503 ``unavailable``).
How fast is measured by benchmarks/login_flood.py, not here.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import Daphne, django_env, migrate, post_json, postgres_database

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "") or None
PASSWORD = "flood-canfield-42-password"
BURST = 12

BUSY = {
    "code": "busy",
    "message": "Too many people are logging in right now. Please try again in a moment.",
    "retry_after": 1,
}
REFUSED = {"code": "invalid_credentials", "message": "Wrong username or password."}


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    """The live server's database: a fresh PostgreSQL database on DATABASE_URL's server (dropped
    afterwards) when that is PostgreSQL, else an SQLite file."""
    if DATABASE_URL.startswith(("postgres://", "postgresql://")):
        with postgres_database(DATABASE_URL, f"canfield_flood_{secrets.token_hex(5)}") as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path / 'db.sqlite3'}"


def request_from(
    source: str, port: int, method: str, path: str, body: Any = None, token: str = ""
) -> tuple[int, str, Any]:
    """One request from the address ``source``: the status, the Retry-After header, the JSON."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=60, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    try:
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        return response.status, response.getheader("Retry-After", ""), json.loads(response.read())
    finally:
        connection.close()


def test_a_log_in_flood_gets_busy_beyond_the_slots_and_others_are_served(database, tmp_path):
    env = django_env(
        database,
        REDIS_URL,
        settings="canfield_site.settings",  # (Django's real password hasher)
        LOGIN_HASH_SLOTS="1",
        LOGIN_HASH_WAIT="0.1",
        DB_POOL_MIN="1",
        DB_POOL_MAX="2",
        GAME_SOCKET_THREADS="1",  # (each keeps a connection of the pool: fewer than its size)
        DB_POOL_TIMEOUT="1",
        THROTTLE_LOGIN="20/min",
    )
    migrate(env)
    with Daphne(env, tmp_path / "daphne.log") as server:
        status, owner = post_json(
            f"{server.url}/api/auth/signup/", {"username": "owner", "password": PASSWORD}
        )
        assert status == 201, owner
        status, reader = post_json(
            f"{server.url}/api/auth/signup/", {"username": "reader", "password": PASSWORD}
        )
        assert status == 201, reader

        reads: Counter[int] = Counter()
        other_bodies: list[Any] = []
        done = threading.Event()

        def read_daily() -> None:
            while not done.is_set():
                status, _, body = request_from(
                    "127.0.0.1", server.port, "GET", "/api/daily/", token=reader["token"]
                )
                reads[status] += 1
                if status != 200:
                    other_bodies.append(body)

        def log_in(n: int) -> tuple[int, str, Any]:
            username = "owner" if n % 3 == 0 else f"stranger{n}" if n % 3 == 1 else "OWNER"
            password = PASSWORD if n % 2 == 0 else f"guess {n}"
            barrier.wait()
            return request_from(
                f"127.0.{n + 1}.1",
                server.port,
                "POST",
                "/api/auth/login/",
                {"username": username, "password": password},
            )

        barrier = threading.Barrier(BURST)
        answers: list[tuple[int, str, Any]] = [(0, "", None)] * BURST

        def run(n: int) -> None:
            answers[n] = log_in(n)

        reader_thread = threading.Thread(target=read_daily)
        reader_thread.start()
        threads = [threading.Thread(target=run, args=(n,)) for n in range(BURST)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        done.set()
        reader_thread.join(timeout=60)

        statuses = Counter(status for status, _, _ in answers)
        assert set(statuses) <= {200, 400, 503}, answers
        assert statuses[503] >= 1 and statuses[200] + statuses[400] >= 1, answers
        for status, retry_after, body in answers:
            if status == 503:
                assert (retry_after, body) == ("1", BUSY)
            elif status == 400:
                assert body == REFUSED
            else:
                assert body["username"] == "owner"  # (with a token of its own)
        # The other player, meanwhile: served every time.
        assert other_bodies == [] and reads[200] >= 1, (reads, other_bodies)

        # The slot is free again: the owner logs in.
        status, _, body = request_from(
            "127.0.99.1",
            server.port,
            "POST",
            "/api/auth/login/",
            {"username": "owner", "password": PASSWORD},
        )
        assert (status, body["username"]) == (200, "owner")

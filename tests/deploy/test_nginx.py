"""The deployed shape, for real: Debian's nginx runs ``deploy/nginx.conf`` itself — its port and
its two upstreams substituted (``tests.support.nginx_conf``), nothing else — in front of two Daphne
processes that share one database (a SQLite file) and one Redis (a private ``redis-server``, so
that this runs with or without REDIS_URL).

HTTP is spread over both processes; a websocket is upgraded through nginx and hears a move made
through the other process; a body over the cap (``client_max_body_size``) is refused by nginx.
Which process served what is read from each Daphne's access log. A missing nginx fails (``make
tools`` installs it): this test is never skipped.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.leaderboard.test_two_processes import secret_for
from tests.support import (
    Daphne,
    Nginx,
    RedisServer,
    deal_days,
    django_env,
    migrate,
    next_action,
    post_json,
    start_daily,
)

pytestmark = pytest.mark.backend_free  # its own processes, SQLite files and Redis


@dataclass
class Deployment:
    nginx: Nginx
    daphnes: tuple[Daphne, Daphne]
    logs: tuple[Path, Path]

    def served(self, marker: str) -> tuple[int, int]:
        """How many lines of each process's access log contain ``marker``."""
        return tuple(  # type: ignore[return-value]
            sum(marker in line for line in log.read_text().splitlines()) if log.exists() else 0
            for log in self.logs
        )


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    work = tmp_path_factory.mktemp("deploy")
    today = dt.datetime.now(dt.UTC).date()
    with RedisServer(work) as redis:
        env = django_env(
            f"sqlite:///{work / 'db.sqlite3'}",
            redis.url,
            DAILY_DEAL_SECRET=secret_for(today),
            NUM_PROXIES="1",
        )
        migrate(env)
        deal_days(env)  # (today dealt, as the worker tier deals it)
        logs = (work / "access-a.log", work / "access-b.log")
        a = Daphne(env, work / "a.log", args=("--access-log", str(logs[0])))
        b = Daphne(env, work / "b.log", args=("--access-log", str(logs[1])))
        with a, b, Nginx(work / "nginx", (a.port, b.port)) as nginx:
            yield Deployment(nginx, (a, b), logs)


def get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_it_spreads_http_over_both_processes(deployment: Deployment) -> None:
    marker = f"/api/health/?spread={secrets.token_hex(4)}"
    statuses = [get(deployment.nginx.port, marker) for _ in range(10)]
    with ThreadPoolExecutor(8) as pool:
        statuses += list(pool.map(lambda _: get(deployment.nginx.port, marker), range(30)))

    assert statuses == [200] * 40
    time.sleep(0.2)  # the access logs are line-buffered files
    a, b = deployment.served(marker)
    assert a + b == 40
    assert a > 0 and b > 0, (a, b)


def test_it_upgrades_a_websocket_that_hears_a_move_made_through_the_other_process(
    deployment: Deployment,
) -> None:
    from websockets.sync.client import connect
    from websockets.typing import Origin

    today = dt.datetime.now(dt.UTC).date().isoformat()
    proxy = deployment.nginx
    path = f"/ws/daily/{today}/"
    with connect(f"ws://127.0.0.1:{proxy.port}{path}", origin=Origin(proxy.url)) as watcher:
        snapshot = json.loads(watcher.recv(timeout=10))
        assert (snapshot["type"], snapshot["date"]) == ("snapshot", today)
        time.sleep(0.2)
        held = deployment.served(f"WSCONNECT {path}")
        assert sorted(held) == [0, 1], held  # upgraded, on one process
        other = deployment.daphnes[held.index(0)]  # the move goes to the other one, directly

        name = f"n{secrets.token_hex(5)}"
        status, body = post_json(
            f"{other.url}/api/auth/signup/", {"username": name, "password": secrets.token_hex()}
        )
        assert status == 201, body
        token = body["token"]
        status, game = start_daily(other.url, token)
        assert status == 201, game
        for _ in range(30):
            action, scoring = next_action(game["state"]["legal"])
            status, game = post_json(
                f"{other.url}/api/games/{game['id']}/actions/",
                {"ply": game["ply"], "action": action},
                token,
            )
            assert status == 200, game
            if scoring:
                break
        assert game["score"] == 5

        deadline = time.monotonic() + 10
        while True:
            frame = json.loads(watcher.recv(timeout=max(0.1, deadline - time.monotonic())))
            assert frame["type"] == "update"
            mine = [row for row in frame["rows"] if row["player"] == name]
            if mine and mine[0]["score"] == 5:
                break
            assert time.monotonic() < deadline, "the move never reached the watcher"


def test_it_refuses_a_body_over_the_cap(deployment: Deployment) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", deployment.nginx.port, timeout=10)
    body = json.dumps({"username": "x", "password": "y" * (2 * 1024 * 1024)})
    path = f"/api/auth/signup/?cap={secrets.token_hex(4)}"
    conn.request("POST", path, body, {"Content-Type": "application/json"})
    response = conn.getresponse()

    assert response.status == 413
    assert b"Request Entity Too Large" in response.read()
    assert deployment.served(path) == (0, 0)  # never reached a process

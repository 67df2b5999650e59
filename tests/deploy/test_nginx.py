"""The deployed shape, for real: Debian's nginx runs ``deploy/nginx.conf`` itself — its port and
its two upstreams substituted (``tests.support.nginx_conf``), nothing else — in front of two Daphne
processes that share one database (a SQLite file) and one Redis (a private ``redis-server``, so
that this runs with or without REDIS_URL).

HTTP is spread over both processes; a websocket is upgraded through nginx and hears a move made
through the other process. The edge's limits are nginx's, and none of what they refuse reaches a
process: a body over the cap (``client_max_body_size``) is answered 413, by its Content-Length
before the body is sent; headers sent a byte at a time are cut off at ``client_header_timeout``
(a deadline, whatever keeps trickling in), a body that stops at ``client_body_timeout``, an idle
kept-alive connection at ``keepalive_timeout`` — shortened for those tests to 2 s, 2 s and 1 s
(a second nginx, the same file with those three directives changed, in front of the same
processes). Which process served what is read from each Daphne's access log. A missing nginx
fails (``make tools`` installs it): this test is never skipped.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import secrets
import socket
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

#: The edge's deadlines, shortened for the tests of them.
HASTY = {
    "client_header_timeout 10s;": "client_header_timeout 2s;",
    "client_body_timeout 10s;": "client_body_timeout 2s;",
    "keepalive_timeout 15s;": "keepalive_timeout 1s;",
}


@dataclass
class Deployment:
    nginx: Nginx
    daphnes: tuple[Daphne, Daphne]
    logs: tuple[Path, Path]
    #: The same nginx with :data:`HASTY` deadlines, in front of the same processes.
    hasty: Nginx

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
        hasty = Nginx(work / "hasty", (a.port, b.port), changes=HASTY)
        with a, b, Nginx(work / "nginx", (a.port, b.port)) as nginx, hasty:
            yield Deployment(nginx, (a, b), logs, hasty)


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


def test_it_refuses_a_declared_length_over_the_cap_before_the_body_is_sent(
    deployment: Deployment,
) -> None:
    path = f"/api/auth/login/?declared={secrets.token_hex(4)}"
    with socket.create_connection(("127.0.0.1", deployment.nginx.port), timeout=10) as conn:
        conn.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/json\r\nContent-Length: 268435456\r\n\r\n{".encode()
        )  # (the rest of the body never comes)
        answer = conn.recv(4096)

    assert answer.startswith(b"HTTP/1.1 413 "), answer
    assert deployment.served(path) == (0, 0)


def until_ended(conn: socket.socket) -> bytes:
    """What the server sends until it ends the connection (closes or resets it; a reset may
    lose what came before it)."""
    answer = b""
    try:
        while chunk := conn.recv(4096):
            answer += chunk
    except ConnectionResetError:
        pass
    return answer


def trickle(port: int, start: bytes, byte: bytes, count: int = 100) -> bytes:
    """Send ``start``, then ``byte`` every 0.2 s, until the server ends the connection: what it
    answered (the test fails if it still reads when the ``count`` bytes have gone: 20 s)."""
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(start)
        conn.setblocking(False)
        for _ in range(count):
            try:
                conn.sendall(byte)
            except BlockingIOError:
                pass
            except OSError:  # (reset)
                return answer
            time.sleep(0.2)
            try:
                while chunk := conn.recv(4096):
                    answer += chunk
                return answer  # the end of the connection
            except BlockingIOError:
                continue
            except OSError:  # (reset: what came before it may be lost)
                return answer
    raise AssertionError(f"still reading after {count * 0.2:.0f} s of trickle")


def test_headers_sent_a_byte_at_a_time_are_cut_off_at_the_deadline(deployment: Deployment) -> None:
    path = f"/api/health/?slow={secrets.token_hex(4)}"
    start = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".encode()

    answer = trickle(deployment.hasty.port, start, b"a")

    assert answer == b"" or answer.startswith(b"HTTP/1.1 408 "), answer
    assert deployment.served(path) == (0, 0)


def test_a_body_that_stops_is_cut_off_and_never_reaches_a_process(
    deployment: Deployment,
) -> None:
    path = f"/api/auth/login/?stalled={secrets.token_hex(4)}"
    start = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
    ).encode()
    with socket.create_connection(("127.0.0.1", deployment.hasty.port), timeout=30) as conn:
        conn.sendall(start)  # then nothing
        answer = until_ended(conn)  # (within client_body_timeout; 30 s at most here)

    assert answer == b"" or answer.startswith(b"HTTP/1.1 408 "), answer
    assert deployment.served(path) == (0, 0)


def test_an_idle_kept_alive_connection_is_closed(deployment: Deployment) -> None:
    with socket.create_connection(("127.0.0.1", deployment.hasty.port), timeout=30) as conn:
        conn.sendall(b"GET /api/health/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += conn.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200 "), answer
        rest = until_ended(conn)  # (within keepalive_timeout; 30 s at most here)

    assert b"HTTP/1.1" not in rest  # nothing more was answered: the connection just ended

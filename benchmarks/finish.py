"""Finish: one request (POST /api/games/<id>/finish/) against one request per action.

Starts Daphne (127.0.0.1, a free port) on a fresh database — a temporary SQLite file, or with
--postgres a PostgreSQL database created and dropped for the run — and signs up one player. For
each of --games deals (numbered deals, drawing three, that the solver wins within its budget),
two practice games are played along the solver's winning line to the first position where the
game's ``state.finishable`` is true (not measured). From there one game is finished the old way,
one POST /actions/ per action of the line, each sent once the answer to the one before has come
(as a page must), and the other with one POST /finish/. One keep-alive connection; the action
throttle is off.

    .venv/bin/python benchmarks/finish.py [--games 5] [--postgres]

Prints, per deal, the line's length and both wall times, then the totals.
"""

from __future__ import annotations

import argparse
import http.client
import json
import secrets
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import Daphne, django_env, machine, migrate, postgres_database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import DealCode  # noqa: E402
from games.engine.solver import solve  # noqa: E402

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"
BENCH_DB = f"canfield_bench_{secrets.token_hex(3)}"


class Client:
    """One keep-alive HTTP connection, with the player's token."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Content-Type": "application/json"}

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, body=data, headers=self.headers)
            response = self.conn.getresponse()
        except (OSError, http.client.HTTPException):  # closed while idle (the solver ran)
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            self.conn.request(method, path, body=data, headers=self.headers)
            response = self.conn.getresponse()
        payload = response.read()
        return response.status, json.loads(payload) if payload else None


@contextmanager
def server(postgres: bool) -> Iterator[Daphne]:
    with tempfile.TemporaryDirectory() as work:
        if postgres:
            with postgres_database(POSTGRES_URL, BENCH_DB) as url:
                env = django_env(url, DB_SYNCHRONOUS_COMMIT="0")
                migrate(env)
                with Daphne(env, Path(work) / "daphne.log") as daphne:
                    yield daphne
        else:
            env = django_env(f"sqlite:///{Path(work) / 'db.sqlite3'}")
            migrate(env)
            with Daphne(env, Path(work) / "daphne.log") as daphne:
                yield daphne


def winning_deals(count: int) -> Iterator[tuple[str, list[str]]]:
    """Numbered deals drawing three that the solver wins within its budget, with their lines."""
    number = 0
    found = 0
    while found < count:
        number += 1
        code = str(DealCode(number, 3, "app"))
        result = solve(code, max_positions=200_000)
        if result.outcome == "win":
            found += 1
            yield code, result.tokens()


def near_end(client: Client, code: str, line: list[str]) -> dict[str, Any]:
    """A new practice game of ``code`` played along ``line`` until Finish is offered."""
    status, game = client.request("POST", "/api/games/", {"code": code})
    assert status == 201, game
    for token in line:
        if game["state"]["finishable"]:
            found: dict[str, Any] = game
            return found
        status, game = client.request(
            "POST", f"/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": token}
        )
        assert status == 200, game
    raise AssertionError("the line won without Finish being offered")


def one_by_one(client: Client, game: dict[str, Any]) -> tuple[float, int]:
    """Finish the old way: the next action of the line, one request each, while finishable.
    Returns the wall time and the number of requests."""
    from games.engine import Canfield
    from games.engine.finish import finish_line

    engine = Canfield.replay(game["code"], tokens_of(client, game["id"]))
    line = [a.token() for a in finish_line(engine, sees_hidden=True)]
    started = time.perf_counter()
    for token in line:
        status, game = client.request(
            "POST", f"/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": token}
        )
        assert status == 200, game
    assert game["status"] == "won"
    return time.perf_counter() - started, len(line)


def tokens_of(client: Client, game_id: int) -> list[str]:
    status, record = client.request("GET", f"/api/games/{game_id}/record/")
    assert status == 200, record
    return [move["token"] for move in record["moves"]]


def at_once(client: Client, game: dict[str, Any]) -> tuple[float, int]:
    started = time.perf_counter()
    status, body = client.request("POST", f"/api/games/{game['id']}/finish/", {"ply": game["ply"]})
    elapsed = time.perf_counter() - started
    assert status == 200 and body["status"] == "won", body
    return elapsed, len(body["applied"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()

    with server(args.postgres) as daphne:
        client = Client(daphne.port)
        status, body = client.request(
            "POST", "/api/auth/signup/", {"username": "finisher", "password": "bench-password-1"}
        )
        assert status == 201, body
        client.headers["Authorization"] = f"Token {body['token']}"

        print(f"Finish, {'PostgreSQL' if args.postgres else 'SQLite'}; {machine()}")
        print(f"{'deal':<16} {'actions':>7} {'one by one':>12} {'one request':>12} {'ratio':>6}")
        slow_total = fast_total = 0.0
        actions_total = 0
        for code, line in winning_deals(args.games):
            old, new = near_end(client, code, line), near_end(client, code, line)
            slow, actions = one_by_one(client, old)
            fast, applied = at_once(client, new)
            assert applied == actions
            slow_total += slow
            fast_total += fast
            actions_total += actions
            print(
                f"{code:<16} {actions:>7} {slow * 1000:>10.0f} ms {fast * 1000:>9.0f} ms "
                f"{slow / fast:>5.1f}x"
            )
        print(
            f"{'all':<16} {actions_total:>7} {slow_total * 1000:>10.0f} ms "
            f"{fast_total * 1000:>9.0f} ms {slow_total / fast_total:>5.1f}x  "
            f"({slow_total / actions_total * 1000:.1f} ms an action one by one, "
            f"{fast_total / actions_total * 1000:.1f} ms in one request)"
        )


if __name__ == "__main__":
    main()

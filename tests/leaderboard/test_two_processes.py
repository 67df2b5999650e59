"""Across processes: a move handled by one Daphne process reaches the watchers of another.

Two real Daphne processes share a PostgreSQL database (created, migrated and dropped by this test)
and Redis (channel layer and cache). A websocket client (the ``websockets`` package) watches
today's board on process A; a player signs up, starts the daily attempt and plays a scoring move
over HTTP on process B; the update must reach the watcher on A (how fast is measured by
benchmarks/board.py, not asserted here).

Runs only when DATABASE_URL (PostgreSQL) and REDIS_URL are set, as on CI's second pass.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import time
from collections.abc import Iterator

import pytest

from games.engine import Action, Canfield, DealCode
from leaderboard.deals import certify
from tests.support import (
    TEST_DEAL_POSITIONS,
    Daphne,
    deal_days,
    django_env,
    migrate,
    next_action,
    post_json,
    postgres_database,
    start_daily,
)

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")

pytestmark = pytest.mark.skipif(
    not (DATABASE_URL.startswith(("postgres://", "postgresql://")) and REDIS_URL),
    reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL",
)


def scores_soon(code: DealCode, within: int = 30) -> bool:
    """Whether a hurried player of ``code`` reaches a scoring move ``within`` actions."""
    engine = Canfield(code)
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
        found = certify(day, secret=secret.encode(), max_positions=TEST_DEAL_POSITIONS)
        if scores_soon(DealCode.parse(found.code)):
            return secret


@pytest.fixture
def database() -> Iterator[str]:
    """A fresh PostgreSQL database (URL) on DATABASE_URL's server, dropped afterwards."""
    with postgres_database(DATABASE_URL, f"canfield_twoproc_{secrets.token_hex(5)}") as url:
        yield url


def test_it_reaches_a_watcher_connected_to_another_process(database, tmp_path):
    from websockets.sync.client import connect
    from websockets.typing import Origin

    today = dt.datetime.now(dt.UTC).date()
    env = django_env(database, REDIS_URL, DAILY_DEAL_SECRET=secret_for(today))
    migrate(env)
    deal_days(env)  # (today dealt, as the worker tier deals it)
    with Daphne(env, tmp_path / "a.log") as a, Daphne(env, tmp_path / "b.log") as b:
        name = f"p{secrets.token_hex(6)}"
        ws_url = f"ws://127.0.0.1:{a.port}/ws/daily/{today.isoformat()}/"
        with connect(ws_url, origin=Origin(a.url), open_timeout=10) as watcher:
            snapshot = json.loads(watcher.recv(timeout=10))
            assert (snapshot["type"], snapshot["date"]) == ("snapshot", today.isoformat())

            status, signed_up = post_json(
                f"{b.url}/api/auth/signup/", {"username": name, "password": secrets.token_hex()}
            )
            assert status == 201, signed_up
            token = signed_up["token"]
            status, game = start_daily(b.url, token)
            assert (status, game["kind"], game["code"]) == (201, "daily", None)
            for _ in range(30):
                action, scoring = next_action(game["state"]["legal"])
                status, game = post_json(
                    f"{b.url}/api/games/{game['id']}/actions/",
                    {"ply": game["ply"], "action": action},
                    token,
                )
                assert status == 200, game
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
                rows = {row["player"]: row for row in message["rows"]}
                if name in rows and rows[name]["score"] == 5:
                    break
        assert rows[name]["foundation_cards"] == 2
        assert rows[name]["actions"] == game["actions"]

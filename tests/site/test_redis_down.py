"""Redis away: every committed change still gets its 2xx, and nothing else turns into a 500.

A real Daphne process whose REDIS_URL points at a Redis that is away, with the default rate
limits on: the cache (rate limits, the broadcasts' coalescing) and the channel layer (live
updates) both fail on every use. Two ways to be away: a closed port of 127.0.0.1 (nothing listens
there: refused at once), and a black hole (a server that accepts connections and never answers:
every wait must be bounded, ``core.redis_bounds``). Each path a player takes is
exercised over HTTP and a websocket; the log of the process must hold no server error.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    BlackHole,
    Daphne,
    deal_days,
    django_env,
    free_port,
    get_json,
    migrate,
    next_action,
    post_json,
    start_daily,
)

PASSWORD = "felt-green-canfield-42"


@pytest.fixture(scope="module", params=["refused", "black hole"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Daphne, Path]]:
    work = tmp_path_factory.mktemp("redis-down")
    with contextlib.ExitStack() as stack:
        if request.param == "black hole":
            redis_url = stack.enter_context(BlackHole()).url
        else:
            redis_url = f"redis://127.0.0.1:{free_port()}/0"
        env = django_env(
            f"sqlite:///{work / 'db.sqlite3'}",
            redis_url,
            # The documented defaults: throttles that count in the unreachable cache.
            THROTTLE_SIGNUP="10/hour",
            THROTTLE_LOGIN="20/min",
            THROTTLE_ACTIONS="600/min",
        )
        migrate(env)
        deal_days(env)  # (today dealt, as the worker tier deals it)
        log = work / "daphne.log"
        with Daphne(env, log) as daphne:
            yield daphne, log


def sign_up(url: str) -> str:
    name = f"p{secrets.token_hex(5)}"
    status, body = post_json(f"{url}/api/auth/signup/", {"username": name, "password": PASSWORD})
    assert status == 201, body
    status, body = post_json(f"{url}/api/auth/login/", {"username": name, "password": PASSWORD})
    assert status == 200, body
    return str(body["token"])


def play(url: str, game: dict[str, Any], token: str, actions: int) -> dict[str, Any]:
    """Play ``actions`` actions, each answered 200; the game after them."""
    for _ in range(actions):
        action, _ = next_action(game["state"]["legal"])
        status, played = post_json(
            f"{url}/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": action}, token
        )
        assert status == 200, played
        assert played["ply"] == game["ply"] + 1
        game = played
    return game


def server_errors(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if "ERROR django.request" in line]


def test_it_reports_itself_degraded_but_alive_and_ready(server):
    daphne, _ = server

    assert get_json(f"{daphne.url}/api/health/") == (200, {"status": "degraded", "redis": "down"})
    assert get_json(f"{daphne.url}/api/health/ready/") == (
        200,
        {"status": "ready", "database": "up", "redis": "down"},
    )


def test_it_signs_up_logs_in_and_plays_practice_games(server):
    daphne, log = server
    token = sign_up(daphne.url)

    status, game = post_json(f"{daphne.url}/api/games/", {"code": "CF1-D3-AAAAACL"}, token)
    assert status == 201, game
    game = play(daphne.url, game, token, 10)
    status, resigned = post_json(f"{daphne.url}/api/games/{game['id']}/resign/", token=token)

    assert (status, resigned["status"]) == (200, "resigned")
    assert get_json(f"{daphne.url}/api/games/{game['id']}/", token)[1]["ply"] == 10
    assert get_json(f"{daphne.url}/api/games/{game['id']}/record/?states=1", token)[0] == 200
    assert server_errors(log) == []


def test_it_starts_plays_and_resigns_a_daily_attempt_once(server):
    daphne, log = server
    token = sign_up(daphne.url)
    today = dt.datetime.now(dt.UTC).date()

    status, attempt = start_daily(daphne.url, token)
    assert status == 201, attempt
    attempt = play(daphne.url, attempt, token, 8)
    status, resigned = post_json(f"{daphne.url}/api/games/{attempt['id']}/resign/", token=token)
    assert (status, resigned["result"]) == (200, "resigned")
    status, again = post_json(f"{daphne.url}/api/daily/", token=token)

    assert (status, again["code"]) == (409, "attempt_exists")  # the first one was committed
    status, board = get_json(f"{daphne.url}/api/daily/{today}/board/", token)
    assert status == 200, board
    assert board["me"]["actions"] == 8 and board["me"]["result"] == "resigned"
    assert server_errors(log) == []


def test_it_draws_the_days_picture_from_the_database(server):
    """The picture's counts are cached in the unreachable cache: they are read from the
    database instead, and the viewer's attempt is in them."""
    daphne, log = server
    token = sign_up(daphne.url)
    today = dt.datetime.now(dt.UTC).date()
    status, attempt = start_daily(daphne.url, token)
    assert status == 201, attempt
    attempt = play(daphne.url, attempt, token, 3)

    status, picture = get_json(f"{daphne.url}/api/daily/{today}/picture/", token)

    assert status == 200, picture
    assert picture["date"] == today.isoformat() and picture["final"] is False
    assert picture["players"] == sum(bar["players"] for bar in picture["bars"]) >= 1
    me = picture["me"]
    assert me["foundation_cards"] == attempt["foundation_cards"] and me["won"] is False
    assert me["ahead"] + me["behind"] < picture["players"]
    anonymous = get_json(f"{daphne.url}/api/daily/{today}/picture/")
    assert anonymous[0] == 200 and anonymous[1]["me"] is None
    assert anonymous[1]["bars"] == picture["bars"]
    assert server_errors(log) == []


def test_it_serves_past_boards_and_days_from_the_database(server):
    daphne, log = server
    yesterday = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)

    status, board = get_json(f"{daphne.url}/api/daily/{yesterday}/board/")

    assert (status, board["code"]) == (404, "not_found")  # a day never dealt: no board
    today = dt.datetime.now(dt.UTC).date()
    status, board = get_json(f"{daphne.url}/api/daily/{today}/board/")
    assert (status, board["date"]) == (200, today.isoformat())  # (from the database)
    assert get_json(f"{daphne.url}/api/daily/days/")[0] == 200
    assert server_errors(log) == []


def test_it_closes_a_live_board_socket_with_the_documented_code(server):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect
    from websockets.typing import Origin

    daphne, log = server
    today = dt.datetime.now(dt.UTC).date()

    url = f"ws://127.0.0.1:{daphne.port}/ws/daily/{today}/"
    with connect(url, origin=Origin(daphne.url), open_timeout=10) as socket:
        frame = socket.recv(timeout=10)
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=10)

    assert '"code":"unavailable"' in str(frame)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4503
    assert "Exception inside application" not in log.read_text()

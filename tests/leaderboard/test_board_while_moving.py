"""The board read from SQL while players move: never an error, never rows that the board did not
hold at one moment.

The SQL board (``leaderboard.standings.sql.SqlBoard``) reads a day's counts, then the rows they
point to, in several statements. An attempt that changed its (won, cards) group between them used
to fail the read with an assertion (500: 86 of 1,581 reads while three players moved a card to a
foundation and back). Here the move is made exactly between two of the board's statements (with
Django's ``execute_wrapper``, around the connection's own statements), and then for real: players
moving cards through a Daphne while readers read the board's pages over HTTP.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from games.models import Game
from leaderboard.standings import sql
from tests.support import (
    Daphne,
    deal_days,
    django_env,
    get_json,
    migrate,
    next_action,
    post_json,
    postgres_database,
    start_daily,
)

# What differs between the embedded default (SQLite, the in-memory layer) and PostgreSQL and
# Redis: CI runs these on both.
pytestmark = pytest.mark.each_backend

DAY = dt.date(2030, 6, 15)
NOW = dt.datetime(2030, 6, 15, 18, 0, tzinfo=dt.UTC)
START = dt.datetime(2030, 6, 15, 8, 0, tzinfo=dt.UTC)


def attempts(cards: list[int]) -> list[Game]:
    """One resigned attempt of the day per entry of ``cards``, with that many cards home."""
    users = User.objects.bulk_create(
        [User(username=f"m{i:03}", password="!") for i in range(len(cards))]
    )
    return Game.objects.bulk_create(
        Game(
            owner=user,
            code="CF1-D3-AAAAAAB",
            kind="daily",
            daily_date=DAY,
            status="resigned",
            ply=5 + i % 3,
            foundation_cards=n,
            started_at=START,
            finished_at=START + dt.timedelta(seconds=60 + i),
        )
        for i, (user, n) in enumerate(zip(users, cards, strict=True))
    )


def full_sort(start: int, stop: int) -> list[int]:
    return [g.pk for g in sql.ranked(DAY, NOW)[start:stop]]


@contextlib.contextmanager
def after_each_count(change: Callable[[int], None]) -> Iterator[list[int]]:
    """Run ``change(n)`` after the board's n-th count of its (won, cards) groups has been read
    (n from 0), as its next statement begins: the moment a player's move used to break it."""
    counted: list[int] = []
    pending = False

    def wrapper(execute: Any, sql_text: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal pending
        if pending:  # (the count's rows are all read by now)
            pending = False
            change(len(counted) - 1)
        result = execute(sql_text, params, many, context)
        if '"foundation_cards" AS "foundation_cards", COUNT(*)' in sql_text:  # SqlBoard.groups
            counted.append(1)
            pending = True
        return result

    with connection.execute_wrapper(wrapper):
        yield counted


@pytest.mark.django_db
def test_an_attempt_moving_between_the_counts_and_the_rows_is_read_as_it_stands():
    # Groups of 52, 9, 5 and 1 cards home; the rows asked for end with the group of 5.
    games = attempts([52] * 3 + [9] * 4 + [5] * 5 + [1] * 6)
    mover = games[7]  # one of the 5s
    assert sql.SqlBoard(DAY, NOW).rows(0, 12) == sql.SqlBoard(DAY, NOW).rows(0, 12)

    def move(n: int) -> None:
        if n == 0:  # it turns a card over: 9 cards home now, one group up
            Game.objects.filter(pk=mover.pk).update(foundation_cards=10)

    with after_each_count(move) as counted:
        rows = sql.SqlBoard(DAY, NOW).rows(0, 12)
    assert len(counted) == 2  # the counts read again once
    assert [g.pk for g in rows] == full_sort(0, 12)
    assert rows[3].pk == mover.pk  # right after the three winners, as it now stands


@pytest.mark.django_db
def test_a_board_moving_at_every_read_is_sorted_in_one_statement():
    games = attempts([52] * 2 + [9] * 3 + [5] * 4 + [1] * 5)
    movers = [g.pk for g in games if g.foundation_cards == 5]

    def move(n: int) -> None:  # each count, another attempt leaves the group of 5
        if n < len(movers):
            Game.objects.filter(pk=movers[n]).update(foundation_cards=9)

    with after_each_count(move) as counted:
        rows = sql.SqlBoard(DAY, NOW).rows(0, 9)
    assert len(counted) == sql.FAST_TRIES
    assert [g.pk for g in rows] == full_sort(0, 9)


# --- for real: players and readers through a Daphne ---------------------------------------------

PASSWORD = "felt-green-canfield-42"
PLAYERS = 3
READERS = 4
READS = 600


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daphne]:
    """A Daphne reading its board from SQL (no Redis): on a SQLite file, as ``make run`` serves,
    or on a PostgreSQL database of its own when the run's database is PostgreSQL."""
    work = tmp_path_factory.mktemp("board-moving")
    with contextlib.ExitStack() as stack:
        server = os.environ.get("DATABASE_URL", "")
        if server.startswith("postgres"):
            url = stack.enter_context(postgres_database(server, f"board_moving_{os.getpid()}"))
        else:
            url = f"sqlite:///{work / 'db.sqlite3'}"
        env = django_env(url)
        migrate(env)
        deal_days(env)
        yield stack.enter_context(Daphne(env, work / "daphne.log"))


def player(url: str, stop: threading.Event, errors: list[str]) -> None:
    """A player who moves a card to a foundation and takes it back, again and again: each move
    changes the attempt's (won, cards) group on the board."""
    name = f"p{secrets.token_hex(5)}"
    credentials = {"username": name, "password": PASSWORD}
    for path, ok in (("signup", 201), ("login", 200)):
        status, body = post_json(f"{url}/api/auth/{path}/", credentials)
        while status == 503:  # (password hashing busy: the players sign up at once)
            time.sleep(float(body.get("retry_after", 1)))
            status, body = post_json(f"{url}/api/auth/{path}/", credentials)
        if status != ok:
            errors.append(f"{path}: {status} {body}")
            return
    token = str(body["token"])
    status, game = start_daily(url, token)
    if status not in (200, 201):
        errors.append(f"daily: {status} {game}")
        return
    while not stop.is_set():
        action, scoring = next_action(game["state"]["legal"])
        status, played = post_json(
            f"{url}/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": action}, token
        )
        if status != 200:
            errors.append(f"{action}: {status} {played}")
            return
        game = played
        if scoring:  # and back: undo the card home
            status, game = post_json(
                f"{url}/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": "U"}, token
            )
            if status != 200:
                errors.append(f"U: {status} {game}")
                return
        elif game["status"] != "in_progress":
            return


def players_moved(url: str, day: str) -> int:
    return int(get_json(f"{url}/api/daily/{day}/board/")[1]["count"])


def test_no_read_of_the_board_fails_while_players_move(site: Daphne):
    today = dt.datetime.now(dt.UTC).date().isoformat()
    stop = threading.Event()
    errors: list[str] = []
    statuses: list[int] = []
    players = [
        threading.Thread(target=player, args=(site.url, stop, errors)) for _ in range(PLAYERS)
    ]
    for thread in players:
        thread.start()
    deadline = time.monotonic() + 120
    while players_moved(site.url, today) < PLAYERS and not errors:  # (all moving, then read)
        assert time.monotonic() < deadline, "the players did not start in time"
        time.sleep(0.1)

    def reader() -> None:
        while len(statuses) < READS and not errors:
            status, body = get_json(f"{site.url}/api/daily/{today}/board/")
            statuses.append(status)
            if status == 200:
                ranks = [row["rank"] for row in body["results"]]
                assert ranks == sorted(ranks), body

    readers = [threading.Thread(target=reader) for _ in range(READERS)]
    try:
        for thread in readers:
            thread.start()
        for thread in readers:
            thread.join(timeout=240)
    finally:
        stop.set()
        for thread in players:
            thread.join(timeout=60)
    assert errors == []
    assert players_moved(site.url, today) == PLAYERS
    assert len(statuses) >= READS
    assert {status: statuses.count(status) for status in set(statuses)} == {200: len(statuses)}
    assert "Traceback" not in site.output()

"""leaderboard.standings.sql.SqlBoard — pages and ranks counted from the index agree with a full
sort, on a day of 450 attempts whose ties of every kind cross page boundaries."""

import datetime as dt
import random

import pytest
from django.contrib.auth.models import User

from games.models import Game
from leaderboard.standings import page, sql

# What differs between the embedded default (SQLite, the in-memory layer) and PostgreSQL and
# Redis: CI runs these on both.
pytestmark = pytest.mark.each_backend

DAY = dt.date(2030, 6, 15)
NOW = dt.datetime(2030, 6, 15, 18, 0, tzinfo=dt.UTC)


def seed(n: int, rng: random.Random) -> None:
    """``n`` attempts with few distinct keys, so that ties of every kind cross page boundaries."""
    users = User.objects.bulk_create([User(username=f"u{i:04}", password="!") for i in range(n)])
    start = dt.datetime(2030, 6, 15, 8, 0, tzinfo=dt.UTC)
    games = []
    for user in users:
        roll = rng.random()
        status = "won" if roll < 0.15 else "resigned" if roll < 0.5 else "in_progress"
        cards = 52 if status == "won" else rng.choice([1, 1, 2, 5, 5, 9])
        started = start + dt.timedelta(seconds=rng.choice([0, 10, 10, 20]))
        finished = (
            None
            if status == "in_progress"
            else started + dt.timedelta(seconds=rng.choice([30, 30, 60]))
        )
        games.append(
            Game(
                owner=user,
                code="CF1-D3-AAAAAAB",
                kind="daily",
                daily_date=DAY,
                status=status,
                ply=rng.choice([0, 3, 3, 4, 8]) if cards < 52 else rng.choice([200, 210]),
                foundation_cards=cards,
                started_at=started,
                finished_at=finished,
            )
        )
    for game in games:
        if game.ply == 0:  # never started: no clock, not on the board
            game.started_at = game.finished_at = None
            game.status = "in_progress"
    Game.objects.bulk_create(games)
    # A practice game, which must not count.
    Game.objects.create(
        owner=users[0], code="CF1-D3-AAAAAAB", kind="practice", ply=5, foundation_cards=9
    )


@pytest.fixture
def board(db):
    seed(450, random.Random(3))
    return sql.SqlBoard(DAY, NOW)


def test_it_counts_the_attempts_on_the_board(board):
    full = list(sql.ranked(DAY, NOW))

    assert board.count == len(full) == Game.objects.filter(kind="daily", ply__gt=0).count()
    assert sum(g.size for g in board.groups) == board.count


@pytest.mark.parametrize(("start", "stop"), [(0, 100), (100, 200), (37, 41), (0, 1), (350, 450)])
def test_its_rows_are_the_full_sorts(board, start, stop):
    full = [game.pk for game in sql.ranked(DAY, NOW)]

    assert [game.pk for game in board.rows(start, stop)] == full[start:stop]


def test_its_pages_cover_the_board_once(board):
    pages = [page(board, n) for n in range(1, 6)]

    ids = [game.pk for page in pages for game in page]
    assert ids == [game.pk for game in sql.ranked(DAY, NOW)]


def test_its_ranks_are_the_positions_in_the_full_sort(board):
    for position, game in enumerate(sql.ranked(DAY, NOW), start=1):
        assert board.rank_of(game) == position


def test_it_gives_no_rank_to_an_attempt_never_started(board):
    never = Game.objects.filter(kind="daily", ply=0).first()

    assert never is not None and board.rank_of(never) is None

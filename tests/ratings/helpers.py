"""Helpers for the ratings tests: daily results written straight as game rows (the rules are not
what these tests are about), and their days settled as the worker settles them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import User

from games.models import Game
from leaderboard.standings import settle_day
from ratings.models import RatingPoint

CODE = "CF1-D3-AAAAACL"
DAY = dt.date(2030, 6, 15)


def day(k: int) -> dt.date:
    """The ``k``-th day of the tests (0: DAY)."""
    return DAY + dt.timedelta(days=k)


def due(on: dt.date) -> dt.datetime:
    """Two minutes after ``on`` ended: it can be settled."""
    return dt.datetime.combine(on, dt.time(), tzinfo=dt.UTC) + dt.timedelta(days=1, minutes=2)


def user(name: str) -> User:
    return User.objects.get_or_create(username=name)[0]


def result(name: str, on: dt.date, cards: int, actions: int = 100, seconds: int = 600) -> Game:
    """``name``'s attempt at ``on``'s deal, over: won with 52 cards, else resigned with
    ``cards`` on the foundations. Better results: more cards, then fewer actions, then less
    time; equal in all three, a tie."""
    start = dt.datetime.combine(on, dt.time(10), tzinfo=dt.UTC)
    return Game.objects.create(
        owner=user(name),
        code=CODE,
        kind=Game.Kind.DAILY,
        daily_date=on,
        status=Game.Status.WON if cards == 52 else Game.Status.RESIGNED,
        day_over=True,
        ply=actions,
        foundation_cards=cards,
        started_at=start,
        finished_at=start + dt.timedelta(seconds=seconds),
    )


def settle(on: dt.date, again: bool = False) -> None:
    assert settle_day(on, again=again, now=due(on))


def points() -> list[tuple[Any, ...]]:
    """Every history point, every field, in a fixed order."""
    return list(
        RatingPoint.objects.order_by("day", "player__username").values_list(
            "player__username", "day", "mu", "sigma", "ordinal", "days"
        )
    )

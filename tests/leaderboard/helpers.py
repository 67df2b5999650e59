"""Helpers for the leaderboard tests.

Today's daily deal is the rules' worked example (``CODE``) in these tests — the ``daily_deal``
fixture of conftest.py stores it as the deal of the days the tests play (``store_test_deals``),
with ``WON`` as its solver's line — so that known lines can be played: ``WON`` wins it, and
after ``TO_TAKE_BACK`` the 8 of hearts can be taken back from F1 to T3 and placed again
(``TAKE_BACK``), the rules' +5 points each time.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import OperationalError
from django.utils import timezone

from games import services as games
from games.engine import Canfield, GameRecord
from games.models import Game
from leaderboard import services
from leaderboard.models import DailyDeal
from tests.engine.helpers import hidden_cards as engine_hidden_cards

CODE = "CF1-D3-AAAAACL"
CORPUS = Path(__file__).resolve().parent.parent / "engine" / "corpus" / "won-AAAAACL.txt"
#: A winning line of the worked example (222 actions, score 255).
WON: list[str] = list(GameRecord.parse(CORPUS.read_text()).tokens)
#: The first 24 actions of WON: F1-T3 is then legal (a take-back), and T3-F1 after it.
TO_TAKE_BACK = WON[:24]
TAKE_BACK = ["F1-T3", "T3-F1"]
#: Opening actions that put a card on a foundation: R-F1 scores 5.
OPENING = ["R-T2", "R-F1"]

T = TypeVar("T")

#: The days the tests' clock plays (conftest.py's ``clock`` starts on the first).
CLOCK_DAYS = [dt.date(2030, 6, 15) + dt.timedelta(days=k) for k in range(40)]


def store_deal(day: dt.date, code: str = CODE, line: list[str] | None = None) -> DailyDeal:
    """Store ``code`` as the deal of ``day`` (a certified deal with ``line``, ``WON`` by
    default), whatever the day had."""
    line = WON if line is None else line
    DailyDeal.objects.get_or_create(date=day)
    DailyDeal.objects.filter(date=day).update(
        code=code, n=0, line=line, par=len(line), outcome="win", positions=0, seconds=0.0
    )
    return DailyDeal.objects.get(date=day)


def store_test_deals(real_days: bool = True) -> None:
    """The worked example as the deal of the clock's days (or of the real today and tomorrow)."""
    today = timezone.now().astimezone(dt.UTC).date()
    for day in [today, today + dt.timedelta(days=1)] if real_days else CLOCK_DAYS:
        store_deal(day)


def unlocked(call: Callable[[], T]) -> T:
    """``call()``, again while SQLite says "database table is locked".

    The test database on SQLite is in memory with a shared cache, where a writer meets a reader
    of another thread (the live board's broadcaster) with that error at once instead of waiting
    as a database file would. Each service call is one transaction: trying again is safe.
    """
    for _ in range(200):
        try:
            return call()
        except OperationalError as exc:
            if "locked" not in str(exc):
                raise
            time.sleep(0.01)
    return call()


def player(name: str) -> User:
    return unlocked(lambda: User.objects.create_user(name, password="correct horse battery staple"))


def play(game: Game, tokens: Iterable[str], clock: Any | None = None, step: float = 1.0) -> Game:
    """Apply ``tokens`` to ``game`` through the service as its owner, ``step`` seconds apart on
    the ``clock`` (if given)."""
    for token in tokens:
        if clock is not None:
            clock.advance(step)
        game.refresh_from_db()
        unlocked(lambda: games.play(game.pk, game.owner, game.ply, token))  # noqa: B023
    game.refresh_from_db()
    return game


def attempt(user: User, tokens: Iterable[str] = (), clock: Any | None = None, step: float = 1.0):
    """``user``'s ranked attempt at today's deal, with ``tokens`` played."""
    return play(unlocked(lambda: services.start_attempt(user)), tokens, clock, step)


def hidden_cards(game: Game) -> set[str]:
    """The cards ``game``'s player cannot see now (stock, reserve below its top)."""
    tokens = game.log.order_by("ply").values_list("token", flat=True)
    return engine_hidden_cards(Canfield.replay(game.deal_code, tokens))


def quoted(cards: Iterable[str]) -> list[str]:
    """Cards as they would appear in a JSON body."""
    return [f'"{card}"' for card in cards]


def utc_today() -> dt.date:
    return timezone.now().astimezone(dt.UTC).date()


def iso(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat().removesuffix("+00:00") + "Z"


def expected_row(game: Game, rank: int | None, time_seconds: float | None) -> dict[str, Any]:
    game.refresh_from_db()
    return {
        "rank": rank,
        "player": game.owner.username,
        "status": game.status,
        "result": game.result,
        "won": game.status == "won",
        "foundation_cards": game.foundation_cards,
        "actions": game.ply,
        "time_seconds": time_seconds,
        "score": game.score,
        "finished_at": iso(game.finished_at),
        "game_id": game.pk,
    }

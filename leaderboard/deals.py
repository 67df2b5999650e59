"""The deal of a day: the secret that keys it, its certification, and the row that stores it.

A day's deal is the first candidate ``n = 0, 1, 2, …`` of the keyed generator
(``games.engine.keyed``: draw 3, app rules) that is not dead (``games.engine.is_dead``) and that
the solver proves winnable within ``settings.DAILY_DEAL_POSITIONS`` positions. The budget is in
positions, not seconds, so that every process decides the same candidate whatever its load.

It is stored in the day's ``DailyDeal`` row by compare-and-set: the row is created if missing
(its primary key is the date), then its deal is written only where none is stored yet, and read
back. Two processes that deal a day at once compute the same deal, and only the first write
counts; once stored, a day's deal never changes. ``manage.py prepare_daily_deals`` stores the
coming days' deals ahead; a day still without one is dealt on its first request.

The secret is ``settings.DAILY_DEAL_SECRET`` or, when that is unset, a random one generated on
first use and kept in the database (``DealSecret``), created once under its primary key so that
every process of a deployment agrees.
"""

from __future__ import annotations

import datetime as dt
import secrets
import time
from dataclasses import dataclass
from typing import Final

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engine import Canfield, DealCode, daily_deal_code, is_dead
from games.engine.solver import shorten, solve
from leaderboard.models import DailyDeal, DealSecret

DAILY_DRAW: Final = 3
DAILY_VARIANT: Final = "app"
#: Random bytes of a generated secret.
GENERATED_SECRET_BYTES: Final = 32


class NoCertifiedDeal(RuntimeError):
    """No candidate of the day was certified within ``DAILY_DEAL_CANDIDATES`` tries."""


def generated_secret() -> bytes:
    """The deployment's generated secret: created on first use (one row, primary key 1)."""
    row, _ = DealSecret.objects.get_or_create(
        id=1, defaults={"secret": secrets.token_hex(GENERATED_SECRET_BYTES)}
    )
    return bytes.fromhex(row.secret)


def uses_generated_secret() -> bool:
    return not settings.DAILY_DEAL_SECRET


def deal_secret() -> bytes:
    """The key of the daily deals: ``DAILY_DEAL_SECRET`` (its UTF-8 bytes), else the
    generated one."""
    if settings.DAILY_DEAL_SECRET:
        return str(settings.DAILY_DEAL_SECRET).encode()
    return generated_secret()


@dataclass(frozen=True)
class Certified:
    """A day's deal as certification found it."""

    day: dt.date
    n: int
    code: str
    line: list[str]
    positions: int
    seconds: float
    #: Seconds spent on every candidate tried, this one included.
    total_seconds: float


def certify(
    day: dt.date,
    secret: bytes | None = None,
    max_positions: int | None = None,
    candidates: int | None = None,
) -> Certified:
    """Find the deal of ``day``: the first candidate not dead and proved winnable by the solver
    within ``max_positions`` positions (``settings.DAILY_DEAL_POSITIONS``). Its line is checked by
    replaying it with the engine. ``NoCertifiedDeal`` after ``candidates`` tries
    (``settings.DAILY_DEAL_CANDIDATES``)."""
    secret = deal_secret() if secret is None else secret
    budget = settings.DAILY_DEAL_POSITIONS if max_positions is None else max_positions
    tries = settings.DAILY_DEAL_CANDIDATES if candidates is None else candidates
    start = time.perf_counter()
    for n in range(tries):
        code = daily_deal_code(secret, day, n, DAILY_DRAW, DAILY_VARIANT)
        if is_dead(code):
            continue
        result = solve(code, max_positions=budget, shorten=False)
        if result.outcome != "win":
            continue
        # A shorter line on a budget of its own: the deciding budget is for hard deals, and most
        # wins are found within a few thousand positions.
        line = shorten(code, result.line, max_positions=settings.DAILY_DEAL_SHORTEN_POSITIONS)
        if not Canfield.replay(code, line).is_won():  # the engine is the judge
            continue
        return Certified(
            day=day,
            n=n,
            code=str(code),
            line=[action.token() for action in line],
            positions=result.positions,
            seconds=round(result.seconds, 3),
            total_seconds=round(time.perf_counter() - start, 3),
        )
    raise NoCertifiedDeal(f"no certified deal for {day.isoformat()} in {tries} candidates")


def stored(day: dt.date) -> DailyDeal | None:
    """The day's row if its deal is stored, else ``None`` (reads never write)."""
    return DailyDeal.objects.filter(date=day).exclude(code="").first()


def store(found: Certified) -> DailyDeal:
    """Store ``found`` as its day's deal unless the day has one already (compare-and-set), and
    return the day's row as stored: the first deal written wins."""
    with transaction.atomic():
        DailyDeal.objects.get_or_create(date=found.day)
        DailyDeal.objects.filter(date=found.day, code="").update(
            code=found.code,
            n=found.n,
            line=found.line,
            par=len(found.line),
            outcome=DailyDeal.Outcome.WIN,
            positions=found.positions,
            seconds=found.seconds,
            candidates_seconds=found.total_seconds,
            created=timezone.now(),
        )
    return DailyDeal.objects.get(date=found.day)


def deal_of(day: dt.date) -> DailyDeal:
    """The day's stored deal, certified and stored first if it has none yet. Never serve it
    before the day is over (``leaderboard.services.public_deal``)."""
    row = stored(day)
    if row is not None:
        return row
    return store(certify(day))


def daily_code(day: dt.date) -> DealCode:
    """The code that the day's attempts play (dealing the day if needed)."""
    return DealCode.parse(deal_of(day).code)

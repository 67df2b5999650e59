"""The deal of a day: the secret that keys it, its certification, and the row that stores it.

A day's deal is the first keyed candidate that is not dead and that the solver proves winnable
within ``settings.DAILY_DEAL_POSITIONS`` positions (``games.engine.certify``: positions, not
seconds, so that every process decides the same candidate whatever its load). Certifying takes
seconds to a minute of solver, so it never runs in a web process: the worker tier deals the days
ahead (``leaderboard.tasks.deal_ahead``, every minute: today and tomorrow), in the worker's own
process, and the operators' commands deal in theirs. Nobody waits for it in a request.

**Single-flight, across processes.** Whoever wants a day dealt first *claims* it: one ``UPDATE``
of the day's ``DailyDeal`` row that succeeds only where no deal is stored and no claim is alive
(``dealing_until`` unset or past), so exactly one process wins it, whatever the database. The
winner certifies, renewing its claim every ``RENEW_EVERY`` seconds meanwhile, and stores the deal
by compare-and-set (the row's deal is written only where none is stored yet: once stored, a day's
deal never changes). Everyone else waits for the row (:func:`deal_of`, the operators' commands)
or is told the deal is pending (:func:`request`, the web: 503 ``deal_pending`` with
``Retry-After``, and the page retries by itself). A claim whose holder died (a worker killed
mid-search) lapses after ``LEASE``, and the next run of ``deal_ahead`` deals the day; a
certification that failed keeps the day claimed for ``FAILED_BACKOFF`` with its reason in
``dealing_error`` (503 ``deal_unavailable`` meanwhile), so that a day without a certified
candidate is not searched again at every run.

The secret is ``settings.DAILY_DEAL_SECRET`` or, when that is unset, a random one generated on
first use and kept in the database (``DealSecret``), created once under its primary key so that
every process of a deployment agrees.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Final

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import pool_jobs
from games.clock import utc_today
from games.engine import Card, DealCode
from games.engine.certify import DAILY_DRAW, DAILY_VARIANT, Certified, NoCertifiedDeal
from games.engine.difficulty import Band
from games.engine.symmetry import canonical
from leaderboard.models import DailyDeal, DealSecret

__all__ = [
    "DAILY_DRAW",
    "DAILY_VARIANT",
    "Certified",
    "DealPending",
    "NoCertifiedDeal",
    "certify",
    "claim",
    "deal",
    "deal_of",
    "deal_secret",
    "is_published_deck",
    "is_unpublished_deck",
    "measure",
    "request",
    "store",
    "stored",
]

log = logging.getLogger(__name__)

#: Random bytes of a generated secret.
GENERATED_SECRET_BYTES: Final = 32
#: How long a claim to deal a day lives unless renewed, and how often its holder renews it.
LEASE: Final = dt.timedelta(seconds=30)
RENEW_EVERY: Final = 10.0
#: How long a day stays claimed after its certification failed.
FAILED_BACKOFF: Final = dt.timedelta(seconds=60)
#: Seconds between two looks at the row of a day another process is dealing.
POLL: Final = 0.25


class DealPending(Exception):
    """The day's deal is being certified (here or in another process): ask again later.
    ``failed`` is the reason of the last failed certification, if the day is backing off."""

    def __init__(self, day: dt.date, failed: str = "") -> None:
        super().__init__(f"the deal of {day.isoformat()} is pending")
        self.day = day
        self.failed = failed


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


# --- certifying ---------------------------------------------------------------------------------


def band_of(day: dt.date) -> Band:
    """The band of difficulty of ``day``'s deal: its weekday's (``DAILY_DIFFICULTY_WEEK``)."""
    week: tuple[Band, ...] = settings.DAILY_DIFFICULTY_WEEK
    return week[day.weekday()]


def _certify_args(
    day: dt.date,
    secret: bytes | None = None,
    max_positions: int | None = None,
    candidates: int | None = None,
) -> tuple[bytes, dt.date, int, int, int, float, Band, int]:
    """The arguments of ``games.pool_jobs.certify_day`` for ``day`` (the secret read first: the
    search itself touches no database)."""
    return (
        deal_secret() if secret is None else secret,
        day,
        settings.DAILY_DEAL_POSITIONS if max_positions is None else max_positions,
        settings.DAILY_DEAL_SHORTEN_POSITIONS,
        settings.DAILY_DEAL_CANDIDATES if candidates is None else candidates,
        settings.DAILY_DEAL_SECONDS,
        band_of(day),
        settings.DAILY_DIFFICULTY_GAMES,
    )


def certify(
    day: dt.date,
    secret: bytes | None = None,
    max_positions: int | None = None,
    candidates: int | None = None,
) -> Certified:
    """Find the deal of ``day`` (``games.engine.certify.certify``), in this process: the first
    candidate not dead and proved winnable within ``max_positions`` (``DAILY_DEAL_POSITIONS``),
    its line checked by replaying it. ``NoCertifiedDeal`` after ``candidates`` tries
    (``DAILY_DEAL_CANDIDATES``) or ``DAILY_DEAL_SECONDS``. Stores nothing. For a worker's task
    or a command, never a web process."""
    return pool_jobs.certify_day(*_certify_args(day, secret, max_positions, candidates))


def _certifying(day: dt.date) -> Future[Certified]:
    """Certify ``day`` in a thread of this (worker's or command's) process, so that the caller
    can renew its claim while the search runs. A daemon thread: a worker that stops does not
    wait for it (its task is run again)."""
    args = _certify_args(day)
    found: Future[Certified] = Future()

    def run() -> None:
        try:
            found.set_result(pool_jobs.certify_day(*args))
        except BaseException as exc:  # (handed to the caller)
            found.set_exception(exc)

    threading.Thread(target=run, name=f"certify-{day.isoformat()}", daemon=True).start()
    return found


# --- storing ------------------------------------------------------------------------------------


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
            dealing_until=None,
            dealing_error="",
            difficulty_band=str(found.band),
            **DailyDeal.difficulty_fields(found.difficulty),
        )
    return DailyDeal.objects.get(date=found.day)


def measure(day: dt.date) -> DailyDeal | None:
    """The day's stored row, its difficulty measured first (in this process: a worker's task or a
    command) if it was dealt
    without one — before days had a difficulty. Its deal stays as it is; the difficulty is
    written only where none is stored yet. ``None`` if the day has no deal stored."""
    row = stored(day)
    if row is None or row.difficulty_share is not None:
        return row
    found = pool_jobs.measure_deal(row.code, settings.DAILY_DIFFICULTY_GAMES)
    DailyDeal.objects.filter(date=day, difficulty_share__isnull=True).update(
        **DailyDeal.difficulty_fields(found)
    )
    return DailyDeal.objects.get(date=day)


# --- single-flight ------------------------------------------------------------------------------


def claim(day: dt.date) -> bool:
    """Claim the dealing of ``day``: true for exactly one caller while no deal is stored and no
    other claim is alive (its row is created if missing)."""
    now = timezone.now()
    DailyDeal.objects.get_or_create(date=day)
    free = Q(dealing_until__isnull=True) | Q(dealing_until__lt=now)
    won = (
        DailyDeal.objects.filter(free, date=day, code="").update(
            dealing_until=now + LEASE, dealing_error=""
        )
        == 1
    )
    return won


def _renew(day: dt.date) -> None:
    DailyDeal.objects.filter(date=day, code="").update(dealing_until=timezone.now() + LEASE)


def _failed(day: dt.date, reason: str) -> None:
    DailyDeal.objects.filter(date=day, code="").update(
        dealing_until=timezone.now() + FAILED_BACKOFF, dealing_error=reason[:200]
    )


def _release(day: dt.date) -> None:
    DailyDeal.objects.filter(date=day, code="").update(dealing_until=None)


def _dealing_error(day: dt.date) -> str:
    """Why the day's last dealing failed, while it backs off ("" if it did not fail)."""
    error = DailyDeal.objects.filter(date=day).values_list("dealing_error", flat=True).first()
    return error or ""


def deal(day: dt.date) -> DailyDeal:
    """Certify ``day``'s deal in this process and store it; the caller holds the day's claim
    (:func:`claim`), which this renews while it waits and gives up at the end. A failure
    (``NoCertifiedDeal``, the deadline) keeps the day claimed for ``FAILED_BACKOFF``, with its
    reason, and is raised."""
    try:
        future = _certifying(day)
        deadline = time.monotonic() + settings.DAILY_DEAL_SECONDS + RENEW_EVERY
        while True:
            try:
                found = future.result(timeout=RENEW_EVERY)
                break
            except FutureTimeout:
                if time.monotonic() > deadline:
                    future.cancel()
                    raise NoCertifiedDeal(
                        f"the deal of {day.isoformat()} was not certified in time"
                    ) from None
                _renew(day)
    except Exception as exc:
        _failed(day, str(exc) or type(exc).__name__)
        raise
    except BaseException:  # interrupted (its worker stopping): the next dealer may claim it now
        _release(day)
        raise
    return store(found)


def request(day: dt.date) -> DailyDeal:
    """The day's stored deal, or :class:`DealPending` (with the reason of its last failed
    dealing, if it is backing off). Never waits for the solver and starts nothing: the worker
    tier deals the days ahead (the web's path; reads never write)."""
    row = stored(day)
    if row is not None:
        return row
    raise DealPending(day, _dealing_error(day))


def deal_of(day: dt.date, timeout: float | None = None) -> DailyDeal:
    """The day's stored deal: dealt here if nobody is dealing it, else waited for (at most
    ``timeout`` seconds, then :class:`DealPending`). For the operators' commands and the worker
    tier, never for a request. Never serve it before the day is over
    (``leaderboard.services.public_deal``)."""
    start = time.monotonic()
    while True:
        row = stored(day)
        if row is not None:
            return row
        if claim(day):
            return deal(day)
        failed = _dealing_error(day)
        if failed:  # the last try failed, and the day is backing off
            raise NoCertifiedDeal(failed)
        if timeout is not None and time.monotonic() - start > timeout:
            raise DealPending(day)
        time.sleep(POLL)


def is_unpublished_deck(deck: tuple[Card, ...], now: dt.datetime | None = None) -> bool:
    """Whether ``deck`` is, up to the game's symmetries (``games.engine.symmetry``: suits
    renamed within or across the colours, ranks rotated, the columns in another order), the deck
    of a daily deal not public yet: today's, or a day dealt ahead — whatever code, draw or rule
    set names it. Registered as the games' deck guard (``games.services.guard_decks``): such a
    deck is never played as practice."""
    codes = (
        DailyDeal.objects.filter(date__gte=utc_today(now))
        .exclude(code="")
        .values_list("code", flat=True)
    )
    form = canonical(deck)
    return any(canonical(DealCode.parse(code).deck()) == form for code in codes)


def is_published_deck(deck: tuple[Card, ...], now: dt.datetime | None = None) -> bool:
    """Whether ``deck`` is the deck of a published daily deal (a day that is over), by any code:
    a deck the server dealt. Registered as a source of the games' known decks
    (``games.services.known_decks``): any code of it plays as practice. One query, whatever
    ``deck`` is: the CF2 codes of the deck in every mode, and the few legacy days' CF1 codes."""
    rank = DealCode.from_deck(deck).number
    cf2 = [
        str(DealCode(rank, draw, variant, "CF2"))
        for draw in (1, 3)
        for variant in ("app", "classic")
    ]
    codes = (
        DailyDeal.objects.filter(date__lt=utc_today(now))
        .filter(Q(code__in=cf2) | Q(code__startswith="CF1-"))
        .values_list("code", flat=True)
    )
    return any(code in cf2 or DealCode.parse(code).deck() == deck for code in codes)


def daily_code(day: dt.date) -> DealCode:
    """The code that the day's attempts play: :class:`DealPending` while it is being dealt."""
    return DealCode.parse(request(day).code)

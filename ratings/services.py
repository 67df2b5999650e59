"""The ratings: settled days rated in date order, each once, and the reads of the API.

Writes run in the worker tier only (``ratings.tasks``, ``manage.py rebuild_ratings``):

- :func:`rate_due` rates the settled days not rated yet, oldest first, one transaction per day
  under the ratings' lock (:class:`~ratings.models.RatingLock`, taken without waiting: a second
  worker finds it taken and leaves). A day is rated only when every day before it that was played is
  settled, so the days are taken in date order whatever order they settle in; a day settled after a
  later day was rated (its row came late) makes the ratings go back to it first.
- :func:`rate_day` streams the day's ranked attempts (``leaderboard.standings.percentiles``) in
  board order, cuts them into matches (``ratings.matches.groups``) and rates a batch of
  :data:`BATCH` players at a time: one query reads the batch's current ratings, one upsert writes
  them, one insert their history points. A day of a million attempts is a few thousand
  statements.
- When a settled day's ranks are written again (a staff decision: ``day_settled`` with
  ``again``), the receiver records a :class:`~ratings.models.Rerate`; the next run goes back to
  that day (:func:`rewind`: each player's rating as it stood before it, from their history) and
  rates it and every day after it again, in date order.
- :func:`rebuild` deletes every rating and rates every settled day from scratch: the same
  numbers, float for float, since the same days are rated in the same order from the same inputs.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Field, Max, Model, OuterRef, QuerySet, Subquery
from django.utils import timezone

from games.models import Game
from leaderboard.models import DailyDeal
from leaderboard.payloads import PlayerRating
from leaderboard.standings import percentiles, ranked_filters
from ratings import matches, payloads
from ratings.matches import Entry
from ratings.models import PROVISIONAL_DAYS, RatedDay, Rating, RatingLock, RatingPoint, Rerate

log = logging.getLogger(__name__)

#: Players read and written per batch while rating a day (a multiple of the match size).
BATCH = 100 * matches.GROUP
#: Rows per INSERT statement.
WRITE_BATCH = 1000
#: Points of a player's history the API gives (the chart's year).
HISTORY_POINTS = 365
#: Rows per page of the rating board.
BOARD_PAGE_SIZE = 50


# --- rating ------------------------------------------------------------------------------------


def _locked(wait: bool) -> bool:
    """Take the ratings' lock for the current transaction: ``False`` if another worker holds it
    and ``wait`` is off. (SQLite has no row locks: its one writer at a time serialises runs.)"""
    if not RatingLock.objects.filter(id=1).exists():
        try:
            with transaction.atomic():
                RatingLock.objects.get_or_create(id=1)
        except IntegrityError:  # another worker made it at once
            pass
    return RatingLock.objects.select_for_update(skip_locked=not wait).filter(id=1).exists()


def rate_due(now: dt.datetime | None = None, wait: bool = False) -> list[dt.date]:
    """Rate the settled days not rated yet, oldest first, each in a transaction of its own,
    going back first to any day asked to be rated again; returns the days rated. Stops at a day
    with an earlier day not settled yet, and when another worker holds the lock (``wait``:
    waits for it instead)."""
    rated: list[dt.date] = []
    while True:
        with transaction.atomic():
            if not _locked(wait):
                return rated
            _rewind_as_asked()
            day = _next_day()
            if day is None:
                return rated
            rate_day(day, now)
        rated.append(day)


def _next_day() -> dt.date | None:
    """The oldest settled day not rated, if every day before it is settled (else ``None``); if
    a later day was rated already, the ratings go back to this one first (:func:`rewind`)."""
    day = (
        DailyDeal.objects.filter(settled_at__isnull=False)
        .exclude(date__in=RatedDay.objects.values("day"))
        .order_by("date")
        .values_list("date", flat=True)
        .first()
    )
    if day is None:
        return None
    if DailyDeal.objects.filter(date__lt=day, settled_at__isnull=True).exists():
        return None
    latest = latest_rated_day()
    earlier = Game.objects.filter(*ranked_filters(), daily_date__lt=day)
    if latest is not None and latest < day:
        earlier = earlier.filter(daily_date__gt=latest)
    settled = DailyDeal.objects.filter(date__lt=day, settled_at__isnull=False).values("date")
    if earlier.exclude(daily_date__in=settled).exists():  # (a day played, its row missing)
        return None
    if RatedDay.objects.filter(day__gt=day).exists():
        rewind(day)
    return day


def _rewind_as_asked() -> None:
    """Go back to the oldest day asked to be rated again, if any, and forget the asks read."""
    asked = list(Rerate.objects.values_list("id", "day"))
    if not asked:
        return
    day = min(day for _, day in asked)
    if RatedDay.objects.filter(day__gte=day).exists():
        rewind(day)
    Rerate.objects.filter(id__in=[pk for pk, _ in asked]).delete()


def rate_day(day: dt.date, now: dt.datetime | None = None) -> RatedDay:
    """Rate ``day``'s matches and record the day rated (call in a transaction holding the lock,
    with the days before it rated)."""
    rows = percentiles(day).iterator(chunk_size=BATCH)
    entries = (Entry(owner_id, percentile) for _, owner_id, percentile in rows)
    batch: list[list[Entry]] = []
    size = players = count = 0
    for group in matches.groups(entries):
        batch.append(group)
        size += len(group)
        count += 1
        if size >= BATCH:
            players += _rate_batch(day, batch)
            batch, size = [], 0
    players += _rate_batch(day, batch)
    return RatedDay.objects.create(
        day=day, rated_at=now or timezone.now(), players=players, matches=count
    )


def _rate_batch(day: dt.date, batch: list[list[Entry]]) -> int:
    """Rate the matches of ``batch`` and write their players' ratings and points: one read,
    bulk writes. Returns how many players it rated."""
    ids = [entry.player_id for group in batch for entry in group]
    if not ids:
        return 0
    current = {
        player_id: (mu, sigma, days)
        for player_id, mu, sigma, days in Rating.objects.filter(player_id__in=ids)
        .order_by()
        .values_list("player_id", "mu", "sigma", "days")
    }
    rows: list[tuple[int, float, float, float, int]] = []
    new = (matches.MU, matches.SIGMA, 0)
    for group in batch:
        before = [current.get(entry.player_id, new) for entry in group]
        after = matches.rate(group, [(mu, sigma) for mu, sigma, _ in before])
        for entry, (_, _, days), (mu, sigma) in zip(group, before, after, strict=True):
            rows.append((entry.player_id, mu, sigma, matches.ordinal(mu, sigma), days + 1))
    _write(day, rows)
    return len(rows)


def _columns(model: type[Model], names: tuple[str, ...]) -> list[str]:
    """The quoted columns of ``model``'s fields ``names``."""
    columns = []
    for name in names:
        field = model._meta.get_field(name)
        assert isinstance(field, Field) and field.column is not None
        columns.append(connection.ops.quote_name(field.column))
    return columns


#: The fields written by :func:`_write`, the player's first.
RATING_FIELDS = ("player", "mu", "sigma", "ordinal", "days", "last_day")
POINT_FIELDS = ("player", "mu", "sigma", "ordinal", "days", "day")


def _write(day: dt.date, rows: list[tuple[int, float, float, float, int]]) -> None:
    """Write each player's new rating over their row (or as a new one: ``INSERT ... ON
    CONFLICT DO UPDATE``) and their point of ``day``, from ``rows`` of (player, mu, sigma,
    ordinal, days): one statement per :data:`WRITE_BATCH` rows and table. Several times faster
    than building a model object per row, which was most of the cost of a big day. PostgreSQL
    is sent each column as one array (``unnest``): a statement with thousands of placeholders
    costs the driver more to parse than the database to run; SQLite takes them as rows of
    placeholders."""
    quote = connection.ops.quote_name
    key, *rest = _columns(Rating, RATING_FIELDS)
    on_conflict = f" ON CONFLICT ({key}) DO UPDATE SET " + ", ".join(
        f"{column} = excluded.{column}" for column in rest
    )
    into_ratings = f"INSERT INTO {quote(Rating._meta.db_table)} ({', '.join([key, *rest])}) "
    into_points = (
        f"INSERT INTO {quote(RatingPoint._meta.db_table)} "
        f"({', '.join(_columns(RatingPoint, POINT_FIELDS))}) "
    )
    value = connection.ops.adapt_datefield_value(day)
    postgres = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        for first in range(0, len(rows), WRITE_BATCH):
            chunk = rows[first : first + WRITE_BATCH]
            if postgres:
                select = (
                    "SELECT t.*, %s::date FROM unnest(%s::bigint[], %s::float8[], %s::float8[], "
                    "%s::float8[], %s::integer[]) AS t"
                )
                params: list[Any] = [value, *(list(column) for column in zip(*chunk, strict=True))]
                cursor.execute(into_ratings + select + on_conflict, params)
                cursor.execute(into_points + select, params)
            else:
                one = "(" + ", ".join(["%s"] * len(RATING_FIELDS)) + ")"
                values = "VALUES " + ", ".join([one] * len(chunk))
                params = [item for row in chunk for item in (*row, value)]
                cursor.execute(into_ratings + values + on_conflict, params)
                cursor.execute(into_points + values, params)


def _upsert(ratings: list[Rating]) -> None:
    """Write ``ratings``, each a new row or over the player's row (INSERT ... ON CONFLICT)."""
    Rating.objects.bulk_create(
        ratings,
        batch_size=WRITE_BATCH,
        update_conflicts=True,
        unique_fields=["player"],
        update_fields=["mu", "sigma", "ordinal", "days", "last_day"],
    )


def rewind(day: dt.date) -> None:
    """Take the ratings back to where they stood before ``day``: every player rated on or after
    it gets their latest point before it back (or loses their rating if they have none), and the
    points and rated days from ``day`` on are deleted. In batches of :data:`BATCH` players."""
    affected = (
        RatingPoint.objects.filter(day__gte=day)
        .order_by("player_id")
        .values_list("player_id", flat=True)
        .distinct()
    )
    for ids in _chunks(affected.iterator(chunk_size=BATCH)):
        before = RatingPoint.objects.filter(player=OuterRef("player"), day__lt=day).order_by("-day")
        found = (
            Rating.objects.filter(player_id__in=ids)
            .order_by()
            .annotate(
                was_day=Subquery(before.values("day")[:1]),
                was_mu=Subquery(before.values("mu")[:1]),
                was_sigma=Subquery(before.values("sigma")[:1]),
                was_ordinal=Subquery(before.values("ordinal")[:1]),
                was_days=Subquery(before.values("days")[:1]),
            )
            .values_list("player_id", "was_day", "was_mu", "was_sigma", "was_ordinal", "was_days")
        )
        kept: list[Rating] = []
        gone: list[int] = []
        for player_id, was_day, mu, sigma, value, days in found:
            if was_day is None:
                gone.append(player_id)
            else:
                kept.append(
                    Rating(
                        player_id=player_id,
                        mu=mu,
                        sigma=sigma,
                        ordinal=value,
                        days=days,
                        last_day=was_day,
                    )
                )
        _upsert(kept)
        Rating.objects.filter(player_id__in=gone).delete()
    RatingPoint.objects.filter(day__gte=day).delete()
    RatedDay.objects.filter(day__gte=day).delete()
    log.info("ratings: back to before %s, to rate it again", day)


def _chunks(ids: Iterator[int]) -> Iterator[list[int]]:
    chunk: list[int] = []
    for player_id in ids:
        chunk.append(player_id)
        if len(chunk) == BATCH:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def ask_rerate(day: dt.date) -> None:
    """Have the worker rate ``day`` and every day after it again (its ranks were written
    afresh). A small insert: never waits for a rating in progress."""
    Rerate.objects.create(day=day)


def rebuild(now: dt.datetime | None = None) -> list[dt.date]:
    """Delete every rating, point and rated day, then rate every settled day again in date
    order; returns the days rated."""
    with transaction.atomic():
        _locked(wait=True)
        RatingPoint.objects.all().delete()
        Rating.objects.all().delete()
        RatedDay.objects.all().delete()
        Rerate.objects.all().delete()
    return rate_due(now, wait=True)


# --- reading -----------------------------------------------------------------------------------


def rating_of(user: User) -> PlayerRating | None:
    """``user``'s rating as their page shows it, or ``None`` if never rated."""
    found = Rating.objects.filter(player=user).first()
    return None if found is None else payloads.player_rating(found)


def board() -> QuerySet[Rating]:
    """The rating board: the players rated on :data:`PROVISIONAL_DAYS` days or more, best
    conservative number first (a queryset, for the paginator: a range of the ``ratings_board``
    index)."""
    return (
        Rating.objects.filter(days__gte=PROVISIONAL_DAYS)
        .select_related("player")
        .order_by("-ordinal", "player_id")
    )


def board_rows(page: list[Rating], start: int) -> list[payloads.BoardRow]:
    """A page of the rating board, its first row at position ``start`` (0 for the first row of
    the board), with each row's place: 1 + the players above it, so that equal ratings share a
    place. One count, from the index, for the page's first row: every later row not tied with
    the row before it has all the rows before it above it."""
    if not page:
        return []
    place = 1 + board().filter(ordinal__gt=page[0].ordinal).count()
    rows: list[payloads.BoardRow] = []
    for index, rating in enumerate(page):
        if index and rating.ordinal != page[index - 1].ordinal:
            place = start + index + 1
        rows.append(payloads.board_row(rating, place))
    return rows


def history(user: User) -> payloads.RatingHistory:
    """``user``'s rating and its last :data:`HISTORY_POINTS` points, oldest first."""
    points = list(RatingPoint.objects.filter(player=user).order_by("-day")[:HISTORY_POINTS])
    return {
        "player": user.get_username(),
        "rating": rating_of(user),
        "points": [payloads.history_point(point) for point in reversed(points)],
    }


def latest_rated_day() -> dt.date | None:
    """The latest day the ratings took in."""
    day: dt.date | None = RatedDay.objects.aggregate(day=Max("day"))["day"]
    return day

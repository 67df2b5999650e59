"""Settled days: a day's final ranks, written once when it is over, and its board read from them.

A day's attempts can no longer change once it has been over for ``SETTLE`` (a minute). The job
that settles it (``manage.py settle_days``, run periodically by the ``jobs`` service of
docker-compose.yml) writes, in one transaction: a :class:`~leaderboard.models.FinalRank` row for
each of its daily attempts — its rank on the day's board (``sql.ranked``, at the day's end), or
``null`` for one not ranked — and the day's counts and ``settled_at`` on its ``DailyDeal`` row.
From then on the day's board (:class:`SettledBoard`), the players' histories and their stats read
those ranks: a past day is never ranked again.

:func:`settle_day` settles one day; ``again=True`` writes a settled day's ranks afresh (after a
change to which attempts are ranked, say). Reads never settle anything.
"""

from __future__ import annotations

import datetime as dt

from django.db import connection, transaction
from django.db.models import Count, F, Field, Max, Q, QuerySet, Window
from django.db.models.functions import PercentRank, RowNumber
from django.utils import timezone

from games.clock import day_end, utc_today
from games.models import Game
from leaderboard import signals
from leaderboard.models import DailyDeal, FinalRank
from leaderboard.standings.board import ROW_FIELDS, ROW_VALUES, SETTLE, row_game
from leaderboard.standings.order import PARTS, SQL_ORDER, WON, ranked_filters
from leaderboard.standings.sql import attempts, ranked

#: Unranked attempts' rows written per statement.
BATCH = 5000


def is_due(day: dt.date, now: dt.datetime) -> bool:
    """Whether ``day``'s attempts can no longer change at ``now``."""
    return now >= day_end(day) + SETTLE


def settle_day(day: dt.date, again: bool = False, now: dt.datetime | None = None) -> bool:
    """Write ``day``'s final ranks and counts, if the day is due and not settled yet (or
    ``again``). Returns whether it wrote them."""
    now = now or timezone.now()
    if not is_due(day, now):
        return False
    with transaction.atomic():
        DailyDeal.objects.get_or_create(date=day)
        deal = DailyDeal.objects.select_for_update().get(date=day)
        if deal.settled_at is not None and not again:
            return False
        FinalRank.objects.filter(day=day).delete()
        _insert_ranks(day)
        unranked = (
            Game.objects.filter(kind=Game.Kind.DAILY, daily_date=day)
            .filter(~Q(*ranked_filters()))
            .values_list("pk", flat=True)
            .order_by()
        )
        batch: list[FinalRank] = []
        for game_id in unranked.iterator(chunk_size=BATCH):
            batch.append(FinalRank(game_id=game_id, day=day, rank=None))
            if len(batch) >= BATCH:
                FinalRank.objects.bulk_create(batch)
                batch = []
        FinalRank.objects.bulk_create(batch)
        counts = attempts(day).aggregate(
            players=Count("id"), winners=Count("id", filter=Q(status=WON))
        )
        deal.players, deal.winners = counts["players"], counts["winners"]
        deal.settled_at = now
        deal.save(update_fields=["players", "winners", "settled_at"])
        transaction.on_commit(
            lambda: signals.day_settled.send(sender=DailyDeal, day=day, again=again)
        )
    return True


def _insert_ranks(day: dt.date) -> None:
    """One INSERT ... SELECT: each ranked attempt with its row number in the board's order."""
    numbered = (
        ranked(day, day_end(day))
        .annotate(final=Window(RowNumber(), order_by=list(SQL_ORDER)))
        .order_by()
        .values_list("id", "daily_date", "final")
    )
    select, params = numbered.query.sql_with_params()
    table = connection.ops.quote_name(FinalRank._meta.db_table)
    fields = [FinalRank._meta.get_field(name) for name in ("game", "day", "rank")]
    columns = ", ".join(
        connection.ops.quote_name(str(field.column)) for field in fields if isinstance(field, Field)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {table} ({columns}) {select}", params)


#: The parts of the standing key that make an attempt's *result*: two attempts equal in these
#: (won, cards home, actions, time) tie, and the parts after them (when it ended, its id) only
#: order them on the board.
RESULT = tuple(part for part in PARTS if part.name in {"won", "cards", "actions", "elapsed"})


def percentiles(day: dt.date) -> QuerySet[Game, tuple[int, int, float]]:
    """Each ranked attempt of ``day`` as ``(game_id, owner_id, percentile)``, in board order:
    the share of the day's other ranked attempts whose result it beats, from 1.0 for the best to
    0.0 for the last — ``1 - percent_rank`` over the results (:data:`RESULT`), so that attempts
    whose results tie have the same percentile, the best their places share (a day of one
    attempt: 1.0). Read from SQL as the board stands at the day's end (a disqualified attempt is
    not ranked); one statement, streamed by whoever iterates it."""
    order = [f"{'-' if part.descending else ''}{part.sql}" for part in RESULT]
    return (
        ranked(day, day_end(day))
        .annotate(percentile=1.0 - Window(PercentRank(), order_by=order))
        .order_by(*SQL_ORDER)
        .values_list("id", "owner_id", F("percentile"))
    )


def due_days(now: dt.datetime | None = None) -> list[dt.date]:
    """The days over for ``SETTLE`` and not settled yet, oldest first. A day with attempts whose
    ``DailyDeal`` row was lost gets its row back (those after the latest settled day)."""
    now = now or timezone.now()
    last = utc_today(now - SETTLE) - dt.timedelta(days=1)
    latest = DailyDeal.objects.filter(settled_at__isnull=False).aggregate(day=Max("date"))["day"]
    played = Game.objects.filter(kind=Game.Kind.DAILY, daily_date__lte=last)
    if latest is not None:
        played = played.filter(daily_date__gt=latest)
    for day in (
        played.exclude(daily_date__in=DailyDeal.objects.values("date"))
        .values_list("daily_date", flat=True)
        .order_by()
        .distinct()
    ):
        if day is not None:
            DailyDeal.objects.get_or_create(date=day)
    return list(
        DailyDeal.objects.filter(date__lte=last, settled_at__isnull=True)
        .order_by("date")
        .values_list("date", flat=True)
    )


def settle_due(now: dt.datetime | None = None) -> list[dt.date]:
    """Settle every day that is due; returns those settled."""
    now = now or timezone.now()
    return [day for day in due_days(now) if settle_day(day, now=now)]


# --- reading -------------------------------------------------------------------------------------


class SettledBoard:
    """A settled day's board (a ``Board``), from its final ranks: a range of an index."""

    def __init__(self, day: dt.date, now: dt.datetime, count: int) -> None:
        self.day = day
        self.now = now
        self._count = count

    @property
    def count(self) -> int:
        return self._count

    def rows(self, start: int, stop: int) -> list[Game]:
        if start >= stop:
            return []
        found = (
            FinalRank.objects.filter(day=self.day, rank__gt=start, rank__lte=stop)
            .order_by("rank")
            .values_list("game_id", *(f"game__{name}" for name in ROW_VALUES))
        )
        return [row_game(game_id, self.day, *values) for game_id, *values in found]

    def rank_of(self, game: Game) -> int | None:
        if game.daily_date != self.day:
            return None
        known = final_rank_of(game)
        if known is not None:
            return known.rank
        return FinalRank.objects.filter(game_id=game.pk).values_list("rank", flat=True).first()


def board(day: dt.date, now: dt.datetime) -> SettledBoard | None:
    """``day``'s board from its final ranks, if it is settled."""
    if not is_due(day, now):
        return None
    count = (
        DailyDeal.objects.filter(date=day, settled_at__isnull=False)
        .values_list("players", flat=True)
        .first()
    )
    return None if count is None else SettledBoard(day, now, count)


def games_with_final_ranks() -> QuerySet[Game]:
    """Games with their board row's fields and their final rank, if their day is settled
    (:func:`final_rank_of`), in one query."""
    return (
        Game.objects.select_related("owner", "final_rank")
        .only(*ROW_FIELDS, "final_rank__rank", "final_rank__day")
        .order_by()
    )


def final_rank_of(game: Game) -> FinalRank | None:
    """``game``'s final rank row as loaded with it (:func:`games_with_final_ranks`); ``None``
    if its day is not settled, or if it was not loaded."""
    if not Game.final_rank.is_cached(game):  # (select_related caches a missing row too)
        return None
    try:
        return game.final_rank
    except FinalRank.DoesNotExist:
        return None

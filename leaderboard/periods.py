"""Standings over time: each player's week, month and all-time rows, added up from the settled
days, and the tables read from them (docs/standings.md).

**What a day adds.** A settled day's ranked attempts (``standings.percentiles``: a disqualified
attempt is not ranked, an attempt never started neither) each add, to their player's row of the
day's ISO week, of its month and of all time: one day played, a win if it was won, and its
percentile (1.0 for the day's best, 0.0 for its last, ties sharing). Only ranked daily attempts
count, one a day: nothing a player can repeat (practice games, take-backs) raises anything.

**The tables.** A period's table lists the players with at least :data:`MINIMUM_DAYS` days in it,
ordered by average percentile (higher first), then days played (more first), then wins (more
first), then the player's name: every number in it is an average or a count of days, never a
sum that grows by playing more of something farmable. Places are positions in that order.

**How it is kept.** The worker tier adds each day once it is settled (``tasks.count_standings``,
enqueued by ``leaderboard.receivers`` on ``day_settled``; a periodic sweep picks up a day whose
task was lost): a :class:`~leaderboard.models.StandingsDay` row claims the day in the
transaction that adds it, so that it is added once. The database does the adding: one
``INSERT ... SELECT ... ON CONFLICT DO UPDATE`` per period over the day's percentiles (the same
SQL on SQLite and PostgreSQL), and two ``INSERT ... SELECT`` for the milestones, whatever the
number of players; nothing is read into the worker, nothing is written player by player. A
day settled again (a staff decision) or counted after a later day recomputes its periods from
the settled days (:func:`recompute`); ``manage.py rebuild_standings`` recomputes everything
(:func:`rebuild`), and gives the same rows as the days added one by one. Each of them ends by
numbering the periods it changed (:func:`place`: one ``UPDATE`` over a window function), so
that a page of a table is read as a range of places, by the index
``leaderboard_standing_place``, with its count stored beside it (:class:`PeriodTable`): page
10,000 of a million listed players costs what the first page does.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal, TypedDict

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.formats import IsoDate
from games.clock import utc_today
from games.errors import GameError
from games.models import Game
from leaderboard import milestones
from leaderboard.models import DailyDeal, Milestone, PeriodStanding, PeriodTable, StandingsDay
from leaderboard.standings import percentiles, ranked_filters
from leaderboard.standings.order import WON

Kind = Literal["week", "month", "all"]
KINDS: tuple[Kind, ...] = ("week", "month", "all")

#: The fewest days played to be listed in a period's table: an average over fewer days says
#: little (three days of a week, ten of a month, thirty of all time).
MINIMUM_DAYS: dict[str, int] = {"week": 3, "month": 10, "all": 30}
#: The all-time period's start: one fixed date before any daily deal.
ALL_TIME_START = dt.date(2000, 1, 1)
#: Percentiles are stored in millionths: sums of whole numbers are exact in any order.
SCALE = 1_000_000
#: Rows per page of a table.
PAGE_SIZE = 100

Period = tuple[str, dt.date]


# --- periods ---------------------------------------------------------------------------------


def period_start(kind: str, day: dt.date) -> dt.date:
    """The first day of the period of ``kind`` that contains ``day``."""
    if kind == "week":
        return day - dt.timedelta(days=day.weekday())
    if kind == "month":
        return day.replace(day=1)
    return ALL_TIME_START


def period_end(kind: str, start: dt.date) -> dt.date | None:
    """The last day of the period of ``kind`` that begins on ``start`` (``None``: all time)."""
    if kind == "week":
        return start + dt.timedelta(days=6)
    if kind == "month":
        following = (start.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
        return following - dt.timedelta(days=1)
    return None


def periods_of(day: dt.date) -> list[Period]:
    """The three periods ``day`` counts in: its week, its month, all time."""
    return [(kind, period_start(kind, day)) for kind in KINDS]


# --- adding a day ----------------------------------------------------------------------------


def _sql(query: QuerySet[Any]) -> tuple[str, list[Any]]:
    """A query's SQL and parameters, to embed in a statement of this module's own."""
    sql, params = query.query.sql_with_params()
    return sql, list(params)


def _day_sql(day: dt.date, kind: str, start: dt.date) -> tuple[str, list[Any]]:
    """``day``'s ranked attempts added to their players' rows of one period, in one statement:
    each player's row inserted as a first day, or the day added to the row that exists. The
    percentiles come from ``standings.percentiles`` (the one definition), in millionths; the run
    of consecutive days goes on when the row's last day was the day before, else starts again
    at 1. The same SQL on SQLite and PostgreSQL."""
    table = connection.ops.quote_name(PeriodStanding._meta.db_table)
    games = connection.ops.quote_name(Game._meta.db_table)
    users = connection.ops.quote_name(User._meta.db_table)
    ranked, ranked_params = _sql(percentiles(day))
    ppm = f"CAST(ROUND(p.percentile * {SCALE}) AS BIGINT)"
    sql = (
        f"WITH p (game_id, owner_id, percentile) AS ({ranked}) "
        f"INSERT INTO {table} (period, start, user_id, name, days, wins, percentile_sum, "
        "average, longest_streak, run, run_end, listed) "
        f"SELECT %s, %s, p.owner_id, u.username, 1, CASE WHEN g.status = %s THEN 1 ELSE 0 END, "
        f"{ppm}, CAST({ppm} AS DOUBLE PRECISION), 1, 1, %s, %s "
        f"FROM p, {games} g, {users} u WHERE g.id = p.game_id AND u.id = p.owner_id "
        "ON CONFLICT (period, start, user_id) DO UPDATE SET "
        "name = excluded.name, "
        f"days = {table}.days + 1, "
        f"wins = {table}.wins + excluded.wins, "
        f"percentile_sum = {table}.percentile_sum + excluded.percentile_sum, "
        f"average = CAST({table}.percentile_sum + excluded.percentile_sum AS DOUBLE PRECISION) "
        f"/ ({table}.days + 1), "
        f"run = CASE WHEN {table}.run_end = %s THEN {table}.run + 1 ELSE 1 END, "
        f"longest_streak = CASE WHEN {table}.run_end = %s AND {table}.run + 1 > "
        f"{table}.longest_streak THEN {table}.run + 1 ELSE {table}.longest_streak END, "
        "run_end = excluded.run_end, "
        f"listed = ({table}.days + 1 >= %s)"
    )
    before = day - dt.timedelta(days=1)
    minimum = MINIMUM_DAYS[kind]
    return sql, [
        *ranked_params,
        kind,
        start,
        str(WON),
        day,
        minimum <= 1,
        before,
        before,
        minimum,
    ]


def _add_day(day: dt.date, periods: Sequence[Period]) -> int:
    """Add ``day``'s ranked attempts to ``periods``' rows, one statement a period (the database
    does the work: nothing is read into the worker); with the all-time period among them,
    award the milestones the day earned (the first win, a streak reaching 7, 30 or 100 days).
    Returns the number of rows written."""
    written = 0
    with connection.cursor() as cursor:
        for kind, start in periods:
            cursor.execute(*_day_sql(day, kind, start))
            written += cursor.rowcount
            if kind == "all":
                _award_day(cursor, day)
    return written


def _award_day(cursor: CursorWrapper, day: dt.date) -> None:
    """The milestones ``day`` earned, in two statements: a first win to each winner of the day,
    and to each player of the day whose all-time run reached 7, 30 or 100 days on it, that
    streak's; those a player has already are left as they are."""
    table = connection.ops.quote_name(Milestone._meta.db_table)
    standings = connection.ops.quote_name(PeriodStanding._meta.db_table)
    players = Game.objects.filter(*ranked_filters(), daily_date=day).order_by()
    winners, winners_params = _sql(players.filter(status=WON).values_list("owner_id"))
    cursor.execute(
        f"INSERT INTO {table} (user_id, kind, day) SELECT w.owner_id, %s, %s "
        f"FROM ({winners}) w WHERE TRUE ON CONFLICT DO NOTHING",
        [str(Milestone.Kind.FIRST_WIN), day, *winners_params],
    )
    played, played_params = _sql(players.values_list("owner_id"))
    streaks = " ".join(f"WHEN {run} THEN %s" for run in milestones.STREAKS)
    cursor.execute(
        f"INSERT INTO {table} (user_id, kind, day) "
        f"SELECT s.user_id, CASE s.run {streaks} END, %s FROM {standings} s "
        f"WHERE s.period = %s AND s.start = %s AND s.run_end = %s "
        f"AND s.run IN ({', '.join(str(run) for run in milestones.STREAKS)}) "
        f"AND s.user_id IN ({played}) ON CONFLICT DO NOTHING",
        [*map(str, milestones.STREAKS.values()), day, "all", ALL_TIME_START, day, *played_params],
    )


def place(kind: str, start: dt.date) -> int:
    """Write the places of the period's table (``PeriodStanding.place``): each listed row's
    position in :data:`ORDER`, from 1, and no place for a row not listed. One statement, a
    window function over the period's listed rows (the same SQL on SQLite and PostgreSQL),
    that writes only the rows whose place changed. Every writer of rows here ends with it, in its
    transaction, so that a page is read as a range of places (:func:`table`); rows changed
    otherwise (a benchmark listing every row) are placed by calling it. Returns the rows
    written."""
    quote = connection.ops.quote_name
    standings = quote(PeriodStanding._meta.db_table)
    order = ", ".join(f"{quote(f[1:])} DESC" if f.startswith("-") else quote(f) for f in ORDER)
    # (user_id last: two rows of one name, a player renamed since, still get distinct places;
    # the rows neither listed nor placed are left out: they stay as they are)
    ranked = (
        f"SELECT id, CASE WHEN listed THEN ROW_NUMBER() OVER (PARTITION BY listed "
        f"ORDER BY {order}, user_id) END AS place FROM {standings} "
        "WHERE period = %s AND start = %s AND (listed OR place IS NOT NULL)"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {standings} SET place = r.place FROM ({ranked}) r "
            f"WHERE {standings}.id = r.id AND {standings}.period = %s AND {standings}.start = %s "
            f"AND COALESCE({standings}.place, 0) <> COALESCE(r.place, 0)",
            [kind, start, kind, start],
        )
        return int(cursor.rowcount)


def _summarise(periods: Iterable[Period]) -> None:
    """Write each period's places (:func:`place`) and counts (:class:`PeriodTable`): its
    players, and those listed."""
    for kind, start in periods:
        place(kind, start)
        rows = PeriodStanding.objects.filter(period=kind, start=start)
        PeriodTable.objects.update_or_create(
            period=kind,
            start=start,
            defaults={"players": rows.count(), "listed": rows.filter(listed=True).count()},
        )


def _lock() -> None:
    """Hold the standings' lock until the transaction ends (the all-time table's row): one
    writer at a time, so that a day added and a period recomputed never interleave."""
    PeriodTable.objects.get_or_create(period="all", start=ALL_TIME_START)
    locked = PeriodTable.objects.select_for_update().filter(period="all", start=ALL_TIME_START)
    list(locked.values_list("pk", flat=True))


def _counted(first: dt.date | None = None, last: dt.date | None = None) -> list[dt.date]:
    """The days already added, between ``first`` and ``last`` (either open), oldest first."""
    days = StandingsDay.objects.all()
    if first is not None:
        days = days.filter(day__gte=first)
    if last is not None:
        days = days.filter(day__lte=last)
    return list(days.order_by("day").values_list("day", flat=True))


def pending(until: dt.date | None = None) -> list[dt.date]:
    """The settled days not added yet (up to ``until``), oldest first."""
    days = DailyDeal.objects.filter(settled_at__isnull=False).exclude(
        date__in=StandingsDay.objects.values("day")
    )
    if until is not None:
        days = days.filter(date__lte=until)
    return list(days.order_by("date").values_list("date", flat=True))


def count_day(day: dt.date) -> bool:
    """Add settled ``day`` to its week, month and all-time rows, once: the day's
    :class:`StandingsDay` row is claimed in the same transaction (another worker adding it
    waits, then finds it claimed). A day added after a later one (out of order) recomputes its
    periods instead, so that the runs of days stay right. Returns whether it added the day."""
    with transaction.atomic():
        _lock()
        if not DailyDeal.objects.filter(date=day, settled_at__isnull=False).exists():
            return False
        _claimed, created = StandingsDay.objects.get_or_create(
            day=day, defaults={"counted_at": timezone.now()}
        )
        if not created:
            return False
        periods = periods_of(day)
        if StandingsDay.objects.filter(day__gt=day).exists():
            for kind, start in periods:
                _recompute(kind, start)
        else:
            _add_day(day, periods)
        _summarise(periods)
    return True


def count_pending(until: dt.date | None = None) -> list[dt.date]:
    """Add every settled day not added yet (up to ``until``), oldest first; returns those
    added."""
    return [day for day in pending(until) if count_day(day)]


def recount_day(day: dt.date) -> None:
    """``day`` was settled again (its ranks changed): recompute its week, its month and all
    time from the settled days (a day never added is added)."""
    with transaction.atomic():
        _lock()
        StandingsDay.objects.get_or_create(day=day, defaults={"counted_at": timezone.now()})
        for kind, start in periods_of(day):
            _recompute(kind, start)
        _summarise(periods_of(day))


def recompute(kind: str, start: dt.date) -> None:
    """Recompute one period's rows from the settled days already added in it."""
    with transaction.atomic():
        _lock()
        _recompute(kind, start)
        _summarise([(kind, start)])


def _recompute(kind: str, start: dt.date) -> None:
    """The period's rows dropped and its added days added again, oldest first."""
    PeriodStanding.objects.filter(period=kind, start=start).delete()
    for day in _counted(start, period_end(kind, start)):
        _add_day(day, [(kind, start)])


def rebuild() -> int:
    """Recompute every row from the settled days, in one transaction, as if each had been added
    in turn (readers see the old rows until it commits); every settled day is marked added.
    Milestones are kept (never taken back) and the missing ones awarded. Returns the days."""
    with transaction.atomic():
        _lock()
        PeriodStanding.objects.all().delete()
        PeriodTable.objects.exclude(period="all", start=ALL_TIME_START).delete()
        days = list(
            DailyDeal.objects.filter(settled_at__isnull=False)
            .order_by("date")
            .values_list("date", flat=True)
        )
        StandingsDay.objects.exclude(day__in=days).delete()
        now = timezone.now()
        StandingsDay.objects.bulk_create(
            [StandingsDay(day=day, counted_at=now) for day in days], ignore_conflicts=True
        )
        touched: set[Period] = set()
        for day in days:
            _add_day(day, periods_of(day))
            touched.update(periods_of(day))
        touched.add(("all", ALL_TIME_START))
        _summarise(sorted(touched))
    return len(days)


# --- reading ---------------------------------------------------------------------------------


class PeriodDict(TypedDict):
    kind: Annotated[str, "week (an ISO week, Monday to Sunday), month or all (all time)."]
    start: Annotated[IsoDate, "The period's first day (all time: a fixed date before any deal)."]
    end: Annotated[IsoDate | None, "The period's last day; null for all time."]


class StandingRow(TypedDict):
    place: Annotated[int, "1 for the first: the row's position in the table's order."]
    player: str
    days: Annotated[int, "Days with a ranked daily attempt in the period."]
    wins: int
    average_percentile: Annotated[
        float,
        "The average of the days' percentiles, 0 to 100 with one decimal (100: the day's best, "
        "0: its last; tied attempts share theirs).",
    ]
    longest_streak: Annotated[int, "The most consecutive UTC days played within the period."]


class StandingsPage(TypedDict):
    period: PeriodDict
    minimum_days: Annotated[int, "The fewest days played to be listed (week 3, month 10, all 30)."]
    count: Annotated[int, "Players listed."]
    page: int
    pages: int
    results: Annotated[
        list[StandingRow],
        "100 rows a page: average percentile (higher first), then days played (more first), "
        "then wins (more first), then the player's name.",
    ]


#: The table's order, in which :func:`place` numbers a period's listed rows.
ORDER = ("-average", "-days", "-wins", "name")


def percent(average: float) -> float:
    """An average percentile in millionths as a number from 0 to 100, one decimal."""
    return round(average / (SCALE / 100), 1)


def table(kind: str, at: dt.date | None = None, page: int = 1) -> StandingsPage:
    """Page ``page`` of the table of the period of ``kind`` containing ``at`` (today by
    default): read from the stored counts and one range of the stored places (``place``
    between the page's first and last, the index ``leaderboard_standing_place``), so that any
    page costs what the first does. ``not_found`` for a day after today (UTC) and for a page
    past the last."""
    today = utc_today()
    at = at or today
    if at > today:
        raise GameError(
            "not_found",
            _("There are no standings for %(day)s yet.") % {"day": at.isoformat()},
        )
    start = period_start(kind, at)
    end = period_end(kind, start)
    count = (
        PeriodTable.objects.filter(period=kind, start=start)
        .values_list("listed", flat=True)
        .first()
    ) or 0
    pages = max(1, math.ceil(count / PAGE_SIZE))
    if page > pages:
        raise GameError(
            "not_found",
            ngettext("The table has %(count)d page.", "The table has %(count)d pages.", pages)
            % {"count": pages},
        )
    first = (page - 1) * PAGE_SIZE
    found = (
        PeriodStanding.objects.filter(
            period=kind, start=start, place__range=(first + 1, first + PAGE_SIZE)
        )
        .order_by("place")
        .values_list("name", "days", "wins", "average", "longest_streak")
    )
    return {
        "period": {
            "kind": kind,
            "start": start.isoformat(),
            "end": end.isoformat() if end is not None else None,
        },
        "minimum_days": MINIMUM_DAYS[kind],
        "count": count,
        "page": page,
        "pages": pages,
        "results": [
            {
                "place": first + k + 1,  # (the places run from 1 without a gap)
                "player": name,
                "days": days,
                "wins": wins,
                "average_percentile": percent(average),
                "longest_streak": longest,
            }
            for k, (name, days, wins, average, longest) in enumerate(found)
        ],
    }

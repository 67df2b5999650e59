"""The weekly leagues, computed from settled days by the worker tier (``leagues.tasks``); the
rules are written out, with a worked example, in docs/leagues.md.

- **Weeks** are ISO weeks, from Monday 00:00 UTC (``leagues.rules``).
- **Points** (``rules.points_for``): a ranked attempt earns ``10 + 90 × percentile`` rounded half
  up (``leaderboard.standings.percentiles``: 1.0 for the day's best, 0.0 for its last, tied
  results alike), so 10 to 100; a day not played, or whose attempt is not ranked (disqualified),
  earns nothing and is no day played.
- **Placement** (:func:`score_day`): when a day settles, every player with a ranked attempt that
  day and no membership that week joins a division of the tier they start the week in
  (:func:`tier_at`: the tier their latest closed week gave them, else the lowest). Newcomers of
  a day join in order of tier, then player id, each tier's last division filled up to
  ``rules.DIVISION_SIZE`` before the next is opened; a day's newcomers join after those of the
  days before. Then the day's points are written.
- **Closing** (:func:`close_week`): once the week's Sunday is settled (and every day of it that
  has a deal), each division is ranked (``rules.ORDER``), the top ``rules.zone_size`` go up a
  tier and the bottom as many down (none above the highest, none below the lowest); written
  once, under the week row's lock.
- **Settled again**: a day of an open week settled afresh (a staff decision) rebuilds the week
  from SQL (:func:`rebuild_week`), so that a disqualified attempt is taken off as if it had
  never been ranked; a day of a closed week gets its points and totals rewritten, and the week's
  places and movements stand.

Every step is set-based — a day's newcomers placed by one ``INSERT ... SELECT`` (their
divisions made by one ``bulk_create`` before), its points by another, a week's places and
movements by one ``UPDATE ... FROM`` over a window — so that no row goes through Python and
memory stays bounded whatever the number of players; and every step is idempotent. The totals
of an open week are not written day by day: the API sums the day rows of the one division it
shows, and closing writes them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Count, F, Model, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from games.clock import utc_today
from games.errors import GameError
from leaderboard import milestones, standings
from leaderboard.models import DailyDeal, Milestone
from leaderboard.services import ranks_among
from leaderboard.standings.settled import is_due
from leagues.models import (
    HIGHEST,
    LOWEST,
    DayPoints,
    Division,
    Membership,
    Movement,
    ScoredDay,
    Standing,
    Tier,
    Week,
)
from leagues.payloads import LeagueWeek, LeagueWeekSummary, Member, league_week, week_summary
from leagues.rules import (
    DIVISION_SIZE,
    MOVEMENT_SQL,
    ORDER_SQL,
    POINTS_SQL,
    points_for,
    week_label,
    week_of,
)

#: Divisions made per statement.
BATCH = 5000
#: The most weeks the list of a player's weeks shows: a year.
WEEKS_LISTED = 52
#: How far back the periodic duty looks for settled days whose points are missing or stale.
CATCH_UP = dt.timedelta(days=14)


def _latest_tier(player: OuterRef, before: dt.date | None = None) -> Coalesce:
    """The tier the latest closed week of ``player`` (before ``before``) moved them to, else the
    lowest: one indexed lookup (``leagues_member_player_week``)."""
    closed = Membership.objects.filter(player_id=player, tier_after__isnull=False)
    if before is not None:
        closed = closed.filter(week_id__lt=before)
    latest = closed.order_by("-week_id").values("tier_after")[:1]
    return Coalesce(Subquery(latest), Value(int(LOWEST)))


def tier_at(user: User, monday: dt.date) -> int:
    """The tier ``user`` starts the week of ``monday`` in."""
    found = User.objects.filter(pk=user.pk).annotate(
        tier=_latest_tier(OuterRef("pk"), before=monday)
    )
    return int(found.values_list("tier", flat=True).get())


# --- scoring a settled day ----------------------------------------------------------------------


def _settled_at(day: dt.date) -> dt.datetime | None:
    return DailyDeal.objects.filter(date=day).values_list("settled_at", flat=True).first()


def _locked_week(monday: dt.date) -> Week:
    """The week's row, made if missing, locked until the transaction ends: placing, scoring,
    closing and rebuilding a week happen one at a time."""
    Week.objects.get_or_create(monday=monday)
    return Week.objects.select_for_update().get(monday=monday)


def score_day(day: dt.date, now: dt.datetime | None = None) -> bool:
    """Place ``day``'s newcomers and write its points, once per settlement of the day (a day
    settled afresh is scored afresh); returns whether it wrote anything. The weeks before that
    are due to close are closed first, so that the tiers the newcomers start in are known."""
    now = now or timezone.now()
    settled_at = _settled_at(day)
    if settled_at is None:
        return False
    monday = week_of(day)
    close_due(now, before=monday)
    with transaction.atomic():
        week = _locked_week(monday)
        scored = ScoredDay.objects.filter(day=day).values_list("settled_at", flat=True).first()
        if scored is not None and scored >= settled_at:
            return False
        if scored is not None and week.closed_at is None:
            _rebuild(week, now)  # settled afresh: the week again, as if it had been so all along
            return True
        _score(week, day, settled_at)
    return True


def _score(week: Week, day: dt.date, settled_at: dt.datetime) -> None:
    closed = week.closed_at is not None
    if not closed:
        _place(week, day)
    _write_points(week, day)
    if closed:
        _total(week)  # its places and movements stand
    ScoredDay.objects.update_or_create(day=day, defaults={"settled_at": settled_at})


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _by_tier(column: str, values: dict[int, int]) -> tuple[str, list[int]]:
    """``CASE <column> WHEN <tier> THEN <value> ... END`` over every tier (0 for one not in
    ``values``), with its parameters."""
    cases = " ".join("WHEN %s THEN %s" for _tier in Tier)
    params = [number for tier in Tier for number in (int(tier), values.get(int(tier), 0))]
    return f"CASE {column} {cases} ELSE 0 END", params


#: The day's newcomers while they are placed (:func:`_place`): a temporary table, the
#: connection's own, made and dropped inside the scoring's transaction.
NEWCOMERS = "leagues_newcomers"


def _place(week: Week, day: dt.date) -> None:
    """Place ``day``'s ranked players who have no membership this week (module docstring), by
    set-based statements: the newcomers, each with their tier and their number k in it (by
    player id), written once to a temporary table; from it, their count by tier, the divisions
    they need made (one ``bulk_create``), and their standings and memberships inserted by one
    ``INSERT ... SELECT`` each, where the k-th newcomer of a tier takes the k-th free seat of
    the tier's divisions.

    Why a temporary table: finding the newcomers is the costly read (the day's attempts, less
    the week's members, and each newcomer's tier from their latest closed week: an index lookup
    a player), and three statements need them (the count, the standings, the memberships).
    Read once into a table of the connection's own — not WAL-logged on PostgreSQL, spilled to
    temporary files beyond ``temp_buffers``, so memory stays bounded — they are not looked up
    three times. On PostgreSQL, a day of 100,000 newcomers with no history took score_day's
    statements 1.8 s instead of 3.1 s; at 1,000,000 the same as before within a second (there
    each lookup finds an empty history: the saving grows with the memberships to look up). The
    table is dropped at the end; on an error, the transaction's rollback drops it (its creation
    is part of the transaction, on PostgreSQL as on SQLite)."""
    newcomers = (
        standings.attempts(day)
        .exclude(owner_id__in=Membership.objects.filter(week=week).values("player_id"))
        .annotate(start_tier=_latest_tier(OuterRef("owner_id"), before=week.monday))
    )
    select, params = newcomers.order_by().values("owner_id", "start_tier").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE {NEWCOMERS} AS "
            "SELECT n.owner_id, n.start_tier, "
            "ROW_NUMBER() OVER (PARTITION BY n.start_tier ORDER BY n.owner_id) AS k "
            f"FROM ({select}) n",
            params,
        )
        cursor.execute(f"SELECT start_tier, COUNT(*) FROM {NEWCOMERS} GROUP BY start_tier")
        counts: dict[int, int] = dict(cursor.fetchall())
    if counts:
        _seat(week, counts)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {NEWCOMERS}")


def _seat(week: Week, counts: dict[int, int]) -> None:
    """The newcomers of :data:`NEWCOMERS` (``counts``: how many of each tier) seated: the
    divisions they need made, then their standings and memberships inserted."""
    # Each tier's last division and its members: its number, and the seats it has free.
    last: dict[int, int] = {}
    free: dict[int, int] = {}
    for tier, number, members in (
        Division.objects.filter(week=week)
        .annotate(members_count=Count("members"))
        .order_by("tier", "number")
        .values_list("tier", "number", "members_count")
    ):
        last[tier], free[tier] = number, max(0, DIVISION_SIZE - members)
    opened = [
        Division(week=week, tier=tier, number=last.get(tier, 0) + k)
        for tier, players in counts.items()
        for k in range(1, -(-max(0, players - free.get(tier, 0)) // DIVISION_SIZE) + 1)
    ]
    Division.objects.bulk_create(opened, batch_size=BATCH)
    last_sql, last_params = _by_tier("k.start_tier", last)
    free_sql, free_params = _by_tier("k.start_tier", free)
    seat = (
        f"CASE WHEN k.k <= {free_sql} THEN {last_sql} "
        f"ELSE {last_sql} + 1 + (k.k - {free_sql} - 1) / %s END"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_table(Standing)} (player_id, tier) "
            f"SELECT owner_id, start_tier FROM {NEWCOMERS} WHERE 1 = 1 ON CONFLICT DO NOTHING"
        )
        cursor.execute(
            f"INSERT INTO {_table(Membership)} "
            "(week_id, division_id, player_id, points, days, best) "
            f"SELECT d.week_id, d.id, k.owner_id, 0, 0, 0 FROM {NEWCOMERS} k "
            f"JOIN {_table(Division)} d ON d.week_id = %s AND d.tier = k.start_tier "
            f"AND d.number = {seat}",
            [week.monday, *free_params, *last_params, *last_params, *free_params, DIVISION_SIZE],
        )


def _write_points(week: Week, day: dt.date) -> None:
    """``day``'s points, replacing any it had: one row per member with a ranked attempt, by
    one ``INSERT ... SELECT`` from the day's percentiles (``rules.POINTS_SQL``).

    The rows are inserted in the order of their memberships, not the board's: each row's
    checks at commit (its membership's foreign key: the membership's row read and locked) and
    its entry in the index ``leagues_day_points_once`` (membership, day) then walk the
    memberships' table and that index in order, page after page, rather than at random over a
    million memberships, more than the database's buffers hold."""
    DayPoints.objects.filter(day=day).delete()
    select, params = (
        standings.percentiles(day).order_by().values("owner_id", share=F("percentile")).query
    ).sql_with_params()
    points = POINTS_SQL.format(percentile="p.share")
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_table(DayPoints)} (membership_id, day, points) "
            f"SELECT m.id, %s, {points} FROM ({select}) p "
            f"JOIN {_table(Membership)} m ON m.week_id = %s AND m.player_id = p.owner_id "
            "ORDER BY m.id",
            [day, *params, week.monday],
        )


def _total(week: Week) -> None:
    """Every member's points, days played and best day, summed from their day rows (0 for a
    member who has none left): one ``UPDATE ... FROM``."""
    members, points = _table(Membership), _table(DayPoints)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {members} SET points = s.total, days = s.played, best = s.top FROM ("
            "SELECT m.id, COALESCE(SUM(p.points), 0) AS total, COUNT(p.id) AS played, "
            "COALESCE(MAX(p.points), 0) AS top "
            f"FROM {members} m LEFT JOIN {points} p ON p.membership_id = m.id "
            "WHERE m.week_id = %s GROUP BY m.id) s "
            f"WHERE {members}.id = s.id",
            [week.monday],
        )


def stale_days(monday: dt.date) -> list[dt.date]:
    """The settled days of the week whose points were not written from their latest
    settlement."""
    settled: dict[dt.date, dt.datetime] = {
        day: at
        for day, at in DailyDeal.objects.filter(
            date__range=(monday, monday + dt.timedelta(days=6))
        ).values_list("date", "settled_at")
        if at is not None
    }
    scored = dict(ScoredDay.objects.filter(day__in=list(settled)).values_list("day", "settled_at"))
    return sorted(day for day, at in settled.items() if day not in scored or scored[day] < at)


def catch_up(now: dt.datetime | None = None) -> list[dt.date]:
    """Score the days settled in the last :data:`CATCH_UP` whose points are missing or stale
    (a task lost, or a signal sent while no worker ran); returns those scored."""
    now = now or timezone.now()
    since = week_of((now - CATCH_UP).date())
    mondays = sorted(
        {
            week_of(day)
            for day in DailyDeal.objects.filter(date__gte=since, settled_at__isnull=False)
            .order_by()
            .values_list("date", flat=True)
        }
    )
    return [day for monday in mondays for day in stale_days(monday) if score_day(day, now)]


# --- closing a week -----------------------------------------------------------------------------


def closable(monday: dt.date, now: dt.datetime) -> bool:
    """Whether the week can close: its Sunday is over for the settling time, and each of its days
    that has a deal is settled."""
    sunday = monday + dt.timedelta(days=6)
    if not is_due(sunday, now):
        return False
    return not DailyDeal.objects.filter(
        date__range=(monday, sunday), settled_at__isnull=True
    ).exists()


def close_week(monday: dt.date, now: dt.datetime | None = None) -> bool:
    """Close the week of ``monday`` if it can close and nobody closed it yet: its days' points
    brought up to date, then, once the week's row is claimed (``closed_at`` set where it was
    unset, in the same transaction), each member's totals, place, movement and next tier, and
    the players' standings. Returns whether this call closed it: however many workers call it,
    one does, once."""
    now = now or timezone.now()
    if not closable(monday, now) or not Week.objects.filter(monday=monday).exists():
        return False
    for day in stale_days(monday):
        score_day(day, now)
    with transaction.atomic():
        # The claim: one conditional UPDATE, which waits for another closer's row lock and then
        # finds the week closed (PostgreSQL re-reads the row; SQLite has one writer at a time).
        open_week = Week.objects.filter(monday=monday, closed_at__isnull=True)
        if not open_week.update(closed_at=now):
            return False  # closed by another worker
        if stale_days(monday):
            transaction.set_rollback(True)  # a day settled afresh meanwhile: the next run
            return False
        _close(Week.objects.get(monday=monday))
    return True


def close_due(now: dt.datetime | None = None, before: dt.date | None = None) -> list[dt.date]:
    """Close every open week that can close (those before ``before``), oldest first; returns
    those closed here."""
    now = now or timezone.now()
    open_weeks = Week.objects.filter(closed_at__isnull=True)
    if before is not None:
        open_weeks = open_weeks.filter(monday__lt=before)
    mondays = list(open_weeks.order_by("monday").values_list("monday", flat=True))
    return [monday for monday in mondays if close_week(monday, now)]


def _close(week: Week) -> None:
    """The members' totals, then each division's places and movements (``rules.ORDER_SQL``,
    ``rules.MOVEMENT_SQL``) and next tiers in one ``UPDATE ... FROM`` over a window, and the
    standings of the week's players."""
    _total(week)
    members, divisions = _table(Membership), _table(Division)
    movement = MOVEMENT_SQL.format(place="r.place", members="r.size", tier="r.tier")
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {members} SET place = r.place, movement = {movement}, "
            f"tier_after = r.tier + {movement} FROM ("
            "SELECT m.id, d.tier, "
            f"ROW_NUMBER() OVER (PARTITION BY m.division_id ORDER BY {ORDER_SQL}) AS place, "
            "COUNT(*) OVER (PARTITION BY m.division_id) AS size "
            f"FROM {members} m JOIN {divisions} d ON d.id = m.division_id "
            "WHERE m.week_id = %s) r "
            f"WHERE {members}.id = r.id",
            [week.monday],
        )
    Standing.objects.filter(
        player_id__in=Membership.objects.filter(week=week).values("player_id")
    ).update(tier=_latest_tier(OuterRef("player_id")))
    # The milestones the week earned, on its Sunday: a promotion, and the top tier reached.
    sunday = week.monday + dt.timedelta(days=6)
    closed = Membership.objects.filter(week=week).order_by()
    milestones.award_each(
        closed.filter(movement=Movement.UP).values("player_id"), Milestone.Kind.PROMOTION, sunday
    )
    milestones.award_each(
        closed.filter(tier_after=HIGHEST).values("player_id"), Milestone.Kind.TOP_TIER, sunday
    )


# --- rebuilding a week --------------------------------------------------------------------------


def rebuild_week(monday: dt.date, now: dt.datetime | None = None) -> bool:
    """Delete the week's divisions, memberships and points and compute them again from SQL: its
    settled days' percentiles, day by day, and the tiers as they stood at its start (the weeks
    before it); a week that was closed is closed again (places, movements, standings), keeping
    its time of closing. Returns whether the week has any settled day."""
    now = now or timezone.now()
    with transaction.atomic():
        week = _locked_week(monday)
        return _rebuild(week, now)


def _rebuild(week: Week, now: dt.datetime) -> bool:
    closed_at = week.closed_at
    _delete(week)
    days = DailyDeal.objects.filter(
        date__range=(week.monday, week.monday + dt.timedelta(days=6)), settled_at__isnull=False
    ).order_by("date")
    week.closed_at = None
    scored = False
    for day, settled_at in days.values_list("date", "settled_at"):
        assert settled_at is not None
        _score(week, day, settled_at)
        scored = True
    if closed_at is not None:
        _close(week)
    week.closed_at = closed_at
    week.save(update_fields=["closed_at"])
    return scored


def _delete(week: Week) -> None:
    """The week's rows, by three statements (no rows loaded, however many)."""
    quote = connection.ops.quote_name
    points, members, divisions = (
        quote(model._meta.db_table) for model in (DayPoints, Membership, Division)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {points} WHERE membership_id IN "
            f"(SELECT id FROM {members} WHERE week_id = %s)",
            [week.monday],
        )
        cursor.execute(f"DELETE FROM {members} WHERE week_id = %s", [week.monday])
        cursor.execute(f"DELETE FROM {divisions} WHERE week_id = %s", [week.monday])
    ScoredDay.objects.filter(day__range=(week.monday, week.monday + dt.timedelta(days=6))).delete()


# --- reading ------------------------------------------------------------------------------------


def division_of(user: User, monday: dt.date, now: dt.datetime | None = None) -> LeagueWeek:
    """``user``'s division in the week of ``monday``, every member's row with it: its members
    (one indexed query), their day rows while the week is open (one more), and while today is
    in it, today's board among the members (:func:`provisional`). ``no_division`` if they have
    none that week."""
    now = now or timezone.now()
    mine = Membership.objects.filter(week_id=monday, player_id=user.pk).values("division_id")
    members = list(
        Membership.objects.filter(division_id=Subquery(mine[:1])).select_related(
            "player", "division", "week"
        )
    )
    me = next((m for m in members if m.player_id == user.pk), None)
    if me is None:
        raise GameError(
            "no_division",
            _(
                "You have no division in the week %(week)s: a player joins their tier's "
                "division with their first ranked daily attempt of the week, once its day is "
                "settled."
            )
            % {"week": week_label(monday)},
        )
    if me.week.closed_at is not None:
        return league_week(me, [Member(m, m.points, m.days, m.best) for m in members])
    # Open: the totals so far, from the day rows (at most 30 members, 7 rows each).
    summed = _day_totals([m.pk for m in members], monday)
    today = utc_today(now)
    live: dict[int, int] = {}
    if week_of(today) == monday:
        live = provisional(today, [m.player_id for m in members], now)
    return league_week(
        me,
        [Member(m, *summed.get(m.pk, (0, 0, 0)), live.get(m.player_id)) for m in members],
    )


def _day_totals(memberships: list[int], monday: dt.date) -> dict[int, tuple[int, int, int]]:
    """The points, days played and best day of each of ``memberships`` (ids) in the week of
    ``monday``, summed from their day rows (a member with none is missing): one query of the
    rows, by the index ``leagues_day_points_once`` (membership, day).

    Why the week's days bound it, though a member's rows are all their week's: the day rows
    are written by the million just before they are read, and PostgreSQL may have no
    statistics on them yet. The members joined to their rows and grouped, the planner hashed
    the 30 members and scanned every day row (192 ms on a day of a million attempts); a
    subquery by member alone was guessed at 5,000 rows each, so costly in sum that the query
    was JIT-compiled on every read (389 ms). Bounded by the days too, each member is guessed
    at a few rows: an index range, and no JIT."""
    end = monday + dt.timedelta(days=6)
    rows = DayPoints.objects.filter(membership_id__in=memberships, day__range=(monday, end))
    totals: dict[int, tuple[int, int, int]] = {}
    for membership, points in rows.order_by().values_list("membership_id", "points"):
        total, days, best = totals.get(membership, (0, 0, 0))
        totals[membership] = (total + points, days + 1, max(best, points))
    return totals


def provisional(day: dt.date, players: Iterable[int], now: dt.datetime) -> dict[int, int]:
    """The points each of ``players`` (user ids) with a ranked attempt on ``day`` would earn if
    the day settled as its board stands at ``now``: ``rules.points_for`` of the percentile
    (n − r) / (n − 1) of their attempt's rank r on the whole board of n ranked attempts (1.0
    for a board of one). Their ranks and the board's count
    (``leaderboard.services.ranks_among``: on the Redis board, one query and two round trips).
    Provisional: the board's ranks break every tie (settled days share a tied result's
    percentile) and attempts still in play move; the day's settled points replace them."""
    ranks, count = ranks_among(day, players, now)
    return {
        player: points_for(1.0 if count <= 1 else (count - rank) / (count - 1))
        for player, rank in ranks.items()
    }


def weeks_of(user: User) -> list[LeagueWeekSummary]:
    """The weeks ``user`` had a division, newest first, at most :data:`WEEKS_LISTED`: their
    tier, division and, once closed, final place and movement. One indexed query
    (``leagues_member_player_week``)."""
    found = (
        Membership.objects.filter(player_id=user.pk)
        .select_related("division", "week")
        .order_by("-week_id")[:WEEKS_LISTED]
    )
    return [week_summary(membership) for membership in found]

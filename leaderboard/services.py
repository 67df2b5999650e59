"""The daily deal, its ranked attempts, its boards and the players' stats.

Views and the websocket consumer call these functions. Games are only ever changed through
``games.services`` (``new_game``); this module reads them, and keeps the leaderboard's own
``DailyDeal`` rows. Refusals are ``games.errors.GameError``.

Time is the server's: every function takes ``now`` (default ``django.utils.timezone.now()``), and
"today" is its UTC date.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeAlias

from django.contrib.auth.models import AnonymousUser, User
from django.db import connections, router
from django.db.models import (
    BigIntegerField,
    BooleanField,
    Count,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.accounts.players import named
from core.formats import iso
from games import services as games
from games.clock import day_end, utc_today
from games.errors import GameError
from games.models import Game
from games.payloads import RecordDict, game_dict, line_record_dict
from games.services import Viewer
from leaderboard import deals, payloads, review, standings
from leaderboard.live import snapshots
from leaderboard.models import DailyDeal, FinalRank
from leaderboard.payloads import (
    AmongBoard,
    AmongRow,
    BoardPage,
    DayRow,
    FollowCounts,
    PlayerPage,
    PlayerRating,
    PlayerStats,
    PracticeStats,
    TodayDict,
)
from leaderboard.standings.board import ROW_VALUES, row_game
from leaderboard.standings.order import EPOCH, MICROSECOND, RANKED
from leaderboard.standings.sets import RedisBoard
from leaderboard.standings.settled import SettledBoard

log = logging.getLogger(__name__)

#: Past days per page of GET /api/daily/days/, daily attempts per page of a player's history.
DAYS_PAGE_SIZE = 30
HISTORY_PAGE_SIZE = 30

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


# --- the deal ---------------------------------------------------------------------------------


def public_deal(day: dt.date, now: dt.datetime | None = None) -> DailyDeal | None:
    """The day's stored deal once the day is over, else ``None``: before then nothing about the
    deal is served."""
    if day >= utc_today(now):
        return None
    return deals.stored(day)


def solution_url(day: dt.date) -> str:
    return f"/api/daily/{day.isoformat()}/solution/"


def solution(day: dt.date, states: bool = False, now: dt.datetime | None = None) -> RecordDict:
    """The solver's winning line of the day's deal as a record, once the day is over:
    ``not_found`` before then, and for a day without a stored line (a legacy deal)."""
    deal = public_deal(day, now)
    if deal is None or not deal.line:
        raise GameError(
            "not_found", _("There is no solution for %(day)s to show.") % {"day": day.isoformat()}
        )
    return line_record_dict(deal.code, list(deal.line), day, states)


# --- dates ------------------------------------------------------------------------------------


def parse_day(text: str) -> dt.date:
    """A date written YYYY-MM-DD, or ``GameError`` ``invalid_date``."""
    try:
        if not _DATE.fullmatch(text):
            raise ValueError
        return dt.date.fromisoformat(text)
    except ValueError:
        raise GameError(
            "invalid_date",
            _("%(text)s is not a date: expected YYYY-MM-DD.") % {"text": repr(text[:40])},
        ) from None


def board_day(text: str, now: dt.datetime | None = None) -> dt.date:
    """The day a URL names, if it has a board: ``invalid_date`` for a malformed date,
    ``not_found`` for a day that has not begun yet (UTC), and for a past day that had no deal.

    Boards, live streams and everything they cache exist only for today and the days that had
    a deal (one query of the day's row, before anything is read or cached): any of the dates
    from 0001-01-01 to 9999-12-31 could otherwise each leave keys behind, for anyone who asks."""
    day = parse_day(text)
    today = utc_today(now)
    if day > today:
        raise GameError(
            "not_found", _("There is no daily deal for %(day)s yet.") % {"day": day.isoformat()}
        )
    if day < today and not DailyDeal.objects.filter(date=day).exclude(code="").exists():
        raise GameError(
            "not_found", _("There was no daily deal on %(day)s.") % {"day": day.isoformat()}
        )
    return day


# --- attempts ---------------------------------------------------------------------------------


def attempt_of(user: Viewer, day: dt.date) -> Game | None:
    """``user``'s ranked attempt at the day's deal, or ``None``."""
    if not user.is_authenticated:
        return None
    return (
        Game.objects.select_related("owner")
        .filter(owner_id=user.pk, kind=Game.Kind.DAILY, daily_date=day)
        .first()
    )


def today(viewer: Viewer, now: dt.datetime | None = None) -> TodayDict:
    """Today's daily deal as the viewer sees it: the day, when it ends, and their attempt."""
    day = utc_today(now)
    attempt = attempt_of(viewer, day)
    return {
        "date": day.isoformat(),
        "ends_at": iso(day_end(day)) or "",
        "attempt": game_dict(attempt, day) if attempt is not None else None,
        "code": None,
        "difficulty": payloads.difficulty(deals.stored(day)),
    }


def attempt_exists() -> GameError:
    return GameError(
        "attempt_exists", _("You already have your ranked attempt at today's daily deal.")
    )


#: Seconds a player is told to wait while today's deal is being dealt.
DEAL_PENDING_RETRY = 2


def start_attempt(
    user: User, now: dt.datetime | None = None, address: str = "", device: str = ""
) -> Game:
    """Create ``user``'s one ranked attempt at today's deal: ``attempt_exists`` if they have
    one already. Their clock starts with their first action. While the day's deal is being
    certified (by the worker tier: ``leaderboard.deals.request``), ``deal_pending``;
    while its certification is backing off after a failure, ``deal_unavailable``. What a
    fair-play review needs of it is kept privately (``leaderboard.review``: the account's age,
    salted hashes of the network of ``address``, the client's, and of ``device``, its browser's
    device cookie)."""
    today = utc_today(now)
    if attempt_of(user, today) is not None:
        raise attempt_exists()
    try:
        code = deals.daily_code(today)
    except deals.DealPending as pending:
        if pending.failed:
            raise GameError(
                "deal_unavailable",
                _("Today's deal is not ready yet. Please try again in a few minutes."),
                retry_after=int(deals.FAILED_BACKOFF.total_seconds()),
            ) from None
        raise GameError(
            "deal_pending",
            _("Dealing today's cards…"),
            retry_after=DEAL_PENDING_RETRY,
        ) from None
    try:
        game = games.new_game(user, code=code, kind=Game.Kind.DAILY, daily_date=today)
    except GameError as exc:
        if exc.code == "attempt_exists":  # two requests at once: the constraint refused one
            raise attempt_exists() from None
        raise
    review.record_start(game, user, address, now, device=device)
    return game


# --- boards -----------------------------------------------------------------------------------


def board(
    day: dt.date, page: int = 1, viewer: Viewer | None = None, now: dt.datetime | None = None
) -> BoardPage:
    """Page ``page`` of the day's board, the viewer's own row (``me``) and the live stream's
    current ``seq``. ``not_found`` for a page past the last."""
    now = now or timezone.now()
    seq = snapshots.current_seq(day)  # read first: the rows are at least as fresh as this number
    board = standings.board(day, now)
    count = board.count
    pages = max(1, math.ceil(count / standings.PAGE_SIZE))
    if page > pages:
        raise GameError(
            "not_found",
            ngettext("The board has %(count)d page.", "The board has %(count)d pages.", pages)
            % {"count": pages},
        )
    rows = payloads.rows(standings.page(board, page), (page - 1) * standings.PAGE_SIZE + 1, now)

    deal = public_deal(day, now)
    me = None
    mine = attempt_of(viewer, day) if viewer is not None else None
    if mine is not None and mine.ply:
        me = next((r for r in rows if r["game_id"] == mine.pk), None)
        if me is None:
            me = payloads.row(mine, board.rank_of(mine), now)
    return {
        "date": day.isoformat(),
        "code": deal.code if deal is not None else None,
        "par": deal.par if deal is not None else None,
        "solution": solution_url(day) if deal is not None and deal.line else None,
        "count": count,
        "page": page,
        "pages": pages,
        "results": rows,
        "me": me,
        "seq": seq,
        "difficulty": payloads.difficulty(deals.stored(day)),
    }


def board_among(
    day: dt.date,
    owners: Iterable[int],
    viewer: Viewer | None = None,
    now: dt.datetime | None = None,
) -> AmongBoard:
    """The day's board among the players ``owners`` (user ids): their ranked attempts in the
    whole board's order, each row's ``rank`` its place among them and ``board_rank`` its place
    on the whole board (a settled day's final rank, else the board that answers the day, as
    :func:`board` reads it). The one definition of a board among some players: the Following
    view's, a group's.

    Built for hundreds of players (a Following view of 500 on a day of a million attempts: a
    few milliseconds, docs/performance.md): the board that answers the day first, then their
    attempts in one query of values — what the rows show and what that board's ranks read, and
    nothing more (:func:`_rank_columns`), the values of other tables by an index lookup each
    (:data:`_BY_SUBQUERY`) — their ranks on the whole board asked all at once
    (:func:`_ranks_at_once`), and the rows built from the values (``payloads.row_of``), with no
    model instance made."""
    now = now or timezone.now()
    seq = snapshots.current_seq(day)
    players = set(owners)
    _whole, found, ranks = _ranked_among(day, players, now)
    found.sort(key=lambda a: (ranks[a[0]] is None, ranks[a[0]] or 0, a[0]))
    mine = viewer.pk if viewer is not None and viewer.is_authenticated else None
    rows: list[AmongRow] = []
    me: AmongRow | None = None
    for place, (game_id, owner_id, *values) in enumerate(found, start=1):
        row = payloads.row_of(place, game_id, day, values[: len(ROW_VALUES)], now)
        among: AmongRow = {**row, "board_rank": ranks[game_id]}
        rows.append(among)
        if owner_id == mine:
            me = among
    return {
        "date": day.isoformat(),
        "players": len(players),
        "count": len(rows),
        "page": 1,
        "pages": 1,
        "results": rows,
        "me": me,
        "seq": seq,
    }


def ranks_among(
    day: dt.date, owners: Iterable[int], now: dt.datetime | None = None
) -> tuple[dict[int, int], int]:
    """The ranks on the day's whole board at ``now`` of the ranked, started attempts of the
    players ``owners`` (by owner id; a player with none is missing), and that board's count (0
    when none of them is on it): what :func:`board_among` asks of the whole board, without its
    rows — one query of values and one round trip for the ranks, the board made once (its
    count one more round trip)."""
    whole, found, ranks = _ranked_among(day, set(owners), now or timezone.now())
    among = {
        owner: rank for game_id, owner, *_values in found if (rank := ranks[game_id]) is not None
    }
    return among, whole.count if among else 0


def _ranked_among(
    day: dt.date, players: set[int], now: dt.datetime
) -> tuple[standings.Board, list[list[Any]], dict[int, int | None]]:
    """The board that answers ``day`` at ``now``, the ranked attempts of ``players``
    (:func:`attempts_among`) and their ranks on that board (:func:`_ranks_at_once`), by id."""
    whole = standings.board(day, now)
    found = attempts_among(day, players, whole)
    return whole, found, _ranks_at_once(whole, found)


#: What the board's conditions (``standings.order.RANKED``) read of an attempt that a board
#: row's game does not carry (``standings.board.row_game``): loaded with the rows of
#: :func:`board_among` when SQL ranks them, so that ranking one reads no field in a query of its
#: own.
_RANKED_EXTRA = tuple(
    c.field for c in RANKED if c.field not in {"id", "kind", "daily_date", *ROW_VALUES}
)
#: The values of other tables that :func:`board_among` reads of an attempt — its owner's name,
#: its final rank — each a subquery of one row by its primary key, rather than a join: given a
#: join with 500 attempts, PostgreSQL's planner chose to hash the whole other table (a scan of
#: every player: 40 ms for 100,000, docs/performance.md).
_BY_SUBQUERY = {
    "player": Subquery(User.objects.filter(pk=OuterRef("owner_id")).values("username")),
    "final": Subquery(FinalRank.objects.filter(pk=OuterRef("pk")).values("rank")),
}


class _Micros(Func):
    """A moment as microseconds since the epoch, an integer, exactly. Why: Django reads a
    PostgreSQL ``timestamptz`` through a loader of its own written in Python (it sets the
    connection's time zone on each value), about 6 µs a value — 6 ms of a Following view's
    1,000 times, more than PostgreSQL took to run its query; an integer is read in C, and
    ``EPOCH + µs`` makes the datetime again in a fraction of a microsecond. SQLite keeps a
    moment as its UTC text, ``YYYY-MM-DD HH:MM:SS`` and ``.ffffff`` unless it is 0
    (``DatabaseOperations.adapt_datetimefield_value``): its whole seconds by ``strftime('%s')``
    of the text without its fraction (with it, SQLite rounds to the millisecond first, and
    .9999995 s makes the next second), then the fraction's digits."""

    output_field = BigIntegerField()
    template = "CAST(EXTRACT(EPOCH FROM %(expressions)s) * 1000000 AS BIGINT)"

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        template = (
            # ('%%%%s': '%%s' once the template is filled, which the backend makes '%s')
            "(CAST(strftime('%%%%s', substr(%(expressions)s, 1, 19)) AS INTEGER) * 1000000 "
            "+ CAST(substr(%(expressions)s || '.000000', 21, 6) AS INTEGER))"
        )
        return self.as_sql(compiler, connection, template=template, **extra)


#: The moments that :func:`board_among` reads of an attempt, as :class:`_Micros`.
_AS_MICROS = {name: _Micros(name) for name in ("started_at", "finished_at")}
#: ``ROW_VALUES`` as :func:`board_among`'s query reads them: the owner's name by its subquery,
#: the moments as microseconds (``…_us``).
_COLUMNS = tuple(
    "player" if name == "owner__username" else f"{name}_us" if name in _AS_MICROS else name
    for name in ROW_VALUES
)
#: Where each of ``ROW_VALUES`` is in a row of :func:`board_among`'s query (after id, owner).
_AT = {name: i for i, name in enumerate(("id", "owner_id", *ROW_VALUES))}


def attempts_query(
    day: dt.date, players: Iterable[int], whole: standings.Board
) -> QuerySet[Game, tuple[Any, ...]]:
    """The query of :func:`attempts_among`, its moments as microseconds."""
    columns = ("id", "owner_id", *_COLUMNS, *_rank_columns(whole))
    return (
        standings.attempts(day)
        .filter(_owned_by(list(players)))
        .annotate(**{name: read for name, read in _BY_SUBQUERY.items() if name in columns})
        .annotate(**{f"{name}_us": read for name, read in _AS_MICROS.items()})
        .values_list(*columns)
    )


def attempts_among(day: dt.date, players: Iterable[int], whole: standings.Board) -> list[list[Any]]:
    """What :func:`board_among` reads of the ranked attempts of ``day`` of ``players``: for
    each, its id, its owner's id, its ``ROW_VALUES`` and what ``whole`` ranks them by
    (:func:`_rank_columns`) — one query (:func:`attempts_query`)."""
    started, finished = _AT["started_at"], _AT["finished_at"]
    found = []
    for values in attempts_query(day, players, whole):
        row = list(values)
        for at in (started, finished):
            if row[at] is not None:
                row[at] = EPOCH + row[at] * MICROSECOND
        found.append(row)
    return found


def _owned_by(players: list[int]) -> Q | RawSQL:
    """The attempts of ``players``: on PostgreSQL ``owner_id = ANY(<an array>)``, one parameter,
    where ``owner_id IN (...)`` has one a player (500 for the client to bind, and for the server
    to parse, at each call); elsewhere ``IN``."""
    connection = connections[router.db_for_read(Game)]
    if connection.vendor != "postgresql":
        return Q(owner_id__in=players)
    owner = Game._meta.get_field("owner")
    quote = connection.ops.quote_name
    column = f"{quote(Game._meta.db_table)}.{quote(owner.column)}"
    return RawSQL(
        f"{column} = ANY(%s::{owner.db_type(connection)}[])",
        (players,),
        output_field=BooleanField(),
    )


def _rank_columns(whole: standings.Board) -> tuple[str, ...]:
    """What :func:`_ranks_at_once` reads of an attempt on ``whole`` besides its row's values: a
    settled day's final rank; for the Redis board, nothing (a row's values are what its key
    reads); for SQL, what the ranked conditions read (it ranks games)."""
    if isinstance(whole, SettledBoard):
        return ("final",)
    if isinstance(whole, RedisBoard):
        return ()
    return _RANKED_EXTRA


def _ranks_at_once(whole: standings.Board, found: list[list[Any]]) -> dict[int, int | None]:
    """The ranks on the whole board ``whole`` of the attempts ``found`` (rows of
    :func:`board_among`'s query, with :func:`_rank_columns`): a settled day's final ranks, read
    with them; else the day's Redis board's, all in one round trip from the values their keys
    read (``RedisBoard.ranks_of_values``); else SQL's, one game at a time."""
    if isinstance(whole, SettledBoard):
        return {a[0]: a[-1] for a in found}
    status, cards, ply = _AT["status"], _AT["foundation_cards"], _AT["ply"]
    started, finished = _AT["started_at"], _AT["finished_at"]
    if isinstance(whole, RedisBoard):
        return whole.ranks_of_values(
            (a[0], a[status] == Game.Status.WON, a[cards], a[ply], a[started], a[finished])
            for a in found
        )
    shown = len(ROW_VALUES)
    ranks: dict[int, int | None] = {}
    for game_id, _owner, *values in found:
        game = row_game(game_id, whole.day, *values[:shown])
        for name, value in zip(_RANKED_EXTRA, values[shown:], strict=True):
            setattr(game, name, value)
        ranks[game_id] = whole.rank_of(game)
    return ranks


# --- follows ----------------------------------------------------------------------------------

#: Whom a player follows (their user ids), for the Following view of a day's board.
Followed: TypeAlias = Callable[[User], Iterable[int]]
#: What a player's page says of follows, for a viewer (``payloads.FollowCounts``).
CountFollows: TypeAlias = Callable[[User, Viewer], FollowCounts]


@dataclass
class _Follows:
    followed: Followed
    counts: CountFollows


#: The answers about follows. Follows are the social app's, which stands above the leaderboard
#: and registers its answers from its ``AppConfig.ready`` (:func:`answer_follows`), as the
#: leaderboard registers the games' deck guard: the leaderboard never imports it. Until then
#: nobody follows anybody.
_follows = _Follows(
    followed=lambda user: (),
    counts=lambda player, viewer: {"following": 0, "followers": 0, "followed_by_me": None},
)


def answer_follows(followed: Followed, counts: CountFollows) -> None:
    """Ask ``followed`` whom a player follows, and ``counts`` what a player's page says of
    follows."""
    _follows.followed, _follows.counts = followed, counts


# --- ratings ----------------------------------------------------------------------------------

#: A player's rating (``payloads.PlayerRating``), or ``None`` if never rated.
RateOf: TypeAlias = Callable[[User], PlayerRating | None]


@dataclass
class _Ratings:
    rating_of: RateOf


#: The answer about ratings. Ratings are the ratings app's, which stands above the leaderboard
#: and registers its answer from its ``AppConfig.ready`` (:func:`answer_rating`), as the social
#: app answers about follows: the leaderboard never imports it. Until then nobody is rated.
_ratings = _Ratings(rating_of=lambda user: None)


def answer_rating(rating_of: RateOf) -> None:
    """Ask ``rating_of`` a player's rating, for their page."""
    _ratings.rating_of = rating_of


def following_board(
    day: dt.date, viewer: User, page: int = 1, now: dt.datetime | None = None
) -> AmongBoard:
    """The day's Following view of ``viewer``: the board among them and the players they follow
    (:func:`board_among`), on one page (``not_found`` for another)."""
    if page > 1:
        raise GameError(
            "not_found",
            ngettext("The board has %(count)d page.", "The board has %(count)d pages.", 1)
            % {"count": 1},
        )
    return board_among(day, [viewer.pk, *_follows.followed(viewer)], viewer, now)


def _counts(days: list[dt.date]) -> dict[dt.date, tuple[int, int]]:
    """(players, winners) of each of ``days``."""
    found = (
        Game.objects.filter(*standings.ranked_filters(), daily_date__in=days)
        .values("daily_date")
        .annotate(players=Count("id"), winners=Count("id", filter=Q(status=Game.Status.WON)))
    )
    return {
        r["daily_date"]: (r["players"], r["winners"]) for r in found if r["daily_date"] is not None
    }


def past_days(now: dt.datetime | None = None) -> QuerySet[DailyDeal]:
    """The days before today that had a daily deal dealt, newest first (a queryset)."""
    return DailyDeal.objects.filter(date__lt=utc_today(now)).exclude(code="").order_by("-date")


def day_rows(days: list[DailyDeal]) -> list[DayRow]:
    """A page of past days with their code and counts: the counts stored when the day was settled
    (``manage.py settle_days``), or, for a day not settled yet, counted now."""
    missing = [d.date for d in days if d.players is None or d.winners is None]
    counts = _counts(missing) if missing else {}
    rows: list[DayRow] = []
    for day in days:
        players, winners = day.players, day.winners
        if players is None or winners is None:
            players, winners = counts.get(day.date, (0, 0))
        rows.append(
            {
                "date": day.date.isoformat(),
                "code": day.code,
                "par": day.par,
                "players": players,
                "winners": winners,
                "difficulty": payloads.difficulty(day),
            }
        )
    return rows


# --- players ----------------------------------------------------------------------------------


def find_player(username: str) -> User:
    """The player of that name (``core.accounts.players.named``: ignoring case, never a guest),
    or the refusal ``not_found``."""
    user = named(username)
    if user is None:
        raise GameError("not_found", _("No such player."))
    return user


def streaks(played: list[dt.date], today: dt.date) -> tuple[int, int]:
    """(current, longest) runs of consecutive UTC days in ``played``. The current streak is the
    run that ends today, or yesterday when today's deal has not been played yet."""
    days = sorted(set(played))
    longest = run = 0
    previous: dt.date | None = None
    for day in days:
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = run if previous is not None and (today - previous).days <= 1 else 0
    return current, longest


def player_stats(user: User, now: dt.datetime | None = None) -> PlayerStats:
    """Stats over the player's ranked daily attempts (``standings.is_ranked``: from their first
    action). Streaks count consecutive days played (see :func:`streaks`). The bests are the best
    rank and the most foundation cards, never the score (which taking a card back and placing it
    again raises without limit)."""
    now = now or timezone.now()
    played = _played(user)
    return _stats(played, standings.ranks_of(played, now), utc_today(now))


def _played(user: User) -> list[Game]:
    """The player's ranked attempts with their final ranks (settled days): one query."""
    return list(standings.games_with_final_ranks().filter(*standings.ranked_filters(), owner=user))


def _stats(played: list[Game], ranks: dict[int, int | None], today: dt.date) -> PlayerStats:
    won = sum(1 for game in played if game.status == Game.Status.WON)
    ranked = [rank for game in played if (rank := ranks[game.pk]) is not None]
    current, longest = streaks([g.daily_date for g in played if g.daily_date is not None], today)
    return {
        "played": len(played),
        "won": won,
        "win_rate": round(won / len(played), 4) if played else 0.0,
        "best_rank": min(ranked, default=None),
        "most_cards": max((g.foundation_cards for g in played), default=None),
        "current_streak": current,
        "longest_streak": longest,
    }


def practice_stats(user: User) -> PracticeStats:
    """Stats over the player's finished practice games (won or resigned) with one action or
    more: a game still in progress is not played yet."""
    totals = (
        Game.objects.filter(owner=user, kind=Game.Kind.PRACTICE, ply__gt=0)
        .exclude(status=Game.Status.IN_PROGRESS)
        .aggregate(played=Count("id"), won=Count("id", filter=Q(status=Game.Status.WON)))
    )
    played, won = totals["played"], totals["won"]
    return {"played": played, "won": won, "win_rate": round(won / played, 4) if played else 0.0}


def player(
    username: str, page: int = 1, now: dt.datetime | None = None, viewer: Viewer | None = None
) -> PlayerPage:
    """A player's stats and their daily attempts, newest first, with their rank on each day's
    board (``null`` for an attempt never started), and what the page says of follows to
    ``viewer`` (:func:`answer_follows`). ``not_found`` for an unknown player or a page past the
    last."""
    now = now or timezone.now()
    user = find_player(username)
    history = standings.games_with_final_ranks().filter(owner=user, kind=Game.Kind.DAILY)
    count = history.count()
    pages = max(1, math.ceil(count / HISTORY_PAGE_SIZE))
    if page > pages:
        raise GameError(
            "not_found",
            ngettext("The history has %(count)d page.", "The history has %(count)d pages.", pages)
            % {"count": pages},
        )
    start = (page - 1) * HISTORY_PAGE_SIZE
    shown = list(history.order_by("-daily_date")[start : start + HISTORY_PAGE_SIZE])
    played = _played(user)
    # A settled day's rank comes with its attempt; another day's (today's) is ranked once.
    ranks = standings.ranks_of([*played, *shown], now)
    return {
        "player": user.get_username(),
        **_follows.counts(user, viewer if viewer is not None else AnonymousUser()),
        "rating": _ratings.rating_of(user),
        "stats": _stats(played, ranks, utc_today(now)),
        "practice": practice_stats(user),
        "count": count,
        "page": page,
        "pages": pages,
        "history": [payloads.history_row(game, ranks[game.pk], now) for game in shown],
    }

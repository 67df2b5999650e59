"""A day's board in Redis sorted sets, when Redis is configured (``REDIS_URL``): the order of
``leaderboard.ranking`` (its docstring is the one definition) kept where a position costs a
logarithm, not a scan of the day.

SQL stays the truth. The sets are a cache of it: updated in the same after-commit path that makes
the live board dirty (:func:`record`, from ``leaderboard.receivers``), rebuilt from SQL whenever
a day's sets are missing (never built, expired, or Redis was flushed or restarted:
:func:`rebuild`), and never needed: without Redis, or with Redis failing, every read falls back to
``ranking.Board``'s SQL queries.

**Two sets per day.** Every member is a fixed-width string of digits whose byte order is the board
order, all with score 0, so that ``ZRANK``, ``ZRANGE`` by index and ``ZLEXCOUNT`` give exact
positions:

- *finished* attempts (won, resigned, closed) have static keys:
  ``won? cards actions elapsed end id`` — :func:`finished_member`;
- an attempt still *open* has a time that runs to now, so its key is not static. Among open
  attempts, though, the order is: with the same (cards, actions), the one that started later has
  less time, and they share ``end`` (now). So open attempts are kept in the order
  ``cards actions started-descending id`` — :func:`open_member` — which never changes.

At a moment ``clock`` (now, or the day's end), an open attempt's full key is
``finished_member(False, cards, actions, clock - started, clock, id)``: the board is the merge of
the two sets, and where an open attempt falls among finished ones is one ``ZLEXCOUNT`` away
(:meth:`RedisBoard.before`). A page is found by a binary search for how many of its first rows
are finished (each step one round trip fetching one member of each set), then the two runs are
fetched and merged; a rank is two ``ZLEXCOUNT`` in one round trip. Times are whole microseconds,
as the databases keep them, so the comparisons are the SQL ones exactly (tested on random days
with ties, against ``ranking.Board``).

**Updates.** A hash maps each attempt to its member and a version (``2 × ply + finished``, which
only grows), another to the values its board row shows (player, status, counters, times: a page
is then read from Redis alone); one Lua script replaces an attempt's member and values only with
a newer or equal version, so an update and a rebuild that race never bring back older ones. A
rebuild loads the day's attempts from SQL under a lock, then marks the day *ready*; readers use the
sets only once the day is ready. The keys expire a day after the day's end (an hour at least,
three days at most); a past day without sets is read from SQL.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models.base import ModelState

from canfield_site.redis_bounds import client as bounded_client
from games.clock import day_end
from games.models import Game
from leaderboard import ranking

log = logging.getLogger(__name__)
T = TypeVar("T")

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MICROSECOND = dt.timedelta(microseconds=1)
#: Widths of the fields of a member: actions, microseconds, game id.
ACTIONS_WIDTH = 10
ELAPSED_WIDTH = 12
TIME_WIDTH = 17
ID_WIDTH = 19
_LATEST = 10**TIME_WIDTH - 1
_LAST_ID = 10**ID_WIDTH - 1
#: Members written per script call when a day is rebuilt.
BATCH = 5000
#: How long one process may hold a day's rebuild lock, in seconds.
BUILD_LOCK_SECONDS = 300
#: A day's keys live this long after the day's end.
KEEP_AFTER_DAY = dt.timedelta(days=1)

# KEYS: finished set, open set, hash, rows hash. ARGV: time to live (seconds), then for each
# attempt five values: id, version, set ("f" or "o"), member, row. The hash holds
# "<version> <set><member>", the rows hash the row's values (:func:`row_values`).
UPSERT = """
local fin, open, hash, rows = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local changed = 0
for i = 2, #ARGV, 5 do
  local id, version, which, member = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
  local old = redis.call('HGET', hash, id)
  local apply = true
  if old then
    local space = string.find(old, ' ', 1, true)
    if tonumber(string.sub(old, 1, space - 1)) > version then
      apply = false
    else
      local oldset = string.sub(old, space + 1, space + 1)
      redis.call('ZREM', oldset == 'f' and fin or open, string.sub(old, space + 2))
    end
  end
  if apply then
    redis.call('ZADD', which == 'f' and fin or open, 0, member)
    redis.call('HSET', hash, id, version .. ' ' .. which .. member)
    redis.call('HSET', rows, id, ARGV[i + 4])
    changed = changed + 1
  end
end
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ARGV[1]) end
return changed
"""

# KEYS: finished set, open set. ARGV: position, lo, hi, clock (µs). The binary search of
# RedisBoard._split, on the server: an open member's full key at the clock is built as
# open_at() builds it. Its start is the nines' complement of its 17 digits (no arithmetic on
# numbers past 2^53, which Lua's doubles would round); every other number is below 2^53.
SPLIT = """
local fin, open = KEYS[1], KEYS[2]
local position, lo, hi, clock = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4])
local function complement(digit) return tostring(9 - tonumber(digit)) end
while lo < hi do
  local i = math.floor((lo + hi + 1) / 2)
  local f = redis.call('ZRANGE', fin, i - 1, i - 1)[1]
  local o = redis.call('ZRANGE', open, position - i, position - i)[1]
  local started = tonumber((string.gsub(string.sub(o, 13, 29), '%d', complement)))
  local key = '1' .. string.sub(o, 1, 12) .. string.format('%012d', clock - started)
    .. string.format('%017d', clock) .. string.sub(o, 30)
  if f < key then lo = i else hi = i - 1 end
end
return lo
"""

# KEYS: building lock, ready marker. ARGV: time to live, the lock's token. Marks the day ready
# only if the lock is still there (a flush during the rebuild removed it: the sets are not whole).
FINISH = """
if redis.call('GET', KEYS[1]) == ARGV[2] then
  redis.call('SET', KEYS[2], '1')
  redis.call('EXPIRE', KEYS[2], ARGV[1])
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""


# --- the keys of an attempt ----------------------------------------------------------------------


def micros(moment: dt.datetime) -> int:
    """Microseconds since the epoch, exactly."""
    return (moment - EPOCH) // MICROSECOND


def finished_member(
    won: bool, cards: int, actions: int, elapsed: int, end: int, game_id: int
) -> str:
    """The member of an attempt whose key is static: won first, more cards, fewer actions, less
    time (``elapsed``, µs), earlier end (``end``, µs since the epoch), lower id."""
    return (
        f"{0 if won else 1}{52 - cards:02d}{actions:0{ACTIONS_WIDTH}d}"
        f"{elapsed:0{ELAPSED_WIDTH}d}{end:0{TIME_WIDTH}d}{game_id:0{ID_WIDTH}d}"
    )


def open_member(cards: int, actions: int, started: int, game_id: int) -> str:
    """The member of an open attempt: more cards, fewer actions, later start, lower id."""
    return f"{52 - cards:02d}{actions:0{ACTIONS_WIDTH}d}{_LATEST - started:0{TIME_WIDTH}d}" + (
        f"{game_id:0{ID_WIDTH}d}"
    )


def open_fields(member: str) -> tuple[int, int, int, int]:
    """(cards, actions, started µs, id) of an open member."""
    a = 2 + ACTIONS_WIDTH
    return (
        52 - int(member[:2]),
        int(member[2:a]),
        _LATEST - int(member[a : a + TIME_WIDTH]),
        int(member[a + TIME_WIDTH :]),
    )


def open_at(member: str, clock: int) -> str:
    """An open member's full key at ``clock`` (µs), as a finished member."""
    cards, actions, started, game_id = open_fields(member)
    return finished_member(False, cards, actions, clock - started, clock, game_id)


def id_of(member: str) -> int:
    return int(member[-ID_WIDTH:])


def clock_of(day: dt.date, now: dt.datetime) -> int:
    """Where the clocks of a day's open attempts stand at ``now``, in µs."""
    return micros(ranking.clock_end(day, now))


def entry(game: Game) -> tuple[int, int, str, str] | None:
    """(id, version, set, member) of an attempt on its day's board; ``None`` if it is not on it.
    An attempt still open in the database after its day's end is closed at the day's end, as
    ``Game.apply_day_end`` shows it."""
    if game.kind != Game.Kind.DAILY or game.daily_date is None or not game.ply:
        return None
    assert game.started_at is not None
    finished = game.finished_at
    if finished is None and game.status != Game.Status.IN_PROGRESS:  # (no such row is written)
        finished = day_end(game.daily_date)
    if finished is None:
        member = open_member(game.foundation_cards, game.ply, micros(game.started_at), game.pk)
        return game.pk, 2 * game.ply, "o", member
    won = game.status == Game.Status.WON
    end = micros(finished)
    member = finished_member(
        won, game.foundation_cards, game.ply, end - micros(game.started_at), end, game.pk
    )
    return game.pk, 2 * game.ply + 1, "f", member


def row_values(game: Game, username: str) -> str:
    """What a board row needs of an attempt besides its day, as JSON: kept beside its member, so
    that a page is read from Redis without a query."""
    return json.dumps(
        [
            username,
            game.status,
            int(game.day_over),
            game.score,
            game.ply,
            game.foundation_cards,
            None if game.started_at is None else micros(game.started_at),
            None if game.finished_at is None else micros(game.finished_at),
        ],
        separators=(",", ":"),
    )


def from_values(game_id: int, day: dt.date, text: str) -> Game:
    """The attempt :func:`row_values` describes, as a ``Game`` with the fields a board row reads
    (``ranking.ROW_FIELDS``; for ``payloads.row``). Built as ``Model.from_db`` builds a row with
    deferred fields, without ``Model.__init__``, which costs more than all the rest of a page."""
    username, status, day_over, score, ply, cards, started, finished = json.loads(text)
    owner = User.__new__(User)
    owner._state = ModelState()
    owner.__dict__["username"] = username
    game = Game.__new__(Game)
    game._state = ModelState()
    game.__dict__.update(
        id=game_id,
        kind=Game.Kind.DAILY,
        daily_date=day,
        status=status,
        day_over=bool(day_over),
        score=score,
        ply=ply,
        foundation_cards=cards,
        started_at=None if started is None else EPOCH + started * MICROSECOND,
        finished_at=None if finished is None else EPOCH + finished * MICROSECOND,
    )
    game._state.fields_cache["owner"] = owner
    return game


# --- Redis -------------------------------------------------------------------------------------


def enabled() -> bool:
    return bool(getattr(settings, "REDIS_URL", None))


def client() -> Any:
    """This process's Redis client (a connection pool of bounded waits, for
    ``settings.REDIS_URL``: ``canfield_site.redis_bounds``)."""
    return bounded_client()


def database_tag() -> str:
    """A short name of the database the sets cache (its engine, host, port and name), in their
    keys: a Redis that outlives a database, or serves several, never mixes their boards."""
    db = settings.DATABASES["default"]
    text = "|".join(str(db.get(k, "")) for k in ("ENGINE", "HOST", "PORT", "NAME"))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def prefix() -> str:
    """The key prefix: the cache's (the tests give each run its own), then the database's tag."""
    return f"{settings.CACHES['default'].get('KEY_PREFIX') or 'canfield'}:board:{database_tag()}"


class Keys:
    def __init__(self, day: dt.date) -> None:
        base = f"{prefix()}:{day.isoformat()}"
        self.finished = f"{base}:f"
        self.open = f"{base}:o"
        self.hash = f"{base}:h"
        self.rows = f"{base}:r"
        self.ready = f"{base}:ready"
        self.building = f"{base}:building"
        # By the wall clock (not django.utils.timezone.now, which tests move), at least an hour.
        left = (day_end(day) + KEEP_AFTER_DAY - EPOCH).total_seconds() - time.time()
        self.ttl = int(min(max(left, 3600), (KEEP_AFTER_DAY * 3).total_seconds()))


Entry = tuple[int, int, str, str, str]


def _upsert(redis: Any, keys: Keys, entries: Iterable[Entry]) -> int:
    args: list[Any] = [keys.ttl]
    for game_id, version, which, member, row in entries:
        args += [game_id, version, which, member, row]
    if len(args) == 1:
        return 0
    return int(redis.eval(UPSERT, 4, keys.finished, keys.open, keys.hash, keys.rows, *args))


def record(game: Game) -> None:
    """Put ``game``'s current standing in its day's sets (after its transaction committed).
    Failures are logged, and the day is marked for a rebuild, never raised: SQL is the truth."""
    if not enabled():
        return
    found = entry(game)
    if found is None or game.daily_date is None:
        return
    keys = Keys(game.daily_date)
    try:
        _upsert(client(), keys, [(*found, row_values(game, game.owner.get_username()))])
    except Exception:
        log.exception("leaderboard: recording game %s in Redis failed", game.pk)
        with contextlib.suppress(Exception):  # a missed update: rebuild the day at the next read
            client().delete(keys.ready)


def rebuild(day: dt.date) -> bool:
    """Load ``day``'s attempts from SQL into its sets and mark the day ready. Returns False if
    another process holds the day's rebuild lock (or a flush interrupted this one)."""
    import secrets

    redis = client()
    keys = Keys(day)
    token = secrets.token_hex(8)
    if not redis.set(keys.building, token, nx=True, ex=BUILD_LOCK_SECONDS):
        return False
    rows = (
        ranking.attempts(day)
        .values_list(
            "id", "status", "foundation_cards", "ply", "started_at", "finished_at",
            "day_over", "score", "owner__username",
        )
        .order_by()
    )  # fmt: skip
    batch: list[Entry] = []
    probe = Game(kind=Game.Kind.DAILY, daily_date=day)
    for game_id, status, cards, ply, started, finished, day_over, score, username in rows.iterator(
        chunk_size=BATCH
    ):
        probe.pk, probe.status, probe.foundation_cards, probe.ply = game_id, status, cards, ply
        probe.started_at, probe.finished_at = started, finished
        probe.day_over, probe.score = day_over, score
        found = entry(probe)
        if found is not None:
            batch.append((*found, row_values(probe, username)))
        if len(batch) >= BATCH:
            _upsert(redis, keys, batch)
            batch = []
    _upsert(redis, keys, batch)
    return bool(redis.eval(FINISH, 2, keys.building, keys.ready, keys.ttl, token))


def forget(day: dt.date) -> None:
    """Drop ``day``'s sets (tests and benchmarks)."""
    keys = Keys(day)
    client().delete(keys.finished, keys.open, keys.hash, keys.rows, keys.ready, keys.building)


# --- reading -------------------------------------------------------------------------------------


class RedisBoard:
    """A day's board as it stands at ``now``, from its sets: the interface of ``ranking.Board``.
    Build it with :func:`standings`, which checks that the day is ready. Should Redis fail while
    it is read, the answer comes from ``ranking.Board`` (SQL) instead."""

    def __init__(self, day: dt.date, now: dt.datetime, redis: Any) -> None:
        self.day = day
        self.now = now
        self.redis = redis
        self.keys = Keys(day)
        self.clock = clock_of(day, now)
        self._sizes: tuple[int, int] | None = None
        self._sql: ranking.Board | None = None

    def _or_sql(self, read: Callable[[], T], fallback: Callable[[ranking.Board], T]) -> T:
        if self._sql is None:
            try:
                return read()
            except Exception:
                log.exception(
                    "leaderboard: Redis failed, the board of %s is read from SQL", self.day
                )
                self._sql = ranking.Board(self.day, self.now)
        return fallback(self._sql)

    # -- counts -----------------------------------------------------------------------------------

    def sizes(self) -> tuple[int, int]:
        if self._sizes is None:
            pipe = self.redis.pipeline(transaction=False)
            pipe.zcard(self.keys.finished)
            pipe.zcard(self.keys.open)
            finished, opened = pipe.execute()
            self._sizes = (int(finished), int(opened))
        return self._sizes

    @property
    def count(self) -> int:
        return self._or_sql(lambda: sum(self.sizes()), lambda board: board.count)

    def before(self, key: str, pipe: Any) -> None:
        """Queue the two counts of the attempts that come before the full key ``key`` (a
        finished member): finished ones, then open ones at this board's clock."""
        pipe.zlexcount(self.keys.finished, "-", f"({key}")
        if key[0] == "0":  # won: every open attempt comes after
            pipe.zlexcount(self.keys.open, "-", "-")
            return
        cards = 52 - int(key[1:3])
        a = 3 + ACTIONS_WIDTH
        actions = int(key[3:a])
        elapsed = int(key[a : a + ELAPSED_WIDTH])
        end = int(key[a + ELAPSED_WIDTH : a + ELAPSED_WIDTH + TIME_WIDTH])
        game_id = int(key[-ID_WIDTH:])
        # Open attempts of the same (cards, actions) come first while their time is less: those
        # that started after clock - elapsed; at the same time, the end decides (theirs is the
        # clock), then the id.
        started = self.clock - elapsed
        if self.clock < end:
            bound = "[" + open_member(cards, actions, started, _LAST_ID)
        elif self.clock == end:
            bound = "(" + open_member(cards, actions, started, game_id)
        else:
            bound = "(" + open_member(cards, actions, started, 0)
        pipe.zlexcount(self.keys.open, "-", bound)

    # -- rows ------------------------------------------------------------------------------------

    def _split(self, position: int) -> int:
        """How many of the first ``position`` attempts of the board are finished ones: the
        largest i such that finished[i - 1] comes before open[position - i] at this board's
        clock, by a binary search in Redis (:data:`SPLIT`, one round trip)."""
        finished, opened = self.sizes()
        lo, hi = max(0, position - opened), min(position, finished)
        if lo >= hi:
            return lo
        return int(
            self.redis.eval(
                SPLIT, 2, self.keys.finished, self.keys.open, position, lo, hi, self.clock
            )
        )

    def members(self, start: int, stop: int) -> list[str]:
        """The full keys of the attempts at positions ``start`` to ``stop - 1``, in order."""
        stop = min(stop, self.count)
        if start >= stop:
            return []
        n = stop - start
        i = self._split(start)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrange(self.keys.finished, i, i + n - 1)
        pipe.zrange(self.keys.open, start - i, start - i + n - 1)
        finished, opened = pipe.execute()
        merged = sorted(
            [m.decode() for m in finished] + [open_at(m.decode(), self.clock) for m in opened]
        )
        return merged[:n]

    def rows(self, start: int, stop: int) -> list[Game]:
        """The attempts at positions ``start`` to ``stop - 1`` (0-based), in rank order, their
        order and their values from Redis (any missing there: from SQL)."""

        def read() -> tuple[list[int], list[bytes | None]]:
            ids = [id_of(m) for m in self.members(start, stop)]
            return ids, (self.redis.hmget(self.keys.rows, ids) if ids else [])

        read_ids = self._or_sql(read, lambda board: None)
        if read_ids is None:
            assert self._sql is not None
            return self._sql.rows(start, stop)
        ids, values = read_ids
        found = {
            game_id: from_values(game_id, self.day, text.decode())
            for game_id, text in zip(ids, values, strict=True)
            if text is not None
        }
        missing = [game_id for game_id in ids if game_id not in found]
        if missing:
            found.update(
                (g.pk, g)
                for g in Game.objects.filter(pk__in=missing)
                .select_related("owner")
                .only(*ranking.ROW_FIELDS)
                .order_by()
            )
        return [found[i] for i in ids if i in found]

    def page(self, page: int) -> list[Game]:
        return self.rows((page - 1) * ranking.PAGE_SIZE, page * ranking.PAGE_SIZE)

    def rank_of(self, game: Game) -> int | None:
        """``game``'s rank on this board, or ``None`` if it is not on it (never started)."""
        if game.daily_date != self.day:
            return None
        found = entry(game)
        if found is None:
            return None
        _, _, which, member = found
        key = member if which == "f" else open_at(member, self.clock)

        def read() -> int | None:
            pipe = self.redis.pipeline(transaction=False)
            self.before(key, pipe)
            finished, opened = pipe.execute()
            return int(finished) + int(opened) + 1

        return self._or_sql(read, lambda board: board.rank_of(game))


def standings(day: dt.date, now: dt.datetime) -> RedisBoard | None:
    """The day's board from Redis when Redis is configured and the day's sets are ready (rebuilt
    from SQL if they are missing, for a day not over yet); ``None``: read it from SQL."""
    if not enabled():
        return None
    try:
        redis = client()
        keys = Keys(day)
        if not redis.exists(keys.ready) and (
            now >= day_end(day) + ranking.SETTLE or not rebuild(day)
        ):
            return None  # a past day, or another process is rebuilding it: SQL meanwhile
        return RedisBoard(day, now, redis)
    except Exception:
        log.exception("leaderboard: Redis is unavailable, the board of %s is read from SQL", day)
        return None

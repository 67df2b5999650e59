"""A day's board in Redis sorted sets, when Redis is configured (``REDIS_URL``): the order of
``leaderboard.standings.order`` kept where a position costs a logarithm, not a scan of the day.

SQL stays the truth. The sets are a cache of it: each change of an attempt is recorded in the
after-commit path that makes the live board dirty (:func:`record`, from
``leaderboard.receivers``; a change that Redis refused is recorded again later, from SQL, by the
worker tier's ``leaderboard.tasks.record_again``); a day's sets are built from SQL
(:func:`rebuild`) when they are missing for a day not over yet (never built, expired, or Redis was
flushed or restarted) — by the worker tier (``leaderboard.tasks.rebuild_board``, enqueued when
the live board finds them missing, and ``rebuild_today`` every minute) or by ``manage.py
rebuild_board`` — never by a read. Until
a day's sets are whole and marked *ready*, and whenever Redis fails, its board is read from SQL
(``leaderboard.standings.sql``).

**Two sets per day**, their members the key's digits (``order.Standing.member``: byte order is
board order), all with score 0, so that ``ZRANK``, ``ZRANGE`` by index and ``ZLEXCOUNT`` give
exact positions:

- *finished* attempts (won, resigned, closed) have static keys: their full member;
- an attempt still *open* has a time that runs to now, so its key is not static. Among open
  attempts, though, the order never changes (``order.OpenStanding``): with the same (cards,
  actions), the one that started later has less time, and they share their end (the clock).

At a clock (now, or the day's end), an open attempt's full key is ``OpenStanding.at(clock)``: the
board is the merge of the two sets, and where an open attempt falls among finished ones is one
``ZLEXCOUNT`` away (:meth:`RedisBoard.before`). A page is found by a binary search, in one Lua call
(:data:`SPLIT`), for how many of its first rows are finished; then the two runs are fetched and
merged. A rank is two ``ZLEXCOUNT`` in one round trip; the ranks of many attempts (a
Following view's) one script call (:data:`RANKS`), however many, given only what their keys read
(the keys and the bounds built in Lua, from the same layout). The keys carry a tag of the
members' layout (:data:`LAYOUT`): sets written with another definition of the key are never
read.

**Updates.** A hash maps each attempt to its member and a version (:func:`version`: the times
staff took it off its board or put it back, then ``2 × ply + finished``; it only grows), another
to the values its board row shows (player, status, counters, times: a page is then read from Redis
alone); one Lua script replaces an attempt's member and values only with a newer or equal
version, so that an update and a rebuild that race never bring back older ones. An attempt that
is no longer ranked (``order.is_ranked``) is taken out of them the same way, and its version is
kept (``"<version> -"``): an action's update that reaches Redis after the attempt was
disqualified carries an older version, and never puts it back. A
rebuild loads the day's attempts from SQL under a lock, then marks the day ready. The keys expire
a day after the day's end (an hour at least, three days at most); a past day is read from its
final ranks once settled (``leaderboard.standings.settled``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from games.clock import day_end
from games.models import Game
from leaderboard import redis_client
from leaderboard.redis_client import client, prefix
from leaderboard.standings.board import ROW_FIELDS, row_game
from leaderboard.standings.order import (
    EPOCH,
    LUA_COMPLEMENT,
    MICROSECOND,
    OPEN_PARTS,
    PART,
    PARTS,
    RANKED,
    OpenStanding,
    Part,
    Standing,
    clock_end,
    full_member,
    id_of,
    lua_full_member,
    micros,
)
from leaderboard.standings.sql import SqlBoard, attempts

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Members written per script call when a day is rebuilt: small enough that one call answers well
#: within REDIS_TIMEOUT on a busy machine (5,000 a call took more than 250 ms at a load of 5).
BATCH = 1000
#: How long one process may hold a day's rebuild lock, in seconds.
BUILD_LOCK_SECONDS = 300
#: A day's keys live this long after the day's end.
KEEP_AFTER_DAY = dt.timedelta(days=1)
#: A tag of the members' layout, in the keys.
LAYOUT = hashlib.sha256(
    repr([(p.name, p.descending, p.digits) for p in (*PARTS, *OPEN_PARTS)]).encode()
).hexdigest()[:6]

# KEYS: finished set, open set, hash, rows hash. ARGV: time to live (seconds), then for each
# attempt five values: id, version, set ("f", "o", or "-": not on the board), member, row. The
# hash holds "<version> <set><member>" ("<version> -" for an attempt taken off), the rows hash the
# row's values (:func:`row_values`).
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
      if oldset ~= '-' then
        redis.call('ZREM', oldset == 'f' and fin or open, string.sub(old, space + 2))
      end
    end
  end
  if apply then
    if which == '-' then
      redis.call('HSET', hash, id, version .. ' -')
      redis.call('HDEL', rows, id)
    else
      redis.call('ZADD', which == 'f' and fin or open, 0, member)
      redis.call('HSET', hash, id, version .. ' ' .. which .. member)
      redis.call('HSET', rows, id, ARGV[i + 4])
    end
    changed = changed + 1
  end
end
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ARGV[1]) end
return changed
"""

# KEYS: finished set, open set. ARGV: position, lo, hi, clock (µs). The binary search of
# RedisBoard._split, on the server: an open member's full key at the clock is built as
# OpenStanding.at builds it (order.lua_full_member).
SPLIT = f"""
local fin, open = KEYS[1], KEYS[2]
local position, lo, hi, clock = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4])
{LUA_COMPLEMENT}
while lo < hi do
  local i = math.floor((lo + hi + 1) / 2)
  local f = redis.call('ZRANGE', fin, i - 1, i - 1)[1]
  local o = redis.call('ZRANGE', open, position - i, position - i)[1]
  local key = {lua_full_member("o", "clock")}
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


def enabled() -> bool:
    """Whether boards are kept in Redis (``REDIS_URL`` is set)."""
    return redis_client.enabled()


# --- the entries of an attempt -------------------------------------------------------------------


def clock_of(day: dt.date, now: dt.datetime) -> int:
    """Where the clocks of a day's open attempts stand at ``now``, in µs."""
    return micros(clock_end(day, now))


def open_at(member: str, clock: int) -> str:
    """An open member's full member at ``clock`` (µs)."""
    return full_member(member, clock)


#: How far apart two revisions of an attempt's versions are: more than ``2 × ply + 1`` can reach.
REVISION = 2**32


def version(game: Game) -> int:
    """The version of ``game``'s entry: its ``board_revision`` (staff took it off its board or put
    it back), then ``2 × ply + finished``. Every later state of the attempt has a larger one, an
    exact integer in Lua's numbers (below 2^53 for two million revisions)."""
    finished = int(game.finished_at is not None or not game.is_in_progress)
    return game.board_revision * REVISION + 2 * game.ply + finished


def entry(game: Game) -> tuple[int, int, str, str]:
    """(id, version, set, member) of an attempt: set ``"o"`` (open) or ``"f"`` (finished), or
    ``"-"`` for an attempt not on the board. An attempt still open in the database after its
    day's end stays in the open set: at its day's clock (the day's end) it stands where
    ``Game.apply_day_end`` puts it."""
    current = version(game)
    opened = OpenStanding.of(game)
    if opened is not None:
        return game.pk, current, "o", opened.member()
    assert game.daily_date is not None
    finished = Standing.of(game, day_end(game.daily_date))
    if finished is None:
        return game.pk, current, "-", ""
    return game.pk, current, "f", finished.member()


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
    """The attempt :func:`row_values` describes, as ``board.row_game`` builds a board row's
    game."""
    username, status, day_over, score, ply, cards, started, finished = json.loads(text)
    return row_game(
        game_id,
        day,
        username,
        status,
        bool(day_over),
        score,
        ply,
        cards,
        None if started is None else EPOCH + started * MICROSECOND,
        None if finished is None else EPOCH + finished * MICROSECOND,
    )


# --- Redis -------------------------------------------------------------------------------------


class Keys:
    def __init__(self, day: dt.date) -> None:
        base = f"{prefix()}:{LAYOUT}:{day.isoformat()}"
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


def record(game: Game) -> bool:
    """Put ``game``'s current standing in its day's sets, or take it out of them if it is not
    ranked (after its transaction committed). Returns False if Redis failed (logged, never
    raised: SQL is the truth; the caller has it recorded again later)."""
    if not enabled() or game.kind != Game.Kind.DAILY or game.daily_date is None:
        return True
    try:
        found = entry(game)
        row = row_values(game, game.owner.get_username())
    except ValueError:  # a key that does not fit a member: nothing Redis could be given
        log.exception("leaderboard: game %s has no standing the Redis sets can hold", game.pk)
        return True
    if found[2] == "-" and not game.ply:  # never played: never in the sets
        return True
    try:
        _upsert(client(), Keys(game.daily_date), [(*found, row)])
    except Exception:
        log.exception("leaderboard: recording game %s in Redis failed", game.pk)
        return False
    return True


def ready(day: dt.date) -> bool:
    """Whether ``day``'s sets are whole (built, and followed since). Raises Redis's errors."""
    return bool(client().exists(Keys(day).ready))


def unready(day: dt.date) -> None:
    """Mark ``day``'s sets as not to be read (changes were lost): SQL answers until a rebuild."""
    client().delete(Keys(day).ready)


def rebuild(day: dt.date) -> bool:
    """Load ``day``'s attempts from SQL into its sets and mark the day ready. Returns False if
    another process holds the day's rebuild lock (or a flush interrupted this one). Called by the
    worker tier's tasks and by ``manage.py rebuild_board``, never by a read."""
    redis = client()
    keys = Keys(day)
    token = secrets.token_hex(8)
    if not redis.set(keys.building, token, nx=True, ex=BUILD_LOCK_SECONDS):
        return False
    rows = attempts(day).values_list(
        "id", "status", "foundation_cards", "ply", "started_at", "finished_at",
        "day_over", "score", "board_revision", "owner__username",
    )  # fmt: skip
    batch: list[Entry] = []
    probe = Game(kind=Game.Kind.DAILY, daily_date=day)
    for row in rows.iterator(chunk_size=BATCH):
        game_id, status, cards, ply, started, finished, day_over, score, revision, username = row
        probe.pk, probe.status, probe.foundation_cards, probe.ply = game_id, status, cards, ply
        probe.started_at, probe.finished_at = started, finished
        probe.day_over, probe.score, probe.board_revision = day_over, score, revision
        batch.append((*entry(probe), row_values(probe, username)))
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

#: The largest game id a member can hold: an open bound after every attempt of its start.
_LAST_ID = PART["game_id"].largest
#: Digits whose every value, and its nines' complement, Lua's numbers (doubles) hold exactly.
_EXACT = 15


def _lua_member(
    parts: tuple[Part, ...], numbers: dict[str, str], texts: dict[str, str]
) -> tuple[str, str]:
    """Two Lua expressions: whether a value does not fit its part (``Part.write`` raises), and
    the member of the layout ``parts`` (:data:`PARTS` or :data:`OPEN_PARTS`) whose values are
    the Lua expressions ``numbers`` (numbers, below 2^53) and ``texts`` (strings of digits: the
    id, which may not be), as ``Part.write`` writes them — one ``string.format``, a descending
    part its nines' complement by subtraction, in two halves if too wide to subtract exactly."""
    checks, formats, values = [], [], []
    for part in parts:
        if part.name in texts:
            assert not part.descending
            value = texts[part.name]
            checks.append(f"#{value} > {part.digits}")
            formats.append("%s")
            values.append(f"string.rep('0', {part.digits} - #{value}) .. {value}")
            continue
        value = numbers[part.name]
        checks.append(f"{value} < 0 or {value} > {min(part.largest, 2**53)}")
        if not part.descending:
            formats.append(f"%0{part.digits}d")
            values.append(value)
        elif part.digits <= _EXACT:
            formats.append(f"%0{part.digits}d")
            values.append(f"{part.largest} - {value}")
        else:
            low = part.digits // 2
            high = part.digits - low
            formats.append(f"%0{high}d%0{low}d")
            values.append(f"{10**high - 1} - math.floor({value} / {10**low})")
            values.append(f"{10**low - 1} - {value} % {10**low}")
    return (
        " or ".join(f"({check})" for check in checks),
        f"string.format('{''.join(formats)}', {', '.join(values)})",
    )


#: The full key of an attempt in :data:`RANKS` (``order.Standing.member``), and the open member
#: after which the open attempts that come before it end (``RedisBoard.bounds``).
_KEY_OUT, _KEY = _lua_member(
    PARTS,
    {"won": "won", "cards": "cards", "actions": "actions", "elapsed": "elapsed", "end": "ending"},
    {"game_id": "id"},
)
_OPEN_OUT, _OPEN_BOUND = _lua_member(
    OPEN_PARTS,
    {"cards": "cards", "actions": "actions", "started": "started"},
    {"game_id": "last"},
)

# KEYS: finished set, open set. ARGV: the board's clock (µs), then what the keys of the attempts
# read (RedisBoard.ranks_of_values), in one string: "<won> <cards> <actions> <started> <finished>
# <id>;" for each, times in µs, <finished> empty while it is open (one argument, not one per
# attempt or per value: each argument costs the client more than the script's parsing). Returns
# each attempt's rank — as many as come before it in the two sets, plus 1 — in one string,
# separated by spaces (as cheap to read as one number). Its full key at the clock and the upper
# bounds of the attempts before it in each set are built here, as RedisBoard.bounds builds them in
# Python; the digits of a member are written as Part.write writes them (a value that does not fit
# is an error: Python then asks SQL, as when Standing.member raises).
RANKS = f"""
local fin, open = KEYS[1], KEYS[2]
local clock = tonumber(ARGV[1])
local ranks = {{}}
local each = '(%d) (%d+) (%d+) (%d+) (%d*) (%d+);'
for won, cards, actions, started, finished, id in string.gmatch(ARGV[2], each) do
  won, cards, actions = tonumber(won), tonumber(cards), tonumber(actions)
  local ending = clock
  if finished ~= '' then ending = tonumber(finished) end
  local elapsed = math.max(0, ending - tonumber(started))
  if {_KEY_OUT} then error('RANKS: a value does not fit its digits') end
  local before = redis.call('ZLEXCOUNT', fin, '-', '(' .. {_KEY})
  if won == 0 then  -- every open attempt comes after a win
    -- Open attempts of the same (cards, actions) come first while their time is less: those
    -- that started after clock - elapsed; at the same time, the end decides (theirs is the
    -- clock), then the id.
    local after, last, started = '(', id, clock - elapsed
    if clock < ending then
      after, last = '[', '{_LAST_ID}'
    elseif clock > ending then
      last = '0'
    end
    if {_OPEN_OUT} then error('RANKS: a value does not fit its digits') end
    before = before + redis.call('ZLEXCOUNT', open, '-', after .. {_OPEN_BOUND})
  end
  ranks[#ranks + 1] = before + 1
end
return table.concat(ranks, ' ')
"""


class RedisBoard:
    """A day's board as it stands at ``now``, from its sets (a ``Board``). Made by :func:`board`,
    which checks that the day is ready. Should Redis fail while it is read, the answer comes from
    SQL instead (``SqlBoard``)."""

    def __init__(self, day: dt.date, now: dt.datetime, redis: Any) -> None:
        self.day = day
        self.now = now
        self.redis = redis
        self.keys = Keys(day)
        self.clock = clock_of(day, now)
        self._sizes: tuple[int, int] | None = None
        self._sql: SqlBoard | None = None

    def _or_sql(self, read: Callable[[], T], fallback: Callable[[SqlBoard], T]) -> T:
        if self._sql is None:
            try:
                return read()
            except Exception:
                log.exception(
                    "leaderboard: Redis failed, the board of %s is read from SQL", self.day
                )
                self._sql = SqlBoard(self.day, self.now)
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

    def bounds(self, key: Standing) -> tuple[str, str]:
        """Where the attempts that come before the full key ``key`` end, as the upper bounds of
        two ``ZLEXCOUNT`` from ``-``: in the finished set, then in the open set at this board's
        clock (``-`` for none)."""
        if key.won:  # every open attempt comes after a win
            return f"({key.member()}", "-"
        # Open attempts of the same (cards, actions) come first while their time is less: those
        # that started after clock - elapsed; at the same time, the end decides (theirs is the
        # clock), then the id.
        started = self.clock - key.elapsed
        if self.clock < key.end:
            bound = "[" + OpenStanding(key.cards, key.actions, started, _LAST_ID).member()
        elif self.clock == key.end:
            bound = "(" + OpenStanding(key.cards, key.actions, started, key.game_id).member()
        else:
            bound = "(" + OpenStanding(key.cards, key.actions, started, 0).member()
        return f"({key.member()}", bound

    def before(self, key: Standing, pipe: Any) -> None:
        """Queue the two counts of the attempts that come before the full key ``key``: finished
        ones, then open ones at this board's clock."""
        finished, opened = self.bounds(key)
        pipe.zlexcount(self.keys.finished, "-", finished)
        pipe.zlexcount(self.keys.open, "-", opened)

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
        """The full members of the attempts at positions ``start`` to ``stop - 1``, in order."""
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
                .only(*ROW_FIELDS)
                .order_by()
            )
        return [found[i] for i in ids if i in found]

    def rank_of(self, game: Game) -> int | None:
        if game.daily_date != self.day:
            return None
        key = Standing.of(game, self.now)
        if key is None:
            return None

        def read() -> int | None:
            pipe = self.redis.pipeline(transaction=False)
            self.before(key, pipe)
            finished, opened = pipe.execute()
            return int(finished) + int(opened) + 1

        return self._or_sql(read, lambda board: board.rank_of(game))

    def ranks_of(self, games: Iterable[Game]) -> dict[int, int | None]:
        """The rank of each of ``games`` (by id) as :meth:`rank_of` gives it, all in one round
        trip (:meth:`ranks_of_values`). ``None`` for a game not on this board."""
        games = list(games)
        ranked = [
            game
            for game in games
            if game.daily_date == self.day and Standing.of(game, self.now) is not None
        ]
        found = self._ranks(
            [
                (
                    g.pk,
                    g.status == Game.Status.WON,
                    g.foundation_cards,
                    g.ply,
                    g.started_at,
                    g.finished_at,
                )
                for g in ranked
                if g.started_at is not None  # (Standing.of: always)
            ],
            lambda board: {g.pk: board.rank_of(g) for g in ranked},
        )
        return {game.pk: found.get(game.pk) for game in games}

    def ranks_of_values(self, attempts: Iterable[RankedValues]) -> dict[int, int | None]:
        """The ranks of ranked attempts of this board's day (``standings.attempts``: no other),
        by id, from the values their key reads (:data:`RankedValues`, as a query of values gives
        them: no model instance), as :meth:`rank_of` gives them. ``None`` for one not started
        (as ``Standing.of``)."""
        attempts = list(attempts)
        started: list[_Started] = [
            (i, won, cards, actions, begun, end)
            for i, won, cards, actions, begun, end in attempts
            if begun is not None
        ]
        found = self._ranks(
            started,
            lambda board: {
                values[0]: board.rank_of(ranked_game(self.day, values)) for values in started
            },
        )
        return {values[0]: found.get(values[0]) for values in attempts}

    def _ranks(
        self,
        attempts: list[_Started],
        fallback: Callable[[SqlBoard], dict[int, int | None]],
    ) -> dict[int, int | None]:
        """The ranks of ``attempts`` (ranked, started), all in one round trip: one script call
        (:data:`RANKS`) builds each one's key at this board's clock, the bounds of the attempts
        before it (:meth:`bounds`, in Lua) and counts them, so that a Following view of 500
        players is one exchange with Redis and one command of 500 short arguments, each no more
        than the key reads. Should Redis fail, ``fallback`` asks SQL."""

        def read() -> dict[int, int | None]:
            if not attempts:
                return {}
            text = "".join(
                f"{int(won)} {cards} {actions} {micros(started)} "
                f"{'' if finished is None else micros(finished)} {game_id};"
                for game_id, won, cards, actions, started, finished in attempts
            )
            ranks = self.redis.eval(RANKS, 2, self.keys.finished, self.keys.open, self.clock, text)
            # (an attempt the script could not read is missing: zip fails, and SQL answers)
            return dict(
                zip((values[0] for values in attempts), map(int, ranks.split()), strict=True)
            )

        return self._or_sql(read, fallback)


#: What an attempt's standing key reads (``order.Standing.of``), for
#: :meth:`RedisBoard.ranks_of_values`: (id, won, foundation cards, actions, started, finished —
#: ``None`` while open).
RankedValues = tuple[int, bool, int, int, dt.datetime | None, dt.datetime | None]
#: The same, started (the only ones with a key).
_Started = tuple[int, bool, int, int, dt.datetime, dt.datetime | None]


def ranked_game(day: dt.date, values: RankedValues) -> Game:
    """A ranked attempt of ``day`` with the values its key reads (the others unset), for SQL to
    rank when Redis fails: ranked, as the attempts :meth:`RedisBoard.ranks_of_values` takes
    are."""
    game_id, won, cards, actions, started, finished = values
    opened = Game.Status.IN_PROGRESS if finished is None else Game.Status.RESIGNED
    game = Game(
        pk=game_id,
        daily_date=day,
        status=Game.Status.WON if won else opened,
        foundation_cards=cards,
        ply=actions,
        started_at=started,
        finished_at=finished,
    )
    for condition in RANKED:  # (kind, not disqualified: what is_ranked reads besides these)
        if condition.lookup == "exact":
            setattr(game, condition.field, condition.value)
    return game


def board(day: dt.date, now: dt.datetime) -> RedisBoard | None:
    """The day's board from Redis when Redis is configured and the day's sets are ready;
    ``None``: read it from SQL (nothing is built here)."""
    if not enabled():
        return None
    try:
        redis = client()
        if not redis.exists(Keys(day).ready):
            return None
        return RedisBoard(day, now, redis)
    except Exception:
        log.exception("leaderboard: Redis is unavailable, the board of %s is read from SQL", day)
        return None

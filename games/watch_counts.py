"""How many people watch a game, across every web process: "N watching", the cap on a game's
spectators (``WATCHERS_PER_GAME``), and whether an action's frame has anyone to go to.

Each process counts its own spectators of each game (``games.watch_hub``); the total is the sum
of every process's number. A spectator is admitted by one atomic step that checks the cap and
counts it (:func:`change`), and counted out as it leaves; every :data:`REFRESH` seconds each
process writes its numbers again as they are, which mends a count a failed write left wrong. A
process that dies stops writing, and its number lapses :data:`LAPSE` seconds after its last
write: nobody has to clean up after it.

- **With Redis** (``REDIS_URL``: the Redis of the boards' sets, which never evicts), one hash per
  game, ``<prefix>:watching:<game id>``, with a field per process (its name, :data:`PROCESS`)
  whose value is ``"<count> <until>"``. One Lua script drops the lapsed numbers, checks the cap,
  writes the process's number and answers the total, atomically; the key expires :data:`LAPSE`
  seconds after the last write and is deleted when the total is 0, so that :func:`watched` — the
  test an action makes before it builds a frame (``games.watch_hub.publish``) — is one
  ``EXISTS``.
- **Without Redis** (the zero-setup default: one process, the in-memory channel layer), a dict
  of this process, under a lock: the same answers.

Each answer carries a *version*, the time it was counted at (Redis's clock, in µs), so that a
listener that hears two totals in the wrong order keeps the later one.

Every Redis command here is bounded (``core.redis_bounds``): a Redis away raises its error at
once, for the caller to decide.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import uuid
from dataclasses import dataclass

from django.conf import settings

from core import redis_bounds

#: Seconds a process's number stands without being written again.
LAPSE = 60
#: Seconds between a process's writes of its numbers as they are (well within :data:`LAPSE`).
REFRESH = 20.0
#: This process's name among the writers of a count.
PROCESS = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"

# KEYS: the game's hash. ARGV: this process's name, "add" or "set", the number to add or set,
# now (s), the lapse (s), the cap (0: none). Returns {admitted (1/0), total, version}.
_CHANGE = """
local key, me, mode, value = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local now, lapse, cap = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local total, mine = 0, 0
local entries = redis.call('HGETALL', key)
for i = 1, #entries, 2 do
  local number, expiry = string.match(entries[i + 1], '^(%d+) (%S+)$')
  if number and tonumber(expiry) > now then
    total = total + tonumber(number)
    if entries[i] == me then mine = tonumber(number) end
  else
    redis.call('HDEL', key, entries[i])
  end
end
local clock = redis.call('TIME')
local version = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local wanted = value
if mode == 'add' then wanted = math.max(mine + value, 0) end
if cap > 0 and wanted > mine and total - mine + wanted > cap then
  return {0, total, version}
end
total = total - mine + wanted
if wanted > 0 then
  redis.call('HSET', key, me, wanted .. ' ' .. (now + lapse))
else
  redis.call('HDEL', key, me)
end
if total > 0 then
  redis.call('EXPIRE', key, lapse)
else
  redis.call('DEL', key)
end
return {1, total, version}
"""


@dataclass(frozen=True)
class Count:
    """A game's spectators across every process, as counted at ``version`` (µs); ``admitted``:
    whether the change asked for was made (a spectator past the cap is not)."""

    admitted: bool
    total: int
    version: int


_local: dict[int, int] = {}
_local_lock = threading.Lock()
_local_versions = itertools.count(1)


def shared() -> bool:
    """Whether the counts are kept in Redis (across processes), not in this process."""
    return bool(settings.REDIS_URL)


def key(game_id: int) -> str:
    """The Redis key of ``game_id``'s count, under the cache's prefix (the tests give each run
    its own)."""
    return f"{settings.CACHES['default'].get('KEY_PREFIX') or 'canfield'}:watching:{game_id}"


def change(game_id: int, *, add: int = 0, count: int | None = None, cap: int = 0) -> Count:
    """Add ``add`` to this process's spectators of ``game_id`` (one in, -1 out), or set their
    number to ``count``; a change that raises the number is refused when the total would pass
    ``cap`` (0: no cap), and nothing is counted. Answers the total across every process."""
    mode, value = ("add", add) if count is None else ("set", count)
    if shared():
        client = redis_bounds.client()
        admitted, total, version = client.eval(
            _CHANGE, 1, key(game_id), PROCESS, mode, value, time.time(), LAPSE, cap
        )
        return Count(bool(admitted), int(total), int(version))
    with _local_lock:
        mine = _local.get(game_id, 0)
        wanted = max(mine + value, 0) if mode == "add" else value
        version = next(_local_versions)  # (one process: a counter orders its answers)
        if cap > 0 and wanted > mine and wanted > cap:
            return Count(False, mine, version)
        if wanted > 0:
            _local[game_id] = wanted
        else:
            _local.pop(game_id, None)
        return Count(True, wanted, version)


def watched(game_id: int) -> bool:
    """Whether anyone may be watching ``game_id`` (a number that lapsed may count here until
    the next write drops it, or the key expires): the cheap test an action makes before it
    builds a frame."""
    if not shared():
        return _local.get(game_id, 0) > 0
    return bool(redis_bounds.client().exists(key(game_id)))

"""A game's spectators, live: the frames an action sends them, and each process's one listener.

**The publisher.** When a game's change has committed, ``games.signals.standing_changed`` goes
out in the thread that made it (a REST request's, a game socket's, a worker's); :func:`publish`
listens (connected in ``GamesConfig.ready``). It first asks whether anyone watches the game
(``games.watch_counts.watched``: one ``EXISTS`` on Redis, a dict without): an action nobody
watches — almost every one — builds nothing and sends nothing. A watched game's payload is built
once, by the function the owner's ``GET /api/games/<id>/`` answers with
(``games.payloads.game_dict``: the player's view, never a hidden card), and sent to the game's
channel-layer group ``watch.<id>``, once for every process that has spectators of the game. The
request waits for that send (a Redis round trip) and not for the spectators: under Daphne the
send runs on the process's event loop (``async_to_sync`` from a request's thread), and where no
loop serves (a worker closing a daily attempt at its day's end) on a loop of its own.
A failure is logged, never the request's: the spectators' next frame, or their resync, carries
the game as it stands.

**The hub.** Every process (every event loop) has one :class:`Hub`: one channel of the layer for
all its spectators, a member of the group of each game it has spectators of, so that a frame
reaches each process once whatever its number of sockets (the live board's hub does the same,
``leaderboard.live.fanout``). It turns the group's message into the socket's text once, and a task
of the game's own hands that text to each spectator of the game (``WatchConsumer.deliver``, which
drops a frame older than what its socket has, and sends one that skips a ply as a snapshot),
:data:`BATCH` at a time with a short pause between, so that the player's move, which the same
process may be answering, is not held behind a crowd; a newer frame that comes meanwhile goes to
those not served yet. The listener itself only reads on. It keeps the game's latest payload,
which a spectator that connects receives without a query of its own.

It also counts its spectators of each game (``games.watch_counts``: admitted under the cap,
``WATCHERS_PER_GAME``, in one atomic step) and tells every process's spectators the new total:
at most one ``watching`` message per game and :data:`COUNT_WINDOW` from each process, however
many come and go, and again when its periodic write (every ``watch_counts.REFRESH`` seconds)
finds that the total changed (a process that died, its number lapsed).

When the channel layer fails (Redis away), every spectator of the process is paused — an error
frame ``unavailable``, then the close 4503, after which its page connects again — and the hub
starts afresh with the next spectator.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import time
from typing import Any, Protocol

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from core.accounts.models import practice_is_private
from core.loops import PerLoop, within
from games import payloads, watch_counts
from games.clock import utc_today
from games.models import Game

log = logging.getLogger(__name__)

#: The shortest time between two ``watching`` messages of one game from one process (seconds).
COUNT_WINDOW = 0.5
#: A game's group membership is renewed this often (channels_redis forgets members after a day).
RENEW_GROUP = 3600.0
#: Spectators served between two yields to the event loop while a frame goes out.
YIELD_EVERY = 250
#: A frame goes out to a process's spectators of a game this many at a time, with a pause of
#: :data:`PAUSE` seconds between two batches, in which the loop waits for its sockets and lets
#: the process's threads run: the player's own move, whose commit sent the frame, is answered
#: from the same process meanwhile rather than after a crowd's sends (benchmarks/watch.py:
#: with 200 spectators, half in the player's process, sent at once they doubled the move's time).
BATCH = 10
PAUSE = 0.002

#: A frame's place in its game's history: the game's ply, then 1 once the game is over (its end
#: comes after its last action, and a resignation adds no action).
Version = tuple[int, int]


def group_name(game_id: int) -> str:
    return f"watch.{game_id}"


def version_of(game: Game) -> Version:
    return (game.ply, 0 if game.is_in_progress else 1)


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def payload_text(game: Game) -> tuple[Version, str]:
    """``game``'s payload as its owner's ``GET /api/games/<id>/`` answers it, as JSON, and its
    version — built on a copy, so that the row the other listeners hear of is left as it is."""
    shown = copy.copy(game)
    body = payloads.game_dict(shown, utc_today())
    return version_of(shown), _json(body)


def frame_text(kind: str, version: Version, game: str, **extra: object) -> str:
    """A ``snapshot`` or ``update`` frame: its ``ply``, anything ``extra``, and the game's
    payload text as it is."""
    head = _json({"type": kind, "ply": version[0], **extra})
    return f'{head[:-1]},"game":{game}}}'


#: ``games.watch_counts.change`` in an executor thread (a Redis round trip: off the loop).
change_count = sync_to_async(watch_counts.change, thread_sensitive=False)


# --- the publisher ---------------------------------------------------------------------------


def publish(sender: Any, game: Game, **kwargs: Any) -> None:
    """``standing_changed``: send ``game`` as it now stands to its spectators, if it has any.
    Never raises: the change is committed, and the request's answer is not this listener's."""
    try:
        if not watch_counts.watched(game.pk):
            return
        version, text = payload_text(game)
        layer = get_channel_layer()
        if layer is None:
            return
        # A player who made their practice private meanwhile: each spectator is asked again.
        check = not game.is_daily and practice_is_private(game.owner_id)
        message = {
            "type": "watch.frame",
            "game": game.pk,
            "version": list(version),
            "text": text,
            "check": check,
        }
        async_to_sync(layer.group_send)(group_name(game.pk), message)
    except Exception as exc:  # Redis away, the loop gone: the spectators resync
        log.warning("watch: no frame of game %s went out (%s)", game.pk, exc)


# --- the hub ---------------------------------------------------------------------------------


class Spectator(Protocol):
    """What the hub asks of a spectator's socket (``games.watch.WatchConsumer``)."""

    game_id: int

    async def deliver(self, version: Version, update: str, payload: str) -> None: ...

    async def still_admitted(self) -> bool: ...

    async def send_count(self, text: str) -> None: ...

    async def pause(self) -> None: ...


class Hub:
    """This event loop's listener: the spectators of each game, one channel for all of them."""

    @classmethod
    def current(cls) -> Hub:
        """The running event loop's hub."""
        return _HUBS.get()

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.listener: asyncio.Task[None] | None = None
        self.refresher: asyncio.Task[None] | None = None
        self.sockets: dict[int, set[Spectator]] = {}
        #: When each game's group was joined (renewed), by the monotonic clock.
        self.joined: dict[int, float] = {}
        #: Taken while the hub joins or leaves a group (a game's last spectator leaving while
        #: the next one comes must not leave the group left and the newcomer unserved).
        self.membership = asyncio.Lock()
        #: The latest payload of each game watched here: its version and its JSON text.
        self.latest: dict[int, tuple[Version, str]] = {}
        #: The latest total of each game's spectators this process counted or heard, with its
        #: version (``watch_counts.Count.version``).
        self.totals: dict[int, tuple[int, int]] = {}
        #: The ``watching`` message each game is due to send, and when each was last sent.
        self.announcing: dict[int, asyncio.Task[None]] = {}
        self.announced: dict[int, float] = {}
        #: The version of the total each game's spectators here were last told.
        self.told: dict[int, int] = {}
        #: Each game's newest frame not handed out yet here (its version, its payload, and
        #: whether each spectator is to be asked again first), and the task handing them out.
        self.due: dict[int, tuple[Version, str, bool]] = {}
        self.handing: dict[int, asyncio.Task[None]] = {}

    # --- who watches ---

    async def join(self, spectator: Spectator) -> watch_counts.Count:
        """Count ``spectator`` in, unless its game has ``WATCHERS_PER_GAME`` spectators already
        (the answer's ``admitted``); once this returns admitted, the hub is a member of the
        game's group and hands the spectator every frame of the game. Raises the channel layer's
        or Redis's error if either is away (nothing is kept of the spectator then)."""
        game_id = spectator.game_id
        count = await change_count(game_id, add=1, cap=int(settings.WATCHERS_PER_GAME))
        if not count.admitted:
            return count
        self.sockets.setdefault(game_id, set()).add(spectator)
        new = game_id not in self.joined
        try:
            await self.listen_to(game_id)
            self.heard(game_id, count.version, count.total)
            if new:
                # Another process's count between this one's and its joining the game's group
                # was announced to a group this process was not in yet: the total is read
                # again, now that every later change reaches it.
                again = await change_count(game_id)
                self.heard(game_id, again.version, again.total)
        except Exception:
            await self.leave(spectator)
            raise
        self.announce_soon(game_id)
        return count

    async def leave(self, spectator: Spectator) -> None:
        """Count ``spectator`` out (its socket ended, however); the game's group is left with
        its last spectator here."""
        game_id = spectator.game_id
        sockets = self.sockets.get(game_id)
        if sockets is None or spectator not in sockets:
            return
        sockets.discard(spectator)
        if not sockets:
            del self.sockets[game_id]
            self.latest.pop(game_id, None)
            await self.forget_group(game_id)
        try:
            count = await change_count(game_id, add=-1)
        except Exception as exc:  # Redis away: the number lapses, or the next write mends it
            log.warning("watch: a spectator of game %s was not counted out (%s)", game_id, exc)
            return
        self.heard(game_id, count.version, count.total)
        self.announce_soon(game_id)

    async def listen_to(self, game_id: int) -> None:
        """Be a member of ``game_id``'s group (its membership renewed when due)."""
        if self.layer is None:
            return
        if self.channel is None:
            self.channel = await self.layer.new_channel()
            loop = asyncio.get_running_loop()
            self.listener = loop.create_task(self.listen())
            self.refresher = loop.create_task(self.refresh())
        if time.monotonic() - self.joined.get(game_id, float("-inf")) <= RENEW_GROUP:
            return
        async with self.membership:
            channel = self.channel
            if game_id in self.sockets and channel is not None:
                await self.layer.group_add(group_name(game_id), channel)
                self.joined[game_id] = time.monotonic()

    async def forget_group(self, game_id: int) -> None:
        if self.layer is None or self.channel is None:
            return
        channel = self.channel
        async with self.membership:
            if game_id not in self.sockets and self.joined.pop(game_id, None) is not None:
                try:
                    await self.layer.group_discard(group_name(game_id), channel)
                except Exception as exc:  # Redis away: the membership lapses with the group
                    log.warning("watch: the group of game %s was not left (%s)", game_id, exc)

    def watching(self, game_id: int) -> int:
        """The latest total of ``game_id``'s spectators this process knows."""
        return self.totals.get(game_id, (0, 0))[1]

    # --- "N watching" ---

    def heard(self, game_id: int, version: int, total: int) -> bool:
        """A total of ``game_id``'s spectators, counted at ``version``: kept if it is the latest
        known here. Whether it was."""
        if version <= self.totals.get(game_id, (0, 0))[0]:
            return False
        self.totals[game_id] = (version, total)
        return True

    def announce_soon(self, game_id: int) -> None:
        """Send ``game_id``'s latest total to all its spectators (every process's) — at once if
        the game's last message from here went :data:`COUNT_WINDOW` ago or more, else when that
        window ends, with whatever total is the latest then."""
        if self.layer is None or game_id in self.announcing:
            return
        wait = self.announced.get(game_id, float("-inf")) + COUNT_WINDOW - time.monotonic()
        task = asyncio.get_running_loop().create_task(self.announce(game_id, max(wait, 0.0)))
        self.announcing[game_id] = task

    async def announce(self, game_id: int, wait: float) -> None:
        try:
            await asyncio.sleep(wait)
            self.announced[game_id] = time.monotonic()
            version, total = self.totals.get(game_id, (0, 0))
            message = {"type": "watch.count", "game": game_id, "version": version, "total": total}
            assert self.layer is not None
            await self.layer.group_send(group_name(game_id), message)
        except Exception as exc:  # Redis away: the listener pauses the spectators
            log.warning("watch: the count of game %s was not sent (%s)", game_id, exc)
        finally:
            self.announcing.pop(game_id, None)
            if game_id not in self.sockets:
                for held in (self.totals, self.announced, self.told):
                    held.pop(game_id, None)

    async def refresh(self) -> None:
        """Every ``watch_counts.REFRESH`` seconds, write this process's numbers as they are (they
        would lapse otherwise), and announce the totals that changed."""
        while True:
            await asyncio.sleep(watch_counts.REFRESH)
            for game_id in list(self.sockets):
                try:
                    count = await change_count(game_id, count=len(self.sockets.get(game_id, ())))
                except Exception as exc:
                    log.warning("watch: the count of game %s was not written (%s)", game_id, exc)
                    continue
                before = self.watching(game_id)
                if self.heard(game_id, count.version, count.total) and count.total != before:
                    self.announce_soon(game_id)

    # --- the frames ---

    async def listen(self) -> None:
        """Receive the games' messages on the hub's channel and hand them out, until the channel
        layer fails (then every spectator is paused) or the hub is cancelled."""
        assert self.layer is not None and self.channel is not None
        layer, channel = self.layer, self.channel
        try:
            while True:
                try:
                    message = await within(layer.receive(channel), RENEW_GROUP)
                except TimeoutError:  # a quiet hour: the memberships are renewed below
                    message = {}
                kind = message.get("type")
                if kind == "watch.frame":
                    self.take_frame(message)
                elif kind == "watch.count":
                    await self.count_out(message)
                for game_id in list(self.sockets):
                    await self.listen_to(game_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("watch: the spectators' listener lost the channel layer (%s)", exc)
            if self.channel == channel:
                await self.lost()

    async def lost(self) -> None:
        """The channel layer failed: start afresh (the next spectator joins again) and pause
        every spectator; their pages connect again."""
        spectators = [spectator for sockets in self.sockets.values() for spectator in sockets]
        tasks = [self.listener, self.refresher, *self.announcing.values(), *self.handing.values()]
        self.sockets.clear()
        self.due.clear()
        self.handing.clear()
        self.joined.clear()
        self.latest.clear()
        self.totals.clear()
        self.told.clear()
        self.announcing.clear()
        self.channel = None
        self.listener = self.refresher = None
        for task in tasks:
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        for n, spectator in enumerate(spectators, start=1):
            await spectator.pause()
            if n % YIELD_EVERY == 0:
                await asyncio.sleep(0)

    def keep(self, game_id: int, version: Version, text: str) -> None:
        """Hold ``text`` as ``game_id``'s latest payload if it is newer than the one held (and
        the game is watched here)."""
        held = self.latest.get(game_id)
        if game_id in self.sockets and (held is None or version > held[0]):
            self.latest[game_id] = (version, text)

    def take_frame(self, message: dict[str, Any]) -> None:
        """A game's new payload: held as the game's latest, and due to go out to each of its
        spectators here — by the game's own task, so that the listener reads on (a crowd of one
        game never holds another game's frames, nor the channel's next message)."""
        game_id = int(message["game"])
        version: Version = (int(message["version"][0]), int(message["version"][1]))
        self.keep(game_id, version, message["text"])
        check = bool(message.get("check"))
        due = self.due.get(game_id)
        if due is None or version > due[0]:
            self.due[game_id] = (version, message["text"], check or (due is not None and due[2]))
        if game_id in self.sockets and game_id not in self.handing:
            task = asyncio.get_running_loop().create_task(self.hand_out(game_id))
            self.handing[game_id] = task

    async def hand_out(self, game_id: int) -> None:
        """Hand the game's due frame to each of its spectators here, :data:`BATCH` at a time; a
        newer frame that comes meanwhile goes to those not served yet instead (each is a whole
        game: a spectator it skips a ply for is sent it as a snapshot), and to the others next."""
        try:
            while (due := self.due.pop(game_id, None)) is not None:
                version, payload, check = due
                update = frame_text("update", version, payload)
                for n, spectator in enumerate(list(self.sockets.get(game_id, ())), start=1):
                    if game_id in self.due:
                        break
                    try:
                        if not check or await spectator.still_admitted():
                            await spectator.deliver(version, update, payload)
                    except Exception:  # a socket that went away meanwhile
                        log.debug("watch: a frame was not delivered", exc_info=True)
                    if n % BATCH == 0:
                        await asyncio.sleep(PAUSE)
        finally:
            self.handing.pop(game_id, None)

    async def count_out(self, message: dict[str, Any]) -> None:
        """A total of a game's spectators: the latest this process knows, as a ``watching``
        frame to each of them here, unless they were told it (or a later one) already."""
        game_id = int(message["game"])
        if game_id not in self.sockets:
            return
        self.heard(game_id, int(message["version"]), int(message["total"]))
        version, total = self.totals[game_id]
        if version <= self.told.get(game_id, 0):
            return
        self.told[game_id] = version
        text = _json({"type": "watching", "watching": total})
        for n, spectator in enumerate(list(self.sockets.get(game_id, ())), start=1):
            try:
                await spectator.send_count(text)
            except Exception:
                log.debug("watch: a count was not delivered", exc_info=True)
            if n % YIELD_EVERY == 0:
                await asyncio.sleep(0)


#: Each event loop's hub.
_HUBS: PerLoop[Hub] = PerLoop(Hub)

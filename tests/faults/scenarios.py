"""Faults under load, as functions that return their figures: the suite runs them bounded
(tests/faults/), benchmarks/faults.py runs them longer and writes docs/reliability.md.

- :func:`kill_daphne_under_load`: players with retries play practice games against one Daphne
  process, which is killed with SIGKILL (kill -9) a few times and started again on the same port.
  Every action a player saw acknowledged (a 200) must be in its game's log, in order, and nothing
  else (a retried request is never applied twice); ``manage.py verify_games`` must find every
  stored game in agreement with its log.
- :func:`restart_redis_under_load`: two Daphne processes share a redis-server of the test's own;
  players play their daily attempts on one, a watcher follows the live board on the other. Redis
  is killed (kill -9) and, a few seconds later, started again, empty. No request may get a 5xx;
  the watcher's socket is closed with 4503 while Redis is away, reconnects once it is back, and
  its board (snapshot, then updates) ends equal to the REST board: resumed and resynced.

Like tests/support.py, nothing here imports Django: the servers are processes of their own (the
watcher applies frames with the client's model, ``leaderboard.live.model``, which needs none).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.live import model
from tests.support import (
    ROOT,
    Daphne,
    RedisServer,
    deal_days,
    django_env,
    free_port,
    get_json,
    migrate,
    next_action,
    post_json,
    start_daily,
)

PASSWORD = "fault-tolerant-canfield-42"
#: What a request that got no answer raises: refused, reset, cut, timed out.
NO_ANSWER = (OSError, http.client.HTTPException)


# --- a player that retries ----------------------------------------------------------------------


@dataclass
class Tally:
    """What the players saw, all of them together."""

    requests: int = 0
    acknowledged: int = 0
    retries: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    #: (time, status) of every answer, for the outage window.
    answers: list[tuple[float, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answered(self, status: int) -> None:
        with self.lock:
            self.requests += 1
            self.statuses[status] = self.statuses.get(status, 0) + 1
            self.answers.append((time.monotonic(), status))

    def retried(self) -> None:
        with self.lock:
            self.retries += 1

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)


class Player(threading.Thread):
    """Plays one game (a dict as the API gave it) until ``stop`` is set or the game ends: a
    hurried player's next action, sent with the game's ply; a request that gets no answer (the
    server died, or its answer was lost) is sent again as it was until one comes — the API
    answers a repeat of the last applied action with 200 and does not apply it twice."""

    def __init__(
        self,
        url: Callable[[], str],
        token: str,
        game: dict[str, Any],
        stop: threading.Event,
        tally: Tally,
        pause: float = 0.0,
    ) -> None:
        super().__init__(daemon=True)
        self.url, self.token, self.game, self.stop, self.tally = url, token, game, stop, tally
        self.pause = pause
        #: (ply, token) of every acknowledged action, in the order of the answers.
        self.acks: list[tuple[int, str]] = []
        self.error: str | None = None

    def choose(self) -> str | None:
        legal = [token for token in self.game["state"]["legal"] if token != "U"]
        if not legal:
            return None
        action, _ = next_action(legal)
        return action if action in legal else legal[0]

    def send(self, body: dict[str, Any]) -> tuple[int, Any]:
        """POST the action until an answer comes (or the run is over and the server gone)."""
        url = f"{self.url()}/api/games/{self.game['id']}/actions/"
        while True:
            try:
                status, answer = post_json(url, body, self.token, timeout=10)
            except NO_ANSWER:
                self.tally.retried()
                time.sleep(0.05 + random.random() * 0.2)
                continue
            self.tally.answered(status)
            if status < 500:
                return status, answer
            time.sleep(0.1)  # a 5xx is counted (and must not happen); try again

    def run(self) -> None:
        while not self.stop.is_set():
            action = self.choose()
            if action is None:
                return
            ply = self.game["ply"]
            status, answer = self.send({"ply": ply, "action": action})
            if status == 200:
                if answer["applied"] is not None:
                    self.acks.append((ply, answer["applied"]))
                    with self.tally.lock:
                        self.tally.acknowledged += 1
                self.game = answer
            elif status == 409 and answer["code"] in {"game_over", "game_too_long"}:
                return
            else:
                self.error = f"{status} {answer}"
                return
            if self.pause:
                time.sleep(self.pause)


def sign_up(url: str, prefix: str) -> str:
    name = f"{prefix}{secrets.token_hex(5)}"
    status, body = post_json(f"{url}/api/auth/signup/", {"username": name, "password": PASSWORD})
    if status != 201:
        raise RuntimeError(f"sign-up: {status} {body}")
    return str(body["token"])


def logged_moves(url: str, token: str, game_id: int) -> list[tuple[int, str]]:
    status, record = get_json(f"{url}/api/games/{game_id}/record/", token)
    if status != 200:
        raise RuntimeError(f"record of game {game_id}: {status} {record}")
    return [(move["ply"], move["token"]) for move in record["moves"]]


def verify_games(env: dict[str, str]) -> tuple[int, str]:
    run = subprocess.run(
        [sys.executable, "manage.py", "verify_games"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return run.returncode, (run.stdout + run.stderr).strip()


# --- kill -9 of Daphne ---------------------------------------------------------------------------


@dataclass
class KillReport:
    players: int
    kills: int
    seconds: float
    tally: Tally
    #: Seconds from each kill until the restarted process answered.
    restarts: list[float]
    #: Games whose log differs from what their player saw acknowledged: (game, acked, logged).
    mismatches: list[tuple[int, list[tuple[int, str]], list[tuple[int, str]]]]
    player_errors: list[str]
    verify_status: int
    verify_output: str


def kill_daphne_under_load(
    workdir: Path,
    *,
    database_url: str | None = None,
    players: int = 6,
    kills: int = 2,
    interval: float = 2.0,
    pause: float = 0.0,
) -> KillReport:
    """``players`` play against one Daphne process, killed ``kills`` times, ``interval`` seconds
    apart, and started again at once on the same port each time."""
    database_url = database_url or f"sqlite:///{workdir / 'kill.sqlite3'}"
    env = django_env(database_url)
    migrate(env)
    deal_days(env)  # (today dealt, as the worker tier deals it)
    log = workdir / "daphne-kill.log"
    port = free_port()
    server = Daphne(env, log, port=port).start()
    stop, tally = threading.Event(), Tally()
    team: list[Player] = []
    for n in range(players):
        token = sign_up(server.url, f"k{n}")
        status, game = post_json(f"{server.url}/api/games/", {}, token)
        if status != 201:
            raise RuntimeError(f"new game: {status} {game}")
        team.append(Player(lambda: server.url, token, game, stop, tally, pause))
    started = time.monotonic()
    for player in team:
        player.start()
    restarts: list[float] = []
    try:
        for _ in range(kills):
            time.sleep(interval)
            assert server.process is not None
            os.kill(server.process.pid, signal.SIGKILL)
            killed = time.monotonic()
            server.process.wait(timeout=10)
            server.stop()  # (closes its log file)
            server = Daphne(env, log, port=port).start()
            restarts.append(time.monotonic() - killed)
        time.sleep(interval)
    finally:
        stop.set()
        for player in team:
            player.join(timeout=60)
    seconds = time.monotonic() - started
    mismatches = []
    for player in team:
        logged = logged_moves(server.url, player.token, player.game["id"])
        if logged != player.acks:
            mismatches.append((player.game["id"], player.acks, logged))
    server.stop()
    status, output = verify_games(env)
    return KillReport(
        players=players,
        kills=kills,
        seconds=seconds,
        tally=tally,
        restarts=restarts,
        mismatches=mismatches,
        player_errors=[p.error for p in team if p.error],
        verify_status=status,
        verify_output=output,
    )


# --- Redis killed and restarted ------------------------------------------------------------------


class Watcher(threading.Thread):
    """Follows a day's live board over a websocket, reconnecting 0.5 s after every close; keeps
    every frame (with the time it came) and every close code."""

    def __init__(self, url: str, origin: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.origin, self.stop = url, origin, stop
        self.frames: list[tuple[float, dict[str, Any]]] = []
        self.closes: list[tuple[float, int | None]] = []
        self.lock = threading.Lock()

    def run(self) -> None:
        from websockets.exceptions import ConnectionClosed, InvalidHandshake
        from websockets.sync.client import connect
        from websockets.typing import Origin

        while not self.stop.is_set():
            try:
                with connect(self.url, origin=Origin(self.origin), open_timeout=5) as socket:
                    while not self.stop.is_set():
                        try:
                            text = socket.recv(timeout=0.2)
                        except TimeoutError:
                            continue
                        with self.lock:
                            self.frames.append((time.monotonic(), json.loads(text)))
            except ConnectionClosed as closed:
                with self.lock:
                    self.closes.append(
                        (time.monotonic(), closed.rcvd.code if closed.rcvd else None)
                    )
            except (OSError, InvalidHandshake, TimeoutError):
                with self.lock:
                    self.closes.append((time.monotonic(), None))
            self.stop.wait(0.5)

    def latest_board(self) -> tuple[float, dict[str, Any]] | None:
        """The board the watcher holds after its frames: the last snapshot with the updates that
        followed it applied (``results``), and when the last of them came."""
        with self.lock:
            frames = list(self.frames)
        held: tuple[float, dict[str, Any]] | None = None
        for t, frame in frames:
            if frame["type"] == "snapshot":
                held = (t, frame)
            elif frame["type"] == "update" and held is not None:
                try:
                    rows = model.apply_rows(held[1]["results"], frame)
                except model.NotFollowing:  # a lost update: the next snapshot resyncs
                    continue
                held = (t, {**frame, "results": rows})
        return held


def standings(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """A board's rows without their running clocks."""
    return [
        (r["rank"], r["player"], r["actions"], r["foundation_cards"], r["result"]) for r in rows
    ]


@dataclass
class RedisReport:
    players: int
    seconds: float
    down_seconds: float
    tally: Tally
    #: Answers to the players while Redis was away, by status.
    during_outage: dict[int, int]
    #: Close codes the watcher saw while Redis was away (4503: live updates unavailable).
    close_codes: list[int | None]
    #: Seconds from Redis answering again to the watcher's first snapshot after its last close
    #: (0 when it came within the ~50 ms it takes to notice that Redis answers).
    resumed_after: float | None
    #: Live updates the watcher received after that snapshot.
    updates_after: int
    #: Whether the watcher's last board equals the REST board.
    resynced: bool
    health_while_down: Any
    player_errors: list[str]


def restart_redis_under_load(
    workdir: Path,
    *,
    players: int = 6,
    before: float = 2.5,
    down: float = 3.0,
    after: float = 4.0,
    pause: float = 0.05,
) -> RedisReport:
    """``players`` play their daily attempts on process B while a watcher follows the board on
    process A; Redis is killed after ``before`` seconds, started again ``down`` seconds later,
    and the load goes on ``after`` seconds more."""
    redis = RedisServer().start()
    env = django_env(f"sqlite:///{workdir / 'redis.sqlite3'}", redis.url)
    migrate(env)
    deal_days(env)  # (today dealt, as the worker tier deals it)
    a = Daphne(env, workdir / "daphne-a.log").start()
    b = Daphne(env, workdir / "daphne-b.log").start()
    stop, watching, tally = threading.Event(), threading.Event(), Tally()
    try:
        team: list[Player] = []
        for n in range(players):
            token = sign_up(b.url, f"r{n}")
            status, attempt = start_daily(b.url, token)
            if status != 201:
                raise RuntimeError(f"daily attempt: {status} {attempt}")
            team.append(Player(lambda: b.url, token, attempt, stop, tally, pause))
        today = team[0].game["daily_date"]
        watcher = Watcher(f"ws://127.0.0.1:{a.port}/ws/daily/{today}/", a.url, watching)
        watcher.start()
        started = time.monotonic()
        for player in team:
            player.start()
        time.sleep(before)
        redis.kill()
        went_down = time.monotonic()
        time.sleep(down / 2)
        health = get_json(f"{a.url}/api/health/")
        time.sleep(down / 2)
        redis.start()
        came_back = time.monotonic()
        time.sleep(after)
        stop.set()
        for player in team:
            player.join(timeout=60)
        seconds = time.monotonic() - started
        # The last moves' update reaches the watcher within a broadcast window or so.
        rest: list[Any] = []
        deadline = time.monotonic() + 10
        resynced = False
        while time.monotonic() < deadline and not resynced:
            time.sleep(0.5)
            rest = get_json(f"{a.url}/api/daily/{today}/board/")[1]["results"]
            latest = watcher.latest_board()
            resynced = latest is not None and standings(latest[1]["results"]) == standings(rest)
        watching.set()
        watcher.join(timeout=10)
        # The watcher's first snapshot once Redis answered again: after its last close.
        last_close = max([t for t, _ in watcher.closes if t >= went_down], default=went_down)
        snapshots_after = [
            t for t, frame in watcher.frames if frame["type"] == "snapshot" and t > last_close
        ]
        resumed = snapshots_after[0] if snapshots_after else None
        updates_after = sum(
            1 for t, f in watcher.frames if f["type"] == "update" and resumed and t > resumed
        )
        during: dict[int, int] = {}
        for t, status in tally.answers:
            if went_down <= t <= came_back:
                during[status] = during.get(status, 0) + 1
        return RedisReport(
            players=players,
            seconds=seconds,
            down_seconds=came_back - went_down,
            tally=tally,
            during_outage=during,
            close_codes=[code for t, code in watcher.closes if went_down <= t <= came_back + 1],
            resumed_after=None if resumed is None else max(0.0, resumed - came_back),
            updates_after=updates_after,
            resynced=resynced,
            health_while_down=health,
            player_errors=[p.error for p in team if p.error],
        )
    finally:
        stop.set()
        watching.set()
        a.stop()
        b.stop()
        redis.stop()

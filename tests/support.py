"""Helpers shared by the tests and the benchmark scripts: live servers and a hurried player.

Nothing here imports Django, so that a benchmark's client process stays light; the servers run in
processes of their own.

- :class:`Daphne`: one Daphne process on a free port of 127.0.0.1, started as every web process
  is (``python -m canfield_site.serve``: Daphne with the settings' options) with an environment
  from :func:`django_env`, ready once ``/api/health/`` answers; a context manager.
- :func:`migrate`: ``manage.py migrate`` in that environment; :func:`deal_days`: today dealt
  there, as a running worker deals it.
- :class:`Worker`: one ``manage.py worker`` process of the worker tier, in the same environment.
- :class:`RedisServer`: a redis-server of the test's own on a free port, to kill and restart.
- :func:`post_json`, :func:`get_json`: a JSON request with an optional token, its status and
  JSON answer; :func:`asgi_request`: one request through an ASGI application, in process.
- :func:`postgres_database`: a scratch PostgreSQL database for a block.
- :func:`next_action`: what a hurried player does next (a scoring move if there is one).
- :class:`Nginx`: Debian's nginx running ``deploy/nginx.conf`` itself, its listening port and its
  two upstreams substituted (:func:`nginx_conf`; and, for a test of the edge's deadlines, shorter
  timeouts), in front of two Daphne processes.
- :class:`RedisServer`: a private ``redis-server`` on a free port (nothing kept on disk).
- :func:`cancel_and_wait`: tasks cancelled, and those that lost the cancellation described
  (:func:`awaiting`) and ended anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
#: How every web process is started: Daphne with the settings' options (``canfield_site.serve``);
#: then ``-b HOST -p PORT`` and any more of Daphne's options.
SERVE = [sys.executable, "-m", "canfield_site.serve"]

#: A move of one card to a foundation: it scores.
SCORING = re.compile(r"^(R|W|T[1-4])-F[1-4]$")

#: The solver's budget per candidate daily deal in tests and the servers they start.
TEST_DEAL_POSITIONS = 20_000
#: The simulated games per level that measure a candidate's difficulty there: 7, the fewest
#: whose shares fall in every band of the default week (1 of 7 is 14%, in 5-15).
TEST_DIFFICULTY_GAMES = 7
#: The positions a worker that a test starts searches to judge one attempt (fair play's
#: clairvoyance test): its judgements end early, as the service's would past its budget.
TEST_JUDGE_POSITIONS = 20_000
#: And every day's band there: any share, so that a day is dealt as fast as before days had a
#: difficulty (the tests of the weekly rhythm set the default week, games.engine.difficulty.WEEK).
TEST_DIFFICULTY_WEEK = ",".join(["0-100"] * 7)


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def django_env(
    database_url: str,
    redis_url: str | None = None,
    *,
    settings: str = "tests.live_settings",
    **extra: str,
) -> dict[str, str]:
    """The environment for a Django or Daphne subprocess: this one's without REDIS_URL and DEBUG,
    on ``database_url``, the tests' servers' settings (``settings``: tests/live_settings.py, the
    site's with a fast password hasher), throttles off, warnings only, no days dealt ahead by the
    server; ``redis_url`` and ``extra`` (which may override any of these:
    ``THROTTLE_LOGIN="20/min"``) if given."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE=settings,
        PYTHONPATH=str(ROOT),
        DATABASE_URL=database_url,
        THROTTLE_ACTIONS="off",
        THROTTLE_SIGNUP="off",
        THROTTLE_LOGIN="off",
        # (every player of a test server comes from 127.0.0.1: one network)
        THROTTLE_PRACTICE_NETWORK="off",
        THROTTLE_GUESTS="off",
        THROTTLE_GUEST_GAMES="off",
        LOG_LEVEL="WARNING",
        DAILY_DEAL_POSITIONS=str(TEST_DEAL_POSITIONS),  # certified on a small budget
        DAILY_DEAL_SHORTEN_POSITIONS=str(TEST_DEAL_POSITIONS),
        DAILY_DIFFICULTY_GAMES=str(TEST_DIFFICULTY_GAMES),
        DAILY_DIFFICULTY_WEEK=TEST_DIFFICULTY_WEEK,
        # A worker judges the attempts of a test's players on a small budget too (the
        # clairvoyance test's own tests set theirs): several seconds of CPU an attempt otherwise.
        FAIR_PLAY_JUDGE_POSITIONS=str(TEST_JUDGE_POSITIONS),
        # A worker (:class:`Worker`, when a test starts one) looks for tasks, beats and finds lost
        # workers quickly.
        WORKER_INTERVAL="0.1",
        WORKER_BEAT="0.5",
        WORKER_LOST="3",
        WORKER_NICE="0",
        # No solver pool started ahead by a server's first request: a test starts it if it
        # searches (tests/worker/test_deployment.py tries the start ahead).
        SOLVER_PRESTART="off",
    )
    env.update(extra)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def migrate(env: dict[str, str], timeout: float = 300) -> None:
    """``manage.py migrate`` in ``env``'s database. A new SQLite file is a copy of one migrated
    by ``manage.py migrate`` once per machine for these migrations and settings (a file beside
    the tests' other kept files): the same tables and rows, without the seconds of a migration in
    every test module that starts servers of its own."""
    url = env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        target = Path(url.removeprefix("sqlite:///"))
        if not target.exists() or target.stat().st_size == 0:
            shutil.copyfile(_migrated_sqlite(env, timeout), target)
            return
    _run_migrate(env, timeout)


def _run_migrate(env: dict[str, str], timeout: float) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=timeout,
    )


def _migrated_sqlite(env: dict[str, str], timeout: float) -> Path:
    """A SQLite file migrated by ``manage.py migrate`` in ``env`` (its settings module), made once
    for the project's migrations, Django and Python and kept in the temporary folder; the test
    processes wait for the one that makes it."""
    digest = hashlib.sha256(f"{sys.version} {env['DJANGO_SETTINGS_MODULE']}".encode())
    for source in sorted(ROOT.glob("*/migrations/*.py")):
        digest.update(source.name.encode() + source.read_bytes())
    digest.update((ROOT / "requirements-dev.lock").read_bytes())
    kept = Path(tempfile.gettempdir()) / f"canfield-migrated-{digest.hexdigest()[:16]}.sqlite3"
    with open(f"{kept}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not kept.exists():
            making = kept.with_suffix(".making")
            making.unlink(missing_ok=True)
            _run_migrate({**env, "DATABASE_URL": f"sqlite:///{making}"}, timeout)
            making.replace(kept)  # (whole or not at all)
    return kept


def deal_days(env: dict[str, str], days: int = 1, timeout: float = 300) -> None:
    """Deal today (and the days after it, ``days`` in all) in ``env``'s database, as the worker
    tier does on a running site: ``manage.py prepare_daily_deals``. For a test or benchmark whose
    servers run no worker and whose players start the daily."""
    subprocess.run(
        [sys.executable, "manage.py", "prepare_daily_deals", "--days", str(days)],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=timeout,
    )


class _Child:
    """A process of the site's (a server, a worker) whose output goes to ``log``; stopped with
    SIGTERM (SIGKILL if it lingers), as a context manager too."""

    def __init__(self, env: dict[str, str], log: Path | None = None) -> None:
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self._log_file: IO[bytes] | None = None

    def _spawn(self, argv: list[str]) -> None:
        if self.log is not None:
            self._log_file = self.log.open("ab")
        output = self._log_file if self._log_file is not None else subprocess.DEVNULL
        self.process = subprocess.Popen(
            argv, cwd=ROOT, env=self.env, stdout=output, stderr=subprocess.STDOUT
        )

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def output(self) -> str:
        if self.log is None or not self.log.exists():
            return "(no log)"
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        """Terminate the process (kill it if it lingers)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class Daphne(_Child):
    """One Daphne process serving the site: ``with Daphne(env, log) as server: server.url``."""

    def __init__(
        self,
        env: dict[str, str],
        log: Path | None = None,
        port: int = 0,
        args: tuple[str, ...] = (),
    ) -> None:
        super().__init__(env, log)
        self.port = port or free_port()
        #: More of Daphne's options (``("--access-log", path)``), after the settings'.
        self.args = args

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, ready_within: float = 30) -> Daphne:
        """Start the process and wait until it answers."""
        self._spawn([*SERVE, "-v", "0", "-b", "127.0.0.1", "-p", str(self.port), *self.args])
        self.wait_ready(ready_within)
        return self

    def wait_ready(self, timeout: float = 30) -> None:
        """Until ``/api/health/`` answers 200; fails at once if the process ends."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"Daphne exited ({self.process.returncode}): {self.output()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health/", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Daphne did not answer within {timeout} s: {self.output()}")
            time.sleep(0.1)

    def __enter__(self) -> Daphne:
        return self.start()


class RedisServer:
    """A redis-server of the test's own on a free port of 127.0.0.1 — never the shared one — with
    no persistence: ``with RedisServer() as redis: redis.url``. ``kill()`` is a kill -9;
    ``start()`` again brings up an empty one on the same port. Its files (if any) go to
    ``workdir``; it takes up to ``maxclients`` connections (a crowd of watchers needs many)."""

    def __init__(self, workdir: Path | None = None, port: int = 0, maxclients: int = 20000) -> None:
        self.workdir = workdir
        self.port = port or free_port()
        self.maxclients = maxclients
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, ready_within: float = 10) -> RedisServer:
        server = shutil.which("redis-server") or "/usr/bin/redis-server"
        where = ["--dir", str(self.workdir)] if self.workdir is not None else []
        self.process = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no", "--loglevel", "warning"]
            + ["--maxclients", str(self.maxclients), *where],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + ready_within
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on port {self.port} did not start")
            time.sleep(0.05)
        return self

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """kill -9, and wait until it is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def post_json(
    url: str, body: dict[str, Any] | None = None, token: str = "", timeout: float = 30
) -> tuple[int, Any]:
    """POST ``body`` as JSON (with ``Authorization: Token``, if given): the status and the JSON
    answer, for errors too."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(url, json.dumps(body or {}).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def start_daily(base: str, token: str, timeout: float = 60) -> tuple[int, Any]:
    """``POST /api/daily/`` as a client does it: while the day's deal is being dealt (503
    ``deal_pending``) it waits as ``retry_after`` says and asks again. The last status and
    answer."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = post_json(f"{base}/api/daily/", {}, token=token)
        pending = status == 503 and isinstance(body, dict) and body.get("code") == "deal_pending"
        if not pending or time.monotonic() > deadline:
            return status, body
        time.sleep(min(float(body.get("retry_after", 1)), 1.0))


def get_json(url: str, token: str = "", timeout: float = 30) -> tuple[int, Any]:
    """GET ``url`` (with ``Authorization: Token``, if given): the status and the JSON answer."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def asgi_request(
    application: Any,
    method: str,
    path: str,
    headers: list[tuple[bytes, bytes]] | None = None,
    chunks: list[bytes] | None = None,
) -> tuple[int, dict[bytes, bytes], bytes, int]:
    """One HTTP request through an ASGI ``application``, in a thread of its own (another test's
    tool may hold an event loop in this one): the status, the headers, the body, and how many
    of ``chunks`` the application read. The client stays connected after its last chunk."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    chunks = chunks if chunks is not None else [b""]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"localhost"), *(headers or [])],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }
    pending = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if pending:
            read += 1
            return pending.pop(0)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> None:
        await asyncio.wait_for(application(scope, receive, send), 10)

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()
    start, *bodies = sent
    answer_headers = {name.lower(): value for name, value in start["headers"]}
    return start["status"], answer_headers, b"".join(b.get("body", b"") for b in bodies), read


def next_action(legal: list[str]) -> tuple[str, bool]:
    """What a hurried player does next: a scoring move if there is one (and True), else a card
    from the reserve or the waste to a column, else a draw or a recycle."""
    for token in legal:
        if SCORING.match(token):
            return token, True
    for prefix in ("R-T", "W-T"):
        for token in legal:
            if token.startswith(prefix):
                return token, False
    return ("D" if "D" in legal else "C"), False


@contextmanager
def postgres_database(server_url: str, name: str) -> Iterator[str]:
    """A PostgreSQL database ``name`` for the block: created through a connection to
    ``server_url`` (after dropping a leftover of the same name) and dropped afterwards. Yields its
    URL: ``server_url`` with the path replaced."""
    import psycopg

    admin = urlunsplit(urlsplit(server_url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


NGINX = "/usr/sbin/nginx"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def nginx_conf(
    listen: int,
    upstreams: tuple[int, int],
    text: str | None = None,
    changes: dict[str, str] | None = None,
) -> str:
    """``deploy/nginx.conf`` with its port (8080) and its upstreams (web1:8000, web2:8000)
    replaced by 127.0.0.1 and the ports given, and each of ``changes`` (a directive as the file
    writes it, and what replaces it: ``{"client_header_timeout 10s;": "client_header_timeout
    2s;"}``) made; fails if the file no longer has each of them exactly once."""
    text = NGINX_CONF.read_text() if text is None else text
    replaced = {
        "listen 8080;": f"listen 127.0.0.1:{listen};",
        "server web1:8000 ": f"server 127.0.0.1:{upstreams[0]} ",
        "server web2:8000 ": f"server 127.0.0.1:{upstreams[1]} ",
        **(changes or {}),
    }
    for old, new in replaced.items():
        if text.count(old) != 1:
            raise AssertionError(f"deploy/nginx.conf no longer has {old!r} exactly once")
        text = text.replace(old, new)
    return text


class _Server:
    """A subprocess that serves on ``self.port`` until stopped; a context manager."""

    process: subprocess.Popen[bytes] | None = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class Nginx(_Server):
    """``nginx`` in the foreground with :func:`nginx_conf`, its files in ``workdir``:
    ``with Nginx(workdir, (port_a, port_b)) as proxy: proxy.url``."""

    def __init__(
        self,
        workdir: Path,
        upstreams: tuple[int, int],
        port: int = 0,
        changes: dict[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.upstreams = upstreams
        self.port = port or free_port()
        #: Directives of deploy/nginx.conf given other values (:func:`nginx_conf`).
        self.changes = changes

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def error_log(self) -> Path:
        return self.workdir / "error.log"

    def __enter__(self) -> Nginx:
        if not os.access(NGINX, os.X_OK):
            raise RuntimeError(f"{NGINX} is missing: apt-get install nginx (make tools does)")
        (self.workdir / "logs").mkdir(parents=True, exist_ok=True)
        conf = self.workdir / "nginx.conf"
        conf.write_text(nginx_conf(self.port, self.upstreams, changes=self.changes))
        self.process = subprocess.Popen(
            [NGINX, "-p", f"{self.workdir}/", "-c", str(conf), "-e", str(self.error_log)]
            + ["-g", f"daemon off; pid {self.workdir / 'nginx.pid'};"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 15
        while True:
            if self.process.poll() is not None:
                log = self.error_log.read_text() if self.error_log.exists() else ""
                raise RuntimeError(f"nginx exited ({self.process.returncode}): {log[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health/", timeout=1) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("nginx did not answer within 15 s")
            time.sleep(0.05)


class Deployment:
    """The deployed shape on this machine: two Daphne processes on ``env`` (one database, one
    Redis) and, unless ``proxy`` is false, nginx with ``deploy/nginx.conf`` in front of them;
    files in ``workdir``. ``with Deployment(env, workdir) as site: site.url`` (nginx's, or the
    first process's without it)."""

    def __init__(self, env: dict[str, str], workdir: Path, proxy: bool = True) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.daphnes = (Daphne(env, workdir / "web1.log"), Daphne(env, workdir / "web2.log"))
        self.nginx = Nginx(workdir / "nginx", (self.daphnes[0].port, self.daphnes[1].port))
        self.proxy = proxy

    @property
    def url(self) -> str:
        return self.nginx.url if self.proxy else self.daphnes[0].url

    def __enter__(self) -> Deployment:
        try:
            for daphne in self.daphnes:
                daphne.start()
            if self.proxy:
                self.nginx.__enter__()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        self.nginx.stop()
        for daphne in self.daphnes:
            daphne.stop()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def player_action(game: dict[str, Any]) -> str | None:
    """A legal action for a hurried player of ``game`` (a Game payload), or ``None`` when it has
    none left but undo (or is over): a scoring move, a card to a column, a draw, a recycle."""
    if game["status"] != "in_progress":
        return None
    legal = [token for token in game["state"]["legal"] if token != "U"]
    if not legal:
        return None
    token, _ = next_action(legal)
    return token if token in legal else legal[0]


def hold_until(flag: str, timeout: float = 60) -> None:
    """A task for the solver pool (``games.pool``) that holds its worker until the file ``flag``
    exists (here: a worker imports it without Django)."""
    deadline = time.monotonic() + timeout
    while not os.path.exists(flag) and time.monotonic() < deadline:
        time.sleep(0.02)


class BlackHole:
    """A TCP server on 127.0.0.1 that accepts every connection and never answers nor closes it:
    a service that hangs (``with BlackHole() as hole: hole.url``)."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(512)
        self.port = int(self.server.getsockname()[1])
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:  # closed
                return
            self.accepted.append(connection)

    def __enter__(self) -> BlackHole:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.close()
        for connection in self.accepted:
            connection.close()


class PostgresServer:
    """A PostgreSQL server of its own (a cluster made with ``initdb`` in a temporary folder, run
    as the ``postgres`` user on a free port of 127.0.0.1, trust authentication), to stop and
    start again under load — never the shared one: ``with PostgresServer() as pg: pg.url``."""

    def __init__(self, port: int = 0) -> None:
        self.port = port or free_port()
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
        if not bins:
            raise RuntimeError("PostgreSQL's server programs are not installed")
        self.bin = bins[-1]
        self.workdir = Path(tempfile.mkdtemp(prefix="canfield-postgres-"))
        self.data = self.workdir / "pgdata"

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, *command: str, timeout: float = 120) -> None:
        runas = [] if os.getuid() != 0 else ["runuser", "-u", "postgres", "--"]
        subprocess.run(
            [*runas, *command], check=True, capture_output=True, timeout=timeout, cwd="/"
        )

    def init(self) -> None:
        if os.getuid() == 0:
            shutil.chown(self.workdir, "postgres", "postgres")
        self._as_postgres(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust"
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.workdir} -c listen_addresses=127.0.0.1"
        self._as_postgres(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-w", "-l",
            str(self.workdir / "postgres.log"), "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def __enter__(self) -> PostgresServer:
        self.init()
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # (already stopped)
            self.stop("immediate")
        shutil.rmtree(self.workdir, ignore_errors=True)


class Worker(_Child):
    """One worker of the worker tier (``manage.py worker``): ``with Worker(env, log) as w``."""

    def __init__(self, env: dict[str, str], log: Path | None = None, *args: str) -> None:
        super().__init__(env, log)
        self.args = args

    def start(self) -> Worker:
        self._spawn([sys.executable, "manage.py", "worker", *self.args])
        return self

    def __enter__(self) -> Worker:
        return self.start()


def children_of(pid: int) -> set[int]:
    """The process ids whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def awaiting(task: asyncio.Task[Any]) -> str:
    """What ``task`` waits on: its coroutines, outermost first, and the awaitable at the end."""
    lines = [repr(task)]
    awaited: Any = task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is None:
            lines.append(f"  awaiting {awaited!r}")
            break
        lines.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}")
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    return "\n".join(lines)


async def cancel_and_wait(
    tasks: Iterable[asyncio.Task[Any]], within: float
) -> dict[asyncio.Task[Any], str]:
    """Cancel ``tasks`` and wait up to ``within`` seconds for them to end. One still running then
    lost its cancellation: it is described (:func:`awaiting`), then cancelled again until it ends
    (``within`` seconds more at most: the loop can close). The descriptions, by task."""
    left = set(tasks)
    for task in left:
        task.cancel()
    if not left:
        return {}
    _, pending = await asyncio.wait(left, timeout=within)
    lost = {task: awaiting(task) for task in pending}
    deadline = time.monotonic() + within
    while pending and time.monotonic() < deadline:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.1)
    return lost

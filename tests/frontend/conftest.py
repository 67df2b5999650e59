"""Browser tests: Debian's Chromium driven by Playwright against a real Daphne server.

One Daphne process per test session, on a free port and a fresh SQLite database (migrated
first), serves HTTP and the websockets. Each test gets its own browser context (its own cookies:
its own player). Screenshots go to artifacts/ (gitignored).

Chromium must be at /usr/bin/chromium: without it these tests fail, they are never skipped.
`playwright install` is never used.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    ViewportSize,
    expect,
    sync_playwright,
)

from games.engine import Canfield
from tests.support import (
    ROOT,
    TEST_DEAL_POSITIONS,
    TEST_DIFFICULTY_WEEK,
    Daphne,
    Worker,
    django_env,
    migrate,
)

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "felt-green-canfield-42"
DESKTOP = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 360, "height": 740}
WIDE: ViewportSize = {"width": 1440, "height": 900}
#: The two sizes every layout is checked at: a desktop window and a phone.
SIZES: dict[str, ViewportSize] = {"desktop": WIDE, "phone": PHONE}
#: How long a step may wait, in ms: an action on the page (a click, a navigation: the contexts'
#: default) and an assertion that waits (`expect`). Bounds, not speeds: a page answers in well
#: under a second, and in several on a machine busy with the rest of the suite.
STEP_TIMEOUT_MS = 30_000
EXPECT_TIMEOUT_MS = 15_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)


def yesterday() -> dt.date:
    return dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)


def _daily_secret(day: dt.date) -> str:
    """A DAILY_DEAL_SECRET whose certified deal for `day` (on the servers' budget) offers a card
    to a foundation at once, so that the live leaderboard test has a scoring first move on any
    day it runs. Found once per day and machine, whichever test process asks first (a search of
    a few certifications: seconds of CPU), and kept in a file beside the engine's digest."""
    digest = hashlib.sha256(f"{TEST_DEAL_POSITIONS} {TEST_DIFFICULTY_WEEK}".encode())
    for source in sorted((ROOT / "games" / "engine").rglob("*.py")):  # (what certifies a deal)
        digest.update(source.read_bytes())
    kept = Path(tempfile.gettempdir()) / f"canfield-browser-secret-{day}-{digest.hexdigest()[:12]}"
    with open(f"{kept}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (the other test process waits for the first's search)
        if kept.exists():
            return kept.read_text()
        secret = _search_daily_secret(day)
        kept.write_text(secret)
        return secret


def _search_daily_secret(day: dt.date) -> str:
    from leaderboard.deals import certify

    for i in range(1000):
        secret = f"browser-tests-daily-secret-{i}"
        found = certify(day, secret=secret.encode(), max_positions=TEST_DEAL_POSITIONS)
        engine = Canfield(found.code)
        if any("-F" in move.token() for move in engine.legal_moves):
            return secret
    raise AssertionError("no secret gives a daily deal with a scoring first move")


@pytest.fixture(scope="session")
def server_workdir() -> Iterator[Path]:
    """The folder of the session's server: its SQLite database `db.sqlite3` and its log."""
    workdir = Path(tempfile.mkdtemp(prefix="canfield-browser-"))
    try:
        yield workdir
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def daphne_server(server_workdir: Path) -> Iterator[str]:
    """The base URL of a Daphne server on a fresh database."""
    workdir = server_workdir
    env = django_env(
        f"sqlite:///{workdir / 'db.sqlite3'}",
        settings="tests.frontend.live_settings",
        DAILY_DEAL_SECRET=_daily_secret(dt.datetime.now(dt.UTC).date()),
        # Its worker looks for tasks twice a second and beats as the site's does: it lives all
        # session, idle most of it, where the quick looks and beats that the worker tier's own
        # tests need cost a twentieth of a core (a fortieth now). No browser test is about them.
        WORKER_INTERVAL="0.5",
        WORKER_BEAT="2",
        WORKER_LOST="15",
    )
    migrate(env)
    # Yesterday is dealt too (as the operators' command deals a day): a past day with a solution.
    subprocess.run(
        [sys.executable, "manage.py", "daily_deal", yesterday().isoformat(), "--json"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    # A worker beside the web process, as `make run` starts them: it deals today and tomorrow as
    # it starts (its periodic duty), as in production.
    with Daphne(env, workdir / "daphne.log") as server, Worker(env, workdir / "worker.log"):
        _wait_for_today(server.url)
        yield server.url


def _wait_for_today(url: str, timeout: float = 300) -> None:
    """Wait until the worker has dealt today (its difficulty is measured as it is certified), so
    that no test meets 503 deal_pending because it happened to run first."""
    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(f"{url}/api/daily/", timeout=10) as response:
            if json.load(response)["difficulty"] is not None:
                return
        if time.monotonic() > deadline:
            raise TimeoutError("the test server's worker did not deal today in time")
        time.sleep(0.25)


# Playwright's synchronous API keeps its event loop running in the test process's main thread
# for as long as it is started, and Django refuses database work in a thread with a running loop.
# The suite runs in several processes (pytest-xdist, a file at a time), so a process may take a
# file of another package after a browser file: the browser is started and stopped with this
# package (a Chromium starts in about a second), the server (its own processes) lives all session.
@pytest.fixture(scope="package")
def playwright_session() -> Iterator[Playwright]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="package")
def browser(playwright_session: Playwright) -> Iterator[Browser]:
    browser = playwright_session.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


class Player:
    """A person at a browser: a context of their own, signed up through the API."""

    def __init__(self, context: BrowserContext, base: str, username: str) -> None:
        self.context = context
        self.base = base
        self.username = username
        self.errors: list[str] = []
        self._page: Page | None = None

    @property
    def page(self) -> Page:
        """The player's tab, opened at first use: a player whom a test only signs up and calls
        the API as costs the browser no page (each page is a renderer process of its own, about
        0.3 s of CPU to start)."""
        if self._page is None:
            self._page = self.context.new_page()
            self._page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        return self._page

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    def goto(self, path: str) -> Page:
        self.page.goto(self.url(path))
        return self.page

    def api(self, method: str, path: str, data: Any = None) -> Any:
        """A call with the browser's session (and its CSRF token), as the page makes them."""
        csrf = next(
            (c["value"] for c in self.context.cookies(self.base) if c["name"] == "csrftoken"), ""
        )
        response = self.context.request.fetch(
            self.url(path),
            method=method,
            data=data,
            headers={"X-CSRFToken": csrf, "Referer": self.base + "/"},
        )
        assert response.ok, f"{method} {path}: {response.status} {response.text()}"
        return response.json() if response.status != 204 else None

    def start_daily(self, timeout: float = 60) -> Any:
        """Today's ranked attempt, started as the page starts it: while the day is being dealt
        (503 ``deal_pending``) it asks again when the server says."""
        csrf = next(
            (c["value"] for c in self.context.cookies(self.base) if c["name"] == "csrftoken"), ""
        )
        deadline = time.monotonic() + timeout
        while True:
            response = self.context.request.post(
                self.url("/api/daily/"), headers={"X-CSRFToken": csrf, "Referer": self.base + "/"}
            )
            body = response.json()
            if response.status != 503 or body.get("code") != "deal_pending":
                assert response.status == 201, f"POST /api/daily/: {response.status} {body}"
                return body
            assert time.monotonic() < deadline, "today was not dealt in time"
            time.sleep(min(float(body.get("retry_after", 1)), 1.0))


@pytest.fixture
def new_player(browser: Browser, daphne_server: str) -> Iterator[Callable[..., Player]]:
    """`new_player(viewport=PHONE, has_touch=True)` -> a signed-up Player in a fresh context
    (on the session's server, or on the server at `base`). Its browser prefers reduced motion
    unless the test says otherwise (`reduced_motion="no-preference"`): the page's animations
    are then skipped, as its users who ask for that see it, and a test waits for none of them."""
    contexts: list[BrowserContext] = []

    def make(prefix: str = "p", base: str | None = None, **options: Any) -> Player:
        base = base or daphne_server
        options.setdefault("viewport", DESKTOP)
        options.setdefault("reduced_motion", "reduce")
        context = browser.new_context(**options)
        context.set_default_timeout(STEP_TIMEOUT_MS)
        contexts.append(context)
        username = f"{prefix}{uuid.uuid4().hex[:8]}"
        response = context.request.post(
            f"{base}/api/auth/signup/",
            data={"username": username, "password": PASSWORD},
        )
        assert response.status == 201, response.text()
        return Player(context, base, username)

    yield make
    for context in contexts:
        context.close()

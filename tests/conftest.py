"""Fixtures shared by every test package.

People: `owner` (owns the thing under test) and `other` (must be refused), both with the
password PASSWORD. Clients, one per way of authenticating:
- `api`: anonymous DRF APIClient (JSON by default);
- `owner_api`, `other_api`: APIClient with `Authorization: Token <key>`;
- `session_client`: APIClient logged in as `owner` through the session, with CSRF checks
  enforced as in a browser; `session_client.csrf_headers()` gives the header to send.
Helpers: `throttle_rates(signup="2/min", ...)` changes rates for one test; `token_of(user)` issues
a new API token (knox's) and gives its key.

Isolation: the cache is cleared before every test. On Redis (REDIS_URL set) the cache and
channel layer use a key prefix of their own per test process, so parallel runs (and a
development server on the same Redis) never see each other's keys and clearing never
flushes the whole database.
"""

import datetime as dt
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from core import redis_bounds
from games.engine.difficulty import Band
from tests.support import TEST_DEAL_POSITIONS, TEST_DIFFICULTY_GAMES, TEST_DIFFICULTY_WEEK

PASSWORD = "correct horse battery staple"


def pytest_configure(config: pytest.Config) -> None:
    """Settings for the whole test process, applied before any test module is imported (a
    module may build the ASGI application, and with it the middleware, at import time)."""
    prefix = f"test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    caches = {alias: {**conf} for alias, conf in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = prefix
    layers: dict[str, dict[str, Any]] = {
        alias: {**conf} for alias, conf in settings.CHANNEL_LAYERS.items()
    }
    if "CONFIG" in layers["default"]:
        layers["default"]["CONFIG"] = {**layers["default"]["CONFIG"], "prefix": prefix}
    override_settings(
        CACHES=caches,
        CHANNEL_LAYERS=layers,
        # Static files straight from the apps' folders, always fresh, whether or not
        # collectstatic ever ran.
        WHITENOISE_USE_FINDERS=True,
        WHITENOISE_AUTOREFRESH=True,
        # A fast hasher: the real one costs a noticeable time per user created.
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        # A small solver budget for certifying a day's deal: the tests that deal a day run the
        # real search, on fewer positions (a candidate it cannot decide is skipped).
        DAILY_DEAL_POSITIONS=TEST_DEAL_POSITIONS,
        DAILY_DEAL_SHORTEN_POSITIONS=TEST_DEAL_POSITIONS,
        # And few simulated games to measure a candidate's difficulty, in any band (the tests of
        # the weekly rhythm set the default week).
        DAILY_DIFFICULTY_GAMES=TEST_DIFFICULTY_GAMES,
        DAILY_DIFFICULTY_WEEK=tuple(Band.parse(b) for b in TEST_DIFFICULTY_WEEK.split(",")),
        # The solver pool starts at a test's first search, not at the session's first request
        # (tests/worker/test_deployment.py tries the start ahead).
        SOLVER_PRESTART=False,
        # No keeper thread dealing days ahead in the test process (tests/leaderboard/test_keeper
        # runs it where it wants it): tests store the deals they play.
        DEAL_AHEAD=False,
    ).enable()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """On SQLite, test in a database file as the site runs, not in Django's shared-cache memory
    database: there a connection that meets another's lock fails at once ("database table is
    locked") instead of waiting, and a live-board test's broadcasts read the database from an
    executor thread while the test's own thread uses it. (Elsewhere pytest-django's own suffix
    gives each test process a database of its own: test_test_gw0, test_test_gw1, ….)"""
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        path = tmp_path_factory.mktemp("sqlite") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(path)


@pytest.fixture(scope="session", autouse=True)
def _forget_cached_keys() -> Iterator[None]:
    yield
    _clear_cache()


def _clear_cache() -> None:
    if settings.CACHES["default"]["BACKEND"].endswith("RedisCache"):
        # RedisCache.clear() is FLUSHDB; delete only this run's keys instead.
        client = redis_bounds.client(str(settings.REDIS_CACHE_URL))
        keys = list(client.scan_iter(match=f"{settings.CACHES['default']['KEY_PREFIX']}:*"))
        if keys:
            client.delete(*keys)
    else:
        cache.clear()


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Throttle counters and anything else cached start empty in every test, and Redis is not
    marked down by an earlier test (core.redis_bounds)."""
    redis_bounds.breaker.reset()
    _clear_cache()


@pytest.fixture(autouse=True)
def _redis_boards_follow_sql(request: pytest.FixtureRequest) -> Iterator[None]:
    """With Redis configured, boards are read from Redis sorted sets that follow SQL after each
    commit (leaderboard.standings.sets). A test run inside one transaction never commits: there
    a day's sets are rebuilt from SQL at every read (unless marked ``redis_sets``: it keeps them
    itself)."""
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or (
        marker is not None and marker.kwargs.get("transaction", False)
    )
    if not settings.REDIS_URL or transactional or request.node.get_closest_marker("redis_sets"):
        yield
        return
    from leaderboard.standings import sets

    original = sets.board

    def rebuilt(day: Any, now: Any) -> Any:
        sets.forget(day)
        sets.rebuild(day)
        return original(day, now)

    with mock.patch.object(sets, "board", rebuilt):
        yield


@pytest.fixture
def owner(db: None) -> User:
    return User.objects.create_user("owner", password=PASSWORD)


@pytest.fixture
def other(db: None) -> User:
    return User.objects.create_user("other", password=PASSWORD)


def token_of(user: User, lifetime: dt.timedelta | None = None) -> str:
    """A new API token of ``user`` (as a log-in issues one), working for ``lifetime`` (by default
    the settings' ``TOKEN_LIFETIME_DAYS``): its key."""
    from core.accounts import auth

    return auth.issue(user, lifetime).key


def token_client(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_of(user)}")
    return client


@pytest.fixture
def api(db: None) -> APIClient:
    return APIClient()


@pytest.fixture
def owner_api(owner: User) -> APIClient:
    return token_client(owner)


@pytest.fixture
def other_api(other: User) -> APIClient:
    return token_client(other)


class SessionClient(APIClient):
    """A browser-like client: session cookie, CSRF enforced on unsafe methods."""

    def __init__(self, **defaults: Any) -> None:
        super().__init__(enforce_csrf_checks=True, **defaults)

    def csrf_headers(self) -> dict[str, Any]:
        """The X-CSRFToken header, from the csrftoken cookie (GET /api/auth/me/ sets it)."""
        if "csrftoken" not in self.cookies:
            self.get("/api/auth/me/")
        return {"HTTP_X_CSRFTOKEN": self.cookies["csrftoken"].value}


@pytest.fixture
def session_client(owner: User) -> SessionClient:
    client = SessionClient()
    client.force_login(owner)
    return client


@pytest.fixture
def throttle_rates(settings: Any) -> Callable[..., None]:
    """`throttle_rates(login="2/min")`: other scopes keep their rates."""

    def apply(**rates: str | None) -> None:
        current = settings.REST_FRAMEWORK
        merged = {**current["DEFAULT_THROTTLE_RATES"], **rates}
        settings.REST_FRAMEWORK = {**current, "DEFAULT_THROTTLE_RATES": merged}

    return apply

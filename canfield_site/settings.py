"""Settings for Canfield Online: one file, read from environment variables.

Every value comes through a small helper below that fails loudly (ImproperlyConfigured naming
the variable) on a value it cannot read, so a typo in production is a crash at start-up and
not a silently different configuration. With nothing set the defaults give a working local
service: SQLite in the repository, the in-memory channel layer and cache, DEBUG off.
README.md lists every variable.
"""

import datetime as dt
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from core import redis_bounds
from games.engine.difficulty import WEEK, Band

# Django's generic classes subscriptable at run time (ModelAdmin[Game]), as their types are.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_RATE = re.compile(r"^(\d+)/(s|sec|second|m|min|minute|h|hour|d|day)$")


def env_str(name: str, default: str, environ: Mapping[str, str] = os.environ) -> str:
    """The variable's value, or `default` when it is unset or empty."""
    value = environ.get(name, "").strip()
    return value or default


def env_bool(name: str, default: bool, environ: Mapping[str, str] = os.environ) -> bool:
    """A strict boolean: 1/true/yes/on or 0/false/no/off (any case); anything else fails."""
    raw = environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}: expected one of 1/true/yes/on or 0/false/no/off, got {environ[name]!r}"
    )


def env_int(
    name: str, default: int, environ: Mapping[str, str] = os.environ, minimum: int = 0
) -> int:
    """A whole number, at least `minimum`."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}: expected a whole number, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}: expected a number >= {minimum}, got {value}")
    return value


def env_float(
    name: str,
    default: float,
    environ: Mapping[str, str] = os.environ,
    minimum: float = 0.0,
    maximum: float = float("inf"),
) -> float:
    """A number (decimals allowed), from `minimum` to `maximum`."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}: expected a number, got {raw!r}") from None
    if not minimum <= value <= maximum:  # (NaN fails too)
        raise ImproperlyConfigured(
            f"{name}: expected a number from {minimum} to {maximum}, got {raw}"
        )
    return value


def env_list(name: str, default: str, environ: Mapping[str, str] = os.environ) -> list[str]:
    """A comma-separated list; blanks around items are ignored, empty items fail."""
    raw = environ.get(name, "").strip() or default
    if not raw:
        return []
    items = [item.strip() for item in raw.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(f"{name}: empty item in comma-separated list {raw!r}")
    return items


def env_origins(name: str, default: str, environ: Mapping[str, str] = os.environ) -> list[str]:
    """A comma-separated list of origins, each with its scheme (https://example.org)."""
    origins = env_list(name, default, environ)
    for origin in origins:
        if not re.match(r"^https?://[^/\s]+$", origin):
            raise ImproperlyConfigured(
                f"{name}: expected origins like https://example.org, got {origin!r}"
            )
    return origins


def env_rate(name: str, default: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """A throttle rate "N/period" (period: s, min, hour, day, ...) or "off" for no limit."""
    raw = environ.get(name, "").strip().lower().replace(" ", "") or default
    if raw in {"off", "none"}:
        return None
    match = _RATE.match(raw)
    if match is None or int(match.group(1)) < 1:
        raise ImproperlyConfigured(
            f"{name}: expected a rate like 20/min, 10/hour or 'off', got {raw!r}"
        )
    return raw


_HEX = frozenset("0123456789abcdefABCDEF")
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
#: The fewest bits a deal secret must carry (whoever has it knows every day's deal).
SECRET_BITS = 128


def secret_bits(text: str) -> int:
    """A simple, cautious measure of how many bits a secret written as text carries: 4 a
    character for hexadecimal, 6 for base64 (padding left out), 4 for anything else (text people
    type is far from random); 0 for a secret that is one pattern repeated, or made of fewer than
    ten different characters. ``openssl rand -hex 32`` gives 256."""
    text = text.rstrip("=")
    if not text or text in (text + text)[1:-1] or len(set(text)) < 10:
        return 0
    if set(text) <= _HEX:
        return 4 * len(text)
    if set(text) <= _BASE64:
        return 6 * len(text)
    return 4 * len(text)


def env_secret(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """A secret of at least :data:`SECRET_BITS` bits by :func:`secret_bits`, or empty."""
    value = env_str(name, "", environ)
    if value and secret_bits(value) < SECRET_BITS:
        raise ImproperlyConfigured(
            f"{name}: too easy to guess (about {secret_bits(value)} bits by a cautious measure; "
            f"{SECRET_BITS} needed): use 32 random hexadecimal digits or more, e.g. "
            "`openssl rand -hex 32` or "
            "`python -c 'import secrets; print(secrets.token_hex(32))'`"
        )
    return value


def env_bands(name: str, default: str, environ: Mapping[str, str] = os.environ) -> tuple[Band, ...]:
    """Seven bands of shares in per cent, Monday first: "35-100,35-100,15-35,..."."""
    items = env_list(name, default, environ)
    try:
        bands = tuple(Band.parse(item) for item in items)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: {exc}") from None
    if len(bands) != 7:
        raise ImproperlyConfigured(f"{name}: expected 7 bands, Monday first, got {len(bands)}")
    return bands


def env_database(name: str, default: str, environ: Mapping[str, str] = os.environ) -> Any:
    """A database URL read by dj-database-url (postgres://..., sqlite:///path)."""
    url = env_str(name, default, environ)
    try:
        config = dj_database_url.parse(url)
    except (ValueError, dj_database_url.ParseError) as exc:
        raise ImproperlyConfigured(f"{name}: cannot read database URL ({exc})") from None
    if not config.get("ENGINE"):
        raise ImproperlyConfigured(f"{name}: cannot read database URL {url!r}")
    return config


def env_redis(name: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """A Redis URL (redis://, rediss:// or unix://), or None when unset."""
    url = env_str(name, "", environ)
    if url and not re.match(r"^(redis|rediss|unix)://", url):
        raise ImproperlyConfigured(
            f"{name}: expected a URL like redis://127.0.0.1:6379/0, got {url!r}"
        )
    return url or None


# --- Core ----------------------------------------------------------------------------------

# DEBUG is off unless asked for.
DEBUG = env_bool("DEBUG", False)

# The fallback key is for local development and tests only: it is public, so any deployment
# must set SECRET_KEY (`manage.py check --deploy` warns about the "django-insecure-" prefix).
SECRET_KEY = env_str("SECRET_KEY", "django-insecure-canfield-online-local-development-only")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_origins("CSRF_TRUSTED_ORIGINS", "")

# The secret that keys the daily deals (docs/deal-format.md, "The keyed daily deal"): 128 bits or
# more (secret_bits: 32 hex digits, 22 base64 characters), never public — with one published day
# anyone could test guesses offline and predict every later day. When unset, the service
# generates a random one on first use and keeps it in its database (leaderboard.deals.deal_secret);
# `check --deploy` warns about that.
DAILY_DEAL_SECRET = env_secret("DAILY_DEAL_SECRET")
# The solver's budget, in positions, to certify one candidate deal of a day winnable (positions,
# not seconds: every process decides the same candidate), then to shorten the winning line found,
# and the most candidates tried per day.
DAILY_DEAL_POSITIONS = env_int("DAILY_DEAL_POSITIONS", 2_000_000, minimum=1000)
DAILY_DEAL_SHORTEN_POSITIONS = env_int("DAILY_DEAL_SHORTEN_POSITIONS", 200_000, minimum=0)
DAILY_DEAL_CANDIDATES = env_int("DAILY_DEAL_CANDIDATES", 200, minimum=1)
# The daily deal's difficulty (games.engine.difficulty, docs/difficulty.md): the simulated games
# each level plays on a candidate (games, not seconds: every process picks the same candidate),
# and each weekday's band of the casual player's share of wins, in per cent, Monday first:
# gentle early in the week, hardest at the weekend.
DAILY_DIFFICULTY_GAMES = env_int("DAILY_DIFFICULTY_GAMES", 30, minimum=1)
DAILY_DIFFICULTY_WEEK = env_bands("DAILY_DIFFICULTY_WEEK", WEEK)
# The fair-play review's clairvoyance test (games.engine.clairvoyance, docs/fair-play.md): the
# most positions the solver searches to judge one attempt, in the worker tier (positions, not
# seconds: every worker judges alike). Past it the judgement stops with the evidence of the forks
# weighed so far.
FAIR_PLAY_JUDGE_POSITIONS = env_int("FAIR_PLAY_JUDGE_POSITIONS", 3_000_000, minimum=1000)
for _band in DAILY_DIFFICULTY_WEEK:
    if not any(_band.holds(k, DAILY_DIFFICULTY_GAMES) for k in range(DAILY_DIFFICULTY_GAMES + 1)):
        raise ImproperlyConfigured(
            f"DAILY_DIFFICULTY_WEEK: no share of {DAILY_DIFFICULTY_GAMES} games "
            f"(DAILY_DIFFICULTY_GAMES) falls in band {_band}"
        )
# The deadline of one day's certification, in seconds (it gives up, and tries again later).
DAILY_DEAL_SECONDS = env_float("DAILY_DEAL_SECONDS", 600.0, minimum=1.0, maximum=3600.0)
# Where a finished game's win slipped away (games.analysis, run by the worker tier): the solver's
# budget for each position it solves (positions, not seconds: every worker decides alike), for
# shortening the winning line it reports, the deadline of one whole analysis (a position still
# undecided then leaves it undecided), and the most analyses of past days' daily attempts waiting
# at once (each run of the sweep adds up to that many).
ANALYSIS_POSITIONS = env_int("ANALYSIS_POSITIONS", 300_000, minimum=1000)
ANALYSIS_SHORTEN_POSITIONS = env_int("ANALYSIS_SHORTEN_POSITIONS", 100_000, minimum=0)
ANALYSIS_SECONDS = env_float("ANALYSIS_SECONDS", 120.0, minimum=1.0, maximum=3600.0)
ANALYSIS_BATCH = env_int("ANALYSIS_BATCH", 10, minimum=1)
# The worker tier (docs/architecture.md, "Background work"): background duties are tasks of
# Django's Tasks API, kept in the database (django-tasks-db) and run by `manage.py worker`
# processes, never by a web process. A worker runs django-tasks-db's `db_worker` as a child
# process, which polls for ready tasks every WORKER_INTERVAL seconds when idle and runs at
# scheduling priority WORKER_NICE (the CPU goes to the web processes and their players' searches
# first); the worker beats every WORKER_BEAT seconds, and a task still running on a worker silent
# for WORKER_LOST seconds (killed, its machine gone) is run again. On SIGTERM a worker's child
# finishes its task within WORKER_STOP_GRACE seconds, or is killed and the task enqueued again.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
WORKER_INTERVAL = env_float("WORKER_INTERVAL", 1.0, minimum=0.05, maximum=60.0)
WORKER_NICE = env_int("WORKER_NICE", 19, minimum=0)
if WORKER_NICE > 19:
    raise ImproperlyConfigured(f"WORKER_NICE: expected 0 to 19, got {WORKER_NICE}")
WORKER_BEAT = env_float("WORKER_BEAT", 2.0, minimum=0.1, maximum=60.0)
WORKER_LOST = env_float("WORKER_LOST", 15.0, minimum=1.0, maximum=3600.0)
if WORKER_LOST <= 2 * WORKER_BEAT:
    raise ImproperlyConfigured(
        f"WORKER_LOST ({WORKER_LOST}) must be more than twice WORKER_BEAT ({WORKER_BEAT})"
    )
WORKER_STOP_GRACE = env_float("WORKER_STOP_GRACE", 3.0, minimum=0.0, maximum=60.0)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_tasks",
    "django_tasks_db",
    "core.accounts",
    "core.worker",
    "games",
    "leaderboard",
    "social",
    "groups",
    "ratings",
    "leagues",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "core.security.ContentSecurityPolicyMiddleware",
    # A NUL byte in a path, query, cookie or header: 400 before anything reads it (core.security).
    "core.security.NulByteMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A browser's device id, on its first HTML page (after WhiteNoise: never on a static file);
    # for the fair-play review, hashed (core/devices.py, docs/privacy.md).
    "core.devices.DeviceCookieMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session (it reads the session's and the cookie's language), before
    # CommonMiddleware (which may redirect, and should do so in the request's language).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it runs only synchronously, as the site's own middleware above do. Under ASGI,
    # Django runs every middleware below the lowest synchronous-only one in async mode, where
    # each hook of Django's own middleware is a hop from the event loop to the request's thread
    # and back; with none below it, the whole stack runs in the request's thread at once (9
    # hops a request → 6: docs/performance.md). It only sets the language cookie of a log-in.
    "core.accounts.language.LanguagePreferenceMiddleware",
]

ROOT_URLCONF = "canfield_site.urls"
WSGI_APPLICATION = "canfield_site.wsgi.application"
ASGI_APPLICATION = "canfield_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

# Every response's Content-Security-Policy: scripts, styles and everything else from this site
# only — no inline script or style anywhere (the frontend has none; keep it so), websockets to
# this host ('self' covers ws: and wss:), no framing, no plugins.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

# API paths answer CSRF failures outside DRF with the JSON error shape too.
CSRF_FAILURE_VIEW = "core.api_errors.csrf_failure"

# Behind a TLS-terminating proxy: secure cookies and trust its X-Forwarded-Proto header.
if env_bool("HTTPS", False):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Database ------------------------------------------------------------------------------

DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Under ASGI each request runs its database work in a fresh thread, so persistent
    # connections are not reused but pile up (Django ticket #33497). A psycopg connection pool
    # per process is what reuses them: DB_POOL_MAX connections at most, shared by all threads.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # (the pool checks what it lends)
    # Every wait is bounded: a request waits at most DB_POOL_TIMEOUT seconds for a connection
    # (then 503 unavailable: core.api_errors.handler500), a connection DB_CONNECT_TIMEOUT
    # seconds to be made, a statement DB_LOCK_TIMEOUT for a lock and DB_STATEMENT_TIMEOUT in all.
    # A pooled connection is checked before it is lent, so that after a restart of PostgreSQL
    # no request gets a connection to the server that is gone.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DB_POOL_MIN", 1),
        "max_size": env_int("DB_POOL_MAX", 10, minimum=1),
        "timeout": env_float("DB_POOL_TIMEOUT", 5.0, minimum=0.1, maximum=60.0),
    }
    DATABASES["default"]["OPTIONS"]["connect_timeout"] = env_int("DB_CONNECT_TIMEOUT", 3, minimum=1)
    server_options = [
        f"-c lock_timeout={env_int('DB_LOCK_TIMEOUT', 10, minimum=1)}s",
        f"-c statement_timeout={env_int('DB_STATEMENT_TIMEOUT', 120, minimum=1)}s",
    ]
    # Off: a commit returns before its WAL reaches the disk (a crash of the database server may
    # lose the last ~0.6 s of commits, never consistency). An action's commit then costs no
    # fsync (docs/performance.md). On by default.
    if not env_bool("DB_SYNCHRONOUS_COMMIT", True):
        server_options.append("-c synchronous_commit=off")
    DATABASES["default"]["OPTIONS"]["options"] = " ".join(server_options)
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent writers: begin every transaction IMMEDIATE so that a writer waits for the lock
    # (up to `timeout` seconds) instead of failing to upgrade a read lock ("database is locked"),
    # and use WAL so that readers never block the writer.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
# Transactions are opened by the services (games.services and friends), not per request.
DATABASES["default"]["ATOMIC_REQUESTS"] = False

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer and cache -------------------------------------------------------

# Redis is never required for a request to succeed: when it cannot be reached the service
# degrades (no live push, rate limits fail open, boards read the database) and says so at
# /api/health/. Every connection waits at most REDIS_CONNECT_TIMEOUT to connect and REDIS_TIMEOUT
# for an answer (seconds, 250 ms at most), without retrying; the first failure marks Redis down
# for REDIS_RETRY_SECONDS, during which it is not tried (core.redis_bounds).
REDIS_URL = env_redis("REDIS_URL")
# The cache (rate limits, cached answers, live snapshots) may live in a Redis of its own, bounded
# in memory with an eviction policy, apart from the ranking's sorted sets, which must never be
# evicted (docker-compose.yml): REDIS_CACHE_URL, else REDIS_URL.
REDIS_CACHE_URL = env_redis("REDIS_CACHE_URL") or REDIS_URL
REDIS_CONNECT_TIMEOUT = env_float("REDIS_CONNECT_TIMEOUT", 0.25, minimum=0.01, maximum=0.25)
REDIS_TIMEOUT = env_float("REDIS_TIMEOUT", 0.25, minimum=0.01, maximum=0.25)
REDIS_RETRY_SECONDS = env_float("REDIS_RETRY_SECONDS", 5.0, minimum=0.1, maximum=300.0)
CHANNEL_LAYERS: dict[str, dict[str, Any]]
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis's layer with a pool that waits for a free connection rather than
            # failing when a crowd connects at once (leaderboard/layers.py).
            "BACKEND": "leaderboard.layers.RedisChannelLayer",
            # Bounded waits, wider than REDIS_TIMEOUT's: the layer's replies are read by the event
            # loop that serves the process's sockets, which a crowd keeps busy — a reply sent in
            # time is read late, and a bound of 0.25 s took a busy moment for Redis away (2,000
            # watchers closed with 4503, docs/reliability.md). No request waits on the layer (it
            # serves the hub and the broadcasts), and a failed wait is taken for Redis away only
            # if Redis does not answer a PING either (leaderboard.live.fanout). A blocking pop
            # (how channels_redis waits for a message, up to its 5 s) waits that long plus the
            # read bound (redis_bounds.BoundedAsyncConnection).
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 2.0,
                        "socket_connect_timeout": 2.0,
                    }
                ],
                "prefix": "canfield",
            },
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_CACHE_URL,
            "KEY_PREFIX": "canfield",
            "OPTIONS": {
                **redis_bounds.pool_options(
                    str(REDIS_CACHE_URL), REDIS_CONNECT_TIMEOUT, REDIS_TIMEOUT
                ),
                # One pool a process, not one per request's cache object.
                "pool_class": redis_bounds.SharedConnectionPool,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Limits --------------------------------------------------------------------------------

# The largest request body, in bytes, under /api/ and elsewhere (the admin's forms): a larger one
# is refused with 413 too_large before the application reads it (core.limits; in the deployed
# shape nginx's client_max_body_size refuses a larger one before it reaches Daphne).
MAX_BODY_API = env_int("MAX_BODY_API", 64 * 1024, minimum=1024)
MAX_BODY = env_int("MAX_BODY", 1024 * 1024, minimum=1024)

# Every websocket, in each web process (core.socket_limits, and Daphne's own options, which
# canfield_site.serve builds from these): a frame over SOCKET_MAX_MESSAGE bytes is dropped by
# Daphne as it begins, a message over it in smaller frames closed with 4009; more messages than
# SOCKET_MESSAGE_BURST at once, refilled at SOCKET_MESSAGES_PER_SECOND, are closed with 4008; once
# over half of SOCKET_MAX_PENDING bytes were sent to a socket since it last answered a ping, it is
# pinged ({"type": "ping", "n"}), and closed with 4008 not_reading if the count passes
# SOCKET_MAX_PENDING unanswered (64 KB at least: it is Daphne's largest message too, either
# way, which the board's snapshot, ~33 KB, must fit); a network (an IPv4 /24, an IPv6 /64) holds
# at most SOCKET_MAX_PER_NETWORK sockets of a process, the next is refused with 4429. Daphne
# pings (a protocol ping) a socket that sent nothing for SOCKET_PING_INTERVAL seconds and drops
# it when no answer came within SOCKET_PING_TIMEOUT.
SOCKET_MAX_MESSAGE = env_int("SOCKET_MAX_MESSAGE", 4096, minimum=256)
SOCKET_MESSAGES_PER_SECOND = env_float(
    "SOCKET_MESSAGES_PER_SECOND", 10.0, minimum=0.1, maximum=10_000.0
)
SOCKET_MESSAGE_BURST = env_int("SOCKET_MESSAGE_BURST", 20, minimum=1)
SOCKET_MAX_PENDING = env_int("SOCKET_MAX_PENDING", 256 * 1024, minimum=64 * 1024)
SOCKET_MAX_PER_NETWORK = env_int("SOCKET_MAX_PER_NETWORK", 50, minimum=1)
SOCKET_PING_INTERVAL = env_int("SOCKET_PING_INTERVAL", 20, minimum=1)
SOCKET_PING_TIMEOUT = env_int("SOCKET_PING_TIMEOUT", 30, minimum=1)
# A game's socket plays its messages in a pool of GAME_SOCKET_THREADS threads per web process
# (games.api.consumers), so that one socket's wait on the database overlaps another's; one
# message of a socket at a time, in order. Each thread keeps the connection it was lent, so on
# PostgreSQL they must leave the pool (DB_POOL_MAX) some for the HTTP requests.
GAME_SOCKET_THREADS = env_int("GAME_SOCKET_THREADS", 4, minimum=1)
_pool = DATABASES["default"].get("OPTIONS", {}).get("pool")
if _pool and _pool["max_size"] <= GAME_SOCKET_THREADS:
    raise ImproperlyConfigured(
        f"GAME_SOCKET_THREADS ({GAME_SOCKET_THREADS}) must be below DB_POOL_MAX "
        f"({_pool['max_size']}): each game-socket thread keeps a connection of the pool."
    )
# A game's spectators (/ws/games/<id>/watch/, games.watch_hub), counted across every process:
# the next past WATCHERS_PER_GAME is refused (too_many_watchers, closed 4429).
WATCHERS_PER_GAME = env_int("WATCHERS_PER_GAME", 500, minimum=1)

# The most actions one game may have, undos included: the next one is refused with 409
# game_too_long (a game's log, its record and the cost of each action stay bounded).
MAX_GAME_ACTIONS = env_int("MAX_GAME_ACTIONS", 5000, minimum=1)
# A hint (practice games) searches for a winning line this long, in seconds, in the solver pool;
# a position it proves lost is walked back (to the last one that can still be won) within it too.
HINT_SECONDS = env_float("HINT_SECONDS", 2.0, minimum=0.1, maximum=10.0)

# The solver pool (games.pool): a player's searches (hints) and the records a request builds run
# in worker processes (a pebble ProcessPool), never on a thread of a web process. Each web process
# has SOLVER_WORKERS workers. A task starts at once on a free worker, or waits at most SOLVER_WAIT
# seconds for one due to be free by then (by the budgets of the tasks ahead of it; at most
# SOLVER_QUEUE tasks wait at once), or is refused at once: 503 busy with Retry-After. Once
# started, a task running SOLVER_WAIT seconds beyond its own budget is ended (its worker killed
# and replaced) and its request answered 503 busy.
SOLVER_WORKERS = env_int("SOLVER_WORKERS", 1, minimum=1)
SOLVER_QUEUE = env_int("SOLVER_QUEUE", 4, minimum=0)
SOLVER_WAIT = env_float("SOLVER_WAIT", 2.0, minimum=0.1, maximum=300.0)
# The workers' scheduling priority (nice, 0 to 19): above 0, the CPU goes to the web processes
# first when both want it.
SOLVER_NICE = env_int("SOLVER_NICE", 10, minimum=0)
# The pool's workers are started at a process's first request, not at its first search.
SOLVER_PRESTART = env_bool("SOLVER_PRESTART", True)
if SOLVER_NICE > 19:
    raise ImproperlyConfigured(f"SOLVER_NICE: expected 0 to 19, got {SOLVER_NICE}")

# The admin (/admin/, read-only over games): on by default for `make run`; the compose file
# turns it off unless ADMIN_ENABLED is set there. Its log-in page has the API's log-in limits.
ADMIN_ENABLED = env_bool("ADMIN_ENABLED", True)

# --- Accounts ------------------------------------------------------------------------------

# An API token works for this many days after it was issued (then 401: log in again, which
# issues a new one). Sessions (the pages) keep Django's own two weeks.
TOKEN_LIFETIME_DAYS = env_int("TOKEN_LIFETIME_DAYS", 30, minimum=1)
# API tokens are django-rest-knox's (core.accounts.auth): hashed at rest, a new one at each
# log-in, each with its own expiry (fixed at issue: no refresh), sent as `Authorization: Token`.
REST_KNOX = {
    "TOKEN_TTL": dt.timedelta(days=TOKEN_LIFETIME_DAYS),
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
}

# Password hashing (core.accounts.hashing): a log-in, a sign-up or the admin's log-in
# gives its database connection back before it hashes, and hashes in one of LOGIN_HASH_SLOTS slots
# of its process (default: the CPUs it may run on, at least 2); one that finds no slot free within
# LOGIN_HASH_WAIT seconds is answered 503 busy at once, with Retry-After. ModelBackend stays
# listed for the sessions it logged in (guests).
AUTHENTICATION_BACKENDS = [
    "core.accounts.hashing.SlotBackend",
    "django.contrib.auth.backends.ModelBackend",
]
_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
LOGIN_HASH_SLOTS = env_int("LOGIN_HASH_SLOTS", max(2, _CPUS or 2), minimum=1)
LOGIN_HASH_WAIT = env_float("LOGIN_HASH_WAIT", 0.5, minimum=0.0, maximum=30.0)
# A hash runs at this scheduling priority (nice, 0 to 19; 0: unchanged): the CPU goes to other
# requests first.
LOGIN_HASH_NICE = env_int("LOGIN_HASH_NICE", 10, minimum=0)
if LOGIN_HASH_NICE > 19:
    raise ImproperlyConfigured(f"LOGIN_HASH_NICE: expected 0 to 19, got {LOGIN_HASH_NICE}")

# A visitor's first practice game makes them a guest (core.accounts.guests); a guest
# with no game started nor action played for this many days is deleted with their games by the
# worker tier (accounts.tasks.purge_guests, hourly).
GUEST_IDLE_DAYS = env_int("GUEST_IDLE_DAYS", 30, minimum=1)

# Following (social): the most players one player may follow; one more is refused with 409
# follow_limit (the Following view and the home page's list stay bounded).
FOLLOWS_MAX = env_int("FOLLOWS_MAX", 1000, minimum=1)

# Groups of friends (groups): the most groups one player may belong to, those they own
# included (one more is refused with 409 too_many_groups), and the most members a group may
# have (409 group_full): a group's board, table and page stay bounded.
GROUPS_PER_PLAYER = env_int("GROUPS_PER_PLAYER", 20, minimum=1)
GROUP_MEMBERS_MAX = env_int("GROUP_MEMBERS_MAX", 50, minimum=2)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Time and language ---------------------------------------------------------------------

# English, Turkish, Finnish and Albanian. The language of a request: the language menu's choice
# (the django_language cookie, set from the account's preference at log-in), else the browser's
# Accept-Language, else English. Catalogs live in locale/ (README: adding a translation).
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("tr", "Türkçe"),
    ("fi", "Suomi"),
    ("sq", "Shqip"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "django_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files --------------------------------------------------------------------------

# WhiteNoise serves static files from the Daphne processes themselves. `make run` and the
# Docker image run collectstatic (gzipped copies in STATIC_ROOT); without a STATIC_ROOT, or
# with DEBUG on, files are found straight in the apps' static/ folders. No manifest: a
# template's {% static %} never depends on collectstatic having run.
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # WhiteNoise's compressed storage, compressing only what changed since the last collectstatic.
    "staticfiles": {"BACKEND": "core.storage.IncrementalCompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG or not STATIC_ROOT.is_dir()

# --- REST API ------------------------------------------------------------------------------

# Throttle rates by scope; a view opts in with `throttle_scope = "<scope>"`.
THROTTLE_RATES = {
    # (Per address: an IPv4 address, or an IPv6 /64.)
    "signup": env_rate("THROTTLE_SIGNUP", "10/hour"),
    # Log-ins (the API's and the admin's): every attempt per client address; failed attempts per
    # account and network (an IPv4 /24, an IPv6 /64), and per account from all networks together
    # — a ceiling that never stops a network the account has logged in from before
    # (core.throttling.LoginLimits).
    "login": env_rate("THROTTLE_LOGIN", "20/min"),
    "login_account": env_rate("THROTTLE_LOGIN_ACCOUNT", "10/hour"),
    "login_account_all": env_rate("THROTTLE_LOGIN_ACCOUNT_ALL", "50/hour"),
    "actions": env_rate("THROTTLE_ACTIONS", "600/min"),
    # A record with every state (?states=1) costs up to ~2 MB and 0.4 s: per player, or address.
    "states": env_rate("THROTTLE_STATES", "30/min"),
    # A hint may search for up to HINT_SECONDS: per player.
    "hints": env_rate("THROTTLE_HINTS", "20/min"),
    # A practice game asks the solver, unasked, whether its position is lost (GET .../verdict/):
    # searches like a hint's, per player, counted apart from the hints.
    "verdicts": env_rate("THROTTLE_VERDICTS", "30/min"),
    # New practice games: per player (guests too), and per network (/24 or /64) for everyone.
    "practice": env_rate("THROTTLE_PRACTICE", "60/hour"),
    "practice_network": env_rate("THROTTLE_PRACTICE_NETWORK", "300/hour"),
    # Guests, per network: new guests (a visitor's first game makes one), and their new games.
    "guests": env_rate("THROTTLE_GUESTS", "30/hour"),
    "guest_games": env_rate("THROTTLE_GUEST_GAMES", "120/hour"),
    # Follows and unfollows, per player (social).
    "follows": env_rate("THROTTLE_FOLLOWS", "100/hour"),
    # Groups: joins per network (/24 or /64; a guess at an invite is a join), and every group
    # action per player (create, join, leave, rename, remove a member, a new invite).
    "group_joins": env_rate("THROTTLE_GROUP_JOINS", "30/hour"),
    "group_actions": env_rate("THROTTLE_GROUP_ACTIONS", "60/hour"),
}

REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes "not logged in" a 401, not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "core.accounts.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    "DEFAULT_METADATA_CLASS": "core.parsers.Metadata",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.ScopedThrottle"],
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
    # Proxies in front of Daphne that append to X-Forwarded-For (nginx in docker-compose: 1).
    # 0 trusts no such header: the client is the socket's peer.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0),
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Canfield Online API",
    "DESCRIPTION": (
        "The daily Canfield deal, practice games, a live leaderboard and replays. "
        'Errors are {"code": ..., "message": ...}.'
    ),
    "VERSION": "1.0.0",
    # OpenAPI 3.1: its schemas are JSON Schema, which the contract test validates responses with.
    "OAS_VERSION": "3.1.0",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema.openapi_31_nullable",
        "core.schema.common_responses",
    ],
    "SERVE_INCLUDE_SCHEMA": False,
    # Two payloads have a `status`: a game's and its analysis's, each its own enum.
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": ["in_progress", "won", "resigned"],
        "AnalysisStatusEnum": ["analysing", "ready", "undecided"],
    },
    # Swagger UI and Redoc from the drf-spectacular-sidecar package: no CDN at run time.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # validatorUrl null: Swagger UI would otherwise ask validator.swagger.io for a badge.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Logging -------------------------------------------------------------------------------

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"LOG_LEVEL: expected DEBUG, INFO, WARNING, ERROR or CRITICAL, got {LOG_LEVEL!r}"
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"intended_unavailable": {"()": "core.logs.IntendedUnavailable"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # A 503 the service answers by design is logged once, as a warning, by the code that gives it.
    "loggers": {"django.request": {"filters": ["intended_unavailable"]}},
}

"""Settings come from the environment through helpers that fail loudly on bad values."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from canfield_site import settings as site_settings
from canfield_site.settings import (
    env_bands,
    env_bool,
    env_database,
    env_float,
    env_int,
    env_list,
    env_origins,
    env_rate,
    env_redis,
    env_str,
)
from games.engine.difficulty import Band

ROOT = Path(__file__).resolve().parents[2]
OUR_VARIABLES = {
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "DAILY_DEAL_SECRET",
    "DAILY_DEAL_POSITIONS",
    "DAILY_DEAL_CANDIDATES",
    "DAILY_DEAL_SHORTEN_POSITIONS",
    "DAILY_DIFFICULTY_GAMES",
    "DAILY_DIFFICULTY_WEEK",
    "FAIR_PLAY_JUDGE_POSITIONS",
    "DATABASE_URL",
    "DB_POOL_MIN",
    "DB_POOL_MAX",
    "REDIS_URL",
    "HTTPS",
    "NUM_PROXIES",
    "THROTTLE_SIGNUP",
    "THROTTLE_LOGIN",
    "THROTTLE_LOGIN_ACCOUNT",
    "THROTTLE_LOGIN_ACCOUNT_ALL",
    "LOGIN_HASH_SLOTS",
    "LOGIN_HASH_WAIT",
    "LOGIN_HASH_NICE",
    "THROTTLE_ACTIONS",
    "THROTTLE_STATES",
    "MAX_BODY_API",
    "MAX_BODY",
    "SOCKET_MAX_MESSAGE",
    "SOCKET_MESSAGES_PER_SECOND",
    "SOCKET_MESSAGE_BURST",
    "SOCKET_MAX_PENDING",
    "SOCKET_MAX_PER_NETWORK",
    "SOCKET_PING_INTERVAL",
    "SOCKET_PING_TIMEOUT",
    "GAME_SOCKET_THREADS",
    "MAX_GAME_ACTIONS",
    "TOKEN_LIFETIME_DAYS",
    "ADMIN_ENABLED",
    "LOG_LEVEL",
    "THROTTLE_HINTS",
    "THROTTLE_VERDICTS",
    "THROTTLE_PRACTICE",
    "THROTTLE_PRACTICE_NETWORK",
    "THROTTLE_GUESTS",
    "THROTTLE_GUEST_GAMES",
    "GUEST_IDLE_DAYS",
    "HINT_SECONDS",
    "SOLVER_WORKERS",
    "SOLVER_QUEUE",
    "SOLVER_WAIT",
    "SOLVER_NICE",
    "SOLVER_PRESTART",
    "DAILY_DEAL_SECONDS",
    "ANALYSIS_POSITIONS",
    "ANALYSIS_SHORTEN_POSITIONS",
    "ANALYSIS_SECONDS",
    "ANALYSIS_BATCH",
    "WORKER_INTERVAL",
    "WORKER_NICE",
    "WORKER_BEAT",
    "WORKER_LOST",
    "WORKER_STOP_GRACE",
    "REDIS_CACHE_URL",
    "REDIS_CONNECT_TIMEOUT",
    "REDIS_TIMEOUT",
    "REDIS_RETRY_SECONDS",
    "DB_POOL_TIMEOUT",
    "DB_CONNECT_TIMEOUT",
    "DB_LOCK_TIMEOUT",
    "DB_STATEMENT_TIMEOUT",
    "DB_SYNCHRONOUS_COMMIT",
}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("true", True), ("Yes", True), (" ON ", True), ("0", False), ("FALSE", False)]
    + [("no", False), ("off", False), ("", False)],
)
def test_it_reads_booleans_strictly(raw, expected):
    assert env_bool("DEBUG", False, {"DEBUG": raw}) is expected


@pytest.mark.parametrize("raw", ["maybe", "2", "y", "enabled", "tru"])
def test_it_refuses_a_bad_boolean_naming_the_variable(raw):
    with pytest.raises(ImproperlyConfigured) as error:
        env_bool("DEBUG", False, {"DEBUG": raw})

    assert str(error.value) == (
        f"DEBUG: expected one of 1/true/yes/on or 0/false/no/off, got {raw!r}"
    )


def test_it_uses_defaults_for_unset_variables():
    assert env_bool("DEBUG", True, {}) is True
    assert env_str("SECRET_KEY", "dev", {"SECRET_KEY": "  "}) == "dev"
    assert env_int("NUM_PROXIES", 0, {}) == 0
    assert env_float("HINT_SECONDS", 2.0, {}) == 2.0
    assert env_float("HINT_SECONDS", 2.0, {"HINT_SECONDS": " 0.5 "}) == 0.5
    assert env_list("ALLOWED_HOSTS", "a,b", {}) == ["a", "b"]
    assert env_origins("CSRF_TRUSTED_ORIGINS", "", {}) == []
    assert env_rate("THROTTLE_LOGIN", "20/min", {}) == "20/min"
    assert env_redis("REDIS_URL", {}) is None


def test_it_reads_good_values():
    assert env_int("NUM_PROXIES", 0, {"NUM_PROXIES": " 2 "}) == 2
    assert env_list("ALLOWED_HOSTS", "", {"ALLOWED_HOSTS": "a.org, b.org"}) == ["a.org", "b.org"]
    assert env_origins("O", "", {"O": "https://a.org,http://b.org:8080"}) == [
        "https://a.org",
        "http://b.org:8080",
    ]
    assert env_rate("T", "", {"T": "5 / Hour"}) == "5/hour"
    assert env_rate("T", "", {"T": "off"}) is None
    assert env_redis("R", {"R": "redis://127.0.0.1:6379/1"}) == "redis://127.0.0.1:6379/1"
    week = ",".join(["40-100"] * 6 + ["0-10"])
    assert env_bands("W", "", {"W": week}) == (Band(40, 100),) * 6 + (Band(0, 10),)
    config = env_database("D", "", {"D": "postgres://u:p@db.example:5433/canfield"})
    assert (config["ENGINE"], config["NAME"], config["HOST"], config["PORT"]) == (
        "django.db.backends.postgresql",
        "canfield",
        "db.example",
        5433,
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: env_int("NUM_PROXIES", 0, {"NUM_PROXIES": "one"}),
            "NUM_PROXIES: expected a whole number, got 'one'",
        ),
        (
            lambda: env_int("NUM_PROXIES", 0, {"NUM_PROXIES": "-1"}),
            "NUM_PROXIES: expected a number >= 0, got -1",
        ),
        (
            lambda: env_float("HINT_SECONDS", 2.0, {"HINT_SECONDS": "soon"}),
            "HINT_SECONDS: expected a number, got 'soon'",
        ),
        (
            lambda: env_float("HINT_SECONDS", 2.0, {"HINT_SECONDS": "nan"}, 0.1, 10.0),
            "HINT_SECONDS: expected a number from 0.1 to 10.0, got nan",
        ),
        (
            lambda: env_list("ALLOWED_HOSTS", "", {"ALLOWED_HOSTS": "a.org,,b.org"}),
            "ALLOWED_HOSTS: empty item in comma-separated list 'a.org,,b.org'",
        ),
        (
            lambda: env_origins("CSRF_TRUSTED_ORIGINS", "", {"CSRF_TRUSTED_ORIGINS": "a.org"}),
            "CSRF_TRUSTED_ORIGINS: expected origins like https://example.org, got 'a.org'",
        ),
        (
            lambda: env_rate("THROTTLE_LOGIN", "", {"THROTTLE_LOGIN": "lots"}),
            "THROTTLE_LOGIN: expected a rate like 20/min, 10/hour or 'off', got 'lots'",
        ),
        (
            lambda: env_rate("THROTTLE_LOGIN", "", {"THROTTLE_LOGIN": "0/min"}),
            "THROTTLE_LOGIN: expected a rate like 20/min, 10/hour or 'off', got '0/min'",
        ),
        (
            lambda: env_bands("W", "", {"W": "35-100,0-5"}),
            "W: expected 7 bands, Monday first, got 2",
        ),
        (
            lambda: env_bands("W", "", {"W": ",".join(["35-100"] * 6 + ["5-1"])}),
            "W: a band runs from 0 to 100 per cent, low below high: 5-1",
        ),
        (
            lambda: env_bands("W", "", {"W": ",".join(["35-100"] * 6 + ["hard"])}),
            "W: a band is written LOW-HIGH in per cent (35-100), not 'hard'",
        ),
        (
            lambda: env_redis("REDIS_URL", {"REDIS_URL": "127.0.0.1:6379"}),
            "REDIS_URL: expected a URL like redis://127.0.0.1:6379/0, got '127.0.0.1:6379'",
        ),
    ],
)
def test_it_refuses_bad_values_naming_the_variable(call, message):
    with pytest.raises(ImproperlyConfigured) as error:
        call()

    assert str(error.value) == message


def test_it_refuses_a_bad_database_url_naming_the_variable():
    with pytest.raises(ImproperlyConfigured, match=r"^DATABASE_URL: cannot read database URL"):
        env_database("DATABASE_URL", "", {"DATABASE_URL": "oracle-ish://nowhere"})


def run_settings(**variables: str) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh interpreter with exactly these variables of ours."""
    env = {key: value for key, value in os.environ.items() if key not in OUR_VARIABLES}
    env.update(variables, DJANGO_SETTINGS_MODULE="canfield_site.settings")
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'DEBUG': s.DEBUG, 'ALLOWED_HOSTS': s.ALLOWED_HOSTS, "
        "'DB': s.DATABASES['default']['ENGINE'], 'DB_NAME': str(s.DATABASES['default']['NAME']), "
        "'CONN_MAX_AGE': s.DATABASES['default']['CONN_MAX_AGE'], "
        "'ATOMIC_REQUESTS': s.DATABASES['default']['ATOMIC_REQUESTS'], "
        "'LAYER': s.CHANNEL_LAYERS['default']['BACKEND'], "
        "'CACHE': s.CACHES['default']['BACKEND'], "
        "'CACHE_AT': s.CACHES['default'].get('LOCATION'), "
        "'LAYER_AT': s.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('hosts'), "
        "'DAILY': s.DAILY_DEAL_SECRET, 'SECRET': s.SECRET_KEY, "
        "'RATES': s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'], "
        "'LIMITS': [s.MAX_BODY_API, s.MAX_BODY, s.MAX_GAME_ACTIONS, s.TOKEN_LIFETIME_DAYS], "
        "'ADMIN': s.ADMIN_ENABLED}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_it_stops_django_setup_on_a_bad_debug_value():
    result = run_settings(DEBUG="maybe")

    assert result.returncode != 0
    assert (
        "ImproperlyConfigured: DEBUG: expected one of 1/true/yes/on or 0/false/no/off, "
        "got 'maybe'" in result.stderr
    )


def test_it_stops_django_setup_on_a_band_no_share_of_the_games_falls_in():
    result = run_settings(DAILY_DIFFICULTY_GAMES="4")  # shares of 4 games: 0, 25, 50, 75, 100%

    assert result.returncode != 0
    assert (
        "DAILY_DIFFICULTY_WEEK: no share of 4 games (DAILY_DIFFICULTY_GAMES) falls in band 5-15"
        in result.stderr
    )


def test_it_stops_django_setup_on_a_bad_throttle_rate():
    result = run_settings(THROTTLE_ACTIONS="fast")

    assert result.returncode != 0
    assert "THROTTLE_ACTIONS: expected a rate like" in result.stderr


def test_it_stops_django_setup_when_the_game_sockets_would_hold_the_whole_pool():
    """Each game-socket thread keeps a connection of the pool: as many threads as connections
    would leave none for the HTTP requests."""
    database = "postgres://postgres@127.0.0.1:5432/test"
    refused = run_settings(DATABASE_URL=database, DB_POOL_MAX="4", GAME_SOCKET_THREADS="4")
    accepted = run_settings(DATABASE_URL=database, DB_POOL_MAX="5", GAME_SOCKET_THREADS="4")

    assert refused.returncode != 0
    assert (
        "ImproperlyConfigured: GAME_SOCKET_THREADS (4) must be below DB_POOL_MAX (4)"
        in refused.stderr
    )
    assert accepted.returncode == 0, accepted.stderr


def test_it_has_safe_zero_setup_defaults():
    result = run_settings()

    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["DEBUG"] is False
    assert values["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost"]
    assert values["DB"] == "django.db.backends.sqlite3"
    assert values["DB_NAME"] == str(ROOT / "db.sqlite3")
    assert values["ATOMIC_REQUESTS"] is False
    assert values["LAYER"] == "channels.layers.InMemoryChannelLayer"
    assert values["CACHE"] == "django.core.cache.backends.locmem.LocMemCache"
    assert values["SECRET"].startswith("django-insecure-")
    assert values["DAILY"] == ""  # generated into the database on first use
    assert values["RATES"] == {
        "signup": "10/hour",
        "login": "20/min",
        "login_account": "10/hour",
        "login_account_all": "50/hour",
        "actions": "600/min",
        "states": "30/min",
        "hints": "20/min",
        "verdicts": "30/min",
        "practice": "60/hour",
        "practice_network": "300/hour",
        "guests": "30/hour",
        "guest_games": "120/hour",
        "follows": "100/hour",
        "group_joins": "30/hour",
        "group_actions": "60/hour",
    }
    assert values["LIMITS"] == [65536, 1048576, 5000, 30]
    assert values["ADMIN"] is True


def test_every_variable_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Configuration") :]

    assert [name for name in sorted(OUR_VARIABLES) if f"`{name}`" not in table] == []


def test_it_uses_postgresql_and_redis_when_told():
    result = run_settings(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/canfield",
        REDIS_URL="redis://127.0.0.1:6379/3",
        SECRET_KEY="s3cret",
        DAILY_DEAL_SECRET="9f2c4e7a1b8d3f6e0c5a9b2d7e4f1a8c",
        ALLOWED_HOSTS="canfield.example",
        THROTTLE_ACTIONS="off",
    )

    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["DB"] == "django.db.backends.postgresql"
    assert values["DB_NAME"] == "canfield"
    assert values["CONN_MAX_AGE"] == 0
    assert values["LAYER"] == "leaderboard.layers.RedisChannelLayer"  # channels_redis, pooled
    assert values["CACHE"] == "django.core.cache.backends.redis.RedisCache"
    assert (values["SECRET"], values["DAILY"]) == ("s3cret", "9f2c4e7a1b8d3f6e0c5a9b2d7e4f1a8c")
    assert values["ALLOWED_HOSTS"] == ["canfield.example"]
    assert values["RATES"]["actions"] is None
    assert values["CACHE_AT"] == "redis://127.0.0.1:6379/3"  # one Redis for all, unless told


def test_the_cache_may_have_a_redis_of_its_own():
    result = run_settings(
        REDIS_URL="redis://127.0.0.1:6379/3", REDIS_CACHE_URL="redis://127.0.0.1:6380/0"
    )

    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["CACHE_AT"] == "redis://127.0.0.1:6380/0"
    assert values["LAYER_AT"][0]["address"] == "redis://127.0.0.1:6379/3"


def test_it_never_derives_the_daily_secret_and_refuses_a_guessable_one():
    one = json.loads(run_settings(SECRET_KEY="one").stdout)["DAILY"]
    assert one == ""  # nothing derived from a (possibly public) SECRET_KEY

    weak = {
        "a short hex string": "9f2c4e7a1b8d3f6e0c5a9b2d7e4f1a8",  # 31 hex digits: 124 bits
        "a short base64 one": "nB4kQz9XwL2pR7tYv1Hs0",  # 21 characters: 126 bits
        "a pattern repeated": "0123456789abcdef0123456789abcdef",
        "few characters": "aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd",
        "a phrase": "daily-deal-secret",
        "a typed password": "Password123!Password",
    }
    for value in weak.values():
        refused = run_settings(DAILY_DEAL_SECRET=value)
        assert refused.returncode != 0, value
        assert "DAILY_DEAL_SECRET: too easy to guess" in refused.stderr, value
        assert "openssl rand -hex 32" in refused.stderr  # how to make one
    for value in (
        "9f2c4e7a1b8d3f6e0c5a9b2d7e4f1a8c",  # 32 hex digits: 128 bits
        "nB4kQz9XwL2pR7tYv1Hs0m",  # 22 base64 characters: 132 bits
        "a passphrase made long enough for its words",
    ):
        assert run_settings(DAILY_DEAL_SECRET=value).returncode == 0, value


def test_it_runs_the_test_suite_on_what_the_environment_says():
    expected = os.environ.get("DATABASE_URL", "sqlite").split(":")[0]
    engine = site_settings.DATABASES["default"]["ENGINE"]
    assert engine.endswith({"sqlite": "sqlite3", "postgres": "postgresql"}[expected])

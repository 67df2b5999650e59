"""The database away: every request that needs it is answered 503 ``unavailable`` with
Retry-After — JSON under /api/, the site's own page elsewhere, which reloads itself — never a 500;
liveness (/api/health/) stays 200. On SQLite (a database file that cannot be opened) and on
PostgreSQL (a port where nothing listens: the pool gives up after DB_POOL_TIMEOUT)."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.support import Daphne, django_env, free_port, get_json


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def down(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("database-down")
    url = (
        f"sqlite:///{work / 'missing' / 'db.sqlite3'}"
        if request.param == "sqlite"
        else f"postgres://postgres@127.0.0.1:{free_port()}/gone"
    )
    with Daphne(django_env(url, DB_POOL_TIMEOUT="0.5"), work / "daphne.log") as server:
        yield server.url


def fetch(url: str, token: str = "") -> tuple[int, dict[str, str], str]:
    headers = {"Authorization": f"Token {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def test_the_api_answers_503_unavailable_with_retry_after(down):
    # (a token of a key's shape, which only the database can refuse)
    paths = [("/api/games/", "0" * 64), ("/api/daily/days/", ""), ("/api/players/someone/", "")]
    for path, token in paths:
        status, body = get_json(f"{down}{path}", token)

        assert (status, body) == (
            503,
            {
                "code": "unavailable",
                "message": "The service is briefly unavailable. Please try again in a few seconds.",
                "retry_after": 5,
            },
        ), path
    assert get_json(f"{down}/api/health/") == (200, {"status": "ok", "redis": "off"})
    assert get_json(f"{down}/api/health/ready/")[1]["database"] == "down"


def test_a_page_answers_the_sites_503_page_that_reloads_itself(down):
    status, headers, html = fetch(f"{down}/players/someone/")

    assert (status, headers["Retry-After"]) == (503, "5")
    assert headers["Content-Type"].startswith("text/html")
    assert '<meta http-equiv="refresh" content="5">' in html
    assert "Back in a moment" in html and "Nothing you did is lost." in html
    assert "This page tries again by itself in 5 seconds." in html
    assert 'class="topbar"' in html  # the site's own page, with its navigation

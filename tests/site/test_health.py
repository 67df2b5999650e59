"""GET /api/health/ (liveness: always 200, Redis reported) and /api/health/ready/ (readiness:
503 while the database is down). Redis that cannot be reached is a real closed port here."""

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.conf import settings as django_settings

from canfield_site.asgi import application
from tests.support import Daphne, asgi_request, django_env, free_port

#: What the test process's own Redis is: "off" on the in-memory settings, "up" with REDIS_URL.
REDIS = "up" if django_settings.REDIS_URL else "off"


def test_it_answers_ok(api):
    response = api.get("/api/health/")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "redis": REDIS}


def test_it_ignores_a_bad_token(api):
    api.credentials(HTTP_AUTHORIZATION="Token nope")

    assert api.get("/api/health/").json() == {"status": "ok", "redis": REDIS}


def test_it_reports_a_redis_that_does_not_answer_and_stays_200(api, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"

    response = api.get("/api/health/")

    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "redis": "down"}


@pytest.mark.django_db
def test_it_is_ready_with_its_database(api):
    response = api.get("/api/health/ready/")

    assert response.status_code == 200
    assert response.json() == {"status": "ready", "database": "up", "redis": REDIS}


@pytest.mark.django_db
def test_it_is_ready_without_redis_which_is_not_required(api, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"

    response = api.get("/api/health/ready/")

    assert response.status_code == 200
    assert response.json() == {"status": "ready", "database": "up", "redis": "down"}


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_it_is_not_ready_while_its_database_is_down(tmp_path):
    """A live process whose SQLite file cannot be opened (its folder does not exist): alive,
    not ready."""
    env = django_env(f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}")
    with Daphne(env, tmp_path / "daphne.log") as server:
        assert get(f"{server.url}/api/health/") == (200, {"status": "ok", "redis": "off"})
        assert get(f"{server.url}/api/health/ready/") == (
            503,
            {"status": "unavailable", "database": "down", "redis": "off"},
        )


def asgi_get(path: str) -> tuple[int, dict[bytes, bytes], bytes]:
    """GET through the ASGI application Daphne serves."""
    status, headers, body, _ = asgi_request(application, "GET", path)
    return status, headers, body


def test_it_answers_through_the_asgi_application():
    status, headers, body = asgi_get("/api/health/")

    assert status == 200
    assert headers[b"content-type"] == b"application/json"
    assert json.loads(body) == {"status": "ok", "redis": REDIS}


def test_it_serves_static_files_through_the_asgi_application():
    status, headers, body = asgi_get(
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css"
    )

    assert status == 200
    assert headers[b"content-type"].startswith(b"text/css")
    assert body.startswith(b".swagger-ui")

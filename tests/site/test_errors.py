"""Every API error is {"code": ..., "message": ...}, whoever raises it."""

import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, override_settings

from core import api_errors
from games.engine import REASON_CODES
from games.engine.reasons import DEAL_CODE_CODES, NOTATION_CODES, RULE_CODES
from tests.site.error_urls import Refused

pytestmark = pytest.mark.urls("tests.site.error_urls")
API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


@pytest.fixture
def registry(monkeypatch):
    """The site's registry of domain errors, restored after the test."""
    monkeypatch.setattr(api_errors, "STATUS", dict(api_errors.STATUS))
    monkeypatch.setattr(api_errors, "_BODIES", dict(api_errors._BODIES))


def test_a_503_by_design_is_one_warning_and_a_crash_an_error(api, caplog):
    """A 503 the service gives by design (busy: ask again) is working as meant: logged once, as a
    warning with its code, never as Django's error for a 5xx (core.logs); a crash stays an
    error, with its traceback."""
    caplog.set_level("WARNING")
    busy = api.get("/api/busy/")
    assert (busy.status_code, busy["Retry-After"], busy.json()["code"]) == (503, "2", "busy")
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("core.api_errors", "WARNING", "503 busy: /api/busy/")
    ]
    caplog.clear()

    crashed = Client(raise_request_exception=False).get("/api/crash/")
    assert crashed.status_code == 500
    errors = [r for r in caplog.records if r.name == "django.request"]
    assert [r.levelname for r in errors] == ["ERROR"] and errors[0].exc_info is not None


def test_it_answers_a_registered_domain_error_at_its_codes_status(api, registry):
    api_errors.register_statuses({"over_quota": 429})
    api_errors.register_error(Refused, lambda exc: {"code": exc.code, "message": "No.", "left": 0})

    response = api.get("/api/refused/")

    assert response.status_code == 429
    assert response.json() == {"code": "over_quota", "message": "No.", "left": 0}


def test_it_knows_no_domain_error_that_no_app_registered(db, registry):
    client = Client(raise_request_exception=False)

    response = client.get("/api/refused/")

    assert response.status_code == 500
    assert response.json() == {"code": "server_error", "message": "Internal server error."}


def test_two_apps_may_register_a_code_with_one_status_only(registry):
    api_errors.register_statuses({"not_found": 404})
    assert api_errors.STATUS["not_found"] == 404
    with pytest.raises(ImproperlyConfigured, match="not_found"):
        api_errors.register_statuses({"not_found": 410})


def test_the_api_doc_lists_every_code_with_its_status():
    rows = re.findall(r"^\| (\d{3}) \| `(\w+)` \|", API_DOC.read_text(), re.MULTILINE)
    documented = {code: int(status) for status, code in rows}
    assert {code: documented.get(code) for code in api_errors.STATUS} == api_errors.STATUS


def test_the_api_doc_lists_every_reason_with_its_error_code():
    rows = re.findall(r"^\| `(\w+)` \| `(\w+)` \|", API_DOC.read_text(), re.MULTILINE)
    error_of: dict[str, str] = {
        **{code: "illegal_action" for code in RULE_CODES},
        **{code: "bad_notation" for code in NOTATION_CODES},
        **{code: "invalid_code" for code in DEAL_CODE_CODES},
    }
    # (two rules refuse a token too: a foundation to another, a run to a foundation)
    both = {
        ("bad_notation", "foundation_to_foundation"),
        ("bad_notation", "one_card_to_foundation"),
    }
    assert sorted(rows) == sorted({(error_of[code], code) for code in REASON_CODES} | both)


def test_it_answers_an_api_error_with_its_status_code_and_extras(api):
    response = api.get("/api/stale/")

    assert response.status_code == 409
    assert response.json() == {
        "code": "stale_ply",
        "message": "The game has moved on.",
        "ply": 12,
    }


def test_it_turns_django_404_into_not_found(api):
    response = api.get("/api/http404/")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "No Game matches the given query."}


def test_it_turns_django_permission_denied_into_403(api):
    response = api.get("/api/denied/")

    assert response.status_code == 403
    assert response.json() == {
        "code": "permission_denied",
        "message": "You do not have permission to perform this action.",
    }


def test_it_turns_a_model_validation_error_into_400(api):
    response = api.get("/api/model-invalid/")

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": "code: Not a deal code.",
        "fields": {"code": ["Not a deal code."]},
    }


def test_it_names_nested_fields_with_dots(api):
    response = api.post("/api/nested/", {"action": "R-T2", "moves": [{"ply": 1}, {"ply": "x"}]})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": "moves.1.ply: A valid integer is required.",
        "fields": {"moves.1.ply": ["A valid integer is required."]},
    }


def test_it_answers_an_unknown_api_url_in_json(api):
    response = api.get("/api/no-such-thing/")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "not_found", "message": "Not found."}


def test_it_answers_an_unknown_page_in_html(api):
    response = api.get("/no-such-page/at/all/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_it_answers_a_crash_in_json_without_details(db):
    client = Client(raise_request_exception=False)

    response = client.get("/api/crash/")

    assert response.status_code == 500
    assert response.json() == {"code": "server_error", "message": "Internal server error."}


def test_it_answers_a_bad_host_in_json(api):
    response = api.get("/api/health/", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert response.json() == {"code": "bad_request", "message": "Bad request."}


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=100)
def test_it_refuses_an_oversized_body_without_a_500(api, db):
    response = api.post("/api/auth/login/", {"username": "x" * 200, "password": "y"})

    assert response.status_code == 400
    assert response.json() == {"code": "bad_request", "message": "Bad request."}


def test_it_refuses_bad_utf8_as_malformed(api, db):
    response = api.post(
        "/api/auth/login/", data=b'{"username": "\xff"}', content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "malformed"

"""Every page carries the Content-Security-Policy, and nothing the site serves needs more than it
allows: no inline script or style in any template (the browser tests load the pages under it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User

ROOT = Path(__file__).resolve().parents[2]
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/leaderboard/",
        "/login/",
        "/games/1/",
        "/players/nobody/",
        "/admin/login/",
        "/api/docs/",
        "/api/health/",
        "/api/games/",
        "/no/such/page/",
    ],
)
def test_it_sends_the_policy_with_every_response(client, path):
    response = client.get(path)

    assert response["Content-Security-Policy"] == POLICY


def test_the_policy_allows_no_inline_script_or_style(settings):
    policy = settings.CONTENT_SECURITY_POLICY

    assert "unsafe" not in policy
    assert "script-src 'self';" in policy and "style-src 'self';" in policy


@pytest.mark.parametrize(
    "template", sorted((ROOT / "frontend" / "templates").rglob("*.html")), ids=lambda p: p.name
)
def test_no_template_has_an_inline_script_or_style(template):
    html = template.read_text()

    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", html)


@pytest.mark.django_db
def test_the_admin_pages_have_no_inline_script(client):
    client.force_login(User.objects.create_superuser("root", password="x" * 12))

    for path in ("/admin/", "/admin/games/game/", "/admin/login/"):
        html = client.get(path).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), path

"""The page views, without a browser: each page renders, sets the CSRF cookie for its API calls
and loads its own script; days that have not begun have no leaderboard page."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory

from games import services

PAGES = [
    ("/", "frontend/js/home.js"),
    ("/how-to-play/", "frontend/js/rules.js"),
    ("/games/{game}/", "frontend/js/game.js"),
    ("/games/{game}/replay/", "frontend/js/replay.js"),
    ("/leaderboard/", "frontend/js/leaderboard.js"),
    ("/leaderboard/2025-01-31/", "frontend/js/leaderboard.js"),
    ("/players/owner/", "frontend/js/profile.js"),
    ("/signup/", "frontend/js/auth.js"),
    ("/login/", "frontend/js/auth.js"),
    ("/logout/", "frontend/js/nav.js"),
]


@pytest.mark.parametrize(("path", "script"), PAGES)
def test_it_renders_each_page_with_its_script(
    client: Client, owner: User, path: str, script: str
) -> None:
    client.force_login(owner)
    response = client.get(path.format(game=services.new_game(owner).pk))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'src="/static/{script}"' in html
    assert 'type="module"' in html
    assert "csrftoken" in response.cookies
    assert 'href="/players/owner/"' in html


def test_it_offers_log_in_and_sign_up_to_a_visitor(client: Client, db: None) -> None:
    html = client.get("/").content.decode()
    assert 'href="/login/"' in html
    assert 'href="/signup/"' in html
    assert "home.js" not in html  # nothing to load for a visitor: the page says how to start


def test_it_marks_todays_board_live_and_past_boards_not(client: Client, db: None) -> None:
    today = dt.datetime.now(dt.UTC).date()
    assert 'data-live="1"' in client.get("/leaderboard/").content.decode()
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    html = client.get(f"/leaderboard/{yesterday}/").content.decode()
    assert f'data-day="{yesterday}"' in html
    assert 'data-live=""' in html


@pytest.mark.parametrize("day", ["2025-02-30", "2999-01-01"])
def test_it_has_no_board_page_for_a_day_that_is_not_or_not_yet(
    client: Client, db: None, day: str
) -> None:
    assert client.get(f"/leaderboard/{day}/").status_code == 404


def test_it_serves_the_stylesheet_and_scripts(client: Client, db: None) -> None:
    for name in ("css/site.css", "js/game.js", "js/board.js", "js/drag.js", "js/live.js"):
        response = client.get(f"/static/frontend/{name}")
        assert response.status_code == 200, name


@pytest.mark.parametrize(
    "path", ["/no-such-page/", "/players/nobody/", "/leaderboard/2999-01-01/", "/games/x/y/"]
)
def test_it_answers_what_is_not_there_with_a_styled_page_that_keeps_the_navigation(
    client: Client, db: None, path: str
) -> None:
    response = client.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert 'data-error-status="404"' in html
    assert 'class="topbar"' in html and 'href="/leaderboard/"' in html
    assert "site.css" in html


def test_it_says_why_a_future_day_has_no_board(client: Client, db: None) -> None:
    html = client.get("/leaderboard/2999-01-01/").content.decode()
    assert "That day has not come yet" in html


def test_it_asks_a_visitor_to_log_in_on_a_game_page(client: Client, owner: User) -> None:
    game = services.new_game(owner)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "data-login-prompt" in html
    assert f'href="/login/?next=/games/{game.pk}/"' in html
    assert "game.js" not in html


@pytest.mark.parametrize("logged_in", [False, True])
@pytest.mark.parametrize("path", ["/games/999999/", "/games/seven/", "/games/" + "9" * 30 + "/"])
def test_it_answers_a_game_that_is_not_there_with_the_404_page(
    client: Client, other: User, logged_in: bool, path: str
) -> None:
    if logged_in:
        client.force_login(other)
    response = client.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert 'data-error-status="404"' in html
    assert "No such game." in html
    assert "game.js" not in html and "data-login-prompt" not in html


def test_it_answers_anothers_game_with_the_404_page(
    client: Client, owner: User, other: User
) -> None:
    """The API answers a game's owner alone (404 to anyone else): so does its page."""
    game = services.new_game(owner)
    client.force_login(other)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 404
    assert "No such game." in response.content.decode()
    client.force_login(owner)
    assert client.get(f"/games/{game.pk}/").status_code == 200


@pytest.mark.parametrize(("handler", "status"), [("handler403", 403), ("handler500", 500)])
def test_the_other_error_pages_are_the_sites_own_and_the_api_keeps_json(
    rf: RequestFactory, db: None, handler: str, status: int
) -> None:
    from django.contrib.auth.models import AnonymousUser

    from core import api_errors

    view = getattr(api_errors, handler)
    for path, kind in (("/games/7/", "text/html"), ("/api/games/7/", "application/json")):
        request = rf.get(path)
        request.user = AnonymousUser()
        response = view(request) if status == 500 else view(request, PermissionDenied())
        assert response.status_code == status
        assert response["Content-Type"].startswith(kind)
        if kind == "text/html":
            html = response.content.decode()
            assert f'data-error-status="{status}"' in html
            assert 'class="topbar"' in html

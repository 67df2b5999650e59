"""Page views. Each one only renders a template; the page's JavaScript module does the rest
through the REST API (session auth + CSRF token)."""

import json
from datetime import UTC, date, datetime

from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie

from games.engine import Action, Canfield


def _render(request: HttpRequest, template: str, page: str, **context: object) -> HttpResponse:
    user = request.user
    context.update(
        page=page,
        username=user.get_username() if user.is_authenticated else "",
    )
    return render(request, f"frontend/{template}", context)


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    return _render(request, "home.html", "home")


#: The rules page's pictures and tour: the deal of the rules' worked example (RULES.md) and its
#: first actions, each with the pile (and column card) a tap on which plays it.
TOUR_CODE = "CF1-D3-AAAAACL"
TOUR = (("R-T2", "R", ""), ("R-F1", "R", ""), ("T2:2-T4", "T2", "0"), ("D", "S", ""))


@ensure_csrf_cookie
def rules(request: HttpRequest) -> HttpResponse:
    """How to play: the rules, with the deal's layout drawn by the board's own components from
    the engine's views, and a tour through the first actions of that deal."""
    engine = Canfield(TOUR_CODE)
    states = [engine.player_view()]
    for token, _tap, _index in TOUR:
        engine.push(Action.parse(token))
        states.append(engine.player_view())
    steps = [{"token": token, "tap": tap, "index": index} for token, tap, index in TOUR]
    return _render(
        request,
        "rules.html",
        "rules",
        tour_code=TOUR_CODE,
        tour_states=json.dumps(states),
        steps=steps,
    )


@ensure_csrf_cookie
def game(request: HttpRequest, game_id: str) -> HttpResponse:
    return _render(request, "game.html", "game", game_id=game_id)


@ensure_csrf_cookie
def replay(request: HttpRequest, game_id: str) -> HttpResponse:
    return _render(request, "replay.html", "replay", game_id=game_id)


@ensure_csrf_cookie
def leaderboard(request: HttpRequest, day: str | None = None) -> HttpResponse:
    today = datetime.now(UTC).date()
    if day is None:
        shown = today
    else:
        try:
            shown = date.fromisoformat(day)
        except ValueError:
            raise Http404(_("There is no such day.")) from None
        if shown > today:
            raise Http404(_("That day has not come yet: its deal is dealt at midnight UTC."))
    return _render(
        request,
        "leaderboard.html",
        "leaderboard",
        day=shown.isoformat(),
        day_date=shown,
        live=shown == today,
    )


@ensure_csrf_cookie
def solution(request: HttpRequest, day: str) -> HttpResponse:
    """The replay viewer on a past day's solution (the API answers 404 until the day is over)."""
    try:
        shown = date.fromisoformat(day)
    except ValueError:
        raise Http404(_("There is no such day.")) from None
    return _render(
        request,
        "replay.html",
        "replay",
        game_id="",
        record_url=f"/api/daily/{shown.isoformat()}/solution/?states=1",
    )


@ensure_csrf_cookie
def profile(request: HttpRequest, username: str) -> HttpResponse:
    if not get_user_model().objects.filter(username__iexact=username).exists():
        raise Http404(_("There is no player of that name."))
    return _render(request, "profile.html", "profile", profile_username=username)


@ensure_csrf_cookie
def signup(request: HttpRequest) -> HttpResponse:
    return _render(request, "auth.html", "signup", mode="signup")


@ensure_csrf_cookie
def login(request: HttpRequest) -> HttpResponse:
    return _render(request, "auth.html", "login", mode="login")


@ensure_csrf_cookie
def logout(request: HttpRequest) -> HttpResponse:
    return _render(request, "logout.html", "logout")

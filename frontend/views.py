"""Page views. Each one only renders a template; the page's JavaScript module does the rest
through the REST API (session auth + CSRF token).

Every page knows who is there: ``username``, a player's name (empty for a visitor, and for a
guest: a visitor who has played, ``core.accounts.guests``, who has no name to show),
and ``guest``.
"""

import json
import re
from datetime import UTC, date, datetime

from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie

from core.accounts.guests import is_guest
from games import payloads, services
from games.clock import utc_today
from games.engine import Action, Canfield
from games.models import Game


def _render(request: HttpRequest, template: str, page: str, **context: object) -> HttpResponse:
    user = request.user
    guest = is_guest(user)
    context.update(
        page=page,
        username=user.get_username() if user.is_authenticated and not guest else "",
        guest=guest,
    )
    return render(request, f"frontend/{template}", context)


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    """A player's home: today's deal, practice, their recent games (home.js). A visitor's, and a
    guest's: a board to play at once — the game page's own (game.html, game.js) — with a short
    welcome. It shows the guest's practice game in progress, else a random deal that is no game
    yet: nothing is written for a page view (a crawler makes no guest); the first action makes
    it a game (POST /api/games/ with its code), and the visitor a guest."""
    user = request.user
    if user.is_authenticated and not is_guest(user):
        return _render(request, "home.html", "home")
    today = utc_today()
    current = None
    if isinstance(user, User) and user.is_authenticated:
        current = (
            services.games_of(user)
            .filter(kind=Game.Kind.PRACTICE, status=Game.Status.IN_PROGRESS)
            .first()
        )
    if current is not None:
        return _render(request, "home_play.html", "home", play=True, game_id=current.pk)
    # A random deal, as a new practice game has it (unsaved: no owner yet).
    deal = payloads.game_dict(services.dealt_game(User(username="")), today)
    return _render(request, "home_play.html", "home", play=True, game_id="", deal=deal)


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


#: A game's id in a page's address: digits, few enough for the database's integer.
GAME_ID = re.compile(r"[0-9]{1,18}")


@ensure_csrf_cookie
def game(request: HttpRequest, game_id: str) -> HttpResponse:
    """A game: its owner's (a player's, or a guest's) to play; a visitor is asked to log in.
    A game that does not exist, or (for someone logged in) is another's, is the 404 page: the
    API answers its owner alone (``games.services.get_game``)."""
    user = request.user
    found = services.find_game(int(game_id)) if GAME_ID.fullmatch(game_id) else None
    if found is None or (user.is_authenticated and found.owner_id != user.pk):
        raise Http404(_("No such game."))
    return _render(request, "game.html", "game", game_id=game_id, play=user.is_authenticated)


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
    # (a guest has no profile: leaderboard.services.find_player knows no guest either)
    if not User.objects.filter(username__iexact=username, guest__isnull=True).exists():
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

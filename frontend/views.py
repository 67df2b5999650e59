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
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie

from core.accounts.guests import is_guest
from core.accounts.players import named
from games import payloads, services, watch, winnable
from games.clock import utc_today
from games.engine import Action, Canfield
from games.errors import GameError
from games.models import Game
from groups import services as groups
from leagues.rules import week_label, week_of


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
    # A deal proved winnable, as a new practice game has it (unsaved: no owner yet; a random one
    # when the pool is empty).
    deal = payloads.game_dict(services.dealt_game(User(username=""), winnable.shown()), today)
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
    """A game's replay (replay.js, from its record) — or, for a game being played, and a game
    whose record is not open to the viewer yet but which they may watch (another's attempt at
    today's deal, once their own is over), the game watched live over its spectators' socket
    (``live``). Who may watch is ``games.services.can_watch``'s decision (``games.watch``); a
    viewer it refuses a daily attempt is told why (``refused``), not shown a broken page. Any
    other refusal is the record's (replay.js: a private game; a visitor is asked to log in, which
    its owner may). A game that does not exist, and an address that names none, are the 404
    page."""
    found = services.find_game(int(game_id)) if GAME_ID.fullmatch(game_id) else None
    if found is None:
        raise Http404(_("No such game."))
    live, refused = False, None
    found.apply_day_end(utc_today())
    if found.is_in_progress or not services.can_view_record(request.user, found):
        refusal = watch.refusal(request.user, found)
        live = refusal is None
        if refusal is not None and refusal.code != "not_found":
            refused = refusal.message
    return _render(request, "replay.html", "replay", game_id=game_id, live=live, refused=refused)


@ensure_csrf_cookie
def watching(request: HttpRequest) -> HttpResponse:
    """The games to watch: those being played now and the day's best (watch.js, from
    ``GET /api/watch/``)."""
    return _render(request, "watch.html", "watch")


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
    """A player's page: their stats, their days and their games (profile.js). A guest has no
    page (``core.accounts.players.named`` knows no guest). ``own``: the player's own page, with
    their settings."""
    found = named(username)
    if found is None:
        raise Http404(_("There is no player of that name."))
    own = request.user.is_authenticated and request.user.pk == found.pk
    return _render(request, "profile.html", "profile", profile_username=username, own=own)


@ensure_csrf_cookie
def signup(request: HttpRequest) -> HttpResponse:
    return _render(request, "auth.html", "signup", mode="signup")


@ensure_csrf_cookie
def login(request: HttpRequest) -> HttpResponse:
    return _render(request, "auth.html", "login", mode="login")


@ensure_csrf_cookie
def logout(request: HttpRequest) -> HttpResponse:
    return _render(request, "logout.html", "logout")


def _player(request: HttpRequest) -> User | None:
    """The player (with an account) making ``request``, or ``None`` for a visitor or a guest."""
    user = request.user
    return user if isinstance(user, User) and user.is_authenticated and not is_guest(user) else None


@ensure_csrf_cookie
def group_list(request: HttpRequest) -> HttpResponse:
    """My groups, and a form to make one (groups.js). A visitor is asked to log in, a guest to
    sign up: groups are for players with an account."""
    return _render(request, "groups.html", "groups", player=_player(request) is not None)


@ensure_csrf_cookie
def leagues(request: HttpRequest) -> HttpResponse:
    """My division of the week (leagues.js): its tier, number and table, today's provisional
    points live, who moves up and down, and my last weeks (``?week=2026-W48`` shows one). A
    visitor is asked to log in, a guest to sign up: leagues are for players with an account."""
    today = utc_today()
    return _render(
        request,
        "leagues.html",
        "leagues",
        player=_player(request) is not None,
        day=today.isoformat(),
        week=week_label(week_of(today)),
    )


@ensure_csrf_cookie
def group(request: HttpRequest, group_id: int) -> HttpResponse:
    """A group's page (group.js): today's board among its members, live, the week's table, the
    members and the invite. For its members only: anyone else gets the 404 page, as for a group
    that does not exist (``groups.services.group_of``); a visitor is asked to log in first."""
    user = _player(request)
    if user is None and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), reverse("frontend:login"))
    if user is None:
        raise Http404(groups.not_found().message)
    try:
        found = groups.group_of(user, group_id)
    except GameError as refusal:
        raise Http404(refusal.message) from None
    return _render(request, "group.html", "groups", group=found, day=utc_today().isoformat())


@ensure_csrf_cookie
def group_join(request: HttpRequest, invite: str) -> HttpResponse:
    """An invite's page: a button joins the group (POST /api/groups/join/, group_join.js) — a
    page view joins nothing and looks nothing up. A visitor is asked to log in or sign up and
    brought back; a guest to sign up."""
    return _render(
        request, "group_join.html", "groups", invite=invite, player=_player(request) is not None
    )

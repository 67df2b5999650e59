"""Guests: a visitor plays practice games without an account (core.accounts.guests).

People: a ``visitor`` (a browser with no session: their first practice game makes them a guest),
the ``owner`` (a player, who must never see the guest's games, nor the guest theirs), and the
guest themselves once made. A guest plays, asks for hints and is checked like any player; they
never start a daily attempt, open an unpublished daily's deck, appear on a board or a player
page; signing up or logging in keeps their games; idle guests are purged."""

from __future__ import annotations

import datetime as dt
import json
import random
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from core.accounts import guests, tasks
from core.accounts.models import Guest
from core.accounts.serializers import USERNAME_RESERVED
from core.worker import schedule
from games import payloads, services
from games.engine import DealCode
from games.models import Game, LoggedAction
from tests.conftest import PASSWORD, SessionClient
from tests.games.helpers import (
    CODE,
    WORKED_EXAMPLE,
    expected_game,
    not_found,
    play_tokens,
    utc_today,
)
from tests.games.test_hidden_cards import assert_hides, random_request
from tests.leaderboard.helpers import store_deal

pytestmark = pytest.mark.django_db

ACCOUNT_REQUIRED = {
    "code": "account_required",
    "message": (
        "Sign up to play the daily deal: an account gives you a ranked attempt every day, a place "
        "on the leaderboard, your stats and streak, and your games on any device. The games you "
        "played as a guest are kept."
    ),
}


@pytest.fixture
def visitor() -> SessionClient:
    """A browser with no session yet (CSRF enforced, as in a browser)."""
    return SessionClient()


def start(client: SessionClient, **body: object):
    """POST /api/games/ as the page sends it: with the CSRF header of the page's cookie."""
    return client.post("/api/games/", body, format="json", **client.csrf_headers())


def play(client: SessionClient, game_id: int, ply: int, **body: object):
    return client.post(
        f"/api/games/{game_id}/actions/",
        {"ply": ply, **body},
        format="json",
        **client.csrf_headers(),
    )


def the_guest() -> User:
    return User.objects.get(guest__isnull=False)


# --- a visitor becomes a guest -------------------------------------------------------------


def test_a_visitor_s_first_practice_game_makes_them_a_guest_of_this_session(visitor):
    response = start(visitor, code=CODE)

    assert response.status_code == 201
    guest = the_guest()
    game = Game.objects.get()
    body = response.json()
    assert body.pop("deal")["source"] == "code"
    assert body == expected_game(game, [], player=guest.username)
    assert game.owner == guest and game.kind == "practice"
    assert re.fullmatch(r"guest-[0-9a-f]{12}", guest.username)
    assert not guest.has_usable_password()
    assert visitor.get("/api/auth/me/").json() == {"username": guest.username, "guest": True}
    assert visitor.get(f"/api/games/{game.pk}/").json() == expected_game(
        game, [], player=guest.username
    )


def test_a_guest_s_next_games_are_the_same_guest_s(visitor):
    first = start(visitor, code=CODE).json()
    second = start(visitor).json()  # a random deal

    assert first["player"] == second["player"]
    assert Guest.objects.count() == 1 and User.objects.count() == 1
    listed = visitor.get("/api/games/").json()
    assert [game["id"] for game in listed["results"]] == [second["id"], first["id"]]


def test_a_guest_plays_and_every_move_is_checked_by_the_server(visitor):
    game_id = start(visitor, code=CODE).json()["id"]

    for ply, token in enumerate(WORKED_EXAMPLE):
        assert play(visitor, game_id, ply, action=token).status_code == 200
    refused = play(visitor, game_id, 3, action="W-F1")

    assert refused.status_code == 400
    assert refused.json()["code"] == "illegal_action"
    game = Game.objects.get()
    assert list(game.log.values_list("token", flat=True)) == WORKED_EXAMPLE
    assert visitor.get(f"/api/games/{game_id}/").json() == expected_game(
        game, WORKED_EXAMPLE, player=the_guest().username
    )


def test_a_page_of_another_site_cannot_make_a_visitor_a_guest(visitor):
    refused = visitor.post("/api/games/", {"code": CODE}, format="json")  # no CSRF header

    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"
    assert "sessionid" not in visitor.cookies
    assert not User.objects.exists()
    assert not Game.objects.exists()


def test_a_guest_s_session_needs_its_csrf_token(visitor):
    game_id = start(visitor, code=CODE).json()["id"]

    refused = visitor.post(f"/api/games/{game_id}/actions/", {"ply": 0, "action": "D"})

    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"
    assert not LoggedAction.objects.exists()


def test_a_guest_and_a_player_never_reach_each_other_s_games(visitor, owner, owner_api):
    guest_game = start(visitor, code=CODE).json()["id"]
    players_game = owner_api.post("/api/games/", {"code": CODE}).json()["id"]

    assert visitor.get(f"/api/games/{players_game}/").json() == not_found()
    assert play(visitor, players_game, 0, action="D").json() == not_found()
    assert owner_api.get(f"/api/games/{guest_game}/").json() == not_found()
    assert owner_api.post(f"/api/games/{guest_game}/resign/").json() == not_found()
    assert Game.objects.get(pk=guest_game).owner == the_guest()


def test_a_guest_gets_hints(visitor, settings):
    settings.HINT_SECONDS = 0.5
    game_id = start(visitor, code=CODE).json()["id"]
    play_tokens(Game.objects.get(), WORKED_EXAMPLE)

    response = visitor.get(f"/api/games/{game_id}/hint/")

    assert response.status_code == 200
    # (the search kept its line: the same position asked again is a lookup, the same answer)
    assert response.json() == payloads.hint_dict(services.hint(game_id, the_guest()))


def test_every_per_game_endpoint_answers_a_guest_as_its_owner_and_no_one_else(visitor, settings):
    settings.HINT_SECONDS = 0.5
    game_id = start(visitor, code=CODE).json()["id"]
    url = f"/api/games/{game_id}/"
    stranger = SessionClient()  # another visitor, no session
    other_guest = SessionClient()
    start(other_guest)

    for path in ["", "hint/", "verdict/", "record/"]:
        assert visitor.get(url + path).status_code == 200, path
        assert stranger.get(url + path).status_code == 401, path
        assert other_guest.get(url + path).json() == not_found(), path
    for path, body in [("actions/", {"ply": 0, "action": "D"}), ("resign/", {})]:
        assert other_guest.post(url + path, body, **other_guest.csrf_headers()).json() == (
            not_found()
        )
        assert stranger.post(url + path, body).status_code == 401
        assert visitor.post(url + path, body, **visitor.csrf_headers()).status_code == 200, path
    assert Game.objects.get(pk=game_id).status == "resigned"


def test_a_guest_s_actions_are_limited_as_anyone_s(visitor, throttle_rates):
    throttle_rates(actions="2/min")
    game_id = start(visitor, code=CODE).json()["id"]

    answers = [play(visitor, game_id, ply, action=token) for ply, token in enumerate("DDD")]

    assert [a.status_code for a in answers] == [200, 200, 429]
    assert answers[2].json()["code"] == "throttled"
    assert Game.objects.get().ply == 2


def test_a_visitor_s_refused_game_makes_no_guest(visitor):
    mistyped = "CF2-D3-6FTH6SEZNBEqW5gpkKZBnVXVGovdVsct6WFe1PZyZ"  # (its check characters)

    response = start(visitor, code=mistyped)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_code"
    assert not User.objects.exists() and not Game.objects.exists()
    assert "sessionid" not in visitor.cookies


# --- what a guest may not do -----------------------------------------------------------------


def test_a_guest_cannot_start_a_daily_attempt(visitor):
    store_deal(utc_today())
    start(visitor)

    response = visitor.post("/api/daily/", **visitor.csrf_headers())

    assert response.status_code == 403
    assert response.json() == ACCOUNT_REQUIRED
    assert not Game.objects.filter(kind="daily").exists()
    assert visitor.get("/api/daily/").json()["attempt"] is None


def test_a_guest_cannot_open_an_unpublished_daily_s_deck(visitor):
    store_deal(utc_today(), CODE)  # today's deal is the worked example's deck
    start(visitor)  # a guest now

    by_code = start(visitor, code=CODE)
    other_draw = start(visitor, code=CODE.replace("-D3-", "-D1-"))

    assert [by_code.status_code, other_draw.status_code] == [403, 403]
    assert by_code.json()["code"] == other_draw.json()["code"] == "daily_not_public"
    assert Game.objects.count() == 1  # the random one only


def test_a_visitor_cannot_open_an_unpublished_daily_s_deck_nor_become_a_guest_by_trying(visitor):
    store_deal(utc_today(), CODE)

    response = start(visitor, code=CODE)

    assert (response.status_code, response.json()["code"]) == (403, "daily_not_public")
    assert not User.objects.exists() and not Game.objects.exists()


def test_a_guest_is_on_no_board_player_page_or_profile(visitor, owner, owner_api):
    store_deal(utc_today())
    owner_api.post("/api/daily/")
    daily = Game.objects.get(kind="daily")
    owner_api.post(f"/api/games/{daily.pk}/actions/", {"ply": 0, "action": "D"})
    game_id = start(visitor).json()["id"]  # (a random deal: today's deck is no practice)
    play(visitor, game_id, 0, action="D")
    name = the_guest().username

    board = Client().get(f"/api/daily/{utc_today().isoformat()}/board/").json()
    assert [row["player"] for row in board["results"]] == ["owner"]
    assert Client().get(f"/api/players/{name}/").json() == {
        "code": "not_found",
        "message": "No such player.",
    }
    assert Client().get(f"/players/{name}/").status_code == 404
    assert Client().get("/players/owner/").status_code == 200


def test_sign_up_refuses_the_guests_username_pattern(api):
    for username in ["guest-1a2b3c", "Guest-player", "GUEST-"]:
        response = api.post("/api/auth/signup/", {"username": username, "password": PASSWORD})

        assert response.status_code == 400
        assert response.json()["fields"] == {"username": [str(USERNAME_RESERVED)]}
    assert not User.objects.exists()
    allowed = api.post("/api/auth/signup/", {"username": "guesthouse", "password": PASSWORD})
    assert allowed.status_code == 201


def test_nobody_logs_in_as_a_guest(visitor, api):
    start(visitor)
    name = the_guest().username

    for password in ["", "!", PASSWORD]:
        response = api.post("/api/auth/login/", {"username": name, "password": password})
        assert response.status_code == 400


# --- signing up keeps the games --------------------------------------------------------------


def test_signing_up_keeps_the_guest_s_games_and_deletes_the_guest(visitor):
    game_id = start(visitor, code=CODE).json()["id"]
    for ply, token in enumerate(WORKED_EXAMPLE):
        play(visitor, game_id, ply, action=token)
    guest_id = the_guest().pk

    response = visitor.post(
        "/api/auth/signup/",
        {"username": "newcomer", "password": PASSWORD},
        format="json",
        **visitor.csrf_headers(),
    )

    assert response.status_code == 201
    newcomer = User.objects.get(username="newcomer")
    game = Game.objects.get()
    assert game.owner == newcomer
    assert not User.objects.filter(pk=guest_id).exists() and not Guest.objects.exists()
    assert visitor.get("/api/auth/me/").json() == {"username": "newcomer", "guest": False}
    listed = visitor.get("/api/games/").json()["results"]
    assert listed == [expected_game(game, WORKED_EXAMPLE, player="newcomer")]
    record = visitor.get(f"/api/games/{game_id}/record/").json()
    assert [move["token"] for move in record["moves"]] == WORKED_EXAMPLE
    # And the game plays on, the account's now.
    assert play(visitor, game_id, 3, action="D").status_code == 200


def test_logging_in_keeps_the_guest_s_games_and_deletes_the_guest(visitor, owner):
    owners_own = services.new_game(owner, code=CODE)
    guest_game = start(visitor, code=CODE).json()["id"]
    play(visitor, guest_game, 0, action="R-T2")

    response = visitor.post(
        "/api/auth/login/",
        {"username": "OWNER", "password": PASSWORD},
        format="json",
        **visitor.csrf_headers(),
    )

    assert response.status_code == 200
    assert set(Game.objects.values_list("pk", "owner__username")) == {
        (owners_own.pk, "owner"),
        (guest_game, "owner"),
    }
    assert not Guest.objects.exists() and User.objects.count() == 1
    assert visitor.get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def test_a_failed_log_in_keeps_the_guest_as_they_are(visitor, owner):
    game_id = start(visitor, code=CODE).json()["id"]

    response = visitor.post(
        "/api/auth/login/",
        {"username": "owner", "password": "wrong"},
        format="json",
        **visitor.csrf_headers(),
    )

    assert response.status_code == 400
    assert Game.objects.get(pk=game_id).owner == the_guest()
    assert visitor.get("/api/auth/me/").json()["guest"] is True


def test_a_player_s_sign_up_of_another_account_moves_nothing(owner):
    client = SessionClient()
    client.force_login(owner)
    services.new_game(owner, code=CODE)

    response = client.post(
        "/api/auth/signup/",
        {"username": "second", "password": PASSWORD},
        format="json",
        **client.csrf_headers(),
    )

    assert response.status_code == 201
    assert list(Game.objects.values_list("owner__username", flat=True)) == ["owner"]


# --- idle guests are purged ------------------------------------------------------------------


def age(user: User, days: float) -> None:
    """Make everything ``user`` (a guest) has done ``days`` old."""
    then = timezone.now() - dt.timedelta(days=days)
    Guest.objects.filter(user=user).update(created_at=then)
    Game.objects.filter(owner=user).update(created_at=then)
    LoggedAction.objects.filter(game__owner=user).update(created_at=then)


def new_guest(code: str = CODE, actions: list[str] | None = None) -> User:
    client = SessionClient()
    game_id = start(client, code=code).json()["id"]
    for ply, token in enumerate(actions or []):
        play(client, game_id, ply, action=token)
    return Game.objects.get(pk=game_id).owner


def test_it_purges_idle_guests_with_their_games_and_keeps_the_others(owner, settings):
    settings.GUEST_IDLE_DAYS = 30
    idle = new_guest(actions=WORKED_EXAMPLE)
    age(idle, 31)
    recent_action = new_guest(actions=WORKED_EXAMPLE)
    age(recent_action, 31)
    LoggedAction.objects.filter(game__owner=recent_action, ply=2).update(
        created_at=timezone.now() - dt.timedelta(days=2)
    )
    recent_game = new_guest()
    age(recent_game, 31)
    services.new_game(recent_game, code=CODE)  # a game started today
    young = new_guest()
    age(young, 29)
    old_player = services.new_game(owner, code=CODE)
    Game.objects.filter(pk=old_player.pk).update(created_at=timezone.now() - dt.timedelta(days=99))

    assert guests.purge() == 1

    assert set(User.objects.values_list("pk", flat=True)) == {
        recent_action.pk,
        recent_game.pk,
        young.pk,
        owner.pk,
    }
    assert not Game.objects.filter(owner_id=idle.pk).exists()
    assert not LoggedAction.objects.filter(game__owner_id=idle.pk).exists()
    assert Game.objects.filter(pk=old_player.pk).exists()  # a player is never purged


def test_a_purge_is_bounded_and_takes_the_longest_idle_first():
    made = [new_guest() for _ in range(3)]
    for days, guest in zip([60, 40, 50], made, strict=True):
        age(guest, days)

    assert guests.purge(batch=2) == 2
    assert list(User.objects.values_list("pk", flat=True)) == [made[1].pk]
    assert guests.purge(batch=2) == 1
    assert guests.purge(batch=2) == 0


def test_the_purge_is_a_duty_of_the_worker_tier():
    guest = new_guest()
    age(guest, 365)

    duty = schedule.DUTIES["core.accounts.tasks.purge_guests"]

    assert duty.every == dt.timedelta(hours=1)
    assert tasks.purge_guests.call() == 1
    assert not User.objects.exists()


# --- hidden cards ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_a_guest_s_answers_never_show_a_hidden_card(visitor, seed):
    rng = random.Random(seed)
    code = str(DealCode(rng.randrange(26**7), rng.choice([1, 3]), rng.choice(["app", "classic"])))
    body = start(visitor, code=code)
    game = body.json()
    tokens: list[str] = []
    assert_hides(body.content, code, tokens)

    for _ in range(40):
        response = play(visitor, game["id"], len(tokens), **random_request(rng, game["state"]))
        assert response.status_code == 200, response.json()
        game = response.json()
        if game["applied"]:
            tokens.append(game["applied"])
        assert game["full_state"] is None
        assert_hides(response.content, code, tokens)
    for url in (f"{game['id']}/", f"{game['id']}/record/", ""):
        assert_hides(visitor.get(f"/api/games/{url}").content, code, tokens)
    assert_hides(visitor.get("/").content, code, tokens)  # the home page shows the game's id


def test_the_home_page_shows_a_visitor_a_deal_and_no_hidden_card(client):
    html = client.get("/").content.decode()

    found = re.search(r'<script id="deal" type="application/json">(.*?)</script>', html)
    assert found is not None
    deal = json.loads(found[1])
    assert deal["id"] is None and deal["ply"] == 0 and deal["full_state"] is None
    assert_hides(html, deal["code"], [])
    assert not User.objects.exists() and not Game.objects.exists()  # a page view writes nothing


def test_the_home_page_shows_a_guest_their_game_in_progress_and_a_player_their_own_page(visitor):
    game_id = start(visitor, code=CODE).json()["id"]

    html = visitor.get("/").content.decode()

    assert f'data-game-id="{game_id}"' in html and 'id="deal"' not in html
    assert "frontend/js/game.js" in html and "frontend/js/home.js" not in html
    assert "Sign up to keep your games" in html
    visitor.post(f"/api/games/{game_id}/resign/", **visitor.csrf_headers())
    assert 'id="deal"' in visitor.get("/").content.decode()  # over: a new deal to play
    player = Client()
    player.force_login(User.objects.create_user("owner", password=PASSWORD))
    html = player.get("/").content.decode()
    assert "frontend/js/home.js" in html and "data-game-id" not in html

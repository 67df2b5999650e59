"""GET /api/players/<name>/games/ — a player's games, newest first, paginated, for anyone to
browse: the player sees all of theirs; anyone else (another player, a visitor) their finished
practice games, unless they keep practice private, and their daily attempts of days that are
over. A guest has no list; their games are listed under the account they sign up for."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.contrib.auth.models import AnonymousUser, User

from core.accounts.models import PlayerSettings
from games import records, services
from games.clock import utc_today
from games.engine import DealCode
from games.models import Game
from tests.conftest import PASSWORD, SessionClient
from tests.games.helpers import CODE, WORKED_EXAMPLE, iso, play_tokens
from tests.games.test_finish import near_end_of
from tests.games.test_hidden_cards import assert_hides

pytestmark = pytest.mark.django_db

URL = "/api/players/{}/games/"
NO_SUCH_PLAYER = {"code": "not_found", "message": "No such player."}


def daily(user: User, tokens: list[str], resign: bool = False, days_ago: int = 0) -> Game:
    """``user``'s attempt at a day's deal, played (and resigned) today, then dated ``days_ago``
    days back: a day over is played no more, so its attempt is played while it is today's."""
    game = services.new_game(
        user,
        code=str(DealCode(4242 + days_ago, 3, "app")),
        kind=Game.Kind.DAILY,
        daily_date=utc_today(),
    )
    play_tokens(game, tokens)
    if resign:
        services.resign(game.pk, user)
    day = utc_today() - dt.timedelta(days=days_ago)
    Game.objects.filter(pk=game.pk).update(daily_date=day)
    game.refresh_from_db()
    return game


@pytest.fixture
def games(owner: User) -> dict[str, Game]:
    """The owner's games, oldest first: a practice game won, one resigned, one in progress; a
    daily attempt of two days ago resigned, yesterday's still open in the table (closed with its
    day), and today's in progress."""
    won, played = near_end_of(owner)
    services.finish(won.pk, owner, len(played))
    resigned = services.new_game(owner, code=CODE)
    play_tokens(resigned, WORKED_EXAMPLE)
    services.resign(resigned.pk, owner)
    playing = services.new_game(owner, code=CODE)
    play_tokens(playing, ["D"])
    before = daily(owner, ["D"], resign=True, days_ago=2)
    yesterday = daily(owner, ["D", "D"], days_ago=1)  # (still open in the table: its day closed it)
    today = daily(owner, ["D"])
    found = {
        "won": won,
        "resigned": resigned,
        "playing": playing,
        "before": before,
        "yesterday": yesterday,
        "today": today,
    }
    for game in found.values():
        game.refresh_from_db()
    return found


def ids(response) -> list[int]:
    assert response.status_code == 200, response.json()
    return [row["id"] for row in response.json()["results"]]


def newest_first(games: dict[str, Game], *names: str) -> list[int]:
    return [games[name].pk for name in reversed(list(games)) if name in names]


PUBLIC = ("won", "resigned", "before", "yesterday")


# --- who sees what ----------------------------------------------------------------------------


def test_it_lists_every_game_to_its_player_newest_first(owner_api, games):
    response = owner_api.get(URL.format("owner"))

    assert ids(response) == newest_first(games, *games)
    body = response.json()
    assert (body["count"], body["next"], body["previous"]) == (6, None, None)


def test_it_lists_to_others_only_finished_practice_and_past_days(other_api, api, games):
    for client in (other_api, api):
        assert ids(client.get(URL.format("owner"))) == newest_first(games, *PUBLIC)


def test_it_says_what_each_game_was_how_it_ended_and_where_to_replay_it(api, owner_api, games):
    rows = {row["id"]: row for row in api.get(URL.format("owner")).json()["results"]}
    resigned, yesterday = games["resigned"], games["yesterday"]

    assert rows[resigned.pk] == {
        "id": resigned.pk,
        "kind": "practice",
        "code": CODE,
        "draw": 3,
        "variant": "app",
        "status": "resigned",
        "result": "resigned",
        "player": "owner",
        "daily_date": None,
        "score": resigned.score,
        "foundation_cards": resigned.foundation_cards,
        "actions": 3,
        "date": resigned.started_at.astimezone(dt.UTC).date().isoformat(),
        "started_at": iso(resigned.started_at),
        "finished_at": iso(resigned.finished_at),
        "replay_url": f"/games/{resigned.pk}/replay/",
    }
    day = (utc_today() - dt.timedelta(days=1)).isoformat()
    closed = rows[yesterday.pk]
    assert (closed["kind"], closed["status"], closed["result"]) == ("daily", "resigned", "closed")
    assert (closed["date"], closed["daily_date"], closed["actions"]) == (day, day, 2)
    assert closed["code"] == yesterday.code  # (its day is over: public)
    assert rows[games["won"].pk]["foundation_cards"] == 52
    # Today's attempt, to its player: its code hidden until the day is over, as everywhere.
    mine = {row["id"]: row for row in owner_api.get(URL.format("owner")).json()["results"]}
    assert mine[games["today"].pk]["code"] is None
    assert mine[games["playing"].pk]["result"] == "in_progress"


def test_it_lists_exactly_the_games_whose_record_others_may_read(other, other_api, api, games):
    """The list's rule in SQL is can_view_record's, game by game, with practice public or
    private, for another player, a visitor, and another player whose own attempt today is over
    (watching is not replaying: a daily attempt's record waits for the day's end)."""
    daily(other, [], resign=True)
    for private in (False, True):
        PlayerSettings.objects.update_or_create(
            user=games["won"].owner, defaults={"practice_private": private}
        )
        for viewer, client in ((other, other_api), (AnonymousUser(), api)):
            readable = [
                game.pk
                for game in Game.objects.filter(owner__username="owner")
                if services.can_view_record(viewer, game)
            ]
            assert sorted(ids(client.get(URL.format("owner")))) == sorted(readable)


def test_it_lists_practice_kept_private_to_its_player_alone(owner_api, other_api, api, games):
    changed = owner_api.patch("/api/auth/me/settings/", {"practice_private": True}, format="json")
    assert changed.json() == {"practice_private": True}

    for client in (other_api, api):
        assert ids(client.get(URL.format("owner"))) == newest_first(games, "before", "yesterday")
    assert ids(owner_api.get(URL.format("owner"))) == newest_first(games, *games)
    # Its replay too: a player is told no such game; a visitor, to log in (it may be theirs).
    record = f"/api/games/{games['resigned'].pk}/record/"
    assert other_api.get(record).json() == {"code": "not_found", "message": "No such game."}
    assert api.get(record).status_code == 401

    owner_api.patch("/api/auth/me/settings/", {"practice_private": False}, format="json")
    assert ids(api.get(URL.format("owner"))) == newest_first(games, *PUBLIC)


def test_it_matches_usernames_ignoring_case(api, games):
    assert ids(api.get(URL.format("OWNER"))) == newest_first(games, *PUBLIC)
    assert api.get(URL.format("OWNER")).json()["results"][0]["player"] == "owner"


def test_it_answers_404_for_an_unknown_player(api, owner_api):
    for client in (api, owner_api):
        response = client.get(URL.format("nobody"))
        assert response.status_code == 404
        assert response.json() == NO_SUCH_PLAYER


# --- guests -----------------------------------------------------------------------------------


def test_it_lists_no_guest_and_a_guest_s_games_under_their_account(api):
    visitor = SessionClient()
    started = visitor.post("/api/games/", {"code": CODE}, format="json", **visitor.csrf_headers())
    game_id = started.json()["id"]
    for ply, token in enumerate(WORKED_EXAMPLE):
        visitor.post(
            f"/api/games/{game_id}/actions/",
            {"ply": ply, "action": token},
            format="json",
            **visitor.csrf_headers(),
        )
    visitor.post(f"/api/games/{game_id}/resign/", **visitor.csrf_headers())
    guest = User.objects.get(guest__isnull=False)
    # A guest's records are built at each read, never kept: they would name the guest after the
    # game became the account's.
    assert records.keep(game_id) == 0
    assert api.get(f"/api/games/{game_id}/record/").json()["player"] == guest.username

    for client in (api, visitor):  # (the guest too: a guest has no name to be listed under)
        response = client.get(URL.format(guest.username))
        assert (response.status_code, response.json()) == (404, NO_SUCH_PLAYER)

    signed_up = visitor.post(
        "/api/auth/signup/",
        {"username": "newcomer", "password": PASSWORD},
        format="json",
        **visitor.csrf_headers(),
    )
    assert signed_up.status_code == 201

    rows = api.get(URL.format("newcomer")).json()["results"]
    assert [(row["id"], row["player"]) for row in rows] == [(game_id, "newcomer")]
    # The replay names the game's owner now, and its records are kept under the account's name.
    assert records.keep(game_id) == 2
    record = api.get(f"/api/games/{game_id}/record/").json()
    assert record["player"] == "newcomer"
    assert '[Player "newcomer"]' in record["text"]
    assert guest.username not in api.get(f"/api/games/{game_id}/record/?states=1").content.decode()
    assert api.get(URL.format(guest.username)).status_code == 404


# --- filters and pages ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?kind=practice", ["won", "resigned", "playing"]),
        ("?kind=daily", ["before", "yesterday", "today"]),
        ("?result=won", ["won"]),
        ("?result=resigned", ["resigned", "before"]),
        ("?result=closed", ["yesterday"]),
        ("?result=in_progress", ["playing", "today"]),
        ("?kind=daily&result=resigned", ["before"]),
        ("?kind=daily&result=won", []),
    ],
)
def test_it_filters_by_kind_and_result(owner_api, games, query, expected):
    response = owner_api.get(URL.format("owner") + query)

    assert ids(response) == newest_first(games, *expected)
    wanted = dict(part.split("=") for part in query[1:].split("&"))
    for row in response.json()["results"]:
        assert {key: row[key] for key in wanted} == wanted


def test_it_filters_only_what_others_may_see(api, games):
    assert ids(api.get(URL.format("owner") + "?result=in_progress")) == []
    assert ids(api.get(URL.format("owner") + "?kind=daily")) == newest_first(
        games, "before", "yesterday"
    )


@pytest.mark.parametrize(
    "query",
    [
        "?kind=ranked",
        "?result=lost",
        "?result=",
        "?kind=daily&kind=practice",
        "?page=0",
        "?page=1.0",
        "?status=won&result=sideways",
    ],
)
def test_it_refuses_a_bad_filter(api, games, query):
    response = api.get(URL.format("owner") + query)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_it_pages_twenty_at_a_time(owner, api):
    made = []
    for _ in range(21):
        game = services.new_game(owner, code=CODE)
        services.resign(game.pk, owner)
        made.append(game.pk)

    first = api.get(URL.format("owner")).json()
    second = api.get(URL.format("owner") + "?page=2").json()

    assert (first["count"], first["next"].endswith("?page=2"), second["next"]) == (21, True, None)
    listed = [row["id"] for row in first["results"] + second["results"]]
    assert listed == made[::-1]
    past = api.get(URL.format("owner") + "?page=3")
    assert (past.status_code, past.json()["code"]) == (404, "not_found")


def test_it_reads_a_page_in_a_fixed_number_of_queries(owner, api, django_assert_max_num_queries):
    for _ in range(20):
        services.resign(services.new_game(owner, code=CODE).pk, owner)

    # the player, their setting, the count, the page (with its owner)
    with django_assert_max_num_queries(4):
        assert len(api.get(URL.format("owner")).json()["results"]) == 20


# --- fair play --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_it_never_shows_a_hidden_card(owner, owner_api, other, other_api, seed):
    """Games played at random, a practice game and today's attempt in progress: the lists of
    their player and of anyone else show none of the cards hidden in them."""
    rng = random.Random(seed)
    practice_code = str(DealCode(rng.randrange(26**7), rng.choice([1, 3])))
    practice = services.new_game(owner, code=practice_code)
    attempt = services.new_game(
        owner,
        code=str(DealCode(rng.randrange(26**7), rng.choice([1, 3]))),
        kind=Game.Kind.DAILY,
        daily_date=utc_today(),
    )
    own = services.new_game(other, code=attempt.code, kind=Game.Kind.DAILY, daily_date=utc_today())
    services.resign(own.pk, other)  # (the other's attempt over: they may watch it, not list it)
    played: dict[int, list[str]] = {practice.pk: [], attempt.pk: []}
    for game in (practice, attempt):
        for _ in range(30):
            game.refresh_from_db()
            legal = services.views_of(game)["player"]["legal"]
            token = rng.choice(legal)
            if services.play(game.pk, owner, game.ply, token).applied:
                played[game.pk].append(token)

    for client in (owner_api, other_api):
        body = client.get(URL.format("owner")).content
        assert_hides(body, practice.code, played[practice.pk])
        assert_hides(body, attempt.code, played[attempt.pk])
    assert attempt.pk not in ids(other_api.get(URL.format("owner")))

"""GET /api/games/<id>/ — one of my games."""

import datetime as dt

from games import services
from games.models import VIEWS_VERSION, Game
from tests.games.helpers import (
    CODE,
    WORKED_EXAMPLE,
    engine_after,
    expected_game,
    iso,
    not_authenticated,
    not_found,
    play_tokens,
    utc_today,
)


def test_it_shows_my_game(owner_api, game):
    play_tokens(game, WORKED_EXAMPLE)

    response = owner_api.get(f"/api/games/{game.pk}/")

    assert response.status_code == 200
    assert response.json() == expected_game(game, WORKED_EXAMPLE)


def test_it_hides_another_players_game(other_api, game):
    response = other_api.get(f"/api/games/{game.pk}/")

    assert response.status_code == 404
    assert response.json() == not_found()


def test_it_refuses_anonymous(api, game):
    response = api.get(f"/api/games/{game.pk}/")

    assert response.status_code == 401
    assert response.json() == not_authenticated()


def test_it_answers_404_for_a_game_that_does_not_exist(owner_api, game):
    response = owner_api.get(f"/api/games/{game.pk + 1}/")

    assert response.status_code == 404
    assert response.json() == not_found()


def test_it_hides_the_code_of_todays_daily_deal(owner_api, daily_game):
    response = owner_api.get(f"/api/games/{daily_game.pk}/")

    assert response.json() == expected_game(daily_game, [], code=None)


def test_it_keeps_todays_daily_code_hidden_once_the_attempt_is_over(owner_api, daily_game):
    services.resign(daily_game, daily_game.owner)

    response = owner_api.get(f"/api/games/{daily_game.pk}/")

    assert response.json() == expected_game(
        daily_game, [], code=None, status="resigned", result="resigned", full_state=None
    )


def test_it_shows_the_whole_final_position_of_a_finished_practice_game(owner_api, game):
    play_tokens(game, WORKED_EXAMPLE)
    services.resign(game, game.owner)

    body = owner_api.get(f"/api/games/{game.pk}/").json()

    assert body == expected_game(game, WORKED_EXAMPLE, status="resigned", result="resigned")
    assert body["full_state"]["stock"]  # every card, stock order included
    assert len(body["full_state"]["reserve"]) == 10


def test_it_shows_a_daily_attempt_whose_day_is_over_closed(owner_api, daily_game, daily_code):
    game = daily_game
    play_tokens(game, ["D"])
    yesterday = utc_today() - dt.timedelta(days=1)
    Game.objects.filter(pk=game.pk).update(daily_date=yesterday)  # the day ends

    body = owner_api.get(f"/api/games/{game.pk}/").json()

    day_end = dt.datetime.combine(utc_today(), dt.time(), tzinfo=dt.UTC)
    assert body == expected_game(
        game,
        ["D"],
        status="resigned",
        result="closed",
        finished_at=iso(day_end),
        full_state=engine_after(daily_code, ["D"]).full_view(),
    )
    assert body["code"] == daily_code  # the day is over: its code is public
    game.refresh_from_db()
    assert game.status == "in_progress"  # a read never writes


def test_it_reads_the_cached_views_without_replaying(
    owner_api, game, django_assert_max_num_queries
):
    play_tokens(game, WORKED_EXAMPLE)

    # authentication (the token with its user, and knox's look for the user's expired tokens),
    # the game with its owner, the solver's kept answer (verdict) — no log
    with django_assert_max_num_queries(4):
        response = owner_api.get(f"/api/games/{game.pk}/")

    assert response.status_code == 200
    assert response.json() == expected_game(game, WORKED_EXAMPLE)


def test_it_rebuilds_views_of_an_older_shape_from_the_log(owner_api, game):
    play_tokens(game, WORKED_EXAMPLE)
    stale = {"player": {"moves": 3}, "full": {}}  # as stored before a change of shape
    Game.objects.filter(pk=game.pk).update(views=stale, views_version=0)

    body = owner_api.get(f"/api/games/{game.pk}/").json()

    assert body == expected_game(game, WORKED_EXAMPLE)
    game.refresh_from_db()
    assert (game.views, game.views_version) == (stale, 0)  # a read never writes
    owner_api.post(f"/api/games/{game.pk}/actions/", {"ply": 3, "action": "D"})
    game.refresh_from_db()
    assert game.views_version == VIEWS_VERSION  # the next action stores the current shape
    assert game.views == services.views_from(engine_after(CODE, [*WORKED_EXAMPLE, "D"]))


def test_it_gives_the_code_of_a_practice_game(owner_api, owner):
    game = services.new_game(owner, code=CODE)

    assert owner_api.get(f"/api/games/{game.pk}/").json()["code"] == CODE

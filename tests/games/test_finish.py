"""POST /api/games/<id>/finish/ — Finish in one request: the server plays the line the Finish
button offers (``games.engine.finish.finish_line``) and answers the final game with every token it
played. Expected payloads and lines come from the engine, replaying the same tokens."""

import datetime as dt
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from games import services
from games.engine import Action, Canfield
from games.engine.finish import finish_line, finishable
from games.models import Game, LoggedAction
from tests.conftest import token_client
from tests.engine.helpers import FRIENDLY, OPENING, built_deal
from tests.games.helpers import (
    CODE,
    act,
    engine_after,
    expected_game,
    iso,
    not_authenticated,
    not_found,
    play_tokens,
    utc_today,
    winning_line,
)
from tests.games.test_concurrency import at_once, postgres_only

#: Drawing one, the reserve down to its last card and every column's card home next: a daily
#: attempt may finish from here (the stock's order does not matter drawing one).
DAILY_OPENING = OPENING[:12]


def finish(client: Any, game_id: int, body: Any) -> Any:
    return client.post(f"/api/games/{game_id}/finish/", body, format="json")


def logged(game: Game) -> list[tuple[int, str, int]]:
    return list(
        LoggedAction.objects.filter(game=game)
        .order_by("ply")
        .values_list("ply", "token", "score_after")
    )


def expected_log(code: str, tokens: list[str]) -> list[tuple[int, str, int]]:
    """The log of ``tokens`` played from the deal, with the score after each, from the engine."""
    engine = Canfield(code)
    return [
        (ply, action.token(), engine.score) for ply, action in enumerate(engine.replaying(tokens))
    ]


def row(game: Game) -> dict[str, Any]:
    """What a refused request must leave as it was: the row's fields and its log."""
    game.refresh_from_db()
    fields = ("status", "ply", "score", "undos", "foundation_cards", "views", "engine_state")
    return {
        **{name: getattr(game, name) for name in fields},
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "log": logged(game),
    }


@pytest.fixture
def near_end(owner: User) -> tuple[Game, list[str]]:
    """The owner's practice game of the worked example's deal, played along a winning line to
    its first position where Finish is offered; with the tokens played."""
    return near_end_of(owner)


def near_end_of(owner: User) -> tuple[Game, list[str]]:
    line = winning_line(CODE)
    engine = Canfield(CODE)
    played: list[str] = []
    for token in line:
        if finishable(engine, sees_hidden=True):
            break
        engine.push(Action.parse(token))
        played.append(token)
    game = services.new_game(owner, code=CODE)
    play_tokens(game, played)
    return game, played


@pytest.fixture
def daily(owner: User) -> tuple[Game, list[str]]:
    """The owner's attempt at today's daily deal (a built deal, drawing one), at the first position
    where a daily attempt may finish; with the tokens played."""
    game = services.new_game(
        owner, code=built_deal(FRIENDLY, 1), kind="daily", daily_date=utc_today()
    )
    play_tokens(game, DAILY_OPENING)
    return game, list(DAILY_OPENING)


# --- finishing ----------------------------------------------------------------------------------


def test_it_finishes_a_practice_game_in_one_request(owner_api, near_end):
    game, played = near_end
    line = [a.token() for a in finish_line(engine_after(CODE, played), sees_hidden=True)]
    assert played and line

    response = finish(owner_api, game.pk, {"ply": len(played)})

    assert response.status_code == 200
    body = response.json()
    assert body == {**expected_game(game, [*played, *line]), "applied": line}
    assert body["status"] == "won" and body["state"]["won"] is True
    assert body["full_state"] is not None  # over: the whole position is public
    assert body["finished_at"] is not None
    assert logged(game) == expected_log(CODE, [*played, *line])
    out = StringIO()
    call_command("verify_games", stdout=out)  # (the stored engine state: a replay's)
    total = len(played) + len(line)
    assert out.getvalue() == f"verified 1 game, {total} actions: all agree with their logs\n"


def test_it_finishes_a_daily_attempt_from_what_the_player_has_seen(owner_api, daily):
    game, played = daily
    line = [a.token() for a in finish_line(engine_after(game.code, played), sees_hidden=False)]
    assert line[:8] == ["R-F2", "T1-F3", "T2-F4", "T3-F3", "T4-F4", "D", "D", "D"]

    response = finish(owner_api, game.pk, {"ply": len(played)})

    assert response.status_code == 200
    assert response.json() == {
        # Today's code stays hidden, and with it the whole position (full_state).
        **expected_game(game, [*played, *line], code=None, full_state=None),
        "applied": line,
    }
    assert logged(game) == expected_log(game.code, [*played, *line])


def test_the_record_lists_every_action_and_a_second_client_sees_the_same_game(
    owner, owner_api, other_api, near_end
):
    game, played = near_end
    body = finish(owner_api, game.pk, {"ply": len(played)}).json()
    applied = body.pop("applied")

    second = token_client(owner)  # the same player on another device
    assert second.get(f"/api/games/{game.pk}/").json() == body
    record = other_api.get(f"/api/games/{game.pk}/record/").json()  # (over: open to all)
    assert [(m["ply"], m["token"], m["score"]) for m in record["moves"]] == expected_log(
        CODE, [*played, *applied]
    )
    assert record["result"] == "won"


def test_it_announces_the_finished_game_once_after_commit(
    owner_api, near_end, signals_sent, django_capture_on_commit_callbacks
):
    game, played = near_end
    with django_capture_on_commit_callbacks(execute=True):
        assert finish(owner_api, game.pk, {"ply": len(played)}).status_code == 200

    assert signals_sent == [("standing_changed", game.pk)]


def test_the_days_board_sees_a_finished_daily_won(
    owner_api, api, daily, django_capture_on_commit_callbacks
):
    game, played = daily
    with django_capture_on_commit_callbacks(execute=True):
        assert finish(owner_api, game.pk, {"ply": len(played)}).status_code == 200

    game.refresh_from_db()
    rows = api.get(f"/api/daily/{utc_today()}/board/").json()["results"]
    assert [(r["player"], r["status"], r["foundation_cards"], r["actions"]) for r in rows] == [
        (game.owner.username, "won", 52, game.ply)
    ]
    assert rows[0]["rank"] == 1


# --- refusals: each a clear answer, and nothing changed -----------------------------------------


INTEGER = {"ply": ["A valid integer is required."]}


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"ply": ["This field is required."]}),
        ({"ply": "two"}, INTEGER),
        ({"ply": "0"}, INTEGER),  # (a number, not text)
        ({"ply": 1.5}, INTEGER),
        ({"ply": True}, INTEGER),
        ({"ply": -1}, {"ply": ["Ensure this value is greater than or equal to 0."]}),
        ({"ply": None}, {"ply": ["This field may not be null."]}),
        ({"ply": 3, "action": "D"}, {"action": ["Unknown field."]}),
    ],
)
def test_it_refuses_a_malformed_request(owner_api, near_end, daily, body, fields):
    for game, _played in (near_end, daily):
        before = row(game)

        response = finish(owner_api, game.pk, body)

        assert response.status_code == 400
        name, (first, *_) = next(iter(fields.items()))
        assert response.json() == {
            "code": "invalid",
            "message": f"{name}: {first}",
            "fields": fields,
        }
        assert row(game) == before


def test_it_refuses_a_body_that_is_not_an_object(owner_api, near_end):
    game, played = near_end
    before = row(game)

    response = finish(owner_api, game.pk, [len(played)])

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": "Invalid data. Expected a dictionary, but got list.",
        "fields": {},
    }
    assert row(game) == before


def test_it_refuses_a_stale_ply(owner_api, near_end, daily):
    for game, played in (near_end, daily):
        before = row(game)
        for ply in (len(played) - 1, len(played) + 1, 0):
            response = finish(owner_api, game.pk, {"ply": ply})

            assert response.status_code == 409
            assert response.json() == {
                "code": "stale_ply",
                "message": f"The action was made in position {ply}, but the game is at "
                f"position {len(played)}; reload the game.",
                "ply": len(played),
            }
        assert row(game) == before


def test_it_refuses_someone_elses_game_and_a_visitor(other_api, api, near_end, daily):
    for game, played in (near_end, daily):
        before = row(game)

        response = finish(other_api, game.pk, {"ply": len(played)})
        assert (response.status_code, response.json()) == (404, not_found())
        response = finish(api, game.pk, {"ply": len(played)})
        assert (response.status_code, response.json()) == (401, not_authenticated())
        response = finish(other_api, 987654, {"ply": 0})
        assert (response.status_code, response.json()) == (404, not_found())

        assert row(game) == before


def test_it_refuses_a_finished_game(owner_api, near_end, daily):
    game, played = near_end
    body = finish(owner_api, game.pk, {"ply": len(played)}).json()
    won = row(game)

    response = finish(owner_api, game.pk, {"ply": body["ply"]})

    assert response.status_code == 409
    assert response.json() == {
        "code": "game_over",
        "message": "This game is won: it accepts no more actions.",
    }
    assert row(game) == won

    game, played = daily
    services.resign(game.pk, game.owner)
    resigned = row(game)
    response = finish(owner_api, game.pk, {"ply": len(played)})
    assert response.status_code == 409
    assert response.json() == {
        "code": "game_over",
        "message": "This game was resigned: it accepts no more actions.",
    }
    assert row(game) == resigned


def test_it_closes_a_daily_attempt_whose_day_is_over_and_finishes_nothing(
    owner_api, daily, signals_sent, django_capture_on_commit_callbacks
):
    game, played = daily
    Game.objects.filter(pk=game.pk).update(daily_date=utc_today() - dt.timedelta(days=1))

    with django_capture_on_commit_callbacks(execute=True):
        response = finish(owner_api, game.pk, {"ply": len(played)})

    assert response.status_code == 409
    assert response.json() == {
        "code": "game_over",
        "message": "This game was closed when its day ended: it accepts no more actions.",
    }
    game.refresh_from_db()
    assert (game.status, game.result, game.ply) == ("resigned", "closed", len(played))
    assert [token for _, token, _ in logged(game)] == played
    assert signals_sent == [("standing_changed", game.pk)]  # (the closing)


NOT_FINISHABLE = {
    "code": "not_finishable",
    "message": "This game cannot be finished by itself from here: it still needs the player's "
    "own moves.",
}


def test_it_refuses_a_game_that_is_not_finishable(owner_api, game):
    before = row(game)

    response = finish(owner_api, game.pk, {"ply": 0})

    assert (response.status_code, response.json()) == (409, NOT_FINISHABLE)
    assert row(game) == before


def test_it_refuses_a_daily_attempt_that_only_the_hidden_cards_could_finish(owner, owner_api):
    """Two cards hidden in the reserve: a practice game of the same deal and play finishes, a
    daily attempt does not (its payload says so too)."""
    game = services.new_game(
        owner, code=built_deal(FRIENDLY, 1), kind="daily", daily_date=utc_today()
    )
    play_tokens(game, OPENING[:11])
    before = row(game)
    assert owner_api.get(f"/api/games/{game.pk}/").json()["state"]["finishable"] is False
    assert finish_line(engine_after(game.code, OPENING[:11]), sees_hidden=True)  # (practice: yes)

    response = finish(owner_api, game.pk, {"ply": 11})

    assert (response.status_code, response.json()) == (409, NOT_FINISHABLE)
    assert row(game) == before


def test_it_refuses_a_line_longer_than_the_game_may_still_grow(owner_api, near_end, settings):
    game, played = near_end
    needed = len(finish_line(engine_after(CODE, played), sees_hidden=True))
    settings.MAX_GAME_ACTIONS = len(played) + needed - 1
    before = row(game)

    response = finish(owner_api, game.pk, {"ply": len(played)})

    assert response.status_code == 409
    assert response.json() == {
        "code": "game_too_long",
        "message": "Finishing would take this game past the most actions a game may have "
        f"({len(played) + needed - 1}): resign it, or start another.",
    }
    assert row(game) == before

    settings.MAX_GAME_ACTIONS = len(played) + needed  # exactly enough
    assert finish(owner_api, game.pk, {"ply": len(played)}).json()["status"] == "won"


def test_it_counts_against_the_rate_of_actions(owner_api, near_end, throttle_rates):
    game, played = near_end
    throttle_rates(actions="1/min")
    assert act(owner_api, game.pk, len(played), action="U").status_code == 200
    before = row(game)

    response = finish(owner_api, game.pk, {"ply": len(played) + 1})

    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert row(game) == before


# --- at the same moment -------------------------------------------------------------------------


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_one_of_a_finish_and_an_action_sent_at_once_applies(owner):
    """Finishes and undos from the same position at the same moment (one thread and database
    connection each): the row lock lets one through, and every other request is answered as
    coming after it."""
    game, played = near_end_of(owner)
    n = len(played)
    line = [a.token() for a in finish_line(engine_after(CODE, played), sees_hidden=True)]

    def call(body: dict[str, Any], path: str) -> Any:
        def run() -> tuple[int, Any]:
            response = token_client(owner).post(
                f"/api/games/{game.pk}/{path}/", {"ply": n, **body}, format="json"
            )
            return response.status_code, response.json()

        return run

    kinds = ["finish", "undo"] * 4
    answers = at_once(
        *[call({}, "finish") if k == "finish" else call({"action": "U"}, "actions") for k in kinds]
    )

    log = [token for _, token, _ in logged(game)]
    assert log in ([*played, *line], [*played, "U"])
    finished = log == [*played, *line]
    for kind, (status, body) in zip(kinds, answers, strict=True):
        if finished and kind == "finish" and status == 200:  # the one that applied
            assert (body["applied"], body["status"]) == (line, "won")
        elif finished:
            assert (status, body["code"]) == (409, "game_over")
        elif kind == "undo":  # applied once, its repeats answered again
            assert (status, body["applied"], body["ply"]) == (200, "U", n + 1)
        else:
            assert (status, body["code"], body["ply"]) == (409, "stale_ply", n + 1)
    assert sum(status == 200 for status, _ in answers) == (1 if finished else 4)


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_finishes_once_when_asked_many_times_at_once(owner):
    game, played = near_end_of(owner)
    line = [a.token() for a in finish_line(engine_after(CODE, played), sees_hidden=True)]

    def call() -> tuple[int, Any]:
        response = finish(token_client(owner), game.pk, {"ply": len(played)})
        return response.status_code, response.json()

    answers = at_once(*[call] * 8)

    assert sorted(status for status, _ in answers) == [200] + [409] * 7
    assert [body["applied"] for status, body in answers if status == 200] == [line]
    assert {body["code"] for status, body in answers if status == 409} == {"game_over"}
    assert [token for _, token, _ in logged(game)] == [*played, *line]

"""POST /api/games/<id>/actions/ — play an action (a token or a tap) in position ``ply``."""

import datetime as dt

import pytest

from games import services
from games.engine import Action
from games.engine import state as engine_state
from games.models import Game, LoggedAction
from tests.games.helpers import (
    CODE,
    WORKED_EXAMPLE,
    act,
    engine_after,
    expected_game,
    not_authenticated,
    not_found,
    play_tokens,
    utc_today,
    winning_line,
)


def logged(game):
    return list(LoggedAction.objects.filter(game=game).order_by("ply").values_list("ply", "token"))


def test_it_plays_the_worked_example(owner_api, game):
    for ply, token in enumerate(WORKED_EXAMPLE):
        response = act(owner_api, game.pk, ply, action=token)
        assert response.status_code == 200
        assert response.json() == {
            **expected_game(game, WORKED_EXAMPLE[: ply + 1]),
            "applied": token,
        }

    # The position the rules document after R-T2, R-F1, T2:2-T4.
    state = response.json()["state"]
    assert state["stock"] == {"count": 34}
    assert state["waste"] == {"count": 0, "cards": []}
    assert state["reserve"] == {"top": "JS", "count": 10}
    assert [f["cards"] for f in state["foundations"]] == [["7H", "8H"], [], [], []]
    assert [f["suit"] for f in state["foundations"]] == ["H", "S", "D", "C"]
    assert state["columns"] == [["6C"], ["QS"], ["QH"], ["AS", "KH", "QC"]]
    assert state["score"] == 5
    assert logged(game) == list(enumerate(WORKED_EXAMPLE))
    assert [m.score_after for m in game.log.order_by("ply")] == [0, 5, 5]


def test_it_keeps_the_cached_views_and_counters_in_step_with_the_log(owner_api, game):
    for ply, token in enumerate([*WORKED_EXAMPLE, "D", "U", "D"]):
        act(owner_api, game.pk, ply, action=token)

    game.refresh_from_db()
    engine = engine_after(CODE, [*WORKED_EXAMPLE, "D", "U", "D"])
    assert game.views == services.views_from(engine)
    assert (game.ply, game.undos, game.score, game.foundation_cards) == (6, 1, 5, 2)


def test_it_stores_the_engine_state_of_a_replay_of_the_log(owner_api, game):
    line = [*WORKED_EXAMPLE, "D", "U", "U", "D", "D", "U"]
    for ply, token in enumerate(line):
        assert act(owner_api, game.pk, ply, action=token).status_code == 200
        game.refresh_from_db()
        assert game.engine_state == engine_state.dump(engine_after(CODE, line[: ply + 1]))


@pytest.mark.parametrize(
    "stale",
    [
        "",  # stored before engine states existed
        '[0,3,"old shape"]',  # another version
        "garbage",
        "this ply",  # a state of another ply than the row's: rebuilt too
    ],
)
def test_it_rebuilds_the_engine_from_the_log_when_its_state_is_missing_or_stale(
    owner_api, game, stale
):
    play_tokens(game, WORKED_EXAMPLE)
    if stale == "this ply":
        stale = engine_state.dump(engine_after(CODE, WORKED_EXAMPLE[:1]))
    Game.objects.filter(pk=game.pk).update(engine_state=stale)

    response = act(owner_api, game.pk, 3, action="U")

    assert response.json() == {**expected_game(game, [*WORKED_EXAMPLE, "U"]), "applied": "U"}
    assert game.engine_state == engine_state.dump(engine_after(CODE, [*WORKED_EXAMPLE, "U"]))


def test_it_undoes_with_U(owner_api, game):
    act(owner_api, game.pk, 0, action="R-T2")

    response = act(owner_api, game.pk, 1, action="U")

    assert response.status_code == 200
    body = response.json()
    assert body == {**expected_game(game, ["R-T2", "U"]), "applied": "U"}
    assert (body["undos"], body["ply"], body["state"]["moves"]) == (1, 2, 0)
    assert body["state"]["columns"] == [["6C"], ["KH"], ["QH"], ["AS"]]


def test_it_sets_started_at_on_the_first_action_only(owner_api, game):
    assert game.started_at is None
    act(owner_api, game.pk, 0, action="D")
    game.refresh_from_db()
    first = game.started_at

    act(owner_api, game.pk, 1, action="D")
    game.refresh_from_db()

    assert first is not None
    assert game.started_at == first


# --- taps -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tap", "applied"),
    [
        ({"tap": "R"}, "R-T2"),  # QC: no foundation takes it; the longest column that does, KH
        ({"tap": "S"}, "D"),
        ({"tap": "T3", "index": 0}, None),  # QH: no foundation, no column takes it
    ],
)
def test_it_resolves_a_tap_and_logs_the_action(owner_api, game, tap, applied):
    response = act(owner_api, game.pk, 0, **tap)

    tokens = [applied] if applied else []
    assert response.status_code == 200
    assert response.json() == {**expected_game(game, tokens), "applied": applied}
    assert logged(game) == list(enumerate(tokens))


def test_it_resolves_a_tap_to_the_foundation_first(owner_api, game):
    act(owner_api, game.pk, 0, action="R-T2")

    response = act(owner_api, game.pk, 1, tap="R")  # 8H: the hearts foundation takes it

    assert response.json()["applied"] == "R-F1"


def test_it_honours_the_double_click_setting(owner_api, game):
    off = act(owner_api, game.pk, 0, tap="R", double_click=False)  # QC: no foundation

    assert off.status_code == 200
    assert off.json() == {**expected_game(game, []), "applied": None}
    assert act(owner_api, game.pk, 0, tap="R", double_click=True).json()["applied"] == "R-T2"


def test_it_answers_a_tap_that_does_nothing_and_logs_nothing(owner_api, game):
    response = act(owner_api, game.pk, 0, tap="F1")

    assert response.status_code == 200
    assert response.json() == {**expected_game(game, []), "applied": None}
    assert logged(game) == []


def test_it_refuses_a_tap_on_a_card_that_is_not_there(owner_api, game):
    response = act(owner_api, game.pk, 0, tap="T1", index=3)

    assert response.status_code == 400
    assert response.json() == {
        "code": "bad_notation",
        "reason": "no_card_at_index",
        "message": "Column 1 has no card at index 3.",
    }


# --- refusals -------------------------------------------------------------------------------


def test_it_refuses_bad_notation(owner_api, game):
    response = act(owner_api, game.pk, 0, action="R-T5")

    assert response.status_code == 400
    assert response.json() == {
        "code": "bad_notation",
        "reason": "not_an_action",
        "message": "'R-T5' is not an action: expected D, C, U or a move such as R-T2 or T2:3-T4.",
    }
    assert logged(game) == []


def test_it_refuses_bad_notation_whatever_the_ply(owner_api, game):
    response = act(owner_api, game.pk, 7, action="draw")

    assert response.status_code == 400
    assert response.json()["code"] == "bad_notation"


@pytest.mark.parametrize(
    ("tokens", "token"),
    [
        ([], "R-F4"),  # QC: the clubs foundation starts with the 7
        ([], "T1-T2"),  # 6C on KH
        ([], "C"),  # the stock is not empty
        ([], "U"),  # nothing to undo
        (["R-T2"], "T2:3-T4"),  # T2 holds two cards
    ],
)
def test_it_refuses_an_illegal_action_with_the_engines_reason(owner_api, game, tokens, token):
    play_tokens(game, tokens)
    before = expected_game(game, tokens)
    reason = engine_after(CODE, tokens).reason(Action.parse(token))
    assert reason is not None

    response = act(owner_api, game.pk, len(tokens), action=token)

    assert response.status_code == 400
    assert response.json() == {
        "code": "illegal_action",
        "reason": reason.code,
        "message": str(reason),  # (the API's English is the engine's: tests/i18n)
    }
    assert expected_game(game, tokens) == before  # nothing changed
    assert logged(game) == list(enumerate(tokens))


def test_it_says_why_an_action_is_illegal(owner_api, game):
    response = act(owner_api, game.pk, 0, action="R-F4")

    assert response.json() == {
        "code": "illegal_action",
        "reason": "not_starting_rank",
        "message": "The clubs foundation starts with the seven.",
    }


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"action": "D"}, ["ply"]),
        ({"ply": -1, "action": "D"}, ["ply"]),
        ({"ply": "first", "action": "D"}, ["ply"]),
        ({"ply": 0, "tap": "T9"}, ["tap"]),
        ({"ply": 0, "tap": "T1", "index": -1}, ["index"]),
        ({"ply": 0, "action": "D", "index": 0}, ["index"]),
        ({"ply": 0, "tap": "S", "double_click": "sometimes"}, ["double_click"]),
        ({"ply": 0}, []),
        ({"ply": 0, "action": "D", "tap": "S"}, []),
    ],
)
def test_it_refuses_an_invalid_body(owner_api, game, body, fields):
    response = owner_api.post(f"/api/games/{game.pk}/actions/", body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert list(response.json()["fields"]) == fields
    assert logged(game) == []


def test_it_refuses_anonymous(api, game):
    response = act(api, game.pk, 0, action="D")

    assert response.status_code == 401
    assert response.json() == not_authenticated()
    assert logged(game) == []


def test_it_refuses_another_players_game_as_if_it_did_not_exist(other_api, game):
    response = act(other_api, game.pk, 0, action="D")

    assert response.status_code == 404
    assert response.json() == not_found()
    assert logged(game) == []


def test_it_answers_404_for_a_game_that_does_not_exist(owner_api, game):
    response = act(owner_api, game.pk + 1, 0, action="D")

    assert response.status_code == 404
    assert response.json() == not_found()


@pytest.mark.parametrize(
    ("ply", "token"),
    [
        (4, "D"),  # ahead of the game
        (9, "D"),
        (1, "D"),  # behind it
        (0, "R-T2"),  # the first action again, but two plies ago
        (2, "R-T3"),  # the last action's ply, but not the last action
    ],
)
def test_it_refuses_a_stale_ply(owner_api, game, ply, token):
    play_tokens(game, WORKED_EXAMPLE)  # at ply 3; the last action was T2:2-T4, at ply 2

    response = act(owner_api, game.pk, ply, action=token)

    assert response.status_code == 409
    assert response.json() == {
        "code": "stale_ply",
        "message": f"The action was made in position {ply}, but the game is at position 3; "
        "reload the game.",
        "ply": 3,
    }
    assert logged(game) == list(enumerate(WORKED_EXAMPLE))


def test_it_answers_a_repeated_request_the_same_and_applies_it_once(owner_api, game):
    play_tokens(game, ["R-T2"])

    first = act(owner_api, game.pk, 1, action="R-F1")
    again = act(owner_api, game.pk, 1, action="R-F1")

    assert first.status_code == again.status_code == 200
    assert (
        first.json() == again.json() == {**expected_game(game, ["R-T2", "R-F1"]), "applied": "R-F1"}
    )
    assert logged(game) == [(0, "R-T2"), (1, "R-F1")]


def test_it_answers_a_repeated_tap_the_same_and_applies_it_once(owner_api, game):
    first = act(owner_api, game.pk, 0, tap="R")
    again = act(owner_api, game.pk, 0, tap="R")

    assert first.json() == again.json()
    assert again.json()["applied"] == "R-T2"
    assert logged(game) == [(0, "R-T2")]


def test_it_answers_a_repeated_undo_the_same_and_applies_it_once(owner_api, game):
    play_tokens(game, ["D", "D"])

    first = act(owner_api, game.pk, 2, action="U")
    again = act(owner_api, game.pk, 2, action="U")

    assert first.json() == again.json()
    assert logged(game) == [(0, "D"), (1, "D"), (2, "U")]


def test_it_finishes_a_won_game(owner_api, game, signals_sent, django_capture_on_commit_callbacks):
    line = winning_line()
    play_tokens(game, line[:-1])

    with django_capture_on_commit_callbacks(execute=True):
        response = act(owner_api, game.pk, len(line) - 1, action=line[-1])

    assert response.status_code == 200
    game.refresh_from_db()
    assert response.json() == {
        **expected_game(game, line, status="won", result="won"),
        "applied": line[-1],
    }
    assert (game.status, game.score, game.foundation_cards) == ("won", 255, 52)
    assert game.finished_at is not None
    assert signals_sent == [("standing_changed", game.pk)]
    # The winning request, repeated, is answered the same way; anything else: the game is over.
    assert act(owner_api, game.pk, len(line) - 1, action=line[-1]).json() == response.json()
    over = act(owner_api, game.pk, len(line), action="U")
    assert over.status_code == 409
    assert over.json() == {
        "code": "game_over",
        "message": "This game is won: it accepts no more actions.",
    }


def test_it_refuses_actions_on_a_resigned_game(owner_api, game):
    services.resign(game, game.owner)

    response = act(owner_api, game.pk, 0, action="D")

    assert response.status_code == 409
    assert response.json() == {
        "code": "game_over",
        "message": "This game was resigned: it accepts no more actions.",
    }


def test_it_closes_a_daily_attempt_when_its_day_is_over(
    owner_api, daily_game, signals_sent, django_capture_on_commit_callbacks
):
    play_tokens(daily_game, ["D"])
    Game.objects.filter(pk=daily_game.pk).update(daily_date=utc_today() - dt.timedelta(days=1))

    with django_capture_on_commit_callbacks(execute=True):
        response = act(owner_api, daily_game.pk, 1, action="D")

    assert response.status_code == 409
    assert response.json() == {
        "code": "game_over",
        "message": "This game was closed when its day ended: it accepts no more actions.",
    }
    daily_game.refresh_from_db()
    assert (daily_game.status, daily_game.result, daily_game.ply) == ("resigned", "closed", 1)
    assert signals_sent == [("standing_changed", daily_game.pk)]


def test_it_plays_todays_daily_game_without_showing_its_code(owner_api, daily_game):
    response = act(owner_api, daily_game.pk, 0, action="D")

    assert response.status_code == 200
    assert response.json() == {**expected_game(daily_game, ["D"], code=None), "applied": "D"}


def test_it_announces_each_applied_action_after_commit(
    owner_api, game, signals_sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        act(owner_api, game.pk, 0, action="D")
        act(owner_api, game.pk, 1, action="R-F2")  # illegal: nothing changes, nothing sent
        act(owner_api, game.pk, 1, tap="F1")  # does nothing
        act(owner_api, game.pk, 1, action="U")
        act(owner_api, game.pk, 1, action="U")  # the repeat: applied once, announced once

    assert signals_sent == [("standing_changed", game.pk)] * 2


def test_it_announces_nothing_before_commit(owner_api, game, signals_sent):
    act(owner_api, game.pk, 0, action="D")  # the test's transaction never commits

    assert signals_sent == []


def test_it_limits_the_rate_of_actions(owner_api, game, throttle_rates):
    throttle_rates(actions="2/min")
    act(owner_api, game.pk, 0, action="D")
    act(owner_api, game.pk, 1, action="D")

    response = act(owner_api, game.pk, 2, action="D")

    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert response.json() == {
        "code": "throttled",
        "message": f"Request was throttled. Expected available in {wait} seconds.",
        "retry_after": wait,
    }
    assert logged(game) == [(0, "D"), (1, "D")]


def test_it_counts_each_players_actions_apart(
    owner_api, other_api, game, other_game, throttle_rates
):
    throttle_rates(actions="1/min")
    act(owner_api, game.pk, 0, action="D")

    assert act(other_api, other_game.pk, 0, action="D").status_code == 200
    assert act(owner_api, game.pk, 1, action="D").status_code == 429


def test_it_refuses_an_action_past_the_longest_game(owner_api, game, settings):
    settings.MAX_GAME_ACTIONS = 4
    play_tokens(game, ["D", "D", "D", "D"])

    response = act(owner_api, game.pk, 4, action="D")

    assert response.status_code == 409
    assert response.json() == {
        "code": "game_too_long",
        "message": "This game has 4 actions, the most a game may have: resign it, or start "
        "another.",
    }
    assert len(logged(game)) == 4
    assert act(owner_api, game.pk, 3, action="D").json()["applied"] == "D"  # a repeat, as ever
    assert owner_api.post(f"/api/games/{game.pk}/resign/").status_code == 200


def test_it_allows_5000_actions_by_default(settings):
    assert settings.MAX_GAME_ACTIONS == 5000

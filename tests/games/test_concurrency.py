"""Two requests for one game at the same moment never both apply.

On PostgreSQL real concurrent requests race (threads, each with its own database connection): the
game's row lock serialises them, and the unique (game, ply) constraint backs it up. SQLite
serialises writers itself and ignores select_for_update, so there the constraint's part is tested
directly.
"""

import threading

import pytest
from django.db import IntegrityError, connection, connections, transaction

from games import services
from games.models import Game, LoggedAction
from tests.conftest import token_client
from tests.games.helpers import CODE, act

# What differs between the embedded default (SQLite, the in-memory layer) and PostgreSQL and
# Redis: CI runs these on both.
pytestmark = pytest.mark.each_backend

postgres_only = pytest.mark.skipif(
    connection.vendor == "sqlite", reason="SQLite serialises writers: no real race to test"
)


def at_once(*calls):
    """Run every call at the same moment, one thread (and database connection) each; returns
    their results in order."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def post(user, game_id, ply, token):
    def call():
        response = act(token_client(user), game_id, ply, action=token)
        return response.status_code, response.json()

    return call


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_applies_identical_concurrent_requests_once(owner):
    game = services.new_game(owner, code=CODE)

    answers = at_once(*[post(owner, game.pk, 0, "R-T2")] * 8)

    assert [status for status, _ in answers] == [200] * 8
    assert all(body == answers[0][1] for _, body in answers)
    assert answers[0][1]["applied"] == "R-T2"
    assert list(LoggedAction.objects.filter(game=game).values_list("ply", "token")) == [(0, "R-T2")]
    game.refresh_from_db()
    assert game.ply == 1


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_applies_one_of_several_different_concurrent_actions(owner):
    game = services.new_game(owner, code=CODE)
    tokens = ["R-T2", "D"] * 4

    answers = at_once(*[post(owner, game.pk, 0, token) for token in tokens])

    moves = list(LoggedAction.objects.filter(game=game).values_list("ply", "token"))
    assert len(moves) == 1
    winner = moves[0][1]
    for token, (status, body) in zip(tokens, answers, strict=True):
        if token == winner:  # the one that applied, and its repeats
            assert (status, body["applied"], body["ply"]) == (200, winner, 1)
        else:
            assert (status, body["code"], body["ply"]) == (409, "stale_ply", 1)
    game.refresh_from_db()
    assert game.ply == 1


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_keeps_every_action_of_a_fast_player(owner):
    """Requests for successive plies sent at once: each applies exactly when its turn comes or
    is refused as stale; the log has no gap and no double."""
    game = services.new_game(owner, code=CODE)

    answers = at_once(*[post(owner, game.pk, ply, "D") for ply in range(6)])

    applied = [ply for ply, (status, _) in enumerate(answers) if status == 200]
    assert applied == list(range(len(applied)))
    assert all(body["code"] == "stale_ply" for status, body in answers if status != 200)
    assert list(LoggedAction.objects.filter(game=game).values_list("ply", flat=True)) == applied
    game.refresh_from_db()
    assert game.ply == len(applied)


def test_the_log_refuses_a_second_action_at_one_ply(game):
    services.play(game.pk, game.owner, 0, "D")

    with pytest.raises(IntegrityError), transaction.atomic():
        LoggedAction.objects.create(game=game, ply=0, token="R-T2", score_after=0)


def test_a_writer_that_got_past_the_lock_is_answered_stale(owner_api, game):
    """If another writer logged ply 0 first (the row lock prevents it; the constraint is the
    backstop), the request is refused as stale and changes nothing."""
    LoggedAction.objects.create(
        game=game, ply=0, token="D", score_after=0
    )  # behind the game's back

    response = act(owner_api, game.pk, 0, action="R-T2")

    assert response.status_code == 409
    assert response.json()["code"] == "stale_ply"
    assert list(LoggedAction.objects.filter(game=game).values_list("token", flat=True)) == ["D"]
    assert Game.objects.get(pk=game.pk).ply == 0

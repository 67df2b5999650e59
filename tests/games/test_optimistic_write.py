"""An action is written optimistically: the row read without a lock, the action played on it,
and the write made only if the row is still where it was read — on PostgreSQL in one statement.
A client that keeps its copy of the row (the game's socket, ``services.Known``) plays on it
without reading the row; whatever happened to the game elsewhere, the answer is the one the row
as it stands gives.

These tests run on committed data (``transaction=True``): the write runs as it does in
production, in autocommit, with no transaction around it.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.engine import Canfield
from games.errors import GameError
from games.models import Game, LoggedAction
from tests.games.helpers import CODE, WORKED_EXAMPLE

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.each_backend]


def logged(game: Game) -> list[tuple[int, str]]:
    return list(LoggedAction.objects.filter(game=game).values_list("ply", "token"))


def test_an_action_is_written_whole_and_equals_a_replay(owner):
    game = services.new_game(owner, code=CODE)

    for ply, token in enumerate(WORKED_EXAMPLE):
        result = services.play(game.pk, owner, ply, token)
        assert result.applied == token

    stored = Game.objects.get(pk=game.pk)
    replay = Canfield.replay(stored.deal_code, WORKED_EXAMPLE)
    assert logged(game) == list(enumerate(WORKED_EXAMPLE))
    assert (stored.ply, stored.score, stored.undos) == (replay.ply, replay.score, replay.undos)
    assert stored.views["player"] == replay.player_view(sees_hidden=True)
    assert stored.started_at is not None
    assert services.engine_of(stored).full_view() == replay.full_view()


def test_on_postgresql_the_write_is_one_statement(owner):
    if connection.vendor != "postgresql":
        pytest.skip("one statement on PostgreSQL; elsewhere an UPDATE and an INSERT")
    game = services.new_game(owner, code=CODE)

    with CaptureQueriesContext(connection) as queries:
        services.play(game.pk, owner, 0, "R-T2")

    statements = [query["sql"] for query in queries.captured_queries]
    assert len(statements) == 2, statements  # the row read, then the write
    assert statements[0].startswith("SELECT")
    assert statements[1].startswith("WITH moved AS (UPDATE")
    assert "INSERT INTO" in statements[1]


def test_a_row_that_moved_on_after_the_read_is_not_written(owner):
    """The write is conditional on the ply read: a copy of the row that another action has
    overtaken writes nothing — neither the row nor the log."""
    game = services.new_game(owner, code=CODE)
    stale = Game.objects.get(pk=game.pk)
    services.play(game.pk, owner, 0, "D")

    with pytest.raises(services._Moved):
        services._play(stale, 0, "R-T2")

    assert logged(game) == [(0, "D")]
    assert Game.objects.get(pk=game.pk).ply == 1


def test_a_known_copy_is_played_on_without_reading_the_row(owner):
    game = services.new_game(owner, code=CODE)
    row = Game.objects.get(pk=game.pk)
    row.owner = owner
    known = services.Known(row)

    with CaptureQueriesContext(connection) as queries:
        result = services.play(game.pk, owner, 0, "R-T2", known)

    assert result.applied == "R-T2"
    assert known.game is result.game and known.game.ply == 1
    reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert reads == []
    assert logged(game) == [(0, "R-T2")]


def test_a_known_copy_overtaken_elsewhere_is_answered_as_the_row_stands(owner):
    """Another client played meanwhile: the known copy is one action behind. The next action,
    made in the position the other client left, is applied (not refused from the old copy);
    the old position's action is answered as stale, as it is without a copy."""
    game = services.new_game(owner, code=CODE)
    known = services.Known()
    services.play(game.pk, owner, 0, "R-T2", known)
    services.play(game.pk, owner, 1, "R-F1")  # another tab, over REST
    assert known.game is not None and known.game.ply == 1

    with pytest.raises(GameError) as refused:
        services.play(game.pk, owner, 1, "D", known)
    assert (refused.value.code, refused.value.extra["ply"]) == ("stale_ply", 2)

    result = services.play(game.pk, owner, 2, "T2:2-T4", known)
    assert result.applied == "T2:2-T4"
    assert logged(game) == list(enumerate(WORKED_EXAMPLE))


def test_a_tap_that_does_nothing_on_an_overtaken_copy_is_stale_as_over_rest(owner):
    """A tap that moves nothing writes nothing, so it cannot tell whether the copy is current:
    the row is read, and a copy another client overtook is answered ``stale_ply``, as REST
    answers the same tap; in the position the row stands at, it is played (applied nothing)."""
    game = services.new_game(owner, code=CODE)
    known = services.Known()
    services.play(game.pk, owner, 0, "R-T2", known)
    services.play(game.pk, owner, 1, "R-F1")  # another tab, over REST

    for copy in (known, None):
        with pytest.raises(GameError) as refused:
            services.play(game.pk, owner, 1, {"tap": "F2"}, copy)
        assert (refused.value.code, refused.value.extra["ply"]) == ("stale_ply", 2)

    result = services.play(game.pk, owner, 2, {"tap": "F2"}, known)
    assert (result.applied, result.game.ply) == (None, 2)
    assert logged(game) == [(0, "R-T2"), (1, "R-F1")]


def test_a_known_copy_of_a_game_resigned_elsewhere_is_refused_game_over(owner):
    game = services.new_game(owner, code=CODE)
    known = services.Known()
    services.play(game.pk, owner, 0, "R-T2", known)
    services.resign(game.pk, owner)

    with pytest.raises(GameError) as refused:
        services.play(game.pk, owner, 1, "R-F1", known)

    assert refused.value.code == "game_over"
    assert known.game is None
    assert logged(game) == [(0, "R-T2")]
    assert Game.objects.get(pk=game.pk).status == Game.Status.RESIGNED


def test_a_known_copy_of_another_game_is_not_used(owner, other):
    mine = services.new_game(owner, code=CODE)
    theirs = services.new_game(other, code=CODE)
    known = services.Known()
    services.play(mine.pk, owner, 0, "R-T2", known)

    with pytest.raises(GameError) as refused:
        services.play(theirs.pk, owner, 1, "R-F1", known)

    assert refused.value.code == "not_found"
    assert logged(theirs) == []


def test_a_known_copy_keeps_its_engine_and_the_row_stays_equal_to_a_replay(owner):
    """The copy's engine is played on, not restored from the row each action; what is stored is
    still exactly what a replay of the log gives."""
    game = services.new_game(owner, code=CODE)
    known = services.Known()
    services.play(game.pk, owner, 0, WORKED_EXAMPLE[0], known)
    engine = known.engine
    assert engine is not None

    for ply, token in enumerate(WORKED_EXAMPLE[1:], start=1):
        services.play(game.pk, owner, ply, token, known)

    assert known.engine is engine and engine.ply == len(WORKED_EXAMPLE)
    stored = Game.objects.get(pk=game.pk)
    replay = Canfield.replay(stored.deal_code, WORKED_EXAMPLE)
    assert services.engine_of(stored).full_view() == replay.full_view()
    assert stored.views["full"] == replay.full_view()
    assert engine.full_view() == replay.full_view()


def test_an_attempt_taken_off_the_board_meanwhile_is_announced_off_it(owner, daily_game):
    """Staff took the attempt off the board after the socket's copy was made: the action is
    played on the row as it stands, and announced off the board — never ranked again from the
    old copy."""
    known = services.Known()
    services.play(daily_game.pk, owner, 0, "D", known)
    assert known.game is not None and known.game.disqualified is False
    services.set_disqualified(daily_game.pk, True)

    result = services.play(daily_game.pk, owner, 1, "D", known)

    assert result.applied == "D"
    assert result.game.disqualified is True
    assert Game.objects.get(pk=daily_game.pk).disqualified is True
    assert logged(daily_game) == [(0, "D"), (1, "D")]


def test_a_known_copy_of_a_game_that_changed_hands_is_refused(owner, other):
    """A guest's games move to the account it signs up for (``guests.adopt``: one UPDATE of the
    owner): a socket still playing as the guest is refused, as REST is, and writes nothing."""
    game = services.new_game(owner, code=CODE)
    known = services.Known()
    services.play(game.pk, owner, 0, "R-T2", known)
    Game.objects.filter(pk=game.pk).update(owner=other)

    with pytest.raises(GameError) as refused:
        services.play(game.pk, owner, 1, "R-F1", known)

    assert refused.value.code == "not_found"
    assert logged(game) == [(0, "R-T2")]
    assert services.play(game.pk, other, 1, "R-F1").applied == "R-F1"

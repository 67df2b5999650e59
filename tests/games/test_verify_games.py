"""manage.py verify_games — re-play every stored game and report any disagreement."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games import services
from games.models import Game, LoggedAction
from tests.games.helpers import WORKED_EXAMPLE, play_tokens, winning_line


def verify(*args):
    out = StringIO()
    call_command("verify_games", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def games(game, other_game, daily_game):
    play_tokens(game, [*WORKED_EXAMPLE, "D", "U", "D"])
    play_tokens(other_game, WORKED_EXAMPLE)
    services.resign(daily_game, daily_game.owner)
    return game, other_game, daily_game


def test_it_finds_every_stored_game_in_agreement(games):
    assert verify() == "verified 3 games, 9 actions: all agree with their logs\n"


def test_it_verifies_a_won_game(game):
    line = winning_line()
    play_tokens(game, line)

    assert verify() == f"verified 1 game, {len(line)} actions: all agree with their logs\n"


def test_it_verifies_an_empty_database(db):
    assert verify() == "verified 0 games, 0 actions: all agree with their logs\n"


def corrupt(game, **fields):
    Game.objects.filter(pk=game.pk).update(**fields)


def reversed_stock(state):
    """A state of the current version and the right ply, its stock in another order."""
    fields = json.loads(state)
    fields[5] = fields[5][::-1]
    return json.dumps(fields)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda g: corrupt(g, score=10), "Score is 10, the replay scores 5"),
        (lambda g: corrupt(g, undos=0), "undos is 0, the replay gives 1"),
        (lambda g: corrupt(g, ply=5), "ply is 5, the replay gives 6"),
        (lambda g: corrupt(g, foundation_cards=3), "foundation_cards is 3, the replay gives 2"),
        (lambda g: corrupt(g, status="won"), "Result is won, the replay is not won"),
        (lambda g: corrupt(g, views={}), "the cached views differ from the replayed position"),
        (
            lambda g: corrupt(g, engine_state=reversed_stock(g.engine_state)),
            "the stored engine state differs from the replayed engine",
        ),
        (
            lambda g: LoggedAction.objects.filter(game=g, ply=1).update(score_after=0),
            "action 1 (R-F1) has score 0, the replay gives 5",
        ),
        (
            lambda g: LoggedAction.objects.filter(game=g, ply=1).update(token="R-F2"),
            "action 2 (R-F2): The eight of hearts cannot go to foundation 2: "
            "it holds spades, not hearts.",
        ),
        (
            lambda g: LoggedAction.objects.filter(game=g, ply=2).delete(),
            "the log has ply 3 where ply 2 belongs",
        ),
    ],
)
def test_it_reports_a_corrupted_game_and_fails(games, change, problem):
    game = games[0]
    change(game)

    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("verify_games", stdout=out)

    assert out.getvalue() == f"game {game.pk} (CF1-D3-AAAAACL, owner): {problem}\n"
    assert str(failed.value).startswith("verified 3 games, ")
    assert str(failed.value).endswith(" actions: 1 disagree with their logs")


def test_it_counts_views_of_an_older_shape_without_reporting_them(games):
    game = games[0]
    corrupt(game, views={"player": {}, "full": {}}, views_version=0)  # as stored before versions

    assert verify() == (
        "verified 3 games, 9 actions: 1 game with views of an older shape (rebuilt when read); "
        "all agree with their logs\n"
    )


def test_it_counts_games_without_an_engine_state_of_the_current_version(games):
    corrupt(games[0], engine_state="")  # as stored before engine states
    corrupt(games[1], engine_state="[0]")

    assert verify() == (
        "verified 3 games, 9 actions: 2 games without an engine state of the current version "
        "(rebuilt at the next action); all agree with their logs\n"
    )


def test_it_reports_views_of_the_current_shape_that_disagree(games):
    game = games[0]
    corrupt(game, views={"player": {}, "full": {}})

    with pytest.raises(CommandError):
        verify()


def test_it_checks_only_the_games_asked_for(games):
    game, other_game, _ = games
    corrupt(game, score=10)

    assert verify(str(other_game.pk)) == ("verified 1 game, 3 actions: all agree with their logs\n")


def test_it_exits_non_zero_from_the_command_line(games, capfd):
    corrupt(games[0], score=10)

    with pytest.raises(SystemExit) as exited:
        from django.core.management import execute_from_command_line

        execute_from_command_line(["manage.py", "verify_games"])

    assert exited.value.code == 1
    assert "1 disagree with their logs" in capfd.readouterr().err

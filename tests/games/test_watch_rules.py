"""games.services.can_watch and can_view_record — who may watch a game as it is played, and read
its record: the owner; anyone a practice game, unless its player keeps practice private; a daily
attempt of a day not over, only a player whose own attempt at that deal is over."""

import datetime as dt

import pytest
from django.contrib.auth.models import AnonymousUser

from core.accounts.models import PlayerSettings
from games import services
from games.clock import utc_today
from games.models import Game

CODE = "CF1-D3-AAAAACL"


@pytest.fixture
def practice(owner):
    return services.new_game(owner, code=CODE)


def daily(user, day=None):
    return services.new_game(user, code=CODE, kind=Game.Kind.DAILY, daily_date=day or utc_today())


def test_anyone_watches_a_practice_game_and_reads_it_once_over(owner, other, practice):
    for viewer in (owner, other, AnonymousUser()):
        assert services.can_watch(viewer, practice)
    assert not services.can_view_record(other, practice)  # (in progress: watched, not replayed)
    services.resign(practice.pk, owner)
    practice.refresh_from_db()
    assert services.can_view_record(other, practice)
    assert services.can_view_record(AnonymousUser(), practice)


def test_a_player_who_keeps_practice_private_is_watched_and_read_by_nobody_else(
    owner, other, practice
):
    PlayerSettings.objects.create(user=owner, practice_private=True)
    services.resign(practice.pk, owner)
    practice.refresh_from_db()
    assert services.can_watch(owner, practice) and services.can_view_record(owner, practice)
    for viewer in (other, AnonymousUser()):
        assert not services.can_watch(viewer, practice)
        assert not services.can_view_record(viewer, practice)


def test_a_daily_attempt_is_watched_only_by_those_whose_own_attempt_is_over(owner, other):
    attempt = daily(owner)
    assert not services.can_watch(AnonymousUser(), attempt)
    assert not services.can_watch(other, attempt)  # (no attempt of their own)
    own = daily(other)
    assert not services.can_watch(other, attempt)  # (their own still in progress)
    services.resign(own.pk, other)
    assert services.can_watch(other, attempt)
    assert not services.can_view_record(other, attempt)  # the record waits for the day's end
    assert services.can_watch(owner, attempt)


def test_after_its_day_a_daily_attempt_is_anyones(owner, other):
    yesterday = utc_today() - dt.timedelta(days=1)
    attempt = daily(owner, yesterday)
    assert services.can_watch(AnonymousUser(), attempt)
    assert services.can_view_record(other, attempt)

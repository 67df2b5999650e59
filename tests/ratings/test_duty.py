"""The worker's duty (``ratings.tasks.rate_days``): settled days rated in date order, each once;
a day whose ranks are written again rated again with every day after it; ``manage.py
rebuild_ratings`` giving the same numbers from scratch."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from core.worker.schedule import DUTIES
from leaderboard import review
from ratings import services, tasks
from ratings.models import RatedDay, Rating, RatingPoint, Rerate
from tests.ratings.helpers import day, due, points, result, settle

NAMES = ["ann", "bob", "cat", "dan", "eve", "fay"]


def play(k: int, cards: list[int]) -> None:
    """Day ``k`` played by the first len(cards) players with those results."""
    for name, count in zip(NAMES, cards, strict=False):
        result(name, day(k), cards=count)


def rate() -> list[str]:
    return tasks.rate_days.call()


def ratings() -> list[tuple[object, ...]]:
    return list(
        Rating.objects.order_by("player__username").values_list(
            "player__username", "mu", "sigma", "ordinal", "days", "last_day"
        )
    )


def test_it_is_a_periodic_duty_of_the_worker():
    assert DUTIES["ratings.tasks.rate_days"].every.total_seconds() == 60


def test_it_rates_a_day_once_however_often_it_runs():
    play(0, [52, 20, 10])
    settle(day(0))

    assert rate() == [day(0).isoformat()]
    once = points()
    assert rate() == []

    assert points() == once
    assert len(once) == 3
    assert Rating.objects.get(player__username="ann").days == 1


def test_a_day_waits_until_the_day_before_it_is_settled():
    play(0, [52, 20, 10])
    play(1, [10, 20, 52])
    settle(day(1))  # (the second day settled first)

    assert rate() == []
    assert RatedDay.objects.count() == 0 and Rating.objects.count() == 0

    settle(day(0))

    assert rate() == [day(0).isoformat(), day(1).isoformat()]
    assert list(RatedDay.objects.order_by("day").values_list("day", flat=True)) == [
        day(0),
        day(1),
    ]
    assert Rating.objects.get(player__username="ann").days == 2


def test_a_day_with_fewer_than_two_results_is_recorded_and_rates_nobody():
    play(0, [30])
    settle(day(0))

    assert rate() == [day(0).isoformat()]

    assert RatedDay.objects.values_list("players", "matches").get() == (0, 0)
    assert Rating.objects.count() == 0


def test_rebuilding_from_scratch_gives_every_number_again_exactly():
    play(0, [52, 20, 10, 20, 5])
    settle(day(0))
    rate()
    play(1, [3, 52, 40, 40])
    settle(day(1))
    rate()
    play(2, [12, 13, 14, 15, 16, 52])
    settle(day(2))
    rate()
    before_points, before_ratings = points(), ratings()
    assert len(before_points) == 5 + 4 + 6

    out = io.StringIO()
    call_command("rebuild_ratings", stdout=out)

    assert out.getvalue().splitlines()[-1] == "Rated 3 day(s)."
    assert points() == before_points  # == on floats: exactly the same
    assert ratings() == before_ratings


def test_a_disqualification_rates_its_day_and_every_later_day_again(
    clock, django_capture_on_commit_callbacks
):
    clock.set(due(day(1)))
    play(0, [52, 20, 10])
    cheat = result("zed", day(0), cards=52, actions=50)  # day 0's best, ranked first...
    settle(day(0))
    play(1, [40, 30, 20])
    settle(day(1))
    rate()
    assert RatingPoint.objects.filter(player__username="zed").count() == 1
    second_of_four = RatingPoint.objects.get(player__username="ann", day=day(0)).mu
    staff = User.objects.create_user("staff", is_staff=True)

    with django_capture_on_commit_callbacks(execute=True):
        review.disqualify(cheat.pk, staff, "Played with the deck in view.")  # ...then taken off

    assert list(Rerate.objects.values_list("day", flat=True)) == [day(0)]
    assert rate() == [day(0).isoformat(), day(1).isoformat()]
    assert Rerate.objects.count() == 0
    assert not Rating.objects.filter(player__username="zed").exists()
    assert not RatingPoint.objects.filter(player__username="zed").exists()
    after = points()
    # The same as rating the days without the disqualified attempt from scratch:
    services.rebuild()
    assert points() == after
    # ann is first of three on day 0 again: test_hand_computed's numbers, worked by hand.
    ann = RatingPoint.objects.get(player__username="ann", day=day(0))
    assert (ann.mu, ann.sigma) == pytest.approx((27.86905, 8.20524), abs=1e-5)
    assert second_of_four < 27


def test_a_day_settled_after_a_later_day_was_rated_is_rated_in_its_place():
    play(1, [52, 20, 10])
    settle(day(1))
    rate()  # (no earlier day known: day 1 is the first)
    play(0, [10, 20, 52])
    settle(day(0))  # a day before it turns up, settled late

    assert rate() == [day(0).isoformat(), day(1).isoformat()]

    assert Rating.objects.get(player__username="ann").days == 2
    after = points()
    services.rebuild()
    assert points() == after


@pytest.mark.parametrize("asked", [0, 1])
def test_an_ask_to_rate_again_goes_back_to_its_day_only(asked, clock):
    play(0, [52, 20, 10])
    settle(day(0))
    play(1, [10, 20, 52])
    settle(day(1))
    clock.set(due(day(1)))
    rate()
    first = points()
    clock.advance(60)

    services.ask_rerate(day(asked))

    assert rate() == [day(k).isoformat() for k in range(asked, 2)]
    rated_at = dict(RatedDay.objects.values_list("day", "rated_at"))
    assert rated_at == {
        day(0): due(day(1)) + dt.timedelta(seconds=60 if asked == 0 else 0),
        day(1): due(day(1)) + dt.timedelta(seconds=60),
    }
    assert points() == first  # the same days, the same results: the same numbers

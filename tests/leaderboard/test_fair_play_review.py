"""Fair-play review: what is kept of each daily attempt for staff (privately), the day's flags,
the staff-only page, and disqualification — off every board, the live one included, and every
stat; logged with who and why; undone by reinstating; kept 30 days."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games.models import Game
from leaderboard import review
from leaderboard.models import AttemptReview, FairPlayDecision
from tests.conftest import PASSWORD, token_client
from tests.leaderboard.helpers import OPENING, WON, attempt, play, player, store_deal, utc_today
from tests.leaderboard.live import connect, next_frame, run

pytestmark = pytest.mark.usefixtures("only_our_days")


def start(user: User, address: str):
    return token_client(user).post("/api/daily/", REMOTE_ADDR=address).json()


def test_an_attempt_keeps_its_network_hashed_and_its_account_age(clock):
    ann = player("ann")
    User.objects.filter(pk=ann.pk).update(date_joined=clock.now)  # (signed up on the clock)
    ann.refresh_from_db()
    clock.advance(3600)
    game = start(ann, "203.0.113.7")

    kept = AttemptReview.objects.get(game_id=game["id"])

    assert kept.account_age == dt.timedelta(hours=1)
    assert kept.network == review.network_of("203.0.113.200")  # the same /24
    assert kept.network != review.network_of("203.0.114.7")
    assert "203.0.113" not in kept.network and len(kept.network) == 32
    assert review.network_of("2001:db8:1:2:aaaa::1") == review.network_of("2001:db8:1:2::9")
    assert review.network_of("not an address") == ""
    # Private: nothing of it in any answer about the attempt.
    for url in (f"/api/games/{game['id']}/", "/api/daily/", "/api/players/ann/"):
        assert kept.network not in token_client(ann).get(url).content.decode()


def test_the_days_flags_point_at_shared_networks_wins_at_par_and_inhuman_speed(clock):
    from leaderboard.models import DailyDeal

    DailyDeal.objects.filter(date=utc_today()).update(par=len(WON))
    twins = [player("twin1"), player("twin2")]
    for twin in twins:  # two accounts from one network
        play(Game.objects.get(pk=start(twin, "198.51.100.4")["id"]), OPENING, clock)
    fast = Game.objects.get(pk=start(player("bot"), "192.0.2.1")["id"])
    play(fast, WON, clock, step=0.05)  # the whole line, at par, 50 ms an action
    calm = Game.objects.get(pk=start(player("calm"), "203.0.113.99")["id"])
    play(calm, WON[:30], clock, step=4.0)

    rows = {row.player: row for row in review.day_review(utc_today(), clock.now)}

    assert rows["twin1"].flags == rows["twin2"].flags == ("network",)
    assert rows["twin1"].same_network == 2
    assert rows["bot"].flags == ("par", "fast") and rows["bot"].over_par == 0
    assert rows["bot"].result == "won"
    assert rows["bot"].per_action is not None and rows["bot"].per_action < review.FAST_SECONDS
    assert rows["calm"].flags == () and rows["calm"].per_action == pytest.approx(4.0, rel=0.05)
    assert [row.player for row in review.day_review(utc_today(), clock.now)][-1] == "calm"


def test_the_review_page_is_for_staff_alone(clock):
    staff = User.objects.create_user("judge", password=PASSWORD, is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="add_fairplaydecision"))
    play(Game.objects.get(pk=start(player("ann"), "198.51.100.4")["id"]), OPENING, clock)
    url = "/admin/leaderboard/attemptreview/"
    anonymous, plain, judge = Client(), Client(), Client()
    plain.force_login(player("nobody"))
    judge.force_login(staff)

    assert anonymous.get(url).status_code == 302  # to the admin's log-in
    assert plain.get(url).status_code == 302
    page = judge.get(url, {"day": utc_today().isoformat()})
    assert page.status_code == 200
    html = page.content.decode()
    assert "Fair-play review of 2030-06-15" in html and ">ann<" in html.replace(" ", "")
    assert 'name="action" value="disqualify"' in html
    game = Game.objects.get(owner__username="ann")
    assert f'href="/games/{game.pk}/replay/"' in html
    assert judge.get(f"/api/games/{game.pk}/record/?states=1").status_code == 200  # replayable
    assert plain.get(f"/api/games/{game.pk}/record/").status_code == 404  # (not to others)


@pytest.mark.django_db(transaction=True)
@run
async def test_a_disqualification_leaves_every_board_and_the_live_one_and_can_be_undone():
    today = utc_today()
    judge = await database_sync_to_async(User.objects.create_superuser)("judge", password="x")

    @database_sync_to_async
    def setup():
        store_deal(today)
        cheat = attempt(player("cheat"), WON)  # won: rank 1
        honest = attempt(player("honest"), OPENING)
        return cheat, honest, token_client(cheat.owner), token_client(honest.owner)

    cheat, honest, cheat_api, honest_api = await setup()
    client, snapshot = await connect(today)
    assert [row["player"] for row in snapshot["results"]] == ["cheat", "honest"]

    await database_sync_to_async(review.disqualify)(cheat.pk, judge, "the solver's line, 3 s")
    update = json.loads(await next_frame(client))

    assert update["left"] == ["cheat"] and update["count"] == 1
    assert [(row["player"], row["rank"]) for row in update["rows"]] in ([], [("honest", 1)])

    @database_sync_to_async
    def standing():
        board = honest_api.get(f"/api/daily/{today}/board/").json()
        stats = cheat_api.get("/api/players/cheat/").json()
        return [r["player"] for r in board["results"]], board["count"], stats

    rows, count, stats = await standing()
    assert (rows, count) == (["honest"], 1)
    assert (stats["stats"]["played"], stats["stats"]["won"]) == (0, 0)

    await database_sync_to_async(review.reinstate)(cheat.pk, judge, "proved innocent")
    await next_frame(client)
    rows, count, stats = await standing()
    assert (rows, count) == (["cheat", "honest"], 2)
    assert stats["stats"]["won"] == 1
    await client.disconnect()

    decisions = await database_sync_to_async(
        lambda: [(d.action, str(d.staff), d.reason) for d in FairPlayDecision.objects.all()]
    )()
    assert decisions == [
        ("reinstate", "judge", "proved innocent"),
        ("disqualify", "judge", "the solver's line, 3 s"),
    ]


def test_staff_decide_from_the_page_with_a_reason_and_the_decision_is_logged(clock):
    staff = User.objects.create_user("judge", password=PASSWORD, is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="add_fairplaydecision"))
    viewer = User.objects.create_user("viewer", password=PASSWORD, is_staff=True)
    game = Game.objects.get(pk=start(player("ann"), "198.51.100.4")["id"])
    play(game, OPENING, clock)
    judge, looker = Client(), Client()
    judge.force_login(staff)
    looker.force_login(viewer)
    decide = "/admin/leaderboard/attemptreview/decide/"
    body = {"game": game.pk, "day": utc_today().isoformat(), "action": "disqualify"}

    assert looker.post(decide, {**body, "reason": "mine"}).status_code == 403  # may only look
    judge.post(decide, {**body, "reason": "   "})  # no reason: nothing decided
    assert not Game.objects.get(pk=game.pk).disqualified
    response = judge.post(decide, {**body, "reason": "two accounts, one network"})

    assert response.status_code == 302
    assert Game.objects.get(pk=game.pk).disqualified
    page = judge.get(response["Location"]).content.decode()
    assert "(disqualified)" in page and "two accounts, one network" in page
    assert 'value="reinstate"' in page


def test_reviews_are_kept_thirty_days(clock):
    game = start(player("ann"), "198.51.100.4")
    AttemptReview.objects.filter(game_id=game["id"]).update(
        created=timezone.now() - dt.timedelta(days=30, seconds=1)
    )
    newer = start(player("bob"), "198.51.100.5")

    call_command("purge_reviews", stdout=(out := __import__("io").StringIO()))

    assert out.getvalue() == "Deleted 1 review(s) older than 30 days.\n"
    assert list(AttemptReview.objects.values_list("game_id", flat=True)) == [newer["id"]]
    assert Game.objects.filter(pk=game["id"]).exists()  # the attempt itself stays

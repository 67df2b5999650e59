"""Fair-play review: what is kept of each daily attempt for staff (privately), the day's flags,
the staff-only page, and disqualification — off every board, the live one included, and every
stat; logged with who and why; undone by reinstating; kept 30 days."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math

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


def test_the_days_flags_point_at_wins_near_par_and_inhuman_speed_not_a_shared_network(clock):
    from leaderboard.models import DailyDeal

    DailyDeal.objects.filter(date=utc_today()).update(par=len(WON))
    twins = [player("twin1"), player("twin2")]
    for twin in twins:  # two accounts from one network, and nothing else
        play(Game.objects.get(pk=start(twin, "198.51.100.4")["id"]), OPENING, clock)
    fast = Game.objects.get(pk=start(player("bot"), "192.0.2.1")["id"])
    play(fast, WON, clock, step=0.05)  # the whole line, at par, 50 ms an action
    hurried = Game.objects.get(pk=start(player("hurried"), "198.51.100.77")["id"])
    play(hurried, WON[:30], clock, step=0.1)  # fast, from the twins' network
    token_client(hurried.owner).post(f"/api/games/{hurried.pk}/resign/")  # (its clock stops)
    calm = Game.objects.get(pk=start(player("calm"), "203.0.113.99")["id"])
    play(calm, WON[:30], clock, step=4.0)

    day = review.day_review(utc_today(), clock.now)
    rows = {row.player: row for row in day}

    assert rows["twin1"].flags == rows["twin2"].flags == ()  # a shared network alone: no flag
    assert rows["twin1"].same_network == 3 and rows["twin1"].suspicion == 0
    assert rows["bot"].flags == ("par", "fast") and rows["bot"].over_par == 0
    assert rows["bot"].suspicion == review.WEIGHTS["par"] + review.WEIGHTS["fast"] == 70
    assert rows["bot"].result == "won"
    assert rows["bot"].per_action is not None and rows["bot"].per_action < review.FAST_SECONDS
    assert rows["bot"].reasons == [
        f"won in {len(WON)} actions, par or better (par {len(WON)})",
        f"{rows['bot'].per_action:.2f} s an action on average over {len(WON)} actions",
    ]
    assert rows["hurried"].flags == ("fast", "network")  # the network counts with another signal
    assert rows["hurried"].reasons[1] == "one of 3 accounts on the day's board from one network"
    assert rows["calm"].flags == () and rows["calm"].per_action == pytest.approx(4.0, rel=0.05)
    assert [row.player for row in day][:2] == ["bot", "hurried"]  # the most suspicious first


def test_a_win_near_par_is_flagged_and_one_beyond_the_margin_is_not(clock):
    from leaderboard.models import DailyDeal

    # par such that WON (222 actions) is just inside the margin, then just outside it
    inside = math.ceil(len(WON) / (1 + review.NEAR_PAR))
    DailyDeal.objects.filter(date=utc_today()).update(par=inside)
    game = Game.objects.get(pk=start(player("ann"), "203.0.113.7")["id"])
    play(game, WON, clock, step=3.0)

    (row,) = review.day_review(utc_today(), clock.now)
    assert row.flags == ("par",) and row.over_par == len(WON) - inside
    percent = (len(WON) - inside) / inside * 100
    assert row.reasons == [f"won in {len(WON)} actions, {percent:.1f} % over par ({inside})"]

    DailyDeal.objects.filter(date=utc_today()).update(par=inside - 1)
    (row,) = review.day_review(utc_today(), clock.now)
    assert row.flags == () and row.suspicion == 0


def test_a_judgement_searches_no_more_positions_than_the_settings_allow(clock, settings):
    """FAIR_PLAY_JUDGE_POSITIONS bounds the positions one attempt's judgement searches: on a
    budget too small for its forks, the worker's judgement of a win ends, not complete, with
    what it weighed; the service's budget but for the total."""
    settings.FAIR_PLAY_JUDGE_POSITIONS = 2000
    budget = review.judge_budget()
    assert budget.total == 2000
    assert dataclasses.replace(budget, total=review.JUDGE_BUDGET.total) == review.JUDGE_BUDGET
    game = Game.objects.get(pk=start(player("ann"), "203.0.113.7")["id"])
    play(game, WON, clock, step=3.0)

    assert review.judge(game.pk) == "judged"
    small = AttemptReview.objects.get(game=game)
    assert small.judgement["complete"] is False
    assert small.judgement["positions"] >= 2000  # (it stops once past the total)

    # Judged again on a larger total: further along the line.
    AttemptReview.objects.filter(game=game).delete()
    settings.FAIR_PLAY_JUDGE_POSITIONS = 40_000
    assert review.judge(game.pk) == "judged"
    larger = AttemptReview.objects.get(game=game)
    assert larger.judgement["positions"] > small.judgement["positions"]
    assert len(larger.forks) > len(small.forks)


def test_a_scout_sees_most_of_the_deck_without_trying_to_win_and_resigns_or_leaves(clock):
    draws = ["D"] * 12  # draw 3: the 34 stock cards in 12 draws
    resigned = Game.objects.get(pk=start(player("resigner"), "203.0.113.1")["id"])
    play(resigned, draws, clock, step=2.0)
    token_client(resigned.owner).post(f"/api/games/{resigned.pk}/resign/")
    left = Game.objects.get(pk=start(player("leaver"), "203.0.114.1")["id"])
    play(left, [*OPENING, *draws], clock, step=2.0)
    short = Game.objects.get(pk=start(player("short"), "203.0.115.1")["id"])
    play(short, draws[:11], clock, step=2.0)  # one card short of the stock's end
    token_client(short.owner).post(f"/api/games/{short.pk}/resign/")
    undone = Game.objects.get(pk=start(player("undoer"), "203.0.116.1")["id"])
    play(undone, ["D", "U"] * 6 + ["D"] * 6, clock, step=2.0)  # half the stock seen, 18 actions
    token_client(undone.owner).post(f"/api/games/{undone.pk}/resign/")
    playing = Game.objects.get(pk=start(player("player"), "203.0.117.1")["id"])
    play(playing, draws, clock, step=2.0)

    rows = {row.player: row for row in review.day_review(utc_today(), clock.now)}
    assert rows["resigner"].flags == ("scout",)
    assert rows["resigner"].reasons == [
        "scouted: saw 40 of the 52 cards, ended with 1 home (1 at most), then resigned"
    ]
    assert rows["resigner"].seen == 40 and rows["short"].seen == 39
    assert rows["leaver"].flags == ()  # still playing: its last action a minute ago
    assert rows["short"].flags == rows["undoer"].flags == rows["player"].flags == ()

    clock.advance(review.SCOUT_IDLE.total_seconds())
    rows = {row.player: row for row in review.day_review(utc_today(), clock.now)}
    assert rows["leaver"].flags == rows["player"].flags == ("scout",)
    assert rows["leaver"].reasons == [
        "scouted: saw 42 of the 52 cards, ended with 2 home (2 at most), then left"
    ]
    assert rows["short"].flags == rows["undoer"].flags == ()

    clock.set(clock.now + dt.timedelta(days=1))  # the day is over: closed as they stood
    rows = {row.player: row for row in review.day_review(utc_today() - dt.timedelta(days=1))}
    assert rows["leaver"].result == "closed" and rows["leaver"].flags == ("scout",)


def test_a_scout_is_found_by_what_it_did_whatever_its_number_of_actions(clock):
    """The audit's scout: 128 actions of play and undos show it all 52 cards (the worked
    example's winning line shows the last reserve card at its 124th action, with 15 cards home;
    four undos take four of them back), then it resigns. An honest player who plays as long and
    gives up where they stand is no scout; nor one who gave a card back but saw less than most
    of the deck."""
    scout = Game.objects.get(pk=start(player("scout"), "203.0.113.1")["id"])
    play(scout, [*WON[:124], "U", "U", "U", "U"], clock, step=2.0)
    token_client(scout.owner).post(f"/api/games/{scout.pk}/resign/")
    stayed = Game.objects.get(pk=start(player("stayed"), "203.0.114.1")["id"])
    play(stayed, WON[:124], clock, step=2.0)  # (52 seen, 15 home: it gave nothing back)
    token_client(stayed.owner).post(f"/api/games/{stayed.pk}/resign/")
    early = Game.objects.get(pk=start(player("early"), "203.0.115.1")["id"])
    play(early, ["R-T2", "R-F1", "U", *["D"] * 10], clock, step=2.0)  # (a card given back)
    token_client(early.owner).post(f"/api/games/{early.pk}/resign/")

    rows = {row.player: row for row in review.day_review(utc_today(), clock.now)}

    assert rows["scout"].actions == 128 and rows["scout"].foundation_cards == 11
    assert rows["scout"].flags == ("scout",)
    assert rows["scout"].reasons == [
        "scouted: saw 52 of the 52 cards, ended with 11 home (15 at most), then resigned"
    ]
    assert rows["stayed"].flags == () and rows["stayed"].seen == 52
    assert (rows["early"].flags, rows["early"].seen) == ((), 38)
    # The worker tier counts what a log showed once the attempt is over: the same answer.
    assert review.judge(scout.pk) == "judged"  # (in the top of the board: judged too)
    kept = AttemptReview.objects.get(game=scout).judgement
    assert (kept["seen"], kept["best"]) == (52, 15)
    (row,) = [r for r in review.day_review(utc_today(), clock.now) if r.player == "scout"]
    assert row.flags == ("scout",) and row.evidence is not None


def test_every_attempt_in_the_top_is_checked_for_links_to_a_scout_and_sign_ups_link_too(clock):
    """A scout made minutes before the account it helps, on its first day, is linked to it by
    their sign-ups; so is an attempt in the top of the board that is no win. Accounts made
    apart, from networks and browsers of their own, are not linked."""
    made = clock.now - dt.timedelta(hours=2)
    scout, helped, stranger = player("scout"), player("helped"), player("stranger")
    User.objects.filter(pk=scout.pk).update(date_joined=made)
    User.objects.filter(pk=helped.pk).update(date_joined=made - dt.timedelta(minutes=9))
    User.objects.filter(pk=stranger.pk).update(date_joined=made - dt.timedelta(days=90))
    scouting = Game.objects.get(pk=start(scout, "198.51.100.4")["id"])
    play(scouting, ["D"] * 12, clock, step=2.0)
    token_client(scout).post(f"/api/games/{scouting.pk}/resign/")
    top = Game.objects.get(pk=start(helped, "203.0.113.5")["id"])
    play(top, WON[:60], clock, step=3.0)  # (no win: in the top of the board all the same)
    other = Game.objects.get(pk=start(stranger, "192.0.2.5")["id"])
    play(other, WON[:30], clock, step=3.0)

    rows = {row.player: row for row in review.day_review(utc_today(), clock.now)}

    assert rows["helped"].flags == ("linked",) and rows["helped"].result != "won"
    assert rows["helped"].reasons == [f"linked to scout's attempt #{scouting.pk} by sign-up time"]
    assert rows["scout"].flags == ("scout", "linked")
    assert rows["stranger"].flags == ()


def test_a_scout_and_a_winner_linked_by_network_or_device_are_both_flagged(clock):
    from leaderboard.models import DailyDeal

    DailyDeal.objects.filter(date=utc_today()).update(par=100)  # WON is far from par
    scout = Game.objects.get(pk=start(player("scout"), "198.51.100.4")["id"])
    play(scout, ["D"] * 12, clock, step=2.0)
    token_client(scout.owner).post(f"/api/games/{scout.pk}/resign/")
    AttemptReview.objects.filter(game=scout).update(device=review.device_of("a" * 22))
    winner = Game.objects.get(pk=start(player("winner"), "198.51.100.5")["id"])  # the same /24
    play(winner, WON, clock, step=3.0)
    other = Game.objects.get(pk=start(player("other"), "203.0.113.5")["id"])  # elsewhere
    play(other, WON, clock, step=3.0)

    rows = {row.player: row for row in review.day_review(utc_today(), clock.now)}
    assert rows["winner"].flags == ("linked", "network")
    assert rows["winner"].reasons[0] == f"linked to scout's attempt #{scout.pk} by network"
    assert rows["scout"].flags == ("scout", "linked", "network")
    assert rows["scout"].reasons[1] == f"linked to winner's attempt #{winner.pk} by network"
    assert rows["other"].flags == ()

    AttemptReview.objects.filter(game=other).update(device=review.device_of("a" * 22))
    rows = {row.player: row for row in review.day_review(utc_today(), clock.now)}
    assert rows["other"].reasons == [f"linked to scout's attempt #{scout.pk} by device"]
    assert [s.game_id for s in rows["scout"].signals if s.flag == "linked"] == [
        winner.pk,
        other.pk,
    ]
    assert rows["scout"].suspicion == 15 + 40 + 40 + 10


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

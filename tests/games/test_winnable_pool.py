"""Winnable deals (``games.winnable``): a random practice deal is one the solver proved winnable
before it was dealt, from a pool the worker tier keeps full; an empty pool deals at random at
once, and says so; "any deal" is a random deal, not checked; a code of a deal proved lost says
so as its game starts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core.worker import schedule
from games import pool, services, tasks, winnable
from games.engine import Canfield, DealCode
from games.models import Game, HintStep, ProvedDeal
from tests.games.helpers import CODE

#: 100 draw-3 deals the solver proved winnable, each with its winning line (a pool prepared
#: ahead, as the worker tier prepares it: the proof of each is checked below by replaying it).
PROVED = [
    line.split(" ", 1)
    for line in (Path(__file__).parent / "winnable_deals.txt").read_text().splitlines()
    if line and not line.startswith("#")
]
#: A deal the solver proves lost (from its start: some 12,000 positions).
LOST = "CF1-D3-QJQSXIA"
LOST_MESSAGE = "The solver has proved that this deal cannot be won."


def wins(code: str, line: str) -> bool:
    return Canfield.replay(code, line.split()).is_won()


@pytest.fixture
def proved_pool(db: None) -> list[str]:
    """The pool of draw-3 standard deals filled with :data:`PROVED`; their codes."""
    ProvedDeal.objects.bulk_create(
        ProvedDeal(code=code, draw=3, variant="app", outcome="win", line=line)
        for code, line in PROVED
    )
    return [code for code, _ in PROVED]


@pytest.fixture
def small_pools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pools of 2 deals, for draw 3 and draw 1 of the standard rules."""
    monkeypatch.setattr(winnable, "POOL_SIZE", 2)
    monkeypatch.setattr(winnable, "KINDS", ((3, "app"), (1, "app")))


def test_a_hundred_random_deals_are_each_proved_winnable_at_dealing(owner, proved_pool):
    games = [winnable.start(owner) for _ in range(100)]

    codes = [game.code for game, _ in games]
    assert {dealt.source for _, dealt in games} == {"pool"}
    assert {dealt.proof for _, dealt in games} == {"win"}
    assert len(set(codes)) == 100  # each dealt once
    assert set(codes) == set(proved_pool)
    rows = {row.code: row for row in ProvedDeal.objects.filter(code__in=codes)}
    for code in codes:  # each proved winnable before it was dealt: its line wins
        assert rows[code].outcome == "win"
        assert rows[code].dealt_at is not None
        assert wins(code, rows[code].line)
    assert winnable.waiting(3, "app") == 0


def test_the_api_deals_from_the_pool_and_says_so(owner_api, owner, proved_pool):
    response = owner_api.post("/api/games/", {})

    assert response.status_code == 201
    body = response.json()
    assert body["deal"] == {"source": "pool", "winnable": True, "message": None}
    assert body["code"] == proved_pool[0]
    assert ProvedDeal.objects.get(code=body["code"]).dealt_at is not None


def test_an_empty_pool_deals_at_random_at_once_and_says_so(owner_api, owner):
    submitted = pool.stats()["submitted"]

    response = owner_api.post("/api/games/", {"draw": 1})

    assert response.status_code == 201
    body = response.json()
    assert body["code"].startswith("CF1-D1-")
    assert body["deal"]["source"] == "random"
    assert body["deal"]["message"] == (
        "No deal proved winnable was ready: this one is dealt at random, and may not be winnable."
    )
    assert pool.stats()["submitted"] == submitted  # no search: nobody waits for the solver
    assert Game.objects.filter(owner=owner, code=body["code"]).exists()


def test_a_pool_of_other_rules_is_not_dealt_from(owner, proved_pool):
    game, dealt = winnable.start(owner, draw=1, variant="classic")

    assert dealt.source == "random"
    assert game.code.startswith("CF1-H1-")
    assert winnable.waiting(3, "app") == 100


def test_any_deal_is_a_random_deal_not_taken_from_the_pool(owner_api, proved_pool):
    response = owner_api.post("/api/games/", {"any_deal": True}, format="json")

    assert response.status_code == 201
    assert response.json()["deal"]["source"] == "any"
    assert response.json()["code"].startswith("CF1-D3-")
    assert winnable.waiting(3, "app") == 100


def test_any_deal_with_a_code_is_refused_and_starts_nothing(owner_api, owner):
    response = owner_api.post("/api/games/", {"any_deal": True, "code": CODE}, format="json")

    assert response.status_code == 400
    assert response.json()["fields"]["any_deal"] == [
        "A game code names its deal: 'any_deal' is for random deals."
    ]
    assert not Game.objects.filter(owner=owner).exists()


def test_the_worker_duty_refills_the_pool(owner, small_pools):
    assert schedule.DUTIES["games.tasks.fill_winnable_pool"].every == dt.timedelta(minutes=1)

    added = tasks.fill_winnable_pool.call()

    assert added == {"D3": 2, "D1": 2}
    assert (winnable.waiting(3, "app"), winnable.waiting(1, "app")) == (2, 2)
    for row in ProvedDeal.objects.filter(outcome="win"):  # proved: its line wins
        assert wins(row.code, row.line)
    assert tasks.fill_winnable_pool.call() == {}  # full: nothing to do

    game, dealt = winnable.start(owner, draw=1)
    assert dealt.source == "pool"
    assert winnable.waiting(1, "app") == 1
    assert tasks.fill_winnable_pool.call() == {"D1": 1}  # the one dealt, replaced
    assert ProvedDeal.objects.filter(code=game.code, dealt_at__isnull=False).exists()


def test_a_deal_proved_lost_is_kept_and_never_dealt(owner, small_pools):
    assert winnable.prove(DealCode.parse(LOST), positions=50_000) == "no_win"
    ProvedDeal.objects.filter(code=LOST).update(dealt_at=None)

    games = [winnable.start(owner)[0].code for _ in range(3)]

    assert LOST not in games
    assert ProvedDeal.objects.get(code=LOST).outcome == "no_win"


def test_a_code_of_a_deal_proved_lost_says_so_as_it_starts(owner_api):
    winnable.prove(DealCode.parse(LOST), positions=50_000)

    response = owner_api.post("/api/games/", {"code": LOST})

    assert response.status_code == 201
    assert response.json()["deal"] == {
        "source": "code",
        "winnable": False,
        "message": LOST_MESSAGE,
    }


def test_a_code_proved_lost_by_another_games_search_says_so(owner_api, other, settings):
    settings.HINT_SECONDS = 3  # (room on a busy machine: the proof ends the search)
    lost = services.new_game(other, code=LOST)
    assert services.hint(lost.pk, other).outcome == "no_win"
    assert HintStep.objects.filter(game=lost, outcome="no_win").exists()

    body = owner_api.post("/api/games/", {"code": LOST}).json()

    assert (body["deal"]["winnable"], body["deal"]["message"]) == (False, LOST_MESSAGE)
    won = owner_api.post("/api/games/", {"code": CODE}).json()
    assert won["deal"]["winnable"] is None  # (never searched: not known)


def test_a_visitor_s_home_page_shows_a_deal_of_the_pool_and_takes_none(client, proved_pool):
    """The home page's board, before its first action makes it a game, is a deal proved
    winnable: one of the pool's waiting deals, left in the pool (a page view takes nothing)."""
    for _ in range(3):
        response = client.get("/")
        assert response.status_code == 200
        assert response.context["deal"]["code"] in proved_pool
    assert winnable.waiting(3, "app") == len(proved_pool)


def test_a_visitor_s_home_page_deals_at_random_when_the_pool_is_empty(client, db):
    response = client.get("/")

    assert response.status_code == 200
    code = DealCode.parse(response.context["deal"]["code"])
    assert code.format == "CF1" and code.draw == 3
    assert not ProvedDeal.objects.exists()

"""GET /api/ratings/ (the rating board), GET /api/players/<name>/ratings/ (a player's history)
and the ``rating`` of GET /api/players/<name>/.

The board reads the stored ratings: most tests here write them directly, with conservative
numbers (ordinals) chosen so that the numbers shown are easy to check:
1000 + 40 × ordinal, uncertainty 40 × sigma."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import User

from ratings import services
from ratings.models import Rating, RatingPoint
from tests.ratings.contract import check_ratings
from tests.ratings.helpers import DAY, result, settle, user
from tests.site.test_contract import Contract

BOARD = "/api/ratings/"


def rated(name: str, ordinal: float, days: int = 5, sigma: float = 2.0) -> Rating:
    return Rating.objects.create(
        player=user(name),
        mu=ordinal + 3 * sigma,
        sigma=sigma,
        ordinal=ordinal,
        days=days,
        last_day=DAY,
    )


def test_it_lists_established_players_best_first_with_their_places(api):
    rated("ann", 10.0)
    rated("bob", 12.5, days=9, sigma=1.5)
    rated("cat", 10.0)  # level with ann: the same place
    rated("dan", -2.0)
    rated("new", 40.0, days=4)  # provisional: not listed

    response = api.get(BOARD)

    assert response.status_code == 200
    assert response.json() == {
        "count": 4,
        "next": None,
        "previous": None,
        "results": [
            {"place": 1, "player": "bob", "rating": 1500, "uncertainty": 60, "days": 9,
             "provisional": False},
            {"place": 2, "player": "ann", "rating": 1400, "uncertainty": 80, "days": 5,
             "provisional": False},
            {"place": 2, "player": "cat", "rating": 1400, "uncertainty": 80, "days": 5,
             "provisional": False},
            {"place": 4, "player": "dan", "rating": 920, "uncertainty": 80, "days": 5,
             "provisional": False},
        ],
    }  # fmt: skip


def test_its_pages_hold_fifty_and_a_tie_across_pages_keeps_its_place(api):
    for k in range(49):
        rated(f"p{k:02}", 100.0 - k)  # places 1..49
    rated("tie-a", 20.0)  # place 50, the last of page 1
    rated("tie-b", 20.0)  # place 50 too, the first of page 2
    rated("last", 10.0)  # place 52

    first = api.get(BOARD).json()
    second = api.get(BOARD, {"page": 2}).json()

    assert first["count"] == 52 and len(first["results"]) == 50
    assert first["next"] == "http://testserver/api/ratings/?page=2"
    assert first["results"][-1]["place"] == 50
    assert [(r["player"], r["place"]) for r in second["results"]] == [("tie-b", 50), ("last", 52)]


def test_a_bad_page_is_refused_and_a_page_past_the_last_is_not_found(api):
    rated("ann", 10.0)

    for page in ("x", "0", "-1", "1.5"):
        response = api.get(BOARD, {"page": page})
        assert response.status_code == 400, page
        assert response.json()["code"] == "invalid"
    response = api.get(BOARD, {"page": 2})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_the_board_of_nobody_rated_is_empty(api):
    assert api.get(BOARD).json() == {"count": 0, "next": None, "previous": None, "results": []}


def test_a_players_history_gives_the_last_365_days_oldest_first(api):
    ann = user("ann")
    RatingPoint.objects.bulk_create(
        RatingPoint(
            player=ann, day=DAY + dt.timedelta(days=k), mu=25.0 + k / 40, sigma=2.0,
            ordinal=19.0 + k / 40, days=k + 1,
        )
        for k in range(370)
    )  # fmt: skip
    rated("ann", 19.0 + 369 / 40, days=370)

    response = api.get("/api/players/ANN/ratings/")

    assert response.status_code == 200
    body = response.json()
    assert body["player"] == "ann"
    assert body["rating"] == {"number": 1760 + 369, "uncertainty": 80, "days": 370,
                              "provisional": False}  # fmt: skip
    assert len(body["points"]) == 365
    assert body["points"][0] == {"date": "2030-06-20", "rating": 1760 + 5, "uncertainty": 80}
    assert body["points"][-1]["date"] == (DAY + dt.timedelta(days=369)).isoformat()


def test_the_history_of_an_unknown_player_is_not_found(api):
    response = api.get("/api/players/nobody/ratings/")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "No such player."}


def test_a_player_never_rated_has_an_empty_history_and_no_rating(api):
    user("ann")

    assert api.get("/api/players/ann/ratings/").json() == {
        "player": "ann",
        "rating": None,
        "points": [],
    }
    assert api.get("/api/players/ann/").json()["rating"] is None


def test_the_player_page_gives_the_rating_the_worker_computed(api):
    result("ann", DAY, cards=52)
    result("bob", DAY, cards=30)
    result("cat", DAY, cards=12)
    settle(DAY)

    services.rate_due()

    ratings = {name: api.get(f"/api/players/{name}/").json()["rating"] for name in ("ann", "cat")}
    # test_hand_computed's day, worked by hand: ann 27.86905 ± 8.20524, cat 21.41369 ± 8.05822.
    assert ratings == {
        "ann": {"number": 1130, "uncertainty": 328, "days": 1, "provisional": True},
        "cat": {"number": 890, "uncertainty": 322, "days": 1, "provisional": True},
    }
    assert api.get(BOARD).json()["count"] == 0  # provisional: not on the board yet


def test_its_endpoints_answer_each_documented_status_as_the_schema_says(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    contract = Contract(schema)
    User.objects.create_user("owner")

    check_ratings(contract.check, api)

    # (503, the database away, is every operation's: the whole contract test answers it.)
    ours = {key for key in contract.documented() if "ratings" in key[1] and key[2] != "503"}
    assert ours == contract.seen
    assert len(ours) == 5

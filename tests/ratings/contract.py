"""The ratings endpoints' part of the contract test (tests/site/test_contract.py): each status
the schema documents for them, answered as the schema says. ``owner`` is a player of the
contract test; it is given a rating here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from ratings.models import Rating, RatingPoint

Check = Callable[[str, str, Any, int], Any]


def check_ratings(check: Check, api: APIClient) -> None:
    owner = User.objects.get(username="owner")
    day = dt.date(2030, 6, 15)
    Rating.objects.create(player=owner, mu=30.0, sigma=2.0, ordinal=24.0, days=5, last_day=day)
    RatingPoint.objects.create(player=owner, day=day, mu=30.0, sigma=2.0, ordinal=24.0, days=5)

    board = "/api/ratings/"
    listed = check("GET", board, api.get(board), 200)
    assert [row["player"] for row in listed["results"]] == ["owner"]
    check("GET", board, api.get(board, {"page": "x"}), 400)
    check("GET", board, api.get(board, {"page": 2}), 404)

    history = "/api/players/{username}/ratings/"
    found = check("GET", history, api.get("/api/players/owner/ratings/"), 200)
    assert found["points"] == [{"date": "2030-06-15", "rating": 1960, "uncertainty": 80}]
    check("GET", history, api.get("/api/players/nobody/ratings/"), 404)

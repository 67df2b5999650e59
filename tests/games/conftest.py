"""Fixtures of the games tests (people and clients: tests/conftest.py; helpers: helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services, signals
from games.engine import DealCode
from games.models import Game
from tests.games.helpers import CODE, utc_today


@pytest.fixture
def game(owner: User) -> Game:
    """The owner's practice game of the worked example's deal, nothing played yet."""
    return services.new_game(owner, code=CODE)


@pytest.fixture
def other_game(other: User) -> Game:
    return services.new_game(other, code=CODE)


@pytest.fixture
def daily_code() -> str:
    return str(DealCode(4242, 3, "app"))


@pytest.fixture
def daily_game(owner: User, daily_code: str) -> Game:
    """The owner's ranked attempt at today's daily deal."""
    return services.new_game(owner, code=daily_code, kind="daily", daily_date=utc_today())


@pytest.fixture
def signals_sent() -> Iterator[list[tuple[str, int]]]:
    """Records ``(signal name, game id)`` for every games signal sent during the test."""
    sent: list[tuple[str, int]] = []

    def on_standing(sender: Any, game: Game, **kwargs: Any) -> None:
        sent.append(("standing_changed", game.pk))

    signals.standing_changed.connect(on_standing, dispatch_uid="test-standing")
    yield sent
    signals.standing_changed.disconnect(dispatch_uid="test-standing")

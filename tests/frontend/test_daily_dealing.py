"""A day not dealt yet when its first player arrives: the page says it is dealing the cards and
starts the game by itself once the server has dealt them (503 deal_pending, retried)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support import Daphne, django_env, migrate


@pytest.fixture
def undealt_server(tmp_path: Path) -> Iterator[str]:
    """A server on a fresh database that deals no day ahead: today waits for its first player."""
    env = django_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", DEAL_AHEAD="off")
    migrate(env)
    with Daphne(env, tmp_path / "daphne.log") as server:
        yield server.url


def test_the_first_player_of_an_undealt_day_sees_the_cards_dealt_then_plays(
    new_player, undealt_server
):
    player = new_player("first", base=undealt_server)
    page = player.goto("/")
    play = page.get_by_test_id("play-daily")

    play.click()

    expect(play).to_have_text("Dealing today's cards…")
    expect(play).to_be_disabled()
    expect(page.locator("[data-daily-status]")).to_contain_text("can be won")
    page.wait_for_url("**/games/*/", timeout=30_000)  # retried by itself, once dealt
    page.wait_for_selector(".pile.stock")
    assert player.errors == []

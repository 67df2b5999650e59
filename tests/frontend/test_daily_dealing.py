"""A day not dealt yet when its first player arrives: the page says it is dealing the cards and
starts the game by itself once the worker tier has dealt them (503 deal_pending, retried)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support import Daphne, Worker, django_env, migrate


@pytest.fixture
def undealt_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """A server on a fresh database with no worker yet: today waits for one; and its
    environment, to start the worker in."""
    env = django_env(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(env)
    with Daphne(env, tmp_path / "daphne.log") as server:
        yield server.url, env


def test_the_first_player_of_an_undealt_day_sees_the_cards_dealt_then_plays(
    new_player, undealt_server, tmp_path
):
    base, env = undealt_server
    player = new_player("first", base=base)
    page = player.goto("/")
    play = page.get_by_test_id("play-daily")

    play.click()

    expect(play).to_have_text("Dealing today's cards…")
    expect(play).to_be_disabled()
    expect(page.locator("[data-daily-status]")).to_contain_text("can be won")
    with Worker(env, tmp_path / "worker.log"):  # the worker tier deals today as it starts
        # Retried by itself, once dealt: the worker's start and its search take seconds here,
        # and over half a minute on a machine busy with the rest of the suite.
        page.wait_for_url("**/games/*/", timeout=120_000)
    page.wait_for_selector(".pile.stock")
    assert player.errors == []

"""/ws/games/<id>/watch/ — a game's spectators, live: who is let in (``can_watch``'s rule, by
every case), what they are sent (the owner's payload, never a hidden card), "N watching", the cap,
resyncs, and that a spectator never plays. In process, on the real ASGI application (Channels'
``WebsocketCommunicator``): the in-memory layer, or Redis when the run has it. Two Daphne
processes sharing Redis: tests/games/test_watch_processes.py."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from canfield_site.asgi import application
from core.accounts.models import PlayerSettings
from games import services, watch_counts
from games.api import watch_consumer
from games.clock import utc_today
from games.engine import DealCode
from games.models import Game
from tests.conftest import token_client, token_of
from tests.games.helpers import CODE, WORKED_EXAMPLE
from tests.games.test_finish import near_end_of
from tests.games.test_game_socket import HEADERS, closed_with, session_cookie
from tests.games.test_hidden_cards import assert_hides, random_request
from tests.leaderboard.live import run

# What differs between the embedded default (the in-memory layer and counts) and Redis.
pytestmark = pytest.mark.each_backend

#: The rule's refusal of a daily attempt of a day not over, to a player and to a visitor.
TO_A_PLAYER = (
    "You may watch another player's attempt at this daily deal once your own attempt is over "
    "(won or resigned). Once the day is over, anyone may watch it."
)
TO_A_VISITOR = (
    "A daily attempt can be watched while its day lasts only by players who have finished their "
    "own attempt at that deal: log in and play it first. Once the day is over, anyone may watch "
    "it."
)


@pytest.fixture(autouse=True)
def _committed(transactional_db: None, settings: Any) -> Iterator[None]:
    """The consumer's database work runs in a thread of its own: committed data. Each test runs
    on an event loop of its own, and gets a channel layer of its own (Channels makes its layers
    again when CHANNEL_LAYERS is set): a layer keeps what it locked on the loop it first served,
    and an earlier test's loop is gone."""
    settings.CHANNEL_LAYERS = {**settings.CHANNEL_LAYERS}
    yield
    # This process's spectators of the test's games counted out: a later test's game may get the
    # same id (SQLite reuses them), and a socket the test left open is never counted out.
    for game_id in Game.objects.values_list("pk", flat=True):
        watch_counts.change(game_id, count=0)


async def watch(game_id: int, user: User | None = None) -> WebsocketCommunicator:
    """A spectator's socket on the game: ``user``'s session, or a visitor's."""
    cookie = [(b"cookie", await sync_to_async(session_cookie)(user))] if user else []
    client = WebsocketCommunicator(
        application, f"/ws/games/{game_id}/watch/", headers=HEADERS + cookie
    )
    connected, _ = await client.connect(timeout=5)
    assert connected
    return client


async def frame(client: WebsocketCommunicator, timeout: float = 5) -> Any:
    """The next frame but a "watching" count (which comes whenever the number of spectators
    changes), the site's pings answered on the way, as a page answers them."""
    while True:
        got = json.loads(await client.receive_from(timeout=timeout))
        if got["type"] == "ping":
            await client.send_json_to({"type": "pong", "n": got["n"]})
        elif got["type"] != "watching":
            return got


async def frame_of(client: WebsocketCommunicator, kind: str, timeout: float = 5) -> Any:
    """The next frame of type ``kind`` (any other on the way skipped)."""
    async with asyncio.timeout(timeout):
        while True:
            got = json.loads(await client.receive_from(timeout=timeout))
            if got["type"] == "ping":
                await client.send_json_to({"type": "pong", "n": got["n"]})
            elif got["type"] == kind:
                return got


async def count_reaches(client: WebsocketCommunicator, number: int) -> bool:
    """Whether the socket is told ``number`` spectators within the frame timeout: its
    ``watching`` frames read until one says so (a total sent before a later one may come first:
    the counts of a game go out at most one a window, each the latest then)."""
    while (await frame_of(client, "watching"))["watching"] != number:
        pass
    return True


async def refused(client: WebsocketCommunicator) -> tuple[Any, int]:
    """The refusal that ends a socket, and its close code."""
    return await frame(client), await closed_with(client)


def rest_game(api: APIClient, game_id: int) -> Any:
    response = api.get(f"/api/games/{game_id}/")
    assert response.status_code == 200
    return response.json()


def act(api: APIClient, game_id: int, ply: int, **body: Any) -> Any:
    response = api.post(f"/api/games/{game_id}/actions/", {"ply": ply, **body}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def new_daily(user: User, day: dt.date | None = None) -> Game:
    return services.new_game(user, code=CODE, kind=Game.Kind.DAILY, daily_date=day or utc_today())


def without(body: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in keys}


async def until(condition: Callable[[], bool], timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


# --- who is let in ---------------------------------------------------------------------------


@run
async def test_the_owner_another_player_and_a_visitor_watch_a_practice_game(owner, other):
    """The snapshot is the owner's REST payload of the game, whole, with its ply."""
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    api = await sync_to_async(token_client)(owner)
    await sync_to_async(act)(api, game.pk, 0, action="R-T2")
    expected = await sync_to_async(rest_game)(api, game.pk)

    for viewer in (owner, other, None):
        client = await watch(game.pk, viewer)
        snapshot = await frame(client)
        assert (snapshot["type"], snapshot["ply"], snapshot["game"]) == ("snapshot", 1, expected)
        assert snapshot["watching"] >= 1
        await client.disconnect()


@run
async def test_a_private_practice_game_is_watched_by_its_owner_alone(owner, other, monkeypatch):
    monkeypatch.setattr(watch_consumer, "AUTH_SECONDS", 0.2)
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    await sync_to_async(PlayerSettings.objects.create)(user=owner, practice_private=True)

    mine = await watch(game.pk, owner)
    assert (await frame(mine))["type"] == "snapshot"
    theirs = await watch(game.pk, other)
    visitor = await watch(game.pk)

    not_found = {"type": "refused", "code": "not_found", "message": "No such game."}
    assert await refused(theirs) == (not_found, 4404)
    assert await refused(visitor) == (not_found, 4404)  # (once its time to authenticate is up)
    await mine.disconnect()


@run
async def test_a_game_that_does_not_exist_is_refused_as_a_private_one(other):
    client = await watch(987654321, other)
    assert await refused(client) == (
        {"type": "refused", "code": "not_found", "message": "No such game."},
        4404,
    )


@run
async def test_a_daily_attempt_is_watched_only_once_the_watcher_s_own_attempt_is_over(owner, other):
    attempt = await sync_to_async(new_daily)(owner)

    client = await watch(attempt.pk, other)  # no attempt of their own
    assert await refused(client) == (
        {"type": "refused", "code": "own_attempt_not_over", "message": TO_A_PLAYER},
        4403,
    )
    own = await sync_to_async(new_daily)(other)
    client = await watch(attempt.pk, other)  # their own in progress
    assert (await refused(client))[1] == 4403

    await sync_to_async(services.resign)(own.pk, other)
    client = await watch(attempt.pk, other)
    snapshot = await frame(client)
    assert (snapshot["type"], snapshot["game"]["id"], snapshot["game"]["code"]) == (
        "snapshot",
        attempt.pk,
        None,  # (the deal's code stays hidden until the day is over, as to its player)
    )
    await client.disconnect()


@run
async def test_a_visitor_is_refused_a_daily_attempt_with_the_reason_once_no_token_came(
    owner, monkeypatch
):
    monkeypatch.setattr(watch_consumer, "AUTH_SECONDS", 0.2)
    attempt = await sync_to_async(new_daily)(owner)
    client = await watch(attempt.pk)
    assert await refused(client) == (
        {"type": "refused", "code": "own_attempt_not_over", "message": TO_A_VISITOR},
        4403,
    )


@run
async def test_a_token_lets_in_a_player_whose_own_attempt_is_over(owner, other):
    attempt = await sync_to_async(new_daily)(owner)
    own = await sync_to_async(new_daily)(other)
    await sync_to_async(services.resign)(own.pk, other)
    client = await watch(attempt.pk)  # no session: a visitor, refused as one until the token

    await client.send_json_to({"type": "auth", "token": await sync_to_async(token_of)(other)})
    snapshot = await frame(client)

    assert (snapshot["type"], snapshot["game"]["id"]) == ("snapshot", attempt.pk)
    await client.disconnect()


@run
async def test_a_bad_token_is_refused_and_closed_with_4401(owner):
    attempt = await sync_to_async(new_daily)(owner)
    client = await watch(attempt.pk)
    await client.send_json_to({"type": "auth", "token": "not-a-token"})
    body, code = await refused(client)
    assert (body["type"], body["code"], code) == ("refused", "not_authenticated", 4401)


@run
async def test_after_its_day_a_daily_attempt_is_anyone_s_to_watch(owner):
    attempt = await sync_to_async(new_daily)(owner, utc_today() - dt.timedelta(days=1))
    client = await watch(attempt.pk)
    snapshot = await frame(client)
    assert (snapshot["type"], snapshot["game"]["result"]) == ("snapshot", "closed")
    await client.disconnect()


# --- what they are sent ----------------------------------------------------------------------


@run
async def test_each_action_reaches_the_spectators_as_the_owner_s_payload(owner, other):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    api = await sync_to_async(token_client)(owner)
    spectators = [await watch(game.pk, other), await watch(game.pk)]
    for client in spectators:
        assert (await frame_of(client, "snapshot"))["ply"] == 0

    for ply, token in enumerate(WORKED_EXAMPLE):
        played = await sync_to_async(act)(api, game.pk, ply, action=token)
        for client in spectators:
            update = await frame_of(client, "update", timeout=1)  # (within a second)
            assert (update["ply"], update["game"]) == (ply + 1, without(played, "applied"))
    for client in spectators:
        await client.disconnect()


@run
async def test_a_game_that_ends_sends_its_last_frame_and_keeps_the_socket(owner, other):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client = await watch(game.pk, other)
    await frame_of(client, "snapshot")

    await sync_to_async(services.resign)(game.pk, owner)
    update = await frame_of(client, "update")
    await client.send_json_to({"type": "resync"})
    snapshot = await frame_of(client, "snapshot")

    assert (update["ply"], update["game"]["status"]) == (0, "resigned")
    assert snapshot["game"]["status"] == "resigned"
    await client.disconnect()


@run
async def test_n_watching_follows_the_spectators_as_they_come_and_go(owner, other):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    first = await watch(game.pk)
    assert (await frame_of(first, "snapshot"))["watching"] == 1
    second = await watch(game.pk, other)
    assert (await frame_of(second, "snapshot"))["watching"] == 2
    assert await count_reaches(first, 2)  # (the first's own coming may be told it first)

    await second.disconnect()
    assert await count_reaches(first, 1)
    await first.disconnect()
    await until(lambda: not watch_counts.watched(game.pk))


@run
async def test_spectators_past_the_cap_are_refused_with_a_reason(owner, other, settings):
    settings.WATCHERS_PER_GAME = 2
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    admitted = [await watch(game.pk), await watch(game.pk, other)]
    for client in admitted:
        await frame_of(client, "snapshot")

    third = await watch(game.pk, owner)
    body, code = await refused(third)

    assert (body["code"], code) == ("too_many_watchers", 4429)
    assert body["message"] == (
        "This game has 2 spectators, the most a game may have: try again later."
    )
    await admitted[0].disconnect()
    fourth = await watch(game.pk, owner)  # a place freed
    assert (await frame_of(fourth, "snapshot"))["watching"] == 2
    for client in (admitted[1], fourth):
        await client.disconnect()


@run
async def test_a_resync_sends_the_game_as_it_stands_once_a_second_at_most(owner):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client = await watch(game.pk)
    await frame_of(client, "snapshot")
    api = await sync_to_async(token_client)(owner)
    await sync_to_async(act)(api, game.pk, 0, action="R-T2")
    await frame_of(client, "update")

    await client.send_json_to({"type": "resync"})
    snapshot = await frame_of(client, "snapshot")
    await client.send_json_to({"type": "resync"})
    throttled = await frame_of(client, "error")

    assert (snapshot["ply"], snapshot["game"]["ply"]) == (1, 1)
    assert (throttled["code"], throttled["message"]) == (
        "throttled",
        "One resync a second at most.",
    )
    await client.disconnect()


@run
async def test_a_spectator_never_plays(owner, other):
    """An action, Finish, resigning — from a spectator, even the game's owner watching — are
    refused with an error frame; nothing changes, and the socket goes on."""
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client = await watch(game.pk, owner)
    await frame_of(client, "snapshot")
    expected = (
        "A spectator sends only resync (or auth, to watch as a player): a spectator never plays."
    )

    answers = []
    for message in (
        {"type": "action", "ply": 0, "action": "R-T2"},
        {"type": "finish", "ply": 0},
        {"type": "resign"},
        ["resync"],
    ):
        await client.send_json_to(message)
        answers.append(await frame(client))
    await client.send_to(text_data="{not json")
    malformed = await frame(client)

    assert answers == [{"type": "error", "code": "invalid", "message": expected}] * 4
    assert malformed == {
        "type": "error",
        "code": "malformed",
        "message": "A message is a JSON object.",
    }
    row = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert (row.ply, row.status) == (0, "in_progress")
    await client.send_json_to({"type": "resync"})
    assert (await frame_of(client, "snapshot"))["ply"] == 0
    await client.disconnect()


@pytest.mark.parametrize("seed", range(6))
@run
async def test_no_frame_shows_a_hidden_card(owner, settings, seed):
    """As the REST answers (tests/games/test_hidden_cards.py): random games played by their owner
    while two spectators watch, random taps and legal actions, and every frame each spectator
    receives searched for every card hidden at that moment."""
    rng = random.Random(seed)
    code = str(DealCode(rng.randrange(26**7), rng.choice([1, 3]), rng.choice(["app", "classic"])))
    game = await sync_to_async(services.new_game)(owner, code=code)
    api = await sync_to_async(token_client)(owner)
    spectators = [await watch(game.pk), await watch(game.pk, owner)]
    tokens: list[str] = []
    for client in spectators:
        text = await client.receive_from(timeout=5)
        assert json.loads(text)["type"] == "snapshot"
        assert_hides(text, code, tokens)
    state = (await sync_to_async(rest_game)(api, game.pk))["state"]

    for _ in range(40):
        response = await sync_to_async(api.post)(
            f"/api/games/{game.pk}/actions/",
            {"ply": len(tokens), **random_request(rng, state)},
            format="json",
        )
        played = response.json()
        state = played["state"]
        if not played["applied"]:
            continue
        tokens.append(played["applied"])
        for client in spectators:
            while True:
                text = await client.receive_from(timeout=5)
                assert_hides(text, code, tokens)
                if json.loads(text)["type"] == "update":
                    break
            assert json.loads(text)["game"]["full_state"] is None
    for client in spectators:
        await client.disconnect()


@run
async def test_finish_reaches_the_spectators_as_a_snapshot_of_the_won_game(owner):
    """Finish plays its whole line at once: one frame skips many plies, and comes as a snapshot
    (the won game, every card now shown, as to its player)."""
    game, played = await sync_to_async(near_end_of)(owner)
    client = await watch(game.pk)
    assert (await frame_of(client, "snapshot"))["ply"] == len(played)

    finished = await sync_to_async(services.finish)(game.pk, owner, len(played))
    snapshot = await frame_of(client, "snapshot")

    assert len(finished.applied) > 1
    assert snapshot["ply"] == len(played) + len(finished.applied)
    assert (snapshot["game"]["status"], snapshot["game"]["foundation_cards"]) == ("won", 52)
    await client.disconnect()


@run
async def test_a_player_who_makes_practice_private_is_watched_by_nobody_else_from_the_next_move(
    owner, other
):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    theirs, mine = await watch(game.pk, other), await watch(game.pk, owner)
    for client in (theirs, mine):
        await frame_of(client, "snapshot")

    await sync_to_async(PlayerSettings.objects.create)(user=owner, practice_private=True)
    api = await sync_to_async(token_client)(owner)
    await sync_to_async(act)(api, game.pk, 0, action="R-T2")

    assert await refused(theirs) == (
        {"type": "refused", "code": "not_found", "message": "No such game."},
        4404,
    )
    assert (await frame_of(mine, "update"))["ply"] == 1
    await mine.disconnect()

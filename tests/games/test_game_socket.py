"""/ws/games/<id>/ — a game's socket: its owner plays it with the REST API's moves and answers.

The socket and the REST views are adapters over the same functions (``games.api.moves``): the
worked example played over both, in two games, gets the same answers, refusals included. The
in-process tests drive the real ASGI application (Channels' ``WebsocketCommunicator``); the last
ones run a Daphne and talk to it over real sockets.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import http.cookies
import json
import random
import secrets
import threading
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import websocket
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from knox.crypto import hash_token  # type: ignore[import-untyped,unused-ignore]
from rest_framework.test import APIClient

from canfield_site.asgi import application
from core.accounts import auth, sockets
from games import services
from games.api import consumers
from games.engine import DealCode
from games.models import Game, LoggedAction
from tests.conftest import SessionClient, token_client, token_of
from tests.games.helpers import CODE, WORKED_EXAMPLE, expected_game, winning_line
from tests.games.test_hidden_cards import assert_hides, random_request
from tests.leaderboard.live import run
from tests.site.sockets import RawWebsocket
from tests.support import (
    Daphne,
    Deployment,
    RedisServer,
    django_env,
    get_json,
    migrate,
    post_json,
)

# What differs between the embedded default (SQLite, the in-memory layer) and PostgreSQL and
# Redis: CI runs these on both.
pytestmark = pytest.mark.each_backend

HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
PASSWORD = "felt-green-canfield-42"


@pytest.fixture(autouse=True)
def _committed(transactional_db: None) -> None:
    """The consumer's database work runs in threads of its own: committed data."""


@pytest.fixture(autouse=True, scope="module")
def _threads_stopped() -> Iterator[None]:
    """The game sockets' threads give back their kept connections once the module is done,
    before its test database is dropped."""
    yield
    consumers.stop_threads()


def session_cookie(user: Any) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def open_socket(game_id: int, cookie: bytes | None = None) -> WebsocketCommunicator:
    headers = HEADERS + ([(b"cookie", cookie)] if cookie else [])
    client = WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers=headers)
    connected, _ = await client.connect(timeout=5)
    assert connected
    return client


async def authenticated(game_id: int, token: str) -> tuple[WebsocketCommunicator, Any]:
    """A socket on the game, authenticated by ``token``, and its ready frame."""
    client = await open_socket(game_id)
    await client.send_json_to({"type": "auth", "token": token, "ref": "hello"})
    return client, await client.receive_json_from(timeout=5)


async def ask(client: WebsocketCommunicator, message: dict[str, Any]) -> Any:
    """The answer to ``message`` (the site's pings on the way answered, as a page answers them:
    core.socket_limits)."""
    await client.send_json_to(message)
    while (frame := await client.receive_json_from(timeout=10))["type"] == "ping":
        await client.send_json_to({"type": "pong", "n": frame["n"]})
    return frame


async def closed_with(client: WebsocketCommunicator) -> int:
    """The close code of a socket the server closes next."""
    output = await client.receive_output(timeout=5)
    assert output["type"] == "websocket.close", output
    return int(output["code"])


def rest_move(api: Any, game_id: int, kind: str, body: dict[str, Any]) -> tuple[int, Any]:
    path = {"action": "actions", "finish": "finish", "resign": "resign"}[kind]
    response = api.post(f"/api/games/{game_id}/{path}/", body, format="json")
    return response.status_code, response.json()


def same(body: Any) -> Any:
    """A body with what differs between two games and two runs set aside: the game's id, its
    timestamps, a wait."""
    if not isinstance(body, dict):
        return body
    return {
        key: (
            "<id>"
            if key == "id"
            else "<time>"
            if key in {"started_at", "finished_at"} and value is not None
            else "<wait>"
            if key == "retry_after"
            else value
        )
        for key, value in body.items()
    }


def answer_body(frame: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in frame.items() if key not in {"type", "ref"}}


def logged(game_id: int) -> list[tuple[int, str]]:
    return list(
        LoggedAction.objects.filter(game_id=game_id).order_by("ply").values_list("ply", "token")
    )


#: The worked example, with a refusal of every kind on the way, as (kind, body) moves.
WORKED_WITH_REFUSALS: list[tuple[str, dict[str, Any]]] = [
    ("action", {"ply": 0, "action": "R-T2"}),
    ("action", {"ply": 0, "action": "R-T2"}),  # repeated: answered again, not applied twice
    ("action", {"ply": 0, "action": "R-F1"}),  # stale_ply
    ("action", {"ply": 1, "action": "W-F1"}),  # illegal_action, with its reason
    ("action", {"ply": 1, "action": "R-X9"}),  # bad_notation
    ("action", {"ply": 1}),  # invalid, with fields
    ("action", {"ply": 1, "action": "R-T2", "tap": "R"}),  # invalid: both
    ("action", {"ply": -1, "action": "R-F1", "extra": 1}),  # invalid: two fields
    ("finish", {"ply": 1}),  # not_finishable
    ("action", {"ply": 1, "action": "R-F1"}),
    ("action", {"ply": 2, "action": "T2:2-T4"}),
    ("action", {"ply": 3, "tap": "S"}),  # a tap: a draw
    ("action", {"ply": 4, "tap": "F2", "index": None, "double_click": True}),  # does nothing
    ("action", {"ply": 4, "action": "U"}),
]


@run
async def test_it_plays_the_worked_example_as_the_rest_api_does_every_answer_alike(owner, settings):
    """Two games of one deal: each move over REST in one and over the socket in the other; every
    answer the same body (the game's id and times aside), every refusal the same code, reason
    and message; then the rest of a winning line, Finish, and what a won game refuses. (The
    socket's message rate is raised: the test plays faster than a person.)"""
    settings.SOCKET_MESSAGES_PER_SECOND = 1000.0
    api = await sync_to_async(token_client)(owner)
    rest_game = await sync_to_async(services.new_game)(owner, code=CODE)
    socket_game = await sync_to_async(services.new_game)(owner, code=CODE)
    line = await sync_to_async(winning_line)()
    assert line[:3] == WORKED_EXAMPLE
    client, ready = await authenticated(socket_game.pk, await sync_to_async(token_of)(owner))
    assert ready["type"] == "ready"
    response = await sync_to_async(api.get)(f"/api/games/{rest_game.pk}/")
    assert (response.status_code, same(ready["game"])) == (200, same(response.json()))

    moves = list(WORKED_WITH_REFUSALS)
    answers: list[tuple[int, Any]] = []
    frames: list[Any] = []
    number = 0

    async def both(kind: str, body: dict[str, Any]) -> tuple[int, Any]:
        nonlocal number
        number += 1
        status, rest = await sync_to_async(rest_move)(api, rest_game.pk, kind, body)
        frame = await ask(client, {"type": kind, "ref": number, **body})
        assert frame["ref"] == number, frame
        assert frame["type"] == ("played" if status == 200 else "refused"), (kind, body, frame)
        assert same(answer_body(frame)) == same(rest), (kind, body)
        answers.append((status, rest))
        frames.append(frame)
        return status, rest

    for kind, body in moves:
        await both(kind, body)
    assert [status for status, _ in answers] == [
        *(200, 200, 409, 400, 400, 400, 400, 400, 409),
        *(200, 200, 200, 200, 200),
    ]
    one_of = "Send exactly one of 'action' and 'tap'."
    assert [body for status, body in answers if status != 200] == [
        {
            "code": "stale_ply",
            "message": "The action was made in position 0, but the game is at position 1; "
            "reload the game.",
            "ply": 1,
        },
        {"code": "illegal_action", "reason": "pile_empty", "message": "The waste is empty."},
        {
            "code": "bad_notation",
            "reason": "not_an_action",
            "message": "'R-X9' is not an action: expected D, C, U or a move such as R-T2 or "
            "T2:3-T4.",
        },
        {"code": "invalid", "message": one_of, "fields": {}},
        {"code": "invalid", "message": one_of, "fields": {}},
        {
            "code": "invalid",
            "message": "extra: Unknown field.",
            "fields": {"extra": ["Unknown field."]},
        },
        {
            "code": "not_finishable",
            "message": "This game cannot be finished by itself from here: it still needs the "
            "player's own moves.",
        },
    ]
    assert [body.get("applied") for status, body in answers if status == 200] == [
        "R-T2",
        "R-T2",
        "R-F1",
        "T2:2-T4",
        "D",
        None,
        "U",
    ]

    ply = 4 + 1  # (after the undo)
    for token in line[3:]:
        status, body = await both("action", {"ply": ply, "action": token})
        assert status == 200, body
        ply += 1
        if body["state"]["finishable"]:
            break
    status, body = await both("finish", {"ply": ply})
    assert (status, body["status"]) == (200, "won")
    assert body["applied"]
    status, body = await both("action", {"ply": body["ply"], "action": "D"})
    assert (status, body["code"]) == (409, "game_over")
    status, body = await both("resign", {})
    assert (status, body["code"]) == (409, "game_over")

    # Both games hold the same log; the socket's won game the payload its engine gives.
    rest_log = await sync_to_async(logged)(rest_game.pk)
    socket_log = await sync_to_async(logged)(socket_game.pk)
    assert socket_log == rest_log
    tokens = [token for _, token in socket_log]
    expected = await sync_to_async(lambda: expected_game(socket_game, tokens))()
    assert answer_body(frames[-3]) == {**expected, "applied": tokens[ply:]}
    await client.disconnect()


@pytest.mark.parametrize("seed", range(10))
@run
async def test_no_frame_shows_a_hidden_card(owner, settings, seed):
    """As REST's answers (tests/games/test_hidden_cards.py): random games played over the socket,
    random taps and random legal actions, and every frame — the ready one, each answer, each
    refusal — searched for every card hidden at that moment."""
    settings.SOCKET_MESSAGES_PER_SECOND = 1000.0
    rng = random.Random(seed)
    code = str(DealCode(rng.randrange(26**7), rng.choice([1, 3]), rng.choice(["app", "classic"])))
    game = await sync_to_async(services.new_game)(owner, code=code)
    client = await open_socket(game.pk)
    await client.send_json_to({"type": "auth", "token": await sync_to_async(token_of)(owner)})
    text = await client.receive_from(timeout=5)
    tokens: list[str] = []
    assert_hides(text, code, tokens)
    state = json.loads(text)["game"]["state"]

    for n in range(60):
        body = random_request(rng, state)
        await client.send_json_to({"type": "action", "ply": len(tokens), "ref": n, **body})
        text = await client.receive_from(timeout=10)
        frame = json.loads(text)
        assert (frame["type"], frame["ref"]) == ("played", n), frame
        if frame["applied"]:
            tokens.append(frame["applied"])
        assert frame["full_state"] is None
        assert_hides(text, code, tokens)
        state = frame["state"]
    # A refusal names no card either; Finish is refused unless nothing is hidden any more.
    await client.send_json_to({"type": "action", "ply": len(tokens) + 5, "action": "D"})
    text = await client.receive_from(timeout=10)
    assert json.loads(text)["code"] == "stale_ply"
    assert_hides(text, code, tokens)
    await client.send_json_to({"type": "finish", "ply": len(tokens)})
    text = await client.receive_from(timeout=10)
    if json.loads(text)["type"] == "refused":
        assert json.loads(text)["code"] == "not_finishable"
        assert_hides(text, code, tokens)
    await client.disconnect()


@run
async def test_two_players_messages_are_played_at_once_in_the_game_sockets_threads(
    owner, other, monkeypatch
):
    """One player's message waiting on the database does not hold another's: the two are played
    at the same time, in two threads of the game sockets' pool — each waits for the other at a
    barrier, which one thread for both could never pass."""
    barrier = threading.Barrier(2, timeout=20)
    threads: list[str] = []
    play = consumers._play

    def meeting(*args: Any) -> str:
        threads.append(threading.current_thread().name)
        barrier.wait()
        return play(*args)

    monkeypatch.setattr(consumers, "_play", meeting)
    clients = []
    for user in (owner, other):
        game = await sync_to_async(services.new_game)(user, code=CODE)
        client, ready = await authenticated(game.pk, await sync_to_async(token_of)(user))
        assert ready["type"] == "ready"
        clients.append(client)

    for client in clients:
        await client.send_json_to({"type": "action", "ply": 0, "action": "R-T2", "ref": 1})
    frames = [await client.receive_json_from(timeout=30) for client in clients]

    assert [(frame["type"], frame["applied"]) for frame in frames] == [("played", "R-T2")] * 2
    assert len(set(threads)) == 2
    assert all(name.startswith("game-socket") for name in threads), threads
    for client in clients:
        await client.disconnect()


def in_transaction() -> bool:
    """Whether the calling thread's connection is inside a transaction (after a query)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return connection.in_atomic_block


def failing_query() -> None:
    from django.db import DatabaseError, connection

    with pytest.raises(DatabaseError), connection.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table_here")


@run
async def test_a_game_socket_thread_keeps_its_connection_until_an_error_or_a_rest(
    settings, monkeypatch
):
    """A message borrows no connection: its thread keeps the one it was given (on PostgreSQL,
    lent by the pool and checked), and gives it back after an error or after lying unused, so
    that the next message is given one again. Counted by Django's ``connection_created``, sent
    each time a thread is given a connection."""
    from django.db import connection
    from django.db.backends.signals import connection_created

    if connection.vendor == "sqlite" and connection.is_in_memory_db():  # type: ignore[attr-defined]
        pytest.skip("Django never closes an in-memory SQLite database's connection")
    given: list[str] = []

    def on_given(sender: Any, connection: Any, **kwargs: Any) -> None:
        given.append(threading.current_thread().name)

    connection_created.connect(on_given, dispatch_uid="test-kept-connection")
    consumers.stop_threads()
    settings.GAME_SOCKET_THREADS = 1  # (every call in the one thread)
    try:
        assert await consumers.in_thread(in_transaction)() is False
        assert await consumers.in_thread(in_transaction)() is False
        assert len(given) == 1  # the first call was given one; the second kept it
        assert given[0].startswith("game-socket")

        await consumers.in_thread(failing_query)()
        await consumers.in_thread(in_transaction)()
        await consumers.in_thread(in_transaction)()
        assert len(given) == 2  # given back after the error; the next call was given one

        monkeypatch.setattr(consumers, "KEEP_IDLE_SECONDS", 0.0)
        await asyncio.sleep(0.01)
        await consumers.in_thread(in_transaction)()
        assert len(given) == 3  # given back after lying unused
    finally:
        connection_created.disconnect(dispatch_uid="test-kept-connection")
        consumers.stop_threads()


@run
async def test_it_refuses_someone_else_s_game_as_rest_does_and_closes_with_4404(owner, other):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    api = await sync_to_async(token_client)(other)
    status, rest = await sync_to_async(rest_move)(api, game.pk, "action", {"ply": 0, "action": "D"})

    client, frame = await authenticated(game.pk, await sync_to_async(token_of)(other))

    assert status == 404
    assert frame == {"type": "refused", "ref": "hello", **rest}
    assert rest == {"code": "not_found", "message": "No such game."}
    assert await closed_with(client) == 4404


@run
async def test_a_game_that_does_not_exist_is_refused_like_one_of_someone_else_s(owner):
    client, frame = await authenticated(987654321, await sync_to_async(token_of)(owner))

    assert frame == {
        "type": "refused",
        "ref": "hello",
        "code": "not_found",
        "message": "No such game.",
    }
    assert await closed_with(client) == 4404


@run
async def test_the_session_s_user_is_admitted_at_once(owner):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client = await open_socket(game.pk, await sync_to_async(session_cookie)(owner))

    ready = await client.receive_json_from(timeout=5)
    expected = await sync_to_async(lambda: expected_game(game, []))()
    played = await ask(client, {"type": "action", "ply": 0, "action": "R-T2"})

    assert ready == {"type": "ready", "ref": None, "game": expected}
    after = await sync_to_async(lambda: expected_game(game, ["R-T2"]))()
    assert played == {"type": "played", "ref": None, **after, "applied": "R-T2"}
    await client.disconnect()


@run
async def test_another_player_s_session_is_refused_and_nothing_changes(owner, other):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client = await open_socket(game.pk, await sync_to_async(session_cookie)(other))

    frame = await client.receive_json_from(timeout=5)

    assert frame == {
        "type": "refused",
        "ref": None,
        "code": "not_found",
        "message": "No such game.",
    }
    assert await closed_with(client) == 4404
    assert await sync_to_async(logged)(game.pk) == []


def expire(user: Any) -> str:
    """The key of a token of ``user``'s whose lifetime is over."""
    issued = auth.issue(user)
    tokens = auth.token_model().objects.filter(pk=issued.token.pk)
    tokens.update(expiry=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1))
    return issued.key


@pytest.mark.parametrize(
    ("first", "message"),
    [
        (
            {"type": "action", "ply": 0, "action": "R-T2"},
            'Authenticate first: send {"type": "auth", "token": "<your API token>"}.',
        ),
        ({"type": "auth", "token": "0" * 40}, "Invalid token."),
        ({"type": "auth", "token": "0" * 64}, "Invalid token."),
        ({"type": "auth", "token": "\u0000"}, "Invalid token."),
        ({"type": "auth", "token": "\u0000" * 64}, "Invalid token."),
        ({"type": "auth", "token": "\ud800" * 64}, "Invalid token."),
        ({"type": "auth", "token": "é" * 64}, "Invalid token."),
        ({"type": "auth", "token": 12}, None),
        (
            {"type": "auth", "token": "expired"},
            "The token has expired: log in again for a new one.",
        ),
    ],
    ids=[
        "a visitor's action",
        "a bad token",
        "an unknown token",
        "a NUL byte",
        "NUL bytes",
        "lone surrogates",
        "not ASCII",
        "a token not a string",
        "an expired token",
    ],
)
@run
async def test_a_socket_that_cannot_authenticate_is_refused_closed_with_4401_and_nothing_changes(
    owner, first, message
):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    if first.get("token") == "expired":
        first = {**first, "token": await sync_to_async(expire)(owner)}
    client = await open_socket(game.pk)

    frame = await ask(client, {**first, "ref": 7})

    assert frame == {
        "type": "refused",
        "ref": 7,
        "code": "not_authenticated",
        "message": message
        or 'Authenticate first: send {"type": "auth", "token": "<your API token>"}.',
    }
    assert await closed_with(client) == 4401
    refreshed = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert (refreshed.ply, await sync_to_async(logged)(game.pk)) == (0, [])


@run
async def test_a_socket_that_sends_no_auth_in_time_is_refused_and_closed_with_4401(
    owner, monkeypatch
):
    monkeypatch.setattr(consumers, "AUTH_SECONDS", 0.2)
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client = await open_socket(game.pk)

    frame = await client.receive_json_from(timeout=5)

    assert frame == {
        "type": "refused",
        "ref": None,
        "code": "not_authenticated",
        "message": "Authentication credentials were not provided.",
    }
    assert await closed_with(client) == 4401


@run
async def test_a_resent_action_after_a_drop_is_answered_again_and_logged_once(owner):
    """The page's case: an action sent, the socket dropped before its answer was read; the
    action sent again on a new socket, with the same ply, is answered as the first was."""
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    token = await sync_to_async(token_of)(owner)
    first, _ = await authenticated(game.pk, token)
    await first.send_json_to({"type": "action", "ply": 0, "action": "R-T2", "ref": "a"})
    answered = await first.receive_json_from(timeout=5)
    await first.disconnect()

    again, ready = await authenticated(game.pk, token)
    resent = await ask(again, {"type": "action", "ply": 0, "action": "R-T2", "ref": "a"})

    assert ready["game"]["ply"] == 1
    assert resent == answered
    assert resent["applied"] == "R-T2"
    assert await sync_to_async(logged)(game.pk) == [(0, "R-T2")]
    await again.disconnect()


@run
async def test_it_resigns_over_the_socket_as_over_rest(owner):
    api = await sync_to_async(token_client)(owner)
    rest_game = await sync_to_async(services.new_game)(owner, code=CODE)
    socket_game = await sync_to_async(services.new_game)(owner, code=CODE)
    client, _ = await authenticated(socket_game.pk, await sync_to_async(token_of)(owner))

    status, rest = await sync_to_async(rest_move)(api, rest_game.pk, "resign", {})
    frame = await ask(client, {"type": "resign", "ref": 1})

    assert status == 200
    assert frame["type"] == "played"
    assert same(answer_body(frame)) == same(rest)
    resigned = await sync_to_async(lambda: expected_game(socket_game, []))()
    assert answer_body(frame) == {**resigned, "status": "resigned", "result": "resigned"}
    assert frame["full_state"] is not None
    await client.disconnect()


@run
async def test_a_malformed_message_is_refused_and_the_socket_stays_open(owner):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client, _ = await authenticated(game.pk, await sync_to_async(token_of)(owner))
    unknown = "Unknown message type: use action, finish or resign."
    bad_id = "A ref is a string of at most 64 characters, or an integer."

    await client.send_to(text_data="{not json")
    not_json = await client.receive_json_from(timeout=5)
    await client.send_to(bytes_data=b'{"type": "resign"}')
    binary = await client.receive_json_from(timeout=5)
    not_object = await ask(client, [1, 2])  # type: ignore[arg-type]
    no_type = await ask(client, {"ply": 0, "action": "D", "ref": 3})
    unknown_type = await ask(client, {"type": "undo", "ref": "x"})
    too_deep = await ask(client, {"type": "action", "x": json.loads("[" * 40 + "]" * 40)})
    long_id = await ask(client, {"type": "resign", "ref": "x" * 65})
    boolean_id = await ask(client, {"type": "resign", "ref": True})

    assert not_json == {
        "type": "refused",
        "ref": None,
        "code": "malformed",
        "message": "A message is a JSON object.",
    }
    assert binary == {
        "type": "refused",
        "ref": None,
        "code": "malformed",
        "message": "Send JSON text frames, not binary ones.",
    }
    assert not_object == {
        "type": "refused",
        "ref": None,
        "code": "invalid",
        "message": 'A message is a JSON object with a "type".',
    }
    for frame, message_id in ((no_type, 3), (unknown_type, "x")):
        assert frame == {
            "type": "refused",
            "ref": message_id,
            "code": "invalid",
            "message": unknown,
            "fields": {"type": [unknown]},
        }
    assert too_deep == {**not_json}
    for frame in (long_id, boolean_id):
        assert frame == {
            "type": "refused",
            "ref": None,
            "code": "invalid",
            "message": bad_id,
            "fields": {"ref": [bad_id]},
        }
    # nothing changed, and the socket still plays
    assert await sync_to_async(logged)(game.pk) == []
    played = await ask(client, {"type": "action", "ply": 0, "action": "R-T2", "ref": 9})
    assert (played["type"], played["ref"], played["applied"]) == ("played", 9, "R-T2")
    await client.disconnect()


@run
async def test_the_actions_limit_counts_rest_and_socket_actions_together(owner, throttle_rates):
    await sync_to_async(throttle_rates)(actions="4/min")
    api = await sync_to_async(token_client)(owner)
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    client, _ = await authenticated(game.pk, await sync_to_async(token_of)(owner))

    rest_answers = [
        await sync_to_async(rest_move)(api, game.pk, "action", {"ply": ply, "action": "D"})
        for ply in (0, 1)
    ]
    socket_answers = [
        await ask(client, {"type": "action", "ply": 2, "action": "D"}),
        await ask(client, {"type": "finish", "ply": 3}),  # counted too: refused not_finishable
        await ask(client, {"type": "action", "ply": 3, "action": "D"}),
    ]
    status, refused = await sync_to_async(rest_move)(
        api, game.pk, "action", {"ply": 3, "action": "D"}
    )

    assert [status for status, _ in rest_answers] == [200, 200]
    assert [
        frame["code"] if frame["type"] == "refused" else "played" for frame in socket_answers
    ] == [
        "played",
        "not_finishable",
        "throttled",
    ]
    assert status == 429
    assert same(answer_body(socket_answers[2])) == same(refused)
    assert refused["retry_after"] >= 1
    assert refused["message"].startswith("Request was throttled. Expected available in")
    assert await sync_to_async(logged)(game.pk) == [(0, "D"), (1, "D"), (2, "D")]
    await client.disconnect()


# --- a socket ends with its credential --------------------------------------------------------

#: The frames that end a socket: its token logged out (what REST then answers it), its session
#: logged out, its token expired.
TOKEN_ENDED = {
    "type": "refused",
    "ref": None,
    "code": "not_authenticated",
    "message": "Invalid token.",
}
SESSION_ENDED = {**TOKEN_ENDED, "message": "Authentication credentials were not provided."}
TOKEN_EXPIRED = {**TOKEN_ENDED, "message": "The token has expired: log in again for a new one."}
LOGOUT = "/api/auth/logout/"


def script(key: str) -> APIClient:
    """An API client with ``Authorization: Token <key>``."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def log_out_token(key: str) -> int:
    """``POST /api/auth/logout/`` with token ``key``, in this process: its status."""
    return script(key).post(LOGOUT).status_code


async def ended(client: WebsocketCommunicator, timeout: float = 10) -> tuple[Any, int]:
    """The frame that ends a socket the server closes next, and its close code."""
    frame = await client.receive_json_from(timeout=timeout)
    return frame, await closed_with(client)


async def until(condition: Callable[[], bool], timeout: float = 30) -> None:
    """Wait until ``condition()`` holds, ``timeout`` seconds at most."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


@run
async def test_a_socket_is_closed_4401_as_soon_as_its_token_logs_out(owner):
    """In this process, on its channel layer (the in-memory one, or Redis when the run has it):
    the socket of the token logged out is told and closed at once, without a message of its own;
    the player's socket of another token (another log-in) plays on."""
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    ended_key, kept_key = [await sync_to_async(token_of)(owner) for _ in range(2)]
    client, _ = await authenticated(game.pk, ended_key)
    kept, _ = await authenticated(game.pk, kept_key)

    status = await sync_to_async(log_out_token)(ended_key)
    frame, code = await ended(client)

    assert (status, frame, code) == (204, TOKEN_ENDED, 4401)
    played = await ask(kept, {"type": "action", "ply": 0, "action": "R-T2"})
    assert (played["type"], played["applied"]) == ("played", "R-T2")
    await kept.disconnect()


@run
async def test_a_socket_is_closed_4401_as_soon_as_its_session_logs_out(owner):
    """The page's case: the browser logs out over the API; its socket is closed at once, and
    the socket of the player's other browser plays on."""
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    browser = SessionClient()
    await sync_to_async(browser.force_login)(owner)
    client = await open_socket(game.pk, f"sessionid={browser.cookies['sessionid'].value}".encode())
    other = await open_socket(game.pk, await sync_to_async(session_cookie)(owner))
    assert (await client.receive_json_from(timeout=5))["type"] == "ready"
    assert (await other.receive_json_from(timeout=5))["type"] == "ready"

    headers = await sync_to_async(browser.csrf_headers)()
    response = await sync_to_async(browser.post)(LOGOUT, **headers)
    frame, code = await ended(client)

    assert (response.status_code, frame, code) == (204, SESSION_ENDED, 4401)
    played = await ask(other, {"type": "action", "ply": 0, "action": "R-T2"})
    assert (played["type"], played["applied"]) == ("played", "R-T2")
    await other.disconnect()


@run
async def test_a_socket_is_closed_4401_when_its_token_expires(owner):
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    key = await sync_to_async(token_of)(owner, dt.timedelta(seconds=4))
    client, ready = await authenticated(game.pk, key)
    assert ready["type"] == "ready"

    frame, code = await ended(client, timeout=30)  # (at the token's expiry, a few seconds on)

    assert (frame, code) == (TOKEN_EXPIRED, 4401)


def delete_unannounced(key: str) -> None:
    """Delete token ``key`` with no signal sent: as if its log-out's end had been lost."""
    from django.db import connection

    table = auth.token_model()._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE digest = %s", [hash_token(key)])


@run
async def test_a_lost_end_is_found_at_the_next_check_and_nothing_is_played(owner, monkeypatch):
    """An end that never reached the socket: its next message that checks the credential (one
    a minute, RECHECK_SECONDS; here every one) is refused with the credential's refusal and the
    socket closed, the message not played."""
    game = await sync_to_async(services.new_game)(owner, code=CODE)
    key = await sync_to_async(token_of)(owner)
    client, _ = await authenticated(game.pk, key)
    await sync_to_async(delete_unannounced)(key)
    monkeypatch.setattr(sockets, "RECHECK_SECONDS", 0.0)

    frame = await ask(client, {"type": "action", "ply": 0, "action": "R-T2", "ref": 5})

    assert frame == {**TOKEN_ENDED, "ref": 5}
    assert await closed_with(client) == 4401
    assert await sync_to_async(logged)(game.pk) == []


@run
async def test_while_the_channel_layer_fails_each_message_checks_its_credential(owner, settings):
    """A private Redis as the channel layer, killed: the watch is no longer steady and an end
    sent meanwhile reaches nobody, so each message checks its socket's credential (a token
    logged out meanwhile is refused, nothing played); once Redis is back (empty) the watch joins
    its groups again and an end closes its socket at once again."""
    with RedisServer() as redis:
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "leaderboard.layers.RedisChannelLayer",
                "CONFIG": {
                    "hosts": [
                        {"address": redis.url, "socket_timeout": 1, "socket_connect_timeout": 1}
                    ],
                    "prefix": "ends",
                },
            }
        }
        game = await sync_to_async(services.new_game)(owner, code=CODE)
        lost_key, kept_key = [await sync_to_async(token_of)(owner) for _ in range(2)]
        lost, _ = await authenticated(game.pk, lost_key)
        kept, _ = await authenticated(game.pk, kept_key)
        watch = sockets.Watch.current()
        assert watch.steady

        await sync_to_async(redis.kill)()
        await until(lambda: not watch.steady)
        status = await sync_to_async(log_out_token)(lost_key)  # (its end is lost)
        refused = await ask(lost, {"type": "action", "ply": 0, "action": "R-T2", "ref": 1})
        lost_code = await closed_with(lost)

        await sync_to_async(redis.start)()
        await until(lambda: watch.steady)
        played = await ask(kept, {"type": "action", "ply": 0, "action": "R-T2", "ref": 2})
        kept_status = await sync_to_async(log_out_token)(kept_key)
        kept_end = await ended(kept)

    assert (status, refused, lost_code) == (204, {**TOKEN_ENDED, "ref": 1}, 4401)
    assert (played["type"], played["applied"]) == ("played", "R-T2")
    assert (kept_status, kept_end) == (204, (TOKEN_ENDED, 4401))
    assert await sync_to_async(logged)(game.pk) == [(0, "R-T2")]


# --- a real Daphne ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def daphne(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daphne]:
    work = tmp_path_factory.mktemp("game-socket")
    env = django_env(f"sqlite:///{work / 'db.sqlite3'}")
    migrate(env)
    with Daphne(env, work / "daphne.log") as server:
        yield server


def sign_up(daphne: Daphne) -> tuple[str, str]:
    """A new player's API token and session cookie (``sessionid=…``)."""
    name = f"p{secrets.token_hex(5)}"
    request = urllib.request.Request(
        f"{daphne.url}/api/auth/signup/",
        json.dumps({"username": name, "password": PASSWORD}).encode(),
        {"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        body = json.loads(response.read())
        cookies = http.cookies.SimpleCookie()
        for header in response.headers.get_all("Set-Cookie"):
            cookies.load(header)
    return body["token"], f"sessionid={cookies['sessionid'].value}"


def new_game(daphne: Daphne, token: str) -> dict[str, Any]:
    status, game = post_json(f"{daphne.url}/api/games/", {"code": CODE}, token)
    assert status == 201, game
    assert isinstance(game, dict)
    game.pop("deal")  # (how a new game's deal was chosen: only the new game's answer says)
    return game


def test_it_plays_over_a_real_socket_with_the_session_cookie(daphne):
    token, cookie = sign_up(daphne)
    game = new_game(daphne, token)
    socket = websocket.create_connection(
        f"ws://127.0.0.1:{daphne.port}/ws/games/{game['id']}/",
        header=[f"Cookie: {cookie}"],
        origin=daphne.url,
        timeout=10,
    )
    try:
        ready = json.loads(socket.recv())
        answers = []
        for ply, action in enumerate(WORKED_EXAMPLE):
            socket.send(json.dumps({"type": "action", "ply": ply, "action": action, "ref": ply}))
            answers.append(json.loads(socket.recv()))
    finally:
        socket.close()
    status, stored = get_json(f"{daphne.url}/api/games/{game['id']}/", token)

    assert ready == {"type": "ready", "ref": None, "game": game}
    assert [(a["type"], a["ref"], a["applied"], a["ply"]) for a in answers] == [
        ("played", 0, "R-T2", 1),
        ("played", 1, "R-F1", 2),
        ("played", 2, "T2:2-T4", 3),
    ]
    assert status == 200
    assert answer_body(answers[-1]) == {**stored, "applied": "T2:2-T4"}


def raw_socket(daphne: Daphne, game_id: int, token: str, source: str) -> RawWebsocket:
    client = RawWebsocket(daphne.port, f"/ws/games/{game_id}/", source=source)
    client.send_text(json.dumps({"type": "auth", "token": token}))
    assert json.loads(client.next_text())["type"] == "ready"
    return client


def test_the_game_socket_is_within_the_socket_limits(daphne):
    """The site's limits are around every websocket route: a frame over SOCKET_MAX_MESSAGE is
    dropped, a flood closed with 4008 (both tested at length in tests/site)."""
    token, _ = sign_up(daphne)
    game = new_game(daphne, token)

    with raw_socket(daphne, game["id"], token, "127.6.1.1") as client:
        client.send_text(json.dumps({"type": "action", "ply": 0, "action": "D" * 5000}))
        _, large, _ = client.read_to_close()
    with raw_socket(daphne, game["id"], token, "127.6.2.1") as client:
        try:
            for _ in range(200):
                client.send_text('{"type": "nothing"}')
        except OSError:  # (reset: the server is done with it)
            pass
        texts, flood, _ = client.read_to_close()

    assert large is None  # (no close frame: Daphne drops the connection as the frame begins)
    assert (flood, json.loads(texts[-1])["code"]) == (4008, "too_many_messages")
    status, stored = get_json(f"{daphne.url}/api/games/{game['id']}/", token)
    assert (status, stored["ply"]) == (200, 0)


def log_out_session(daphne: Daphne, cookie: str) -> int:
    """``POST /api/auth/logout/`` as the page sends it, with the session ``cookie`` and the CSRF
    token (from the ``csrftoken`` cookie that ``GET /api/auth/me/`` sets): its status."""
    with urllib.request.urlopen(
        urllib.request.Request(f"{daphne.url}/api/auth/me/", headers={"Cookie": cookie}),
        timeout=30,
    ) as response:
        cookies = http.cookies.SimpleCookie()
        for header in response.headers.get_all("Set-Cookie"):
            cookies.load(header)
    csrf = cookies["csrftoken"].value
    request = urllib.request.Request(
        f"{daphne.url}/api/auth/logout/",
        b"",
        {"Cookie": f"{cookie}; csrftoken={csrf}", "X-CSRFToken": csrf},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return int(response.status)


def frames_to_close(client: RawWebsocket) -> tuple[list[Any], int | None]:
    texts, code, _ = client.read_to_close(timeout=15)
    return [json.loads(text) for text in texts], code


def test_a_real_socket_is_closed_4401_when_its_token_logs_out(daphne):
    token, _ = sign_up(daphne)
    game = new_game(daphne, token)

    with raw_socket(daphne, game["id"], token, "127.6.3.1") as client:
        status, _ = post_json(f"{daphne.url}/api/auth/logout/", {}, token)
        frames, code = frames_to_close(client)

    assert (status, frames, code) == (204, [TOKEN_ENDED], 4401)


def test_a_real_socket_is_closed_4401_when_its_session_logs_out(daphne):
    token, cookie = sign_up(daphne)
    game = new_game(daphne, token)
    socket = websocket.create_connection(
        f"ws://127.0.0.1:{daphne.port}/ws/games/{game['id']}/",
        header=[f"Cookie: {cookie}"],
        origin=daphne.url,
        timeout=15,
    )
    try:
        ready = json.loads(socket.recv())
        status = log_out_session(daphne, cookie)
        frame = json.loads(socket.recv())
        opcode, data = socket.recv_data(control_frame=True)
    finally:
        socket.close()

    assert (ready["type"], status, frame) == ("ready", 204, SESSION_ENDED)
    assert (opcode, int.from_bytes(data[:2], "big")) == (websocket.ABNF.OPCODE_CLOSE, 4401)


def test_a_log_out_served_by_one_process_closes_the_socket_another_holds(tmp_path):
    """Two Daphne processes on one database and one Redis (the deployed shape): the socket is
    held by B, the log-out is served by A; the end reaches B through the Redis channel layer."""
    with RedisServer() as redis:
        env = django_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", redis.url)
        migrate(env)
        with Deployment(env, tmp_path / "site", proxy=False) as site:
            a, b = site.daphnes
            token, _ = sign_up(a)
            game = new_game(a, token)
            with raw_socket(b, game["id"], token, "127.6.4.1") as client:
                status, _ = post_json(f"{a.url}/api/auth/logout/", {}, token)
                frames, code = frames_to_close(client)

    assert (status, frames, code) == (204, [TOKEN_ENDED], 4401)

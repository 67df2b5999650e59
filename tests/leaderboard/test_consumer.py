"""/ws/daily/<date>/ — the live board of a day, over the channel layer the settings configure."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.contrib.auth.models import User

from games import services as games
from games.engine import DealCode
from games.engine.cards import RANKS, SUITS
from games.models import Game
from leaderboard.live import broadcast, model, snapshots
from leaderboard.live.frames import SnapshotFrame, UpdateFrame
from leaderboard.payloads import BoardRow
from tests.leaderboard.helpers import (
    CODE,
    OPENING,
    WON,
    attempt,
    play,
    player,
    store_deal,
    utc_today,
)
from tests.leaderboard.live import (
    connect,
    frames_for,
    next_frame,
    run,
    watcher,
)

# What differs between the embedded default (SQLite, the in-memory layer) and PostgreSQL and
# Redis: CI runs these on both.
pytestmark = pytest.mark.each_backend

ALL_CARDS = [rank + suit for rank in RANKS for suit in SUITS]


@pytest.fixture(autouse=True)
def _quiet_afterwards(transactional_db):
    """The layer's groups are emptied. (No broadcast outlives its test: the flushes still
    scheduled end with the test's event loop, which serves its sockets.)"""
    yield
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):  # Redis's: a key prefix per test process
        async_to_sync(layer.flush)()


@database_sync_to_async
def db_attempt(name, tokens=()):
    return attempt(player(name), tokens)


@database_sync_to_async
def db_play(game, tokens):
    return play(game, tokens)


@database_sync_to_async
def db_snapshot(day):
    return snapshots.latest(day)


@database_sync_to_async
def db_seq(day):
    return snapshots.current_seq(day)


@run
async def test_it_sends_the_top_of_the_board_on_connect():
    today = utc_today()
    await db_attempt("ann", OPENING)
    await db_attempt("bob", ["D"])

    client, snapshot = await connect(today)

    expected = await db_snapshot(today)  # the one snapshot every socket of this seq receives
    assert snapshot == {**expected, "now": snapshot["now"]}
    assert (snapshot["type"], snapshot["date"], snapshot["count"]) == (
        "snapshot",
        today.isoformat(),
        2,
    )
    assert [(r["rank"], r["player"]) for r in snapshot["results"]] == [(1, "ann"), (2, "bob")]
    assert snapshot["seq"] >= 1  # the two attempts were broadcast before
    await client.disconnect()


@run
async def test_it_sends_an_update_after_a_move():
    today = utc_today()
    game = await db_attempt("ann", ["R-T2"])
    client, snapshot = await connect(today)

    await db_play(game, ["R-F1"])
    update = json.loads(await next_frame(client))

    assert update["type"] == "update"
    assert (update["date"], update["seq"], update["count"]) == (
        today.isoformat(),
        snapshot["seq"] + 1,
        1,
    )
    assert (update["size"], update["full"], len(update["rows"])) == (1, False, 1)
    row = update["rows"][0]
    assert (row["player"], row["rank"], row["score"], row["foundation_cards"]) == ("ann", 1, 5, 2)
    await client.disconnect()


@run
async def test_it_sends_the_same_update_to_every_watcher():
    today = utc_today()
    game = await db_attempt("ann", ["R-T2"])
    watchers = [(await connect(today))[0] for _ in range(5)]

    await db_play(game, ["R-F1"])

    frames = [await next_frame(client) for client in watchers]
    assert len(set(frames)) == 1
    for client in watchers:
        await client.disconnect()


@database_sync_to_async
def tied_crowd(day, size):
    """``size`` attempts of ``day`` tied on every part of the key but their ids: 51 cards in 200
    actions, each in the same 30 s, resigned at the same moment."""
    users = User.objects.bulk_create([User(username=f"t{i:03}", password="!") for i in range(size)])
    start = dt.datetime.combine(day, dt.time(0, 0, 1), tzinfo=dt.UTC)
    Game.objects.bulk_create(
        Game(
            owner=user,
            code=CODE,
            kind="daily",
            daily_date=day,
            status="resigned",
            ply=200,
            foundation_cards=51,
            started_at=start,
            finished_at=start + dt.timedelta(seconds=30),
        )
        for user in users
    )


@run
async def test_a_newcomer_above_150_tied_players_reaches_watchers_as_one_small_frame():
    """Its last action wins the newcomer's attempt: from rank 151 to rank 1. The update names the
    newcomer's row and the one player it pushed out of the top; the 99 rows it passed shift on
    the watcher's side."""
    today = utc_today()
    await tied_crowd(today, 150)
    game = await db_attempt("zed", WON[:-1])  # 51 cards in 221 actions: after the crowd
    client, snapshot = await connect(today)
    assert (snapshot["count"], snapshot["results"][0]["player"]) == (151, "t000")

    await db_play(game, WON[-1:])
    text = await next_frame(client)

    update = json.loads(text)
    assert len(text.encode()) < 600
    assert [(row["rank"], row["player"]) for row in update["rows"]] == [(1, "zed")]
    assert (update["left"], update["size"], update["full"]) == (["t099"], 100, False)
    base: Any = snapshot
    held = model.apply_update(base, update)
    assert [r["player"] for r in held["results"]] == ["zed"] + [f"t{i:03}" for i in range(99)]
    assert held == {**await db_snapshot(today), "at": held["at"]}
    assert await client.receive_nothing(timeout=0.5)  # one frame
    await client.disconnect()


@run
async def test_its_frames_carry_the_keys_their_declarations_name():
    """The websocket's frames are declared once (leaderboard.live.frames); docs/api.md shows
    them."""
    today = utc_today()
    game = await db_attempt("ann", ["R-T2"])
    client, snapshot = await connect(today)
    await db_play(game, ["R-F1"])
    update = json.loads(await next_frame(client))

    assert set(snapshot) == set(SnapshotFrame.__annotations__)
    assert set(update) == set(UpdateFrame.__annotations__)
    assert set(update["rows"][0]) == set(BoardRow.__annotations__)
    await client.disconnect()


@run
async def test_it_coalesces_a_burst_of_moves():
    """Forty actions by four players in about a second: a bounded number of updates, the last one
    with everything in it, sequence numbers in order."""
    today = utc_today()
    players = [await db_attempt(f"p{n}") for n in range(4)]
    client, snapshot = await connect(today)

    started = time.monotonic()
    for _ in range(5):  # each: R-T2, U ... ten actions per player, interleaved
        for game in players:
            await db_play(game, ["R-T2", "U"])
    burst = time.monotonic() - started
    frames = await frames_for(client, burst + 1.0)

    window = broadcast.delay()
    assert 1 <= len(frames) <= (burst + 1.0) / window + 2
    seqs = [f["seq"] for f in frames]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and seqs[0] > snapshot["seq"]
    board: Any = snapshot
    for frame in frames:
        board = model.apply_update(board, frame)
    assert {r["player"]: r["actions"] for r in board["results"]} == {f"p{n}": 10 for n in range(4)}
    await client.disconnect()


@run
async def test_changes_within_one_window_reach_watchers_as_one_update(settings):
    """Once a change has gone out, the next changes within the window (a long one here, so that
    a slow machine keeps them in it) wait for its end and go out together, in one update."""
    settings.LEADERBOARD_BROADCAST_DELAY = 1.0
    today = utc_today()
    ann, bob, cid = [await db_attempt(name, ["D"]) for name in ("ann", "bob", "cid")]
    client, snapshot = await connect(today)

    await db_play(ann, ["R-T2"])
    first = json.loads(await next_frame(client))
    for game in (ann, bob, cid):
        await db_play(game, ["D"])
    frames = await frames_for(client, 1.5)

    assert [f["seq"] for f in frames] == [first["seq"] + 1]
    assert sorted(row["player"] for row in frames[0]["rows"]) == ["ann", "bob", "cid"]
    board: Any = snapshot
    for frame in (first, frames[0]):
        board = model.apply_update(board, frame)
    assert {r["player"]: r["actions"] for r in board["results"]} == {"ann": 3, "bob": 2, "cid": 2}
    await client.disconnect()


@run
async def test_a_quiet_boards_change_goes_out_at_once_and_the_next_a_window_later():
    """Flushes of a day begin a window apart at least: the first change of a quiet board does
    not wait for one, the change right after it does."""
    today = utc_today()
    game = await db_attempt("ann", ["R-T2"])
    await asyncio.sleep(broadcast.delay())  # quiet for a window
    client, _ = await connect(today)
    assert await database_sync_to_async(broadcast.flush_wait)(today) == 0

    await db_play(game, ["R-F1"])
    first = json.loads(await next_frame(client))
    assert 0 < await database_sync_to_async(broadcast.flush_wait)(today) <= broadcast.delay()
    await db_play(game, ["D"])
    second = json.loads(await next_frame(client))

    assert second["seq"] == first["seq"] + 1
    await client.disconnect()


@run
async def test_it_answers_a_resync_with_a_fresh_snapshot():
    today = utc_today()
    game = await db_attempt("ann", ["R-T2"])
    client, first = await connect(today)
    await db_play(game, ["R-F1"])
    update = json.loads(await next_frame(client))

    await client.send_json_to({"type": "resync"})
    snapshot = await client.receive_json_from(timeout=3)

    assert snapshot["type"] == "snapshot"
    assert snapshot["seq"] == update["seq"] == first["seq"] + 1
    assert snapshot["results"][0]["score"] == 5
    await client.disconnect()


@run
async def test_it_throttles_resyncs_to_one_a_second():
    today = utc_today()
    client, _ = await connect(today)

    await client.send_json_to({"type": "resync"})
    assert (await client.receive_json_from())["type"] == "snapshot"
    await client.send_json_to({"type": "resync"})
    error = await client.receive_json_from()

    assert (error["type"], error["code"]) == ("error", "throttled")
    assert 0 < error["retry_after"] <= 1
    await client.disconnect()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"text_data": "not json"}, "malformed"),
        ({"text_data": "[1, 2]"}, "bad_message"),
        ({"text_data": '{"kind": "resync"}'}, "bad_message"),
        ({"text_data": '{"type": 7}'}, "bad_message"),
        ({"text_data": '{"type": "move", "action": "R-T2"}'}, "unknown_type"),
        ({"text_data": '{"type": "resync", "pad": "' + "x" * 2000 + '"}'}, "bad_message"),
        ({"bytes_data": b'{"type": "resync"}'}, "bad_message"),
    ],
)
@run
async def test_it_answers_a_bad_message_with_an_error_and_changes_nothing(frame, code):
    today = utc_today()
    client, snapshot = await connect(today)

    await client.send_to(**frame)
    error = await client.receive_json_from()

    assert error["type"] == "error"
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    await client.send_json_to({"type": "ping"})
    assert await client.receive_json_from() == {"type": "pong"}
    assert await db_seq(today) == snapshot["seq"]
    await client.disconnect()


@pytest.mark.parametrize(
    ("date", "code", "close_code"),
    [
        ("2030-13-01", "invalid_date", 4400),
        ("yesterday", "invalid_date", 4400),
        ("2030-1-1", "invalid_date", 4400),
        ("9999-12-31", "not_found", 4404),
    ],
)
@run
async def test_it_closes_the_socket_for_a_date_without_a_board(date, code, close_code):
    client = watcher(date)
    connected, _ = await client.connect(timeout=5)
    assert connected

    error = await client.receive_json_from()
    closed = await client.receive_output(timeout=1)

    assert (error["type"], error["code"]) == ("error", code)
    assert closed == {"type": "websocket.close", "code": close_code}


@run
async def test_it_closes_the_socket_for_tomorrow():
    tomorrow = utc_today() + dt.timedelta(days=1)
    client = watcher(tomorrow)
    await client.connect(timeout=5)

    assert (await client.receive_json_from())["code"] == "not_found"
    assert await client.receive_output(timeout=1) == {"type": "websocket.close", "code": 4404}


@run
async def test_it_never_sends_an_older_sequence_number_than_it_has_sent():
    today = utc_today()
    client, snapshot = await connect(today)
    layer = get_channel_layer()
    assert layer is not None
    group = broadcast.group_name(today)

    await layer.group_send(group, {"type": "board.update", "seq": snapshot["seq"], "text": "old"})
    assert await client.receive_nothing(timeout=0.3)

    new = {"type": "board.update", "seq": snapshot["seq"] + 5, "text": '{"type":"update"}'}
    await layer.group_send(group, new)
    assert await client.receive_from() == '{"type":"update"}'
    await client.disconnect()


@database_sync_to_async
def open_attempt_of(day, name):
    """An attempt of ``day`` (dealt) left open, as if its day had ended while it was played."""
    start = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    store_deal(day, "CF1-D3-AAAAAAB")
    return Game.objects.create(
        owner=player(name),
        code="CF1-D3-AAAAAAB",
        kind="daily",
        daily_date=day,
        ply=3,
        foundation_cards=2,
        started_at=start,
    )


@run
async def test_it_shows_a_past_day_with_its_attempts_closed():
    yesterday = utc_today() - dt.timedelta(days=1)
    game = await open_attempt_of(yesterday, "ann")

    client, snapshot = await connect(yesterday)

    row = snapshot["results"][0]
    assert (snapshot["count"], row["game_id"], row["status"], row["result"]) == (
        1,
        game.pk,
        "resigned",
        "closed",
    )
    assert row["time_seconds"] == 12 * 3600
    await client.disconnect()


@run
async def test_it_tells_watchers_of_a_finished_game():
    today = utc_today()
    game = await db_attempt("ann", WON[:-1])
    client, _ = await connect(today)

    await db_play(game, WON[-1:])
    rows = json.loads(await next_frame(client))["rows"]

    assert (rows[0]["status"], rows[0]["won"], rows[0]["foundation_cards"]) == ("won", True, 52)
    await client.disconnect()


@run
async def test_it_tells_watchers_of_a_resignation():
    today = utc_today()
    game = await db_attempt("ann", ["D"])
    client, _ = await connect(today)

    await database_sync_to_async(lambda: games.resign(game, game.owner))()
    rows = json.loads(await next_frame(client))["rows"]

    assert rows[0]["status"] == "resigned"
    await client.disconnect()


@run
async def test_it_keeps_practice_games_off_the_stream():
    today = utc_today()
    client, _ = await connect(today)

    await database_sync_to_async(lambda: games.new_game(player("ann")))()
    await asyncio.sleep(broadcast.delay())

    assert await client.receive_nothing(timeout=0.5)
    await client.disconnect()


@run
async def test_it_never_sends_todays_code_or_a_card():
    today = utc_today()
    game = await db_attempt("ann", WON[:8])
    client, snapshot = await connect(today)

    await db_play(game, ["D"])
    update = await next_frame(client)
    await client.send_json_to({"type": "resync"})
    again = await next_frame(client)

    for text in (json.dumps(snapshot), update, again):
        assert CODE not in text and DealCode.parse(CODE).letters not in text
        assert not [card for card in ALL_CARDS if f'"{card}"' in text]
    await client.disconnect()


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the Redis channel layer only")
@run
async def test_it_keeps_an_idle_watcher_on_redis():
    """channels_redis waits 5 s for a message at a time; a read timeout no longer than that (as
    redis-py's default) killed every consumer idle for 5 s (settings: socket_timeout)."""
    today = utc_today()
    game = await db_attempt("ann", ["R-T2"])
    client, _ = await connect(today)

    assert await client.receive_nothing(timeout=6.5, interval=0.5)
    await db_play(game, ["R-F1"])

    assert json.loads(await next_frame(client))["rows"][0]["score"] == 5
    await client.disconnect()

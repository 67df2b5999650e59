"""The live board's frames: a watcher that applies every update to its snapshot (the client's
model, ``leaderboard.live.model``, which the browser's script is checked against) holds the rows a
fresh snapshot shows (an open attempt's running time aside, which the watcher counts itself); the
updates carry what changed by player, so that a row moving is one row sent however many rows it
passes; and every socket of one ``seq`` shares one snapshot."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from hypothesis import given, settings

from games import services as games
from games.models import Game
from leaderboard.live import frames, model, snapshots
from tests.leaderboard.helpers import OPENING, WON, attempt, player, utc_today
from tests.leaderboard.live import connect, frames_until_quiet, run
from tests.leaderboard.tops import boards
from tests.support import next_action


def same_rows(held: Any, fresh: Any) -> None:
    """The rows are equal; an open attempt's time, moved to the same moment, within rounding."""
    held_at = dt.datetime.fromisoformat(held["at"])
    fresh_at = dt.datetime.fromisoformat(fresh["at"])
    assert (held["count"], len(held["results"])) == (fresh["count"], len(fresh["results"]))
    for mine, theirs in zip(held["results"], fresh["results"], strict=True):
        if theirs["status"] == "in_progress" and theirs["time_seconds"] is not None:
            moved = mine["time_seconds"] + (fresh_at - held_at).total_seconds()
            assert abs(moved - theirs["time_seconds"]) < 0.002, (mine, theirs)
            mine = {**mine, "time_seconds": theirs["time_seconds"]}
        assert mine == theirs


def filler(day: dt.date, size: int, now: dt.datetime) -> None:
    """``size`` attempts of ``day`` below or among the live players (one or two cards)."""
    rng = random.Random(size)
    users = User.objects.bulk_create([User(username=f"f{i}", password="!") for i in range(size)])
    Game.objects.bulk_create(
        Game(
            owner=user,
            code="CF1-D3-AAAAACL",
            kind="daily",
            daily_date=day,
            status=rng.choice(["in_progress", "resigned"]),
            ply=rng.randint(1, 40),
            foundation_cards=rng.choice([1, 1, 2]),
            started_at=now - dt.timedelta(seconds=rng.randint(60, 3000)),
            finished_at=None,
        )  # fmt: skip
        for user in users
    )
    Game.objects.filter(daily_date=day, status="resigned").update(finished_at=now)


def test_a_watcher_applying_updates_holds_what_a_fresh_snapshot_shows(db, clock):
    """Many small changes to a day of 130 attempts (the top is cut at 100): after each, the
    update from the previous board, applied, gives the fresh board."""
    today = utc_today()
    filler(today, 125, clock.now)
    players = [attempt(player(f"p{n}"), ["D"], clock) for n in range(5)]
    rng = random.Random(4)
    seq = 1
    held = frames.snapshot_frame(today, seq, clock.now)
    previous = held
    sizes = []
    for step in range(40):
        game = rng.choice(players)
        game.refresh_from_db()
        clock.advance(rng.choice([0.5, 1, 7]))
        if step == 30:
            games.resign(game, game.owner)
        elif game.is_in_progress:
            legal = game.views["player"]["legal"]
            token = next_action(legal)[0] if rng.random() < 0.6 else rng.choice(legal)
            games.play(game.pk, game.owner, game.ply, token)
        seq += 1
        fresh = frames.snapshot_frame(today, seq, clock.advance(0.25))
        update = frames.update_frame(previous, fresh)
        assert not update["full"]
        held = model.apply_update(held, json.loads(json.dumps(update)))  # as sent
        same_rows(held, fresh)
        sizes.append(len(json.dumps(update, separators=(",", ":"))))
        previous = fresh
    assert max(sizes) <= 2048  # one player moves at a time: one row, whatever it passes


def test_an_update_without_the_previous_board_carries_every_row(db, clock):
    today = utc_today()
    attempt(player("ann"), OPENING, clock)
    attempt(player("bob"), ["D"], clock)
    current = frames.snapshot_frame(today, 5, clock.now)
    old = frames.snapshot_frame(today, 3, clock.now)

    for previous in (None, old):
        update = frames.update_frame(previous, current)
        assert (update["full"], update["rows"], update["size"]) == (True, current["results"], 2)
        assert model.apply_update(old, update)["results"] == current["results"]
    with pytest.raises(ValueError, match="does not follow"):
        model.apply_update(old, {**frames.update_frame(old, current), "full": False})


def frame_bytes(frame: Any) -> int:
    return len(json.dumps(frame, separators=(",", ":")))


@settings(max_examples=150, deadline=None)
@given(boards())
def test_random_frame_sequences_applied_by_the_client_model_give_the_servers_snapshots(board):
    """Each update, applied to the board held (as sent: through JSON), gives the next snapshot;
    it sends no more rows than the players the step touched and those who entered the top from
    below as others left it — never the rows that only shifted."""
    snapshots, touched = board
    held = snapshots[0]
    for previous, current, players in zip(snapshots, snapshots[1:], touched, strict=False):
        update = frames.update_frame(previous, current)
        held = model.apply_update(held, json.loads(json.dumps(update)))
        same_rows(held, current)
        assert len(update["rows"]) <= len(players) + len(update["left"])
        assert not update["full"]
        if len(players) <= 1:
            assert frame_bytes(update) <= 2048


def test_a_newcomer_above_a_crowd_of_ties_is_one_row(db, clock):
    """150 players tied on cards, actions and time (the earlier attempt first); a newcomer takes
    rank 1: the update is the newcomer's row and the one player pushed out of the top."""
    today = utc_today()
    users = User.objects.bulk_create([User(username=f"t{i:03}", password="!") for i in range(150)])
    start = clock.now - dt.timedelta(seconds=60)
    Game.objects.bulk_create(
        Game(
            owner=user,
            code="CF1-D3-AAAAACL",
            kind="daily",
            daily_date=today,
            status="resigned",
            ply=3,
            foundation_cards=2,
            started_at=start,
            finished_at=start + dt.timedelta(seconds=30),
        )
        for user in users
    )
    before = frames.snapshot_frame(today, 1, clock.now)
    attempt(player("zed"), WON, clock, step=0.01)  # won: rank 1
    after = frames.snapshot_frame(today, 2, clock.advance(1))

    update = frames.update_frame(before, after)

    assert [r["player"] for r in before["results"]][:2] == ["t000", "t001"]
    assert [r["player"] for r in after["results"]][:3] == ["zed", "t000", "t001"]
    assert [(r["rank"], r["player"]) for r in update["rows"]] == [(1, "zed")]
    assert (update["left"], update["size"], update["count"]) == (["t099"], 100, 151)
    assert frame_bytes(update) < 600
    assert model.apply_update(before, update)["results"] == after["results"]


def test_an_unchanged_open_attempt_is_left_out_of_an_update(db, clock):
    today = utc_today()
    ann = attempt(player("ann"), ["R-T2"], clock)
    attempt(player("bob"), OPENING, clock)
    attempt(player("cid"), ["D", "D", "D"], clock)
    before = frames.snapshot_frame(today, 1, clock.advance(5))
    games.play(ann.pk, ann.owner, 1, "R-F1")
    after = frames.snapshot_frame(today, 2, clock.advance(5))

    update = frames.update_frame(before, after)

    assert [r["player"] for r in before["results"]] == ["bob", "ann", "cid"]
    assert [r["player"] for r in after["results"]] == ["bob", "ann", "cid"]
    assert [r["player"] for r in update["rows"]] == ["ann"]  # the others' times ran on: no change
    assert (update["count"], update["size"], update["full"], update["left"]) == (3, 3, False, [])


@database_sync_to_async
def db_attempt(name, tokens=()):
    return attempt(player(name), tokens)


@database_sync_to_async
def db_play(game, tokens):
    for token in tokens:
        game.refresh_from_db()
        games.play(game.pk, game.owner, game.ply, token)


@database_sync_to_async
def db_fresh(day, seq):
    return frames.snapshot_frame(day, seq)


@pytest.mark.usefixtures("transactional_db")
@run
async def test_a_socket_applying_its_updates_holds_the_stored_and_a_fresh_snapshot():
    today = utc_today()
    ann = await db_attempt("ann", ["R-T2"])
    bob = await db_attempt("bob", ["D"])
    first, snapshot = await connect(today)
    held: Any = snapshot

    for game, tokens in ((ann, ["R-F1"]), (bob, ["D", "D"]), (ann, ["U", "R-F1", *WON[2:12]])):
        await db_play(game, tokens)
    frames = await frames_until_quiet(first)
    for frame in frames:
        held = model.apply_update(held, frame)

    stored = await database_sync_to_async(snapshots.latest)(today)
    assert stored["seq"] == held["seq"] == frames[-1]["seq"]
    same_rows(held, stored)
    same_rows(held, await db_fresh(today, held["seq"]))
    second, snapshot = await connect(today)  # connects now: the same rows, at the same seq
    assert {**snapshot, "now": None} == {**stored, "now": None}
    await first.disconnect()
    await second.disconnect()


@pytest.mark.usefixtures("transactional_db")
@run
async def test_every_socket_of_one_seq_receives_the_same_snapshot():
    today = utc_today()
    await db_attempt("ann", OPENING)

    watchers = [await connect(today) for _ in range(5)]

    texts = {json.dumps({**snapshot, "now": None}) for _, snapshot in watchers}
    assert len(texts) == 1
    for client, _ in watchers:
        await client.disconnect()

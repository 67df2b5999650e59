"""The engine's one API for what its users need of a game besides playing it: an independent copy,
the replay of a log, a snapshot to restore, and a stable key of a position."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import UNDO, Action, Canfield, IllegalAction, NotationError, Reason

from .helpers import WON_LINE, WORKED_CODE, won_prefix

ROOT = Path(__file__).resolve().parents[2]
#: The digest of the worked example's deal. It must never change: caches shared by processes and
#: kept across releases are keyed by it.
DEAL_DIGEST = "2330b45dab46384aab305d01a8dae4193cc10cf0dacbf5c1ec7bed3611bf9408"


def state(game: Canfield) -> tuple[object, ...]:
    return (game.full_view(), game.player_view(), game.history, game.ply, game.undo_depth)


# -- copy -----------------------------------------------------------------------------------------


def test_a_copy_plays_on_alone() -> None:
    game = won_prefix(40)
    copy = game.copy()
    assert state(copy) == state(game)
    before = state(game)
    for token in WON_LINE[40:60]:
        copy.push(Action.parse(token))
    copy.push(UNDO)
    assert state(game) == before
    game.push(Action.parse(WON_LINE[40]))
    assert copy.full_view() != game.full_view()
    for _ in range(21):
        copy.pop()
    assert state(copy) == before  # its history is its own, and complete


def test_a_copy_of_a_restored_game_keeps_its_short_past() -> None:
    restored = Canfield.restore(WORKED_CODE, won_prefix(10).snapshot())
    copy = restored.copy()
    copy.push(Action.parse(WON_LINE[10]))
    assert (copy.ply, copy.history, restored.ply) == (11, [Action.parse(WON_LINE[10])], 10)
    copy.pop()
    with pytest.raises(IndexError, match="restored"):
        copy.pop()


# -- replaying a log ------------------------------------------------------------------------------


def test_replaying_yields_each_action_once_it_is_applied() -> None:
    game = Canfield(WORKED_CODE)
    seen = [(action.token(), game.ply, game.score) for action in game.replaying(WON_LINE[:5])]
    assert seen == [("R-T2", 1, 0), ("R-F1", 2, 5), ("T2:2-T4", 3, 5), ("R-T3", 4, 5), ("D", 5, 5)]
    assert game.full_view() == won_prefix(5).full_view()
    assert Canfield.replay(WORKED_CODE, WON_LINE[:5]).full_view() == game.full_view()


def test_replaying_names_the_ply_of_a_refused_action_and_keeps_its_reason() -> None:
    game = Canfield.restore(WORKED_CODE, won_prefix(2).snapshot())
    with pytest.raises(IllegalAction) as caught:
        for _ in game.replaying(["T2:2-T4", "R-T1"]):
            pass
    assert str(caught.value) == (
        "action 4 (R-T1): The jack of spades cannot go on the six of clubs: "
        "they are the same colour."
    )
    assert caught.value.reason == Reason("same_colour", card="JS", target="6C")
    assert game.ply == 3  # as far as it went
    with pytest.raises(NotationError) as unread:
        Canfield.replay(WORKED_CODE, ["R-T2", "X"])
    assert str(unread.value).startswith("action 2: not an action: 'X'")
    assert unread.value.reason == Reason("not_an_action", text="'X'")


# -- snapshots ------------------------------------------------------------------------------------


def test_a_restored_game_plays_on_as_the_game_it_was_taken_of() -> None:
    game = won_prefix(60)
    game.push(UNDO)
    restored = Canfield.restore(game.code, game.snapshot())
    assert restored.snapshot() == game.snapshot()
    assert (restored.full_view(), restored.player_view()) == (game.full_view(), game.player_view())
    assert restored.history == []
    for token in [*WON_LINE[59:80], "U", "U"]:
        game.push(Action.parse(token))
        restored.push(Action.parse(token))
        assert restored.snapshot() == game.snapshot()


@pytest.mark.parametrize(
    "change",
    [
        {"piles": ()},
        {"stock": ()},
        {"moves": 0},  # the undoable entries are more than the moves in effect
        {"ply": 0},  # fewer actions taken than in effect
    ],
)
def test_it_restores_no_snapshot_a_game_cannot_have(change: dict[str, object]) -> None:
    snapshot = dataclasses.replace(won_prefix(8).snapshot(), **change)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Canfield.restore(WORKED_CODE, snapshot)


# -- the position's key ---------------------------------------------------------------------------


def test_the_digest_of_a_position_is_stable() -> None:
    assert Canfield(WORKED_CODE).position_digest() == DEAL_DIGEST


def test_another_process_computes_the_same_digest() -> None:
    code = "from games.engine import Canfield; print(Canfield('CF1-D3-AAAAACL').position_digest())"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == DEAL_DIGEST


def test_the_same_position_by_another_way_has_the_same_digest() -> None:
    game = won_prefix(8)
    again = Canfield.replay(WORKED_CODE, [*WON_LINE[:8], "D", "U", WON_LINE[8], "U"])
    assert again.ply != game.ply and again.undos != game.undos
    assert again.position_digest() == game.position_digest()
    spread = dataclasses.replace(game.snapshot(), spread=0)  # only the face-up spread differs
    assert Canfield.restore(WORKED_CODE, spread).position_digest() == game.position_digest()


def test_the_digest_tells_positions_and_rules_apart() -> None:
    digests = {
        Canfield(WORKED_CODE).position_digest(),
        Canfield("CF1-D1-AAAAACL").position_digest(),  # the same cards, drawn one by one
        Canfield("CF1-H3-AAAAACL").position_digest(),  # the same cards, classic rules
        won_prefix(1).position_digest(),
        won_prefix(2).position_digest(),
    }
    assert len(digests) == 5
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in digests)

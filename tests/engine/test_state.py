"""The stored state (games.engine.state): a game restored from its dump plays on exactly as the
game it was dumped from — the same views, legal moves, refusals, undos as far as they reach — and
the dump of a replayed log is the dump of the game played action by action."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import UNDO, Action, Canfield, IllegalAction, Reason
from games.engine.state import STATE_VERSION, StateError, dump, load, version_of

from .helpers import WON_LINE, WORKED_CODE
from .test_properties import PROPERTY, start, walk


def same(a: Canfield, b: Canfield) -> None:
    assert a.player_view() == b.player_view()
    assert a.full_view() == b.full_view()
    assert (a.ply, a.moves, a.undo_depth, a.undos, a.recycles, a.score) == (
        b.ply,
        b.moves,
        b.undo_depth,
        b.undos,
        b.recycles,
        b.score,
    )
    assert dump(a) == dump(b)


@PROPERTY
@given(st.data())
def test_it_plays_on_as_the_game_it_was_dumped_from(data):
    game = start(data)
    for _ in walk(data, game, data.draw(st.integers(0, 60), label="before")):
        pass
    restored = load(game.code, dump(game))
    same(restored, game)
    for action in walk(data, game, 60):
        restored.push(action)
        same(restored, game)
        again = load(game.code, dump(restored))  # a state stored after every action
        same(again, game)
        restored = again


def test_it_undoes_as_far_back_as_undo_reaches_and_no_further():
    rng = random.Random(5)
    game = Canfield(WORKED_CODE)
    while game.ply < 150:  # more actions in effect than undo reaches
        game.push(rng.choice([a for a in game.generate_legal() if a != UNDO]))
    restored = load(game.code, dump(game))
    for _ in range(100):
        game.push(UNDO)
        restored.push(UNDO)
        same(restored, game)
    with pytest.raises(IllegalAction) as refused:
        game.push(UNDO)
    with pytest.raises(IllegalAction) as refused_too:
        restored.push(UNDO)
    assert refused.value.reason == refused_too.value.reason == Reason("undo_limit", count=100)


def test_it_agrees_with_a_replay_of_the_log_after_undos():
    line = [*WON_LINE[:30], "U", "U", *WON_LINE[28:40], "U", *WON_LINE[39:60]]
    played = Canfield(WORKED_CODE)
    text = dump(played)
    for token in line:  # as the service does: restore, apply one action, store
        restored = load(WORKED_CODE, text)
        restored.push(Action.parse(token))
        text = dump(restored)
        played.push(Action.parse(token))
    assert text == dump(Canfield.replay(WORKED_CODE, line)) == dump(played)


def test_it_takes_back_only_what_came_after_the_restore():
    game = Canfield.replay(WORKED_CODE, WON_LINE[:10])
    restored = load(game.code, dump(game))
    restored.push(Action.parse(WON_LINE[10]))
    assert restored.pop() == Action.parse(WON_LINE[10])
    assert restored.history == [] and restored.ply == 10
    with pytest.raises(IndexError, match="restored"):
        restored.pop()


def test_it_restores_a_won_game():
    game = Canfield.replay(WORKED_CODE, WON_LINE)
    restored = load(game.code, dump(game))
    assert restored.is_won()
    same(restored, game)


def altered(field: int, change: Callable[[Any], Any]) -> str:
    """The dump of the worked example's deal, one field changed."""
    fields = json.loads(dump(Canfield(WORKED_CODE)))
    fields[field] = change(fields[field])
    return json.dumps(fields)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{}",
        "[]",
        "[1]",
        "not json",
        f"[{STATE_VERSION + 1},0]",
        '[1,0,0,"0123",[],"",0]',
        altered(5, lambda stock: stock[1:]),  # a card missing from the stock
        altered(5, lambda stock: stock[:1] + stock),  # a card twice
        altered(11, lambda depth: 1),  # an undo depth without its entry
        altered(10, lambda moves: 1),  # a move in effect after no action
    ],
)
def test_it_refuses_what_is_not_a_state_of_its_version(text):
    with pytest.raises(StateError):
        load(WORKED_CODE, text)


def test_it_refuses_the_state_of_another_deal():
    text = dump(Canfield("CF1-D3-AAAAACL"))  # base card 7H
    assert load("CF1-D3-AAAAACL", text).full_view() == Canfield("CF1-D3-AAAAACL").full_view()
    with pytest.raises(StateError, match="another deal"):
        load("CF1-D3-AAAAAAA", text)


def test_it_says_which_version_a_text_has():
    assert version_of(dump(Canfield(WORKED_CODE))) == STATE_VERSION
    assert version_of("") is None and version_of("[x,1]") is None

"""Properties that hold in every position: random deals (or a random point of a corpus game),
then random legal actions drawn from the engine's own list, undo included."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    DRAW,
    RECYCLE,
    UNDO,
    Action,
    Canfield,
    DealCode,
    GameRecord,
    NotationError,
    card_str,
)
from games.engine.deals import DEAL_COUNT

from .helpers import CORPUS, hidden_cards, spec_fits

# The suite's conftest may add function-scoped autouse fixtures (a cache reset); none of them
# touches the engine, so running them once per test rather than per example is fine.
PROPERTY = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HEAVY = settings(PROPERTY, max_examples=40)

RECORDS = {path.name: GameRecord.parse(path.read_text()) for path in sorted(CORPUS.glob("*.txt"))}
ALL_CARDS = sorted(card_str(c) for c in range(52))

draws = st.sampled_from([1, 3])
variants = st.sampled_from(["app", "classic"])
codes = st.one_of(
    st.builds(DealCode, st.integers(0, DEAL_COUNT - 1), draws, variants),
    st.builds(DealCode.from_deck, st.permutations(range(52)), draws, variants),  # CF2
)


def start(data: st.DataObject) -> Canfield:
    """A fresh random deal, or a random point of a corpus game (to reach the late game: an empty
    reserve, empty columns, nearly complete foundations)."""
    source = data.draw(st.sampled_from(["fresh", "fresh", *RECORDS]), label="start")
    if source == "fresh":
        return Canfield(data.draw(codes, label="code"))
    record = RECORDS[source]
    end = len(record.actions)
    late = data.draw(st.booleans(), label="late")  # the last third: reserve used up, columns open
    plies = data.draw(st.integers(end * 2 // 3 if late else 0, end), label="plies")
    return Canfield.replay(record.code, record.actions[:plies])


def walk(data: st.DataObject, game: Canfield, steps: int = 40) -> Iterator[Action]:
    """Push ``steps`` random legal actions (each one drawn from generate_legal(); fewer if the
    game is won first); yield each one after it is applied."""
    for _ in range(steps):
        legal = game.generate_legal()
        if not legal:
            return
        action = data.draw(st.sampled_from(legal), label="action")
        game.push(action)
        yield action


def all_cards(view: Mapping[str, Any]) -> list[str]:
    piles = [view["reserve"], view["stock"], view["waste"], *view["foundations"], *view["columns"]]
    return sorted(card for pile in piles for card in pile)


def placements(history: list[Action]) -> int:
    """Foundation placements in effect, counted from the record alone: an undo takes back the
    latest action still in effect."""
    live: list[bool] = []
    for action in history:
        if action.kind == "undo":
            live.pop()
        else:
            live.append(action.kind == "move" and action.dst_name.startswith("F"))
    return sum(live)


def snapshot(game: Canfield) -> tuple[Any, ...]:
    return (
        game.full_view(),
        game.player_view(),
        game.history,
        game.undo_depth,
        game.position_key(),
    )


@PROPERTY
@given(st.data())
def test_it_keeps_all_52_cards_exactly_once(data: st.DataObject) -> None:
    game = start(data)
    assert all_cards(game.full_view()) == ALL_CARDS
    for _ in walk(data, game):
        assert all_cards(game.full_view()) == ALL_CARDS


@PROPERTY
@given(st.data())
def test_it_scores_five_points_per_foundation_placement(data: st.DataObject) -> None:
    game = start(data)
    assert game.score == 5 * placements(game.history)
    for _ in walk(data, game):
        assert game.score == 5 * placements(game.history) >= 0
        assert game.foundation_cards == len(sum(game.full_view()["foundations"], []))


@PROPERTY
@given(st.data())
def test_it_keeps_every_column_an_alternating_descending_run(data: st.DataObject) -> None:
    game = start(data)
    for _ in [None, *walk(data, game)]:
        for column in game.full_view()["columns"]:
            assert all(
                spec_fits(upper, lower) for lower, upper in zip(column, column[1:], strict=False)
            )


@PROPERTY
@given(st.data())
def test_it_pops_back_to_exactly_the_position_before_the_push(data: st.DataObject) -> None:
    game = start(data)
    for _ in range(30):
        legal = game.generate_legal()
        if not legal:
            break
        action = data.draw(st.sampled_from(legal), label="action")
        before = snapshot(game)
        counters = (game.score, game.moves, game.undos, game.ply, game.foundation_cards)
        game.push(action)
        assert game.pop() == action
        assert snapshot(game) == before
        assert (game.score, game.moves, game.undos, game.ply, game.foundation_cards) == counters
        game.push(action)


def candidates(game: Canfield) -> Iterator[Action]:
    """Every move from any pile to any pile with every count up to one more than the source
    holds, plus D, C and U — hand-made actions, not only those the notation can name."""
    yield from (DRAW, RECYCLE, UNDO)
    for src in range(10):
        for dst in range(10):
            for count in range(1, len(game.piles[src]) + 2):
                yield Action("move", src, dst, count)


@HEAVY
@given(st.data())
def test_it_accepts_an_action_exactly_when_it_is_listed_as_legal(data: st.DataObject) -> None:
    game = start(data)
    for _ in [None, *walk(data, game, steps=12)]:
        legal = game.generate_legal()
        assert len(set(legal)) == len(legal)
        accepted = []
        for action in candidates(game):
            listed = action in game.legal_moves
            assert (game.reason(action) is None) == listed
            try:
                game.push(action)
            except NotationError:  # pragma: no cover - push never raises a notation error
                raise
            except ValueError:
                continue
            game.pop()
            accepted.append(action)
        assert sorted(accepted, key=str) == sorted(legal, key=str)


@PROPERTY
@given(st.data())
def test_it_reads_back_every_token_it_writes(data: st.DataObject) -> None:
    game = start(data)
    for _ in [None, *walk(data, game)]:
        for action in game.generate_legal():
            assert Action.parse(action.token()) == action
            assert Action.parse(str(action)).token() == str(action)


@settings(PROPERTY, max_examples=300)
@given(
    st.one_of(
        st.from_regex(
            r"[DCUX]|(R|W|F[0-5]|T[0-5])(:[0-9]{1,3})?-(R|W|F[0-5]|T[0-5])", fullmatch=True
        ),
        st.text(max_size=10),
    )
)
def test_it_writes_back_exactly_the_token_it_parsed(token: str) -> None:
    try:
        action = Action.parse(token)
    except NotationError:
        return
    assert action.token() == token


@settings(PROPERTY, max_examples=200)
@given(codes)
def test_it_reads_back_every_code_it_writes(code: DealCode) -> None:
    assert DealCode.parse(str(code)) == code
    assert str(DealCode.parse(str(code))) == str(code)


header_text = st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20)
extra_headers = st.dictionaries(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
        lambda key: key not in ("Code", "Variant", "Draw", "Player", "Date", "Result", "Score")
    ),
    header_text,
    max_size=3,
)


@PROPERTY
@given(
    st.data(),
    st.none() | header_text,
    st.none() | header_text,
    st.none() | st.sampled_from(["won", "resigned", "closed", "in_progress"]),
    st.none() | st.integers(0, 10**6),
    extra_headers,
)
def test_it_reads_back_every_record_it_writes(
    data: st.DataObject,
    player: str | None,
    date: str | None,
    result: str | None,
    score: int | None,
    extra: dict[str, str],
) -> None:
    game = start(data)
    for _ in walk(data, game):
        pass
    record = GameRecord(game.code, tuple(game.history), player, date, result, score, extra)
    assert GameRecord.parse(record.text()) == record
    played = GameRecord.from_game(game)
    assert GameRecord.parse(played.text()) == played
    assert Canfield.replay(played.code, played.actions).full_view() == game.full_view()


@PROPERTY
@given(st.data())
def test_it_never_shows_a_hidden_card_to_the_player(data: st.DataObject) -> None:
    game = start(data)
    for _ in [None, *walk(data, game)]:
        text = json.dumps(game.player_view())
        hidden = hidden_cards(game)
        assert len(hidden) == len(game.stock) + max(len(game.piles[0]) - 1, 0)
        assert [card for card in sorted(hidden) if f'"{card}"' in text] == []

"""The corpus, in the manner of perft: recorded games and the final position each must reach.

``corpus/*.txt`` are game records; ``corpus/expected.json`` holds each one's final full view.
``tests/engine/make_corpus.py`` wrote all but ``won-AAAAACL.txt`` (the worked example's win).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engine import DRAW, RECYCLE, UNDO, Action, Canfield, GameRecord, verify_record

from .helpers import CORPUS

EXPECTED: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text())
RECORDS = sorted(path.name for path in CORPUS.glob("*.txt"))


def test_it_has_an_expected_position_for_every_record() -> None:
    assert sorted(EXPECTED) == RECORDS
    kinds = {name: GameRecord.parse((CORPUS / name).read_text()) for name in RECORDS}
    assert {str(r.code)[4:6] for r in kinds.values()} >= {"D1", "D3", "H1", "H3"}
    assert {r.result for r in kinds.values()} >= {"won", "in_progress", "resigned"}
    assert any("U" in r.tokens for r in kinds.values())
    assert any(t.startswith("F") for r in kinds.values() for t in r.tokens)  # take-backs


@pytest.mark.parametrize("name", RECORDS)
def test_it_replays_the_record_to_its_expected_position(name: str) -> None:
    text = (CORPUS / name).read_text()
    expected = EXPECTED[name]
    result = verify_record(text, final=expected)
    assert (result.ok, result.ply, result.message) == (True, None, "ok")
    assert result.game.full_view() == expected
    assert (
        len(expected["reserve"])
        + len(expected["stock"])
        + len(expected["waste"])
        + sum(len(f) for f in expected["foundations"])
        + sum(len(c) for c in expected["columns"])
        == 52
    )


@pytest.mark.parametrize("name", RECORDS)
def test_it_writes_the_record_back_as_it_was_read(name: str) -> None:
    text = (CORPUS / name).read_text()
    assert GameRecord.parse(text).text() == text


def test_it_pins_the_corpus_games() -> None:
    summary = {
        name: (view["code"], view["ply"], view["moves"], view["undos"], view["score"], view["won"])
        for name, view in EXPECTED.items()
    }
    # ply = moves in effect + 2 × undos: each undo is an action and takes one back
    assert all(ply == moves + 2 * undos for _, ply, moves, undos, _, _ in summary.values())
    assert summary == {
        "resigned-classic-d1-AAAAAAE.txt": ("CF1-H1-AAAAAAE", 80, 38, 21, 20, False),
        "undos-takebacks-AAAAAAC.txt": ("CF1-D3-AAAAAAC", 245, 225, 10, 270, True),
        "unfinished-AAAAAAD.txt": ("CF1-D3-AAAAAAD", 150, 18, 66, 15, False),
        "won-AAAAACL.txt": ("CF1-D3-AAAAACL", 222, 222, 0, 255, True),
        "won-classic-AAAAAAB.txt": ("CF1-H3-AAAAAAB", 146, 146, 0, 255, True),
        "won-d1-AAAAAAA.txt": ("CF1-D1-AAAAAAA", 222, 222, 0, 255, True),
    }


def test_it_reports_a_corrupted_record() -> None:
    text = (CORPUS / "won-AAAAACL.txt").read_text().replace("R-F1 T2:2-T4", "T2:2-T4 R-F1", 1)
    result = verify_record(text)
    assert (result.ok, result.ply, result.message) == (
        False,
        3,
        "action 3 (R-F1): The queen of spades cannot go to foundation 1: "
        "it holds hearts, not spades.",
    )


def every_move(game: Canfield) -> list[Action]:
    return [
        Action("move", src, dst, count)
        for src in range(10)
        for dst in range(10)
        for count in range(1, len(game.piles[src]) + 2)
    ]


@pytest.mark.parametrize("name", RECORDS)
def test_it_lists_exactly_the_actions_the_rules_accept_at_every_position(name: str) -> None:
    record = GameRecord.parse((CORPUS / name).read_text())
    game = Canfield(record.code)
    for action in [*record.actions, None]:
        accepted = [a for a in [*every_move(game), DRAW, RECYCLE, UNDO] if game.reason(a) is None]
        assert sorted(accepted, key=str) == sorted(game.generate_legal(), key=str)
        if action is not None:
            game.push(action)

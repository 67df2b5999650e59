"""Notation (docs/notation.md): action tokens, cards, and game records."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.engine import (
    DRAW,
    RECYCLE,
    UNDO,
    Action,
    Canfield,
    DealCode,
    GameRecord,
    InvalidCode,
    NotationError,
    card_name,
    card_str,
    parse_card,
    parse_tokens,
    verify_record,
)

from .helpers import WON_LINE, WORKED_CODE

# -- action tokens -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "kind", "src", "dst", "count"),
    [
        ("D", "draw", "", "", 1),
        ("C", "recycle", "", "", 1),
        ("U", "undo", "", "", 1),
        ("R-T2", "move", "R", "T2", 1),
        ("R-F1", "move", "R", "F1", 1),
        ("W-F3", "move", "W", "F3", 1),
        ("W-T4", "move", "W", "T4", 1),
        ("T4-F2", "move", "T4", "F2", 1),
        ("T1-T3", "move", "T1", "T3", 1),
        ("T2:2-T4", "move", "T2", "T4", 2),
        ("T3:52-T1", "move", "T3", "T1", 52),
        ("F2-T1", "move", "F2", "T1", 1),
    ],
)
def test_it_parses_and_formats_every_token_form(
    token: str, kind: str, src: str, dst: str, count: int
) -> None:
    action = Action.parse(token)
    assert (action.kind, action.src_name, action.dst_name, action.count) == (kind, src, dst, count)
    assert action.token() == str(action) == token
    assert repr(action) == f"Action.parse({token!r})"


def test_it_names_the_same_move_however_it_is_built() -> None:
    assert Action.move("T2", "T4", 2) == Action.move(7, 9, 2) == Action.parse("T2:2-T4")
    assert (Action.parse("D"), Action.parse("C"), Action.parse("U")) == (DRAW, RECYCLE, UNDO)


NOT_AN_ACTION = "(expected D, C, U or a move such as R-T2, T2:3-T4)"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("X", f"not an action: 'X' {NOT_AN_ACTION}"),
        ("", f"not an action: '' {NOT_AN_ACTION}"),
        ("d", f"not an action: 'd' {NOT_AN_ACTION}"),
        ("r-t2", f"not an action: 'r-t2' {NOT_AN_ACTION}"),
        ("DD", f"not an action: 'DD' {NOT_AN_ACTION}"),
        ("R-T2 ", f"not an action: 'R-T2 ' {NOT_AN_ACTION}"),
        ("R-T5", f"not an action: 'R-T5' {NOT_AN_ACTION}"),
        ("T1-F5", f"not an action: 'T1-F5' {NOT_AN_ACTION}"),
        ("R-W", f"not an action: 'R-W' {NOT_AN_ACTION}"),
        ("T1-R", f"not an action: 'T1-R' {NOT_AN_ACTION}"),
        ("T1:0-T2", f"not an action: 'T1:0-T2' {NOT_AN_ACTION}"),
        ("T1:02-T2", f"not an action: 'T1:02-T2' {NOT_AN_ACTION}"),
        ("T1:100-T2", f"not an action: 'T1:100-T2' {NOT_AN_ACTION}"),
        ("T1:1-T2", "'T1:1-T2': a run count is written only for 2 to 52 cards"),
        ("T1:53-T2", "'T1:53-T2': a run count is written only for 2 to 52 cards"),
        ("R:2-T1", "'R:2-T1': only a column's run has a card count; R gives one card"),
        ("W:2-T1", "'W:2-T1': only a column's run has a card count; W gives one card"),
        ("F1:2-T1", "'F1:2-T1': only a column's run has a card count; F1 gives one card"),
        ("T1-T1", "'T1-T1': source and destination are the same pile"),
        ("F1-F1", "'F1-F1': source and destination are the same pile"),
        ("F1-F2", "'F1-F2': a foundation card never goes to another foundation"),
        ("T1:2-F1", "'T1:2-F1': only one card at a time goes to a foundation"),
    ],
)
def test_it_accepts_only_canonical_tokens(token: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        Action.parse(token)
    assert str(caught.value) == message


def test_it_refuses_a_token_that_is_not_text() -> None:
    with pytest.raises(NotationError) as caught:
        Action.parse(5)  # type: ignore[arg-type]
    assert str(caught.value) == "an action is a text token, not int"


def test_it_refuses_a_move_no_token_can_name() -> None:
    with pytest.raises(NotationError) as caught:
        Action.move("T1", "R")
    assert str(caught.value) == "no such move: from pile 6 to pile 0, 1 cards"


def test_it_parses_a_line_of_tokens_and_names_the_bad_one() -> None:
    assert parse_tokens(" R-T2\n R-F1  T2:2-T4 ") == [
        Action.parse("R-T2"),
        Action.parse("R-F1"),
        Action.parse("T2:2-T4"),
    ]
    assert parse_tokens("") == []
    with pytest.raises(NotationError) as caught:
        parse_tokens("R-T2 X D")
    assert str(caught.value) == f"token 2: not an action: 'X' {NOT_AN_ACTION}"


# -- cards ---------------------------------------------------------------------------------------


def test_it_writes_every_card_as_rank_then_suit() -> None:
    texts = [card_str(c) for c in range(52)]
    assert texts == [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]
    assert [parse_card(t) for t in texts] == list(range(52))
    assert card_name(parse_card("7H")) == "seven of hearts"
    assert card_name(parse_card("TC")) == "ten of clubs"


@pytest.mark.parametrize("text", ["10H", "7h", "", " 7H", "7", "HH", None])
def test_it_refuses_a_card_it_cannot_read(text: object) -> None:
    with pytest.raises(NotationError) as caught:
        parse_card(text)  # type: ignore[arg-type]
    assert str(caught.value) == f"not a card: {text!r} (rank A23456789TJQK then suit SHDC, e.g. 7H)"


# -- game records --------------------------------------------------------------------------------

RECORD_TEXT = """\
[Code "CF1-D3-AAAAACL"]
[Variant "app"]
[Draw "3"]
[Player "alice"]
[Date "2026-11-29"]
[Result "in_progress"]
[Score "5"]
[Event "daily"]

R-T2 R-F1 T2:2-T4 R-T3 D U
"""


def test_it_reads_and_writes_a_record() -> None:
    record = GameRecord.parse(RECORD_TEXT)
    assert record == GameRecord(
        code=DealCode(63),
        actions=tuple(parse_tokens("R-T2 R-F1 T2:2-T4 R-T3 D U")),
        player="alice",
        date="2026-11-29",
        result="in_progress",
        score=5,
        extra={"Event": "daily"},
    )
    assert record.text() == RECORD_TEXT
    assert str(record) == RECORD_TEXT
    assert record.tokens == ["R-T2", "R-F1", "T2:2-T4", "R-T3", "D", "U"]


def test_it_needs_only_the_code_header() -> None:
    record = GameRecord.parse('[Code "CF1-H1-AAAAAAB"]\n\nD D\n  C\n')
    assert record == GameRecord(DealCode(1, 1, "classic"), tuple(parse_tokens("D D C")))
    assert record.text() == '[Code "CF1-H1-AAAAAAB"]\n[Variant "classic"]\n[Draw "1"]\n\nD D C\n'


def test_it_writes_a_record_with_no_actions() -> None:
    record = GameRecord.from_game(Canfield(WORKED_CODE))
    assert record.text() == (
        '[Code "CF1-D3-AAAAACL"]\n[Variant "app"]\n[Draw "3"]\n'
        '[Result "in_progress"]\n[Score "0"]\n\n'
    )
    assert GameRecord.parse(record.text()) == record


def test_it_wraps_the_actions_at_80_columns() -> None:
    game = Canfield(WORKED_CODE)
    for _ in range(60):
        game.push(DRAW if DRAW in game.legal_moves else RECYCLE)
    tokens = [a.token() for a in game.history]
    body = GameRecord.from_game(game).text().split("\n\n", 1)[1]
    assert body == " ".join(tokens[:40]) + "\n" + " ".join(tokens[40:]) + "\n"
    assert len(body.splitlines()[0]) == 79


def test_it_records_a_game_with_its_undos() -> None:
    game = Canfield.replay(WORKED_CODE, ["R-T2", "R-F1", "U", "R-F1"])
    record = GameRecord.from_game(game, player="bob", date="2026-01-02")
    assert record.tokens == ["R-T2", "R-F1", "U", "R-F1"]
    assert (record.player, record.date, record.result, record.score) == (
        "bob",
        "2026-01-02",
        "in_progress",
        5,
    )
    assert verify_record(record).ok


def test_it_escapes_quotes_and_backslashes_in_headers() -> None:
    record = GameRecord(DealCode(63), player='a "quoted" \\ name')
    assert record.text().splitlines()[3] == '[Player "a \\"quoted\\" \\\\ name"]'
    assert GameRecord.parse(record.text()) == record


MALFORMED_RECORDS = [
    ("", "the record has no Code header"),
    ('[Player "x"]', "the record has no Code header"),
    ('[Code "CF1-D3-AAAAACL"]\n\nR-T2\n[Player "x"]', "line 4: a header after the actions"),
    ("[Code CF1-D3-AAAAACL]", 'line 1: not a header like [Code "CF1-D3-..."]'),
    ('[Code "CF1-D3-AAAAACL"]\n[Code "CF1-D3-AAAAACL"]', "line 2: header Code given twice"),
    (
        '[Code "CF1-D3-AAAAACL"]\n[Variant "classic"]',
        "Variant 'classic' disagrees with the code CF1-D3-AAAAACL",
    ),
    ('[Code "CF1-D3-AAAAACL"]\n[Draw "1"]', "Draw '1' disagrees with the code CF1-D3-AAAAACL"),
    (
        '[Code "CF1-D3-AAAAACL"]\n[Result "lost"]',
        "Result 'lost' is not one of won, resigned, closed, in_progress",
    ),
    ('[Code "CF1-D3-AAAAACL"]\n[Score "-5"]', "Score '-5' is not a whole number"),
    ('[Code "CF1-D3-AAAAACL"]\n[Score "²"]', "Score '²' is not a whole number"),
    ('[Code "CF1-D3-AAAAACL"]\n[Score ""]', "Score '' is not a whole number"),
    ('[Code "CF1-D3-AAAAACL"]\n\nR-T2 R-X', f"token 2: not an action: 'R-X' {NOT_AN_ACTION}"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED_RECORDS)
def test_it_explains_a_malformed_record(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        GameRecord.parse(text)
    assert str(caught.value) == message


def test_it_refuses_a_record_with_a_bad_code() -> None:
    with pytest.raises(InvalidCode) as caught:
        GameRecord.parse('[Code "CF1-D3-AAAAACl"]')
    assert str(caught.value) == "'CF1-D3-AAAAACl': the deal number must be 7 capital letters A-Z"


def test_it_refuses_a_record_that_is_not_text() -> None:
    with pytest.raises(NotationError) as caught:
        GameRecord.parse(None)  # type: ignore[arg-type]
    assert str(caught.value) == "a game record is text"


# -- verifying records ---------------------------------------------------------------------------


def verification(text: str, final: dict[str, object] | None = None) -> tuple[bool, int | None, str]:
    result = verify_record(text, final=final)
    return (result.ok, result.ply, result.message)


def test_it_reports_the_first_illegal_action() -> None:
    text = '[Code "CF1-D3-AAAAACL"]\n\nR-T2 R-T3 D'
    assert verification(text) == (
        False,
        2,
        "action 2 (R-T3): The eight of hearts cannot go on the queen of hearts: "
        "they are the same colour.",
    )
    assert not verify_record(text)
    assert verify_record(text).game.ply == 1  # the game as far as it went


def test_it_reports_a_score_the_replay_does_not_reach() -> None:
    text = '[Code "CF1-D3-AAAAACL"]\n[Score "10"]\n\nR-T2 R-F1'
    assert verification(text) == (False, 2, "Score is 10, the replay scores 5")


@pytest.mark.parametrize(
    ("result", "message"),
    [("won", "Result is won, the replay is not won"), ("in_progress", None)],
)
def test_it_reports_a_result_the_replay_contradicts(result: str, message: str | None) -> None:
    text = f'[Code "CF1-D3-AAAAACL"]\n[Result "{result}"]\n\nR-T2 R-F1'
    expected = (True, None, "ok") if message is None else (False, 2, message)
    assert verification(text) == expected


def test_it_compares_the_final_position_when_asked() -> None:
    text = '[Code "CF1-D3-AAAAACL"]\n\nR-T2 R-F1'
    assert verification(text, final={"score": 5, "foundation_cards": 2}) == (True, None, "ok")
    assert verification(text, final={"score": 0}) == (False, 2, "score is 5, expected 0")
    assert verification(text, final={"nothing": 1}) == (False, 2, "nothing is None, expected 1")


def test_it_reports_an_action_after_the_win() -> None:
    text = '[Code "CF1-D3-AAAAACL"]\n\n' + " ".join([*WON_LINE, "D"])
    assert verification(text) == (
        False,
        223,
        "action 223 (D): The game is won: it accepts no further action.",
    )


def test_it_runs_the_python_example_in_docs_notation() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "notation.md").read_text()
    snippet = doc.split("```python\n")[1].split("```")[0]
    exec(compile(snippet, "docs/notation.md", "exec"), {})
    assert (
        "error: action 1 (R-T3): The queen of clubs cannot go on the queen of hearts: "
        "a queen goes on a king." in doc
    )


def test_it_names_an_unknown_pile_in_a_constructed_move() -> None:
    with pytest.raises(NotationError, match="no pile 'X'"):
        Action.move("X", "T1")


@pytest.mark.parametrize("value", ["a\nb", "line\r", "\u2028", "x\x85y"])
def test_it_refuses_to_write_a_header_with_a_line_break(value: str) -> None:
    record = GameRecord(DealCode(1), date=value)
    with pytest.raises(NotationError, match="header Date holds a line break"):
        record.text()

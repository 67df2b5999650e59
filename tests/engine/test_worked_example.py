"""RULES.md "Worked example — must hold exactly": deal CF1-D3-AAAAACL."""

from __future__ import annotations

from games.engine import Action, Canfield, DealCode, GameRecord, verify_record

from .helpers import CORPUS, WORKED_CODE

START_RESERVE = [
    "QC", "8H", "QS", "JS", "9S", "2H", "8S", "TC", "TH", "5S", "TS", "8D", "9D",
]  # fmt: skip
START_STOCK = [
    "QD", "6H", "4D", "5C", "9H", "JC", "JH", "4S", "2C", "7S", "2D", "TD", "3S", "4C", "JD", "KD",
    "6S", "AH", "3D", "AD", "5H", "4H", "AC", "KC", "7C", "5D", "3H", "9C", "8C", "3C", "7D", "KS",
    "2S", "6D",
]  # fmt: skip
HEARTS_TO_8 = {"suit": "H", "start": "7", "cards": ["7H", "8H"]}
EMPTY_FOUNDATIONS = [
    {"suit": "S", "start": "7", "cards": []},
    {"suit": "D", "start": "7", "cards": []},
    {"suit": "C", "start": "7", "cards": []},
]


def test_it_deals_the_documented_start_position() -> None:
    game = Canfield(WORKED_CODE)
    assert game.player_view() == {
        "draw": 3,
        "variant": "app",
        "reserve": {"top": "QC", "count": 13},
        "stock": {"count": 34},
        "waste": {"count": 0, "cards": []},
        "foundations": [{"suit": "H", "start": "7", "cards": ["7H"]}, *EMPTY_FOUNDATIONS],
        "columns": [["6C"], ["KH"], ["QH"], ["AS"]],
        "score": 0,
        "won": False,
        "moves": 0,
        "undos": 0,
        "recycles": 0,
        "foundation_cards": 1,
        "can_undo": False,
        "legal": ["R-T2", "T2-T4", "D"],
        "finishable": False,
        "stuck": False,
    }


def test_it_deals_the_whole_start_position() -> None:
    assert Canfield(WORKED_CODE).full_view() == {
        "code": "CF1-D3-AAAAACL",
        "draw": 3,
        "variant": "app",
        "reserve": START_RESERVE,
        "foundations": [["7H"], [], [], []],
        "foundation_suits": ["H", "S", "D", "C"],
        "columns": [["6C"], ["KH"], ["QH"], ["AS"]],
        "stock": START_STOCK,
        "waste": [],
        "score": 0,
        "won": False,
        "ply": 0,
        "moves": 0,
        "undos": 0,
        "recycles": 0,
        "foundation_cards": 1,
        "legal": ["R-T2", "T2-T4", "D"],
    }


def test_it_puts_qc_8h_qs_js_on_top_of_the_reserve() -> None:
    assert Canfield(WORKED_CODE).full_view()["reserve"][:4] == ["QC", "8H", "QS", "JS"]


def test_it_plays_the_three_documented_moves() -> None:
    game = Canfield(WORKED_CODE)
    game.push(Action.parse("R-T2"))  # QC from the reserve onto KH
    assert game.player_view()["columns"] == [["6C"], ["KH", "QC"], ["QH"], ["AS"]]
    assert game.score == 0
    game.push(Action.parse("R-F1"))  # 8H to the hearts foundation, +5
    assert game.player_view()["foundations"][0] == HEARTS_TO_8
    assert game.score == 5
    game.push(Action.parse("T2:2-T4"))  # KH QC onto AS; QS fills T2 at once
    assert game.player_view() == {
        "draw": 3,
        "variant": "app",
        "reserve": {"top": "JS", "count": 10},
        "stock": {"count": 34},
        "waste": {"count": 0, "cards": []},
        "foundations": [HEARTS_TO_8, *EMPTY_FOUNDATIONS],
        "columns": [["6C"], ["QS"], ["QH"], ["AS", "KH", "QC"]],
        "score": 5,
        "won": False,
        "moves": 3,
        "undos": 0,
        "recycles": 0,
        "foundation_cards": 2,
        "can_undo": True,
        "legal": ["R-T3", "D", "U"],
        "finishable": False,
        "stuck": False,
    }
    assert game.full_view()["reserve"] == START_RESERVE[3:]
    assert game.full_view()["stock"] == START_STOCK


def test_it_replays_the_winning_line_to_a_won_game_of_255() -> None:
    text = (CORPUS / "won-AAAAACL.txt").read_text()
    record = GameRecord.parse(text)
    assert record.tokens[:3] == ["R-T2", "R-F1", "T2:2-T4"]
    result = verify_record(record)
    assert (result.ok, result.ply, result.message) == (True, None, "ok")
    game = result.game
    assert (game.is_won(), game.score, game.foundation_cards) == (True, 255, 52)
    assert (game.ply, game.moves, game.undos) == (222, 222, 0)
    assert Canfield.replay(WORKED_CODE, record.actions).full_view() == game.full_view()


def test_it_deals_the_same_layout_in_draw_one() -> None:
    assert DealCode.parse("CF1-D1-AAAAACL") == DealCode(63, 1, "app")
    one, three = Canfield("CF1-D1-AAAAACL").full_view(), Canfield(WORKED_CODE).full_view()
    assert {**one, "code": WORKED_CODE, "draw": 3} == three
    assert Canfield("CF1-D1-AAAAACL").player_view()["draw"] == 1

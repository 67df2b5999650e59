"""The command line: ``python -m games.engine show|verify`` (docs/notation.md, "Command line")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Canfield
from games.engine.__main__ import main

from .helpers import CORPUS, WORKED_CODE

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str = "") -> tuple[int, str, str]:
    """Run the real command in a fresh interpreter, without Django settings."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stdout, done.stderr


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run main() in this process (faster), catching argparse's exit."""
    try:
        status = main(list(args))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_it_shows_the_worked_example_after_its_three_moves() -> None:
    status, out, err = cli("show", WORKED_CODE, "--moves", "R-T2 R-F1 T2:2-T4")
    assert (status, err) == (0, "")
    view = json.loads(out)
    assert view == Canfield.replay(WORKED_CODE, ["R-T2", "R-F1", "T2:2-T4"]).full_view()
    assert view["reserve"][0] == "JS" and len(view["reserve"]) == 10
    assert view["columns"] == [["6C"], ["QS"], ["QH"], ["AS", "KH", "QC"]]
    assert view["foundations"] == [["7H", "8H"], [], [], []]
    assert (len(view["stock"]), view["waste"], view["score"]) == (34, [], 5)


def test_it_shows_the_start_without_moves(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "show", "CF1-H1-AAAAAAB")
    assert (status, err) == (0, "")
    assert json.loads(out) == Canfield("CF1-H1-AAAAAAB").full_view()


def test_it_overrides_the_draw_mode(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", WORKED_CODE, "--draw", "1", "--moves", "D D")
    view = json.loads(out)
    assert (status, view["code"], view["draw"]) == (0, "CF1-D1-AAAAACL", 1)
    assert view["waste"] == ["QD", "6H"]
    status, out, _ = run(capsys, "show", "CF1-H1-AAAAACL", "--draw", "3")
    assert (status, json.loads(out)["code"]) == (0, "CF1-H3-AAAAACL")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["show", "CF1-D3-AAAAACl"],
            "error: 'CF1-D3-AAAAACl': the deal number must be 7 capital letters A-Z",
        ),
        (
            ["show", WORKED_CODE, "--moves", "R-T2 X"],
            "error: action 2: not an action: 'X' "
            "(expected D, C, U or a move such as R-T2, T2:3-T4)",
        ),
        (
            ["show", WORKED_CODE, "--moves", "R-T3"],
            "error: action 1 (R-T3): The queen of clubs cannot go on the queen of hearts: "
            "a queen goes on a king.",
        ),
        (
            ["show", WORKED_CODE, "--draw", "2"],
            "error: argument --draw: invalid choice: 2 (choose from 1, 3)",
        ),
        (["show"], "error: the following arguments are required: code"),
        ([], "error: the following arguments are required: command"),
        (
            ["replay", WORKED_CODE],
            "error: argument command: invalid choice: 'replay' "
            "(choose from 'show', 'verify', 'solve')",
        ),
        (
            ["verify", "no/such/record.txt"],
            "error: [Errno 2] No such file or directory: 'no/such/record.txt'",
        ),
    ],
)
def test_it_refuses_bad_input_with_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert run(capsys, *args) == (2, "", message + "\n")


def test_it_exits_2_from_the_real_command() -> None:
    assert cli("show", WORKED_CODE, "--moves", "R-T1") == (
        2,
        "",
        "error: action 1 (R-T1): The queen of clubs cannot go on the six of clubs: "
        "they are the same colour.\n",
    )


def test_it_verifies_a_record_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(CORPUS / "won-AAAAACL.txt")
    status, out, err = run(capsys, "verify", path)
    assert (status, json.loads(out), err) == (0, {"ok": True, "ply": None, "message": "ok"}, "")


def test_it_verifies_a_record_from_stdin() -> None:
    text = (CORPUS / "won-classic-AAAAAAB.txt").read_text()
    status, out, err = cli("verify", "-", stdin=text)
    assert (status, json.loads(out), err) == (0, {"ok": True, "ply": None, "message": "ok"}, "")


def test_it_exits_1_for_a_record_that_does_not_replay() -> None:
    text = '[Code "CF1-D3-AAAAACL"]\n[Score "5"]\n\nR-T2 R-T3\n'
    status, out, err = cli("verify", "-", stdin=text)
    assert (status, err) == (1, "")
    assert json.loads(out) == {
        "ok": False,
        "ply": 2,
        "message": "action 2 (R-T3): The eight of hearts cannot go on the queen of hearts: "
        "they are the same colour.",
    }


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ('[Code "CF1-D3-AAAAACL"]\n\nR-T2 T9', "token 2: not an action: 'T9'"),
        ("R-T2", "the record has no Code header"),
    ],
)
def test_it_exits_2_for_a_record_it_cannot_read(stdin: str, message: str) -> None:
    status, out, err = cli("verify", "-", stdin=stdin)
    assert (status, out) == (2, "")
    assert err.startswith("error: " + message)
    assert err.count("\n") == 1 and err.endswith("\n")


def test_it_exits_2_for_a_record_file_that_is_not_utf_8(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "record.txt"
    path.write_bytes(b"\xff\xfe")
    assert run(capsys, "verify", str(path)) == (
        2,
        "",
        "error: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte\n",
    )


def test_it_solves_a_deal_as_json() -> None:
    status, out, err = cli("solve", WORKED_CODE, "--max-positions", "5000", "--json")
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert set(result) == {"code", "outcome", "line", "positions", "seconds"}
    assert (result["code"], result["outcome"]) == (WORKED_CODE, "win")
    assert Canfield.replay(WORKED_CODE, result["line"]).is_won()
    assert result["positions"] <= 5000 and result["seconds"] >= 0


def test_it_solves_from_the_position_after_the_moves(capsys: pytest.CaptureFixture[str]) -> None:
    moves = ["R-T2", "R-F1", "T2:2-T4"]
    status, out, _ = run(
        capsys,
        "solve",
        WORKED_CODE,
        "--moves",
        " ".join(moves),
        "--max-positions",
        "5000",
        "--json",
    )
    line = json.loads(out)["line"]
    assert status == 0 and Canfield.replay(WORKED_CODE, [*moves, *line]).is_won()


def test_it_says_unknown_without_a_line_when_the_budget_runs_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "solve", "CF1-D3-ZRVKZUT", "--max-positions", "300", "--json")
    best = json.loads(out)["best"]  # the way to the most promising position reached
    assert status == 0
    assert json.loads(out) == {
        "code": "CF1-D3-ZRVKZUT",
        "outcome": "unknown",
        "best": best,
        "positions": 300,
        "seconds": json.loads(out)["seconds"],
    }
    assert best and Canfield.replay("CF1-D3-ZRVKZUT", best).ply == len(best)  # legal
    status, out, _ = run(capsys, "solve", "CF1-D3-ZRVKZUT", "--seconds", "0.2")
    assert (status, out.split(" (")[0]) == (0, "unknown: the budget ran out first")


def test_it_prints_the_line_as_text_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", WORKED_CODE, "--max-positions", "5000")
    first, tokens = out.splitlines()
    assert status == 0 and first.startswith(f"win in {len(tokens.split())} actions (")
    assert Canfield.replay(WORKED_CODE, tokens.split()).is_won()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["solve", "CF1-D3-AAAAAC"],
            "error: 'CF1-D3-AAAAAC': the deal number must be 7 capital letters A-Z",
        ),
        (
            ["solve", WORKED_CODE, "--moves", "R-T3"],
            "error: action 1 (R-T3): The queen of clubs cannot go on the queen of hearts: "
            "a queen goes on a king.",
        ),
        (
            ["solve", WORKED_CODE, "--moves", "R-T2 Q"],
            "error: action 2: not an action: 'Q' "
            "(expected D, C, U or a move such as R-T2, T2:3-T4)",
        ),
        (
            ["solve", WORKED_CODE, "--seconds", "0"],
            "error: argument --seconds: must be more than 0: '0'",
        ),
        (
            ["solve", WORKED_CODE, "--max-positions", "many"],
            "error: argument --max-positions: not a number: 'many'",
        ),
    ],
)
def test_it_refuses_a_bad_code_or_move_to_solve(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert run(capsys, *args) == (2, "", message + "\n")

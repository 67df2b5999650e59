"""Command line (docs/notation.md, "Command line"):

- ``python -m games.engine show CODE [--moves "TOKENS"] [--draw 1|3]`` prints the full state after
  the actions as JSON;
- ``python -m games.engine verify RECORD_FILE`` replays a game record;
- ``python -m games.engine solve CODE [--moves "TOKENS"] [--seconds S] [--max-positions N]
  [--json]`` solves the position after the actions.

On bad input each prints one line to stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from .deals import DealCode
from .errors import EngineError
from .game import Canfield
from .record import GameRecord, verify_record

T = TypeVar("T", int, float)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m games.engine", description="The Canfield rules engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print the full state after some actions, as JSON")
    show.add_argument("code", help="a game code such as CF1-D3-AAAAACL")
    show.add_argument("--moves", default="", help='space-separated tokens, e.g. "R-T2 R-F1"')
    show.add_argument("--draw", type=int, choices=(1, 3), help="override the code's draw mode")
    verify = sub.add_parser("verify", help="replay a game record file ('-' for stdin)")
    verify.add_argument("record")
    solve = sub.add_parser("solve", help="win, no win or unknown from the position after --moves")
    solve.add_argument("code", help="a game code such as CF1-D3-AAAAACL")
    solve.add_argument("--moves", default="", help="the actions played so far, space-separated")
    solve.add_argument("--seconds", type=_positive(float), help="time budget (default: none)")
    solve.add_argument(
        "--max-positions", type=_positive(int), help="position budget (default: none)"
    )
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        if args.command == "show":
            code = DealCode.parse(args.code)
            if args.draw is not None:
                code = replace(code, draw=args.draw)
            game = Canfield.replay(code, args.moves.split())
            print(json.dumps(game.full_view(), indent=2))
            return 0
        if args.command == "solve":
            return _solve(args)
        if args.record == "-":
            text = sys.stdin.read()
        else:
            with open(args.record, encoding="utf-8") as f:
                text = f.read()
        result = verify_record(GameRecord.parse(text))
        print(json.dumps({"ok": result.ok, "ply": result.ply, "message": result.message}))
        return 0 if result.ok else 1
    except (EngineError, OSError, UnicodeDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _positive(kind: Callable[[str], T]) -> Callable[[str], T]:
    def parse(text: str) -> T:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
        return value

    return parse


def _solve(args: argparse.Namespace) -> int:
    from .solver import solve

    game = Canfield.replay(args.code, args.moves.split())
    result = solve(game, max_positions=args.max_positions, seconds=args.seconds)
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    what = {
        "win": f"win in {len(result.line)} actions",
        "no_win": "no win: every reachable position was searched",
        "unknown": "unknown: the budget ran out first",
    }[result.outcome]
    print(f"{what} ({result.positions:,} positions, {result.seconds:.2f} s)")
    if result.line:
        print(" ".join(result.tokens()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Command line: ``python -m games.engine show CODE [--moves "TOKENS"] [--draw 1|3]``.

Prints the full state after the actions as JSON; on bad input prints one line to stderr and exits
with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace

from .deals import DealCode
from .errors import EngineError
from .game import Canfield
from .record import GameRecord, verify_record


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
    args = parser.parse_args(argv)
    try:
        if args.command == "show":
            code = DealCode.parse(args.code)
            if args.draw is not None:
                code = replace(code, draw=args.draw)
            game = Canfield.replay(code, args.moves.split())
            print(json.dumps(game.full_view(), indent=2))
            return 0
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


if __name__ == "__main__":
    sys.exit(main())

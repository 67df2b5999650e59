"""``manage.py daily_deal YYYY-MM-DD [--json]``: print a day's deal — its code, candidate, par and
the solver's winning line — for operators (it prints future days too: the command line is theirs
alone). A day without a stored deal is dealt and stored first, as its first request would.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.errors import GameError
from leaderboard import deals, services


class Command(BaseCommand):
    help = "Print the daily deal of a UTC day (dealing it first if needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("date", help="The UTC day, YYYY-MM-DD.")
        parser.add_argument("--json", action="store_true", help="Print one JSON object.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            day = services.parse_day(str(options["date"]))
        except GameError as exc:
            raise CommandError(exc.message) from None
        try:
            row = deals.deal_of(day)
        except deals.NoCertifiedDeal as exc:
            raise CommandError(str(exc)) from None
        line: list[str] = list(row.line or [])
        shown = {
            "date": day.isoformat(),
            "code": row.code,
            "n": row.n,
            "outcome": row.outcome,
            "par": row.par,
            "line": line,
        }
        if options["json"]:
            self.stdout.write(json.dumps(shown))
            return
        self.stdout.write(f"date: {shown['date']}")
        self.stdout.write(f"code: {shown['code']}")
        self.stdout.write(f"n:    {shown['n'] if row.n is not None else '- (legacy deal)'}")
        self.stdout.write(f"par:  {shown['par'] if row.par is not None else '- (no solver line)'}")
        self.stdout.write(f"line: {' '.join(line) or '-'}")

"""``manage.py daily_deal YYYY-MM-DD [--json]``: print a day's deal — its code, candidate, par, the
solver's winning line and its difficulty (the simulated players' results, and the band it was
picked in) — for operators (it prints future days too: the command line is theirs alone). A day
without a stored deal is dealt and stored first, as its first request would; a day dealt before
difficulties is measured first.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.errors import GameError
from leaderboard import deals, payloads, services
from leaderboard.models import DailyDeal


def difficulty(row: DailyDeal) -> dict[str, Any] | None:
    """The day's difficulty for operators: the API's, with the band it was picked in and every
    level's results."""
    shown = payloads.difficulty(row)
    measured = row.measured()
    if shown is None or measured is None:
        return None
    return {
        **shown,
        "band": row.difficulty_band or None,
        "levels": {
            r.level: {"games": r.games, "wins": r.wins, "cards": round(r.mean_cards, 1)}
            for r in measured.levels
        },
    }


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
            row = deals.measure(day) or row  # (a day dealt before difficulties)
        except deals.NoCertifiedDeal as exc:
            raise CommandError(str(exc)) from None
        except GameError as exc:
            raise CommandError(exc.message) from None
        line: list[str] = list(row.line or [])
        shown = {
            "date": day.isoformat(),
            "code": row.code,
            "n": row.n,
            "outcome": row.outcome,
            "par": row.par,
            "line": line,
            "difficulty": difficulty(row),
        }
        if options["json"]:
            self.stdout.write(json.dumps(shown))
            return
        self.stdout.write(f"date: {shown['date']}")
        self.stdout.write(f"code: {shown['code']}")
        self.stdout.write(f"n:    {shown['n'] if row.n is not None else '- (legacy deal)'}")
        self.stdout.write(f"par:  {shown['par'] if row.par is not None else '- (no solver line)'}")
        self.stdout.write(f"line: {' '.join(line) or '-'}")
        shown_difficulty = shown["difficulty"]
        if isinstance(shown_difficulty, dict):
            self.stdout.write(
                f"difficulty: {shown_difficulty['label']}, the casual player wins "
                f"{shown_difficulty['share']:.0%} (band {shown_difficulty['band'] or '-'})"
            )
            for level, figures in shown_difficulty["levels"].items():
                self.stdout.write(
                    f"  {level}: {figures['wins']}/{figures['games']} won, "
                    f"{figures['cards']} cards on average"
                )

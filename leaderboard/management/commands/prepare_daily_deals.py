"""``manage.py prepare_daily_deals --days 3``: deal today's and the coming days' daily deals
ahead, so that no player's first request waits for the solver.

Each day without a stored deal is certified (``leaderboard.deals``: the first keyed candidate,
not dead, whose difficulty is in its weekday's band, and that the solver proves winnable within
``DAILY_DEAL_POSITIONS`` positions) in the command's own process, and stored; a day already dealt
keeps its deal (its difficulty is measured if it has none), and a day another process is dealing
is waited for. Idempotent: run it as often as you like. The worker tier keeps today and tomorrow
dealt by itself (``leaderboard.tasks.deal_ahead``); this deals further ahead, or by hand.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.clock import utc_today
from games.errors import GameError
from leaderboard import deals
from leaderboard.management.options import day_count

#: The most days one run deals ahead.
MAX_DAYS = 31


class Command(BaseCommand):
    help = "Deal and store the daily deals of today and the next days that have none yet."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            default="3",
            help=f"How many days from today (UTC) to deal, 1 to {MAX_DAYS}; default 3.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count = day_count(str(options["days"]), MAX_DAYS)
        today = utc_today()
        days = [today + dt.timedelta(days=k) for k in range(count)]
        dealt = 0
        for day in days:
            if deals.stored(day) is not None:
                try:
                    deals.measure(day)  # (a day dealt before difficulties)
                except GameError as exc:
                    raise CommandError(exc.message) from None
                self.stdout.write(f"{day.isoformat()}: already dealt")
                continue
            try:
                row = deals.deal_of(day)
            except deals.NoCertifiedDeal as exc:
                raise CommandError(str(exc)) from None
            dealt += 1
            self.stdout.write(
                f"{day.isoformat()}: dealt n={row.n}, par {row.par}, "
                f"{row.difficulty_share:.0%} won by the casual player (band {row.difficulty_band}) "
                f"({row.positions} positions, {row.candidates_seconds} s)"
            )
        self.stdout.write(f"Dealt {dealt} day(s); {count - dealt} already dealt.")

"""``manage.py rebuild_board``: build a day's Redis sorted sets from SQL if they are missing.

With Redis configured, a day's board is read from its sorted sets once they are whole (*ready*),
and from SQL until then (``leaderboard.standings.sets``). The worker tier builds them when the
live board finds them missing, and today's every minute (``leaderboard.tasks``); this command does
it by hand, for today by default (``--day`` for another day not over yet). A day whose sets are
ready is left as it is, unless ``--force``: then its sets are dropped and built afresh (its board
is read from SQL meanwhile).
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games.clock import day_end, utc_today
from leaderboard import standings
from leaderboard.standings import sets


class Command(BaseCommand):
    help = "Build a day's Redis sorted sets from SQL if they are missing (today by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--day", help="The day (YYYY-MM-DD, UTC); default today.")
        parser.add_argument(
            "--force", action="store_true", help="Drop the day's sets and build them afresh."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        now = timezone.now()
        try:
            day = dt.date.fromisoformat(options["day"]) if options["day"] else utc_today(now)
        except ValueError:
            raise CommandError(f"--day: expected YYYY-MM-DD, got {options['day']!r}") from None
        if not sets.enabled():
            self.stdout.write("Redis is not configured: boards are read from SQL.")
            return
        if now >= day_end(day):
            raise CommandError(f"{day.isoformat()} is over: its board is read from SQL")
        if options["force"]:
            sets.forget(day)
        elif not standings.needs_rebuild(day, now):
            self.stdout.write(f"{day.isoformat()}: ready")
            return
        started = time.monotonic()
        if not sets.rebuild(day):
            raise CommandError(f"{day.isoformat()}: another process is building it")
        count = standings.board(day, now).count
        self.stdout.write(
            f"{day.isoformat()}: built, {count} ranked attempt(s) in "
            f"{time.monotonic() - started:.1f} s"
        )

"""``manage.py settle_days``: write the final ranks and counts of the days that are over.

A day is settled once it has been over for a minute (``standings.SETTLE``): each of its daily
attempts gets its final rank (``leaderboard.models.FinalRank``; ``null`` when not ranked) and the
day its players and winners, in one transaction (``leaderboard.standings.settled``). A settled day
is left as it is, so it is safe to run as often as you like: the ``jobs`` service of
docker-compose.yml runs it every five minutes.

``--day YYYY-MM-DD --again`` writes one settled day's ranks afresh (after a change to which
attempts are ranked).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from leaderboard import standings
from leaderboard.models import DailyDeal
from leaderboard.standings import settled


def a_day(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--day: expected YYYY-MM-DD, got {text!r}") from None


class Command(BaseCommand):
    help = "Write the final ranks and counts of the days that are over and not settled yet."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--day", help="Settle this day only (YYYY-MM-DD, UTC).")
        parser.add_argument(
            "--again", action="store_true", help="With --day: settle it again if it was."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        now = timezone.now()
        if options["day"] is None:
            if options["again"]:
                raise CommandError("--again settles one day again: give it with --day")
            days = standings.settle_due(now)
        else:
            day = a_day(str(options["day"]))
            if not settled.is_due(day, now):
                raise CommandError(f"{day.isoformat()} is not over yet: it cannot be settled")
            days = [day] if standings.settle_day(day, again=options["again"], now=now) else []
            if not days:
                self.stdout.write(f"{day.isoformat()}: already settled (--again to redo it)")
        counts = dict(
            DailyDeal.objects.filter(date__in=days).values_list("date", "players").order_by()
        )
        for day in days:
            self.stdout.write(f"{day.isoformat()}: settled, {counts[day]} ranked attempt(s)")
        self.stdout.write(f"Settled {len(days)} day(s).")

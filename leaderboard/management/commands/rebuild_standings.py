"""``manage.py rebuild_standings``: recompute the standings over time from the settled days.

Every week, month and all-time row is written afresh from the settled days' ranked attempts,
in one transaction (the tables keep answering from the old rows until it commits), as the
worker tier would have written them adding each day in turn; every settled day is then marked
added. Milestones are kept and the missing ones awarded (``leaderboard.periods.rebuild``). For
after a change to how the standings are counted, or a day settled again whose task was lost.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from leaderboard import periods
from leaderboard.models import PeriodStanding


class Command(BaseCommand):
    help = "Recompute the week, month and all-time standings from the settled days."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        days = periods.rebuild()
        rows = PeriodStanding.objects.count()
        self.stdout.write(
            f"Rebuilt the standings from {days} settled day(s): {rows} row(s) "
            f"in {time.monotonic() - started:.1f} s."
        )

"""``manage.py close_daily_attempts``: close the daily attempts still open after their day ended.

Run it shortly after midnight UTC (cron, a systemd timer). Each attempt stands as it was:
status ``resigned``, result ``closed``, its clock stopped at the day's end. The same happens lazily
whenever such an attempt is read or played, so a missed run loses nothing. Watchers of those days'
boards are sent a fresh board.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from leaderboard import broadcast, services


class Command(BaseCommand):
    help = "Close daily attempts still in progress whose UTC day is over."

    def handle(self, *args: Any, **options: Any) -> None:
        closed = services.close_daily_attempts()
        for day, count in closed.items():
            self.stdout.write(f"{day.isoformat()}: closed {count} attempt(s)")
        self.stdout.write(f"Closed {sum(closed.values())} attempt(s) in all.")
        broadcast.wait_idle()  # let the boards' broadcasts go out before the process ends

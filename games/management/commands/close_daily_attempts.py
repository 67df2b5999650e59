"""``manage.py close_daily_attempts``: write the closing of daily attempts left open after their
UTC day ended.

Every read already shows such an attempt closed (``Game.apply_day_end``): it stands as it was,
status ``resigned``, result ``closed``, its clock stopped at the day's end. This job writes that
down, so that the database says it too and the boards' watchers get their final update. Run it
shortly after midnight UTC, or every few minutes (the ``jobs`` service of docker-compose.yml);
a missed run loses nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import services


class Command(BaseCommand):
    help = "Write the closing of daily attempts still in progress whose UTC day is over."

    def handle(self, *args: Any, **options: Any) -> None:
        closed = services.close_daily_attempts()
        for day, count in closed.items():
            self.stdout.write(f"{day.isoformat()}: closed {count} attempt(s)")
        self.stdout.write(f"Closed {sum(closed.values())} attempt(s) in all.")

"""``manage.py rebuild_ratings``: delete every rating and rate every settled day again, in date
order, from scratch (``ratings.services.rebuild``). The numbers come out the same as the
worker's, day by day; meanwhile the rating board is empty or partial. Heavy: run it in the
worker tier's place (a one-off job), never from a web process."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ratings import services


class Command(BaseCommand):
    help = "Delete every rating and rate every settled day again, in date order."

    def handle(self, *args: Any, **options: Any) -> None:
        days = services.rebuild()
        for day in days:
            self.stdout.write(f"{day.isoformat()}: rated")
        self.stdout.write(f"Rated {len(days)} day(s).")

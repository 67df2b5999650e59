"""``manage.py purge_reviews``: delete the fair-play reviews older than 30 days (what is kept
privately of each daily attempt for staff: the account's age and a salted hash of its network;
docs/privacy.md). Run it daily, or more often: compose's ``jobs`` service does."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from leaderboard import review


class Command(BaseCommand):
    help = "Delete the fair-play reviews of daily attempts older than 30 days."

    def handle(self, *args: Any, **options: Any) -> None:
        deleted = review.purge()
        self.stdout.write(f"Deleted {deleted} review(s) older than {review.KEEP.days} days.")

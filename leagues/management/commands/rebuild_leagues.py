"""``manage.py rebuild_leagues [--week 2030-W24]``: delete a week's divisions, memberships and
points and compute them again from SQL (``leagues.services.rebuild_week``); the current week
without ``--week``. A closed week is closed again; rebuild weeks oldest first, since a week's
tiers come from the weeks before it."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games.clock import utc_today
from games.errors import GameError
from leagues import services
from leagues.models import Membership
from leagues.rules import parse_week, week_label, week_of


class Command(BaseCommand):
    help = "Compute a week's leagues again from the settled days (the current week by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--week", help="An ISO week, like 2030-W24.")

    def handle(self, *args: Any, **options: Any) -> None:
        text = options.get("week")
        try:
            monday = parse_week(text) if text else week_of(utc_today(timezone.now()))
        except GameError as error:
            raise CommandError(error.message) from error
        services.rebuild_week(monday)
        count = Membership.objects.filter(week_id=monday).count()
        self.stdout.write(f"{week_label(monday)}: {count} players placed")

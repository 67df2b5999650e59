"""``manage.py calibrate_difficulty [--days 28] [--json]``: each past day's predicted difficulty
against how the players really did, to calibrate the weekly bands (``DAILY_DIFFICULTY_WEEK``).

For each day before today with a stored deal, newest first: its weekday and band, the label and
the share of wins the simulated casual player predicted with its mean cards on the foundations,
then the players, their real share of wins and their mean cards. A day dealt before difficulties
is measured first (in a solver pool of the command's own) and its difficulty stored. The last
lines compare, label by label, the predicted share with the real one over the days that had
players.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine.difficulty import LABELS
from games.errors import GameError
from leaderboard import deals, payloads, picture, services
from leaderboard.management.options import day_count

#: The most days one run prints.
MAX_DAYS = 366


def percent(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


class Command(BaseCommand):
    help = "Print each past day's predicted difficulty against the players' real results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days", default="28", help=f"How many past days, newest first (1 to {MAX_DAYS})."
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object a line.")

    def handle(self, *args: Any, **options: Any) -> None:
        count = day_count(str(options["days"]), MAX_DAYS)
        days = [row.date for row in services.past_days()[:count]]
        real = picture.results(days)
        lines: list[dict[str, Any]] = []
        for day in days:
            try:
                row = deals.measure(day)
            except GameError as exc:
                raise CommandError(exc.message) from None
            predicted = payloads.difficulty(row)
            players, winners, cards = real[day]
            lines.append(
                {
                    "date": day.isoformat(),
                    "weekday": day.strftime("%a"),
                    "band": (row.difficulty_band or None) if row is not None else None,
                    "label": predicted["label"] if predicted else None,
                    "predicted_share": predicted["share"] if predicted else None,
                    "predicted_cards": predicted["cards"] if predicted else None,
                    "players": players,
                    "winners": winners,
                    "real_share": round(winners / players, 4) if players else None,
                    "real_cards": round(cards, 1) if cards is not None else None,
                }
            )
        if options["json"]:
            for line in lines:
                self.stdout.write(json.dumps(line))
            return
        self.stdout.write(
            f"{'date':<10} {'day':<3} {'band':<6} {'label':<8} {'sim won':>7} {'sim cards':>9} "
            f"{'players':>7} {'won':>5} {'cards':>5}"
        )
        for line in lines:
            self.stdout.write(
                f"{line['date']:<10} {line['weekday']:<3} {line['band'] or '-':<6} "
                f"{line['label'] or '-':<8} {percent(line['predicted_share']):>7} "
                f"{number(line['predicted_cards']):>9} {line['players']:>7} "
                f"{percent(line['real_share']):>5} {number(line['real_cards']):>5}"
            )
        by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for line in lines:
            if line["label"] and line["players"]:
                by_label[line["label"]].append(line)
        self.stdout.write("")
        self.stdout.write("By label, over the days with players: predicted share -> real share")
        for label, _ in LABELS:
            group = by_label.get(label, [])
            if not group:
                self.stdout.write(f"  {label}: no day")
                continue
            predicted = sum(g["predicted_share"] for g in group) / len(group)
            players = sum(g["players"] for g in group)
            winners = sum(g["winners"] for g in group)
            self.stdout.write(
                f"  {label}: {len(group)} day(s), predicted {predicted:.0%} -> real "
                f"{winners / players:.0%} ({winners}/{players} won)"
            )

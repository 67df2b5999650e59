"""``manage.py verify_games``: re-play every stored game through the rules engine.

Each game's move log is replayed with the engine's ``verify_record`` (every action must be legal,
the recorded score and result must match), then everything the database caches about the game is
compared with the replay: score, counters, status, the snapshot, and each move's score. Prints one
line per disagreement and a summary; exits with status 1 if any game disagrees.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Prefetch

from games import services
from games.engine import verify_record
from games.models import Game, Move


def problems_of(game: Game) -> list[str]:
    """Every way the stored ``game`` disagrees with a replay of its move log (``[]``: none)."""
    moves = list(game.moves.all())
    tokens = [m.token for m in moves]
    for ply, move in enumerate(moves):
        if move.ply != ply:
            return [f"the move log has ply {move.ply} where ply {ply} belongs"]
    # The record carries the stored score and result: verify_record checks them, and the status.
    verification = verify_record(services.game_record(game, tokens))
    if not verification:
        return [verification.message]
    engine = verification.game
    problems = []
    for field in ("ply", "undos", "foundation_cards"):  # (score: verify_record)
        stored, replayed = getattr(game, field), getattr(engine, field)
        if stored != replayed:
            problems.append(f"{field} is {stored}, the replay gives {replayed}")
    if game.actions != engine.ply:
        problems.append(f"actions is {game.actions}, the replay gives {engine.ply}")
    if game.is_in_progress == (game.finished_at is not None):
        problems.append(f"status is {game.status} but finished_at is {game.finished_at}")
    if (game.started_at is None) != (game.ply == 0):
        problems.append(f"started_at is {game.started_at} after {game.ply} actions")
    if game.day_over and not (game.is_daily and game.status == Game.Status.RESIGNED):
        problems.append("closed at its day's end but not a resigned daily game")
    if game.snapshot != services.snapshot_of(engine):
        problems.append("the snapshot differs from the replayed position")
    # Walk back through the log: the score after each action, as the replay has it.
    for move in reversed(moves):
        if move.score_after != engine.score:
            problems.append(
                f"move {move.ply} ({move.token}) has score {move.score_after}, "
                f"the replay gives {engine.score}"
            )
            break
        engine.pop()
    return problems


class Command(BaseCommand):
    help = "Re-play every stored game through the rules engine and report any disagreement."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="Only these games (default: all).")

    def handle(self, *args: Any, ids: list[int], **options: Any) -> None:
        games = (
            Game.objects.select_related("owner")
            .order_by("pk")
            .prefetch_related(Prefetch("moves", queryset=Move.objects.order_by("ply")))
        )
        if ids:
            games = games.filter(pk__in=ids)
        checked = actions = bad = 0
        for game in games.iterator(chunk_size=200):
            checked += 1
            actions += game.ply
            problems = problems_of(game)
            if problems:
                bad += 1
                for problem in problems:
                    self.stdout.write(f"game {game.pk} ({game.code}, {game.owner}): {problem}")
        summary = f"verified {_count(checked, 'game')}, {_count(actions, 'action')}: "
        if bad:
            raise CommandError(summary + f"{bad} disagree with their move logs")
        self.stdout.write(summary + "all agree with their move logs")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"

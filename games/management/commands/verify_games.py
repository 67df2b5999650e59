"""``manage.py verify_games``: re-play every stored game through the rules engine.

Each game's log is replayed with the engine's ``verify_record`` (every action must be legal, the
recorded score and result must match), then everything the database caches about the game is
compared with the replay: score, counters, status, the cached views, the stored engine state
(``Game.engine_state``: it must be exactly the dump of the replayed engine), and each logged
score. Views cached in an older shape (``views_version``) and engine states of another version (or
none) are never used — they are rebuilt from the log — so they are counted, not reported. Prints
one line per disagreement and a summary; exits with status 1 if any game disagrees.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Prefetch

from games import services
from games.engine import state as engine_state
from games.engine import verify_record
from games.models import VIEWS_VERSION, Game, LoggedAction


def problems_of(game: Game) -> list[str]:
    """Every way the stored ``game`` disagrees with a replay of its log (``[]``: none)."""
    log = list(game.log.all())
    tokens = [entry.token for entry in log]
    for ply, entry in enumerate(log):
        if entry.ply != ply:
            return [f"the log has ply {entry.ply} where ply {ply} belongs"]
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
    if game.is_in_progress == (game.finished_at is not None):
        problems.append(f"status is {game.status} but finished_at is {game.finished_at}")
    if (game.started_at is None) != (game.ply == 0):
        problems.append(f"started_at is {game.started_at} after {game.ply} actions")
    if game.day_over and not (game.is_daily and game.status == Game.Status.RESIGNED):
        problems.append("closed at its day's end but not a resigned daily game")
    if game.views_version == VIEWS_VERSION and game.views != services.views_for(game, engine):
        problems.append("the cached views differ from the replayed position")
    if state_is_current(game) and game.engine_state != engine_state.dump(engine):
        problems.append("the stored engine state differs from the replayed engine")
    # Walk back through the log: the score after each action, as the replay has it.
    for entry in reversed(log):
        if entry.score_after != engine.score:
            problems.append(
                f"action {entry.ply} ({entry.token}) has score {entry.score_after}, "
                f"the replay gives {engine.score}"
            )
            break
        engine.pop()
    return problems


def state_is_current(game: Game) -> bool:
    return engine_state.version_of(game.engine_state) == engine_state.STATE_VERSION


class Command(BaseCommand):
    help = "Re-play every stored game through the rules engine and report any disagreement."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="Only these games (default: all).")

    def handle(self, *args: Any, ids: list[int], **options: Any) -> None:
        games = (
            Game.objects.select_related("owner")
            .order_by("pk")
            .prefetch_related(Prefetch("log", queryset=LoggedAction.objects.order_by("ply")))
        )
        if ids:
            games = games.filter(pk__in=ids)
        checked = actions = bad = older = states = 0
        for game in games.iterator(chunk_size=200):
            checked += 1
            actions += game.ply
            older += game.views_version != VIEWS_VERSION
            states += not state_is_current(game)
            problems = problems_of(game)
            if problems:
                bad += 1
                for problem in problems:
                    self.stdout.write(f"game {game.pk} ({game.code}, {game.owner}): {problem}")
        summary = f"verified {_count(checked, 'game')}, {_count(actions, 'action')}: "
        if older:
            summary += f"{_count(older, 'game')} with views of an older shape (rebuilt when read); "
        if states:
            summary += (
                f"{_count(states, 'game')} without an engine state of the current version "
                "(rebuilt at the next action); "
            )
        if bad:
            raise CommandError(summary + f"{bad} disagree with their logs")
        self.stdout.write(summary + "all agree with their logs")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"

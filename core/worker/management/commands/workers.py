"""``manage.py workers``: the workers of the worker tier that are alive, and the tasks waiting.

``--check`` exits non-zero unless a worker of this host beat within ``WORKER_LOST`` seconds: the
health check of a worker's container (docker-compose.yml).
"""

from __future__ import annotations

import datetime as dt
import socket
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core.worker.models import WorkerBeat


class Command(BaseCommand):
    help = "List the live workers and the tasks waiting; --check: is a worker of this host alive?"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="Exit 1 unless a worker of this host beat within WORKER_LOST seconds.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        since = timezone.now() - dt.timedelta(seconds=settings.WORKER_LOST)
        alive = WorkerBeat.objects.filter(seen__gte=since).order_by("worker_id")
        if options["check"]:
            if not alive.filter(host=socket.gethostname()[:255]).exists():
                raise CommandError(f"no worker of {socket.gethostname()} beat since {since}")
            return
        for beat in alive:
            self.stdout.write(
                f"{beat.worker_id}  pid {beat.pid}  since {beat.started:%Y-%m-%d %H:%M:%S}"
            )
        ready = DBTaskResult.objects.filter(status=TaskResultStatus.READY).count()
        running = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).count()
        self.stdout.write(
            f"{alive.count()} worker(s) alive; {running} task(s) running, {ready} waiting."
        )

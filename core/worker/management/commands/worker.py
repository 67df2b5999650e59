"""``manage.py worker``: one worker process of the worker tier (``core.worker.runner``).

Runs the background duties — tasks of Django's Tasks API kept in the database — one at a time,
with the beat that schedules the periodic duties and runs again a lost worker's tasks. Start as
many as the duties need, on any machine that reaches the database: each task runs on one of them.
"""

from __future__ import annotations

import logging
import os
import signal
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string
from django.utils.module_loading import autodiscover_modules
from django_tasks import DEFAULT_TASK_BACKEND_ALIAS, DEFAULT_TASK_QUEUE_NAME

from core.lifeline import exit_with_parent
from core.worker.runner import Beat, Worker

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Run a worker of the worker tier: background duties, the schedule, lost tasks."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--queue-name",
            default=DEFAULT_TASK_QUEUE_NAME,
            help="The queues to run, separated by commas; '*' for all (default: %(default)s).",
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=None,
            help="Seconds between two looks for a ready task when idle (WORKER_INTERVAL).",
        )
        parser.add_argument(
            "--worker-id", default=None, help="This worker's id (default: host:pid:random)."
        )
        parser.add_argument(
            "--batch",
            action="store_true",
            help="Run the tasks ready now, then exit (no beat: no schedule, no recovery).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        interval = options["interval"]
        if interval is None:
            interval = settings.WORKER_INTERVAL
        if not 0 < interval <= 60:
            raise CommandError(f"--interval: expected 0 to 60 seconds, got {interval}")
        worker_id = options["worker_id"] or (
            f"{os.uname().nodename[:30]}:{os.getpid()}:{get_random_string(6)}"
        )
        if not 0 < len(worker_id) <= 64:
            raise CommandError("--worker-id: 1 to 64 characters")
        queues = [name for name in options["queue_name"].split(",") if name]
        if not queues:
            raise CommandError("--queue-name: name at least one queue, or '*'")

        autodiscover_modules("tasks")  # every app's tasks, and with them the periodic duties
        worker = Worker(
            grace=settings.WORKER_STOP_GRACE,
            queue_names=queues,
            interval=interval,
            batch=options["batch"],
            backend_name=DEFAULT_TASK_BACKEND_ALIAS,
            startup_delay=False,
            max_tasks=None,
            worker_id=worker_id,
            excluded_queue_names=[],
        )
        if options["batch"]:  # (an operator's or a test's run, in its own process as it is)
            worker.run()
            return

        if settings.WORKER_NICE:
            os.nice(settings.WORKER_NICE)
        exit_with_parent(how=signal.SIGTERM)  # started by `make run`: ends with it
        beat = Beat(worker_id, settings.WORKER_BEAT)
        log.info("worker %s: queues %s", worker_id, ",".join(queues))
        beat.start()
        worker.configure_signals()
        try:
            worker.run()
        finally:
            beat.stop()

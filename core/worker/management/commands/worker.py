"""``manage.py worker``: one worker of the worker tier (``core.worker.runner``).

Runs the background duties — tasks of Django's Tasks API kept in the database — one at a time:
django-tasks-db's own worker (its ``db_worker`` command) in a child process, watched by this
one, with the beat that schedules the periodic duties and runs again a lost worker's tasks.
Start as many as the duties need, on any machine that reaches the database: each task runs on
one of them.

``--batch`` runs the tasks ready now in this process (``db_worker --batch``) and returns: no
child, no beat (no schedule, no recovery). An operator's or a test's run.
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
from django_tasks import DEFAULT_TASK_QUEUE_NAME

from core.lifeline import exit_with_parent
from core.worker.runner import WORKER_ID_MAX, Supervisor, run_ready

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
            help="Run the tasks ready now in this process, then exit (no schedule, no recovery).",
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
        if not 0 < len(worker_id) <= WORKER_ID_MAX:
            raise CommandError(f"--worker-id: 1 to {WORKER_ID_MAX} characters")
        queues = [name for name in options["queue_name"].split(",") if name]
        if not queues:
            raise CommandError("--queue-name: name at least one queue, or '*'")
        # The library's worker, told everything (its defaults: a reloader under DEBUG, a random
        # wait at start).
        worker_args = [
            f"--queue-name={','.join(queues)}",
            f"--interval={interval}",
            "--no-reload",
            "--no-startup-delay",
        ]

        if options["batch"]:
            run_ready([f"--worker-id={worker_id}", *worker_args])
            return

        autodiscover_modules("tasks")  # every app's tasks, and with them the periodic duties
        exit_with_parent(how=signal.SIGTERM)  # started by `make run`: ends with it
        log.info("worker %s: queues %s", worker_id, ",".join(queues))
        Supervisor(
            worker_id,
            worker_args,
            grace=settings.WORKER_STOP_GRACE,
            nice=settings.WORKER_NICE,
            beat_every=settings.WORKER_BEAT,
        ).run()

"""A task of the tests' own, to try the worker tier's machinery (a stop, a lost worker) with a
task whose length the test chooses. Not in an app: the worker imports it by its path, as it
imports any task of an enqueued row."""

from __future__ import annotations

import os
import time
from pathlib import Path

from django_tasks import task


@task()
def mark(path: str, seconds: float) -> int:
    """Write ``start <pid>`` to ``path``, sleep ``seconds``, write ``done <pid>``."""
    with Path(path).open("a") as log:
        log.write(f"start {os.getpid()}\n")
    time.sleep(seconds)
    with Path(path).open("a") as log:
        log.write(f"done {os.getpid()}\n")
    return os.getpid()

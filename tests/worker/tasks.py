"""Tasks of the tests' own, to try the worker tier's machinery (a stop, a lost worker): one that
leaves a mark, one that the test holds as long as it needs. Not in an app: the worker imports
them by their path, as it imports any task of an enqueued row."""

from __future__ import annotations

import os
import time
from pathlib import Path

from django_tasks import task

#: The longest a held task waits for its go-ahead (then it ends as if given it).
HOLD_TIMEOUT = 60.0


def go(path: Path) -> Path:
    """The file whose existence lets the task held on ``path`` end."""
    return path.with_name(path.name + ".go")


@task()
def mark(path: str) -> int:
    """Write ``start <pid>`` then ``done <pid>`` to ``path``."""
    with Path(path).open("a") as log:
        log.write(f"start {os.getpid()}\n")
        log.write(f"done {os.getpid()}\n")
    return os.getpid()


@task()
def hold(path: str) -> int:
    """Write ``start <pid>`` to ``path``, wait until ``go(path)`` exists (``HOLD_TIMEOUT`` at
    most), write ``done <pid>``."""
    marks = Path(path)
    with marks.open("a") as log:
        log.write(f"start {os.getpid()}\n")
    deadline = time.monotonic() + HOLD_TIMEOUT
    while not go(marks).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    with marks.open("a") as log:
        log.write(f"done {os.getpid()}\n")
    return os.getpid()

"""A child process that ends with its parent: :func:`exit_with_parent`.

A process whose parent dies — killed with ``kill -9``, so that it could not stop its children —
is adopted by init and would run on for good: a solver pool's workers after their Daphne, a
worker after the ``make run`` that started it. Each such child calls :func:`exit_with_parent`
once it starts: a daemon thread looks at its parent's process id every ``every`` seconds and
ends the process as soon as it changed (the parent is gone). Standard library only: the solver
pool's workers import no Django.
"""

from __future__ import annotations

import os
import signal
import threading
import time

#: Seconds between two looks at the parent.
EVERY = 0.5


def _watch(parent: int, every: float, how: int) -> None:
    while os.getppid() == parent:
        time.sleep(every)
    if how == signal.SIGKILL:
        os._exit(0)
    os.kill(os.getpid(), how)  # a graceful stop: the process's own handler ends it
    time.sleep(30)
    os._exit(1)  # (a handler that did not end it)


def exit_with_parent(every: float = EVERY, how: int = signal.SIGKILL) -> bool:
    """End this process when its parent dies: at once (``how=SIGKILL``), or by sending itself
    ``how`` (``SIGTERM``: its handlers run). Returns False, and watches nothing, where the parent
    is init already (a container's main process, a daemon)."""
    parent = os.getppid()
    if parent <= 1:
        return False
    threading.Thread(target=_watch, args=(parent, every, how), name="lifeline", daemon=True).start()
    return True

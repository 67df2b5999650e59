"""A child process that ends with its parent: :func:`exit_with_parent`, and ``python -m
core.lifeline``.

A process whose parent dies — killed with ``kill -9``, so that it could not stop its children —
is adopted by init and would run on for good: a solver pool's workers after their Daphne, a
worker after the ``make run`` that started it, a worker's task runner after its worker. Two ways
to tie a child to its parent, for two kinds of child:

- A child running our own Python calls :func:`exit_with_parent` once it starts: a daemon thread
  looks at its parent's process id every ``every`` seconds and ends the process as soon as it
  changed (the parent is gone). It works whichever thread of the parent started the child.
- A child running someone else's program (the worker tier's task runner, django-tasks-db's
  ``db_worker`` command) is started through ``python -m core.lifeline --parent PID [--signal KILL]
  [--nice N] -- <command> [args]``: this asks the kernel to send it ``--signal`` when its parent
  ends (Linux's ``PR_SET_PDEATHSIG``, kept across ``exec``), lowers its scheduling priority by
  ``--nice``, then replaces itself with the command (same process id). Done here, in a process
  of its own with no thread, rather than in a ``preexec_fn`` of ``subprocess``: the parent has
  threads, and Python documents ``preexec_fn`` as unsafe then. ``PR_SET_PDEATHSIG`` fires when
  the parent *thread* that started the child ends, so the parent starts such a child from its
  main thread.

Standard library only: the solver pool's workers import no Django.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence

#: Seconds between two looks at the parent.
EVERY = 0.5
#: prctl(2)'s option: the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1


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


def die_with_parent(how: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send this process ``how`` when the thread that started it ends
    (``prctl(PR_SET_PDEATHSIG)``; kept across ``exec``). False where the C library has no
    ``prctl`` (not Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = getattr(libc, "prctl", None)
    if prctl is None:
        return False
    if prctl(PR_SET_PDEATHSIG, how, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    return True


def main(argv: Sequence[str]) -> int:
    """``python -m core.lifeline``: run a command tied to its parent (module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m core.lifeline",
        description="Run a command that ends with its parent process, at a lower priority.",
    )
    parser.add_argument("--parent", type=int, required=True, help="The parent's process id.")
    parser.add_argument(
        "--signal",
        choices=("KILL", "TERM"),
        default="KILL",
        help="The signal the command gets when its parent ends (default: %(default)s).",
    )
    parser.add_argument(
        "--nice", type=int, default=0, help="Lower the command's priority by this (0 to 19)."
    )
    parser.add_argument("command", nargs="+", help="The command and its arguments, after --.")
    args = parser.parse_args(argv)
    if not 0 <= args.nice <= 19:
        parser.error(f"--nice: expected 0 to 19, got {args.nice}")
    if args.nice:
        os.nice(args.nice)
    die_with_parent(signal.Signals[f"SIG{args.signal}"])
    if os.getppid() != args.parent:  # it ended before the kernel was asked: end now
        return 1
    os.execvp(args.command[0], args.command)  # (returns only by raising OSError)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

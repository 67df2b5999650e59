"""``python -m core.supervise``: the processes of ``make run``, started and stopped
together.

``make run`` serves the site with one command: a Daphne (the web process) and a worker of the
worker tier (``manage.py worker``). This starts both, stops both on Ctrl-C or SIGTERM (each gets
SIGTERM, then SIGKILL after ``STOP_WAIT`` seconds), and, if either ends by itself, stops the other
and exits with its status. Each child is tied to this process by the kernel
(``PR_SET_PDEATHSIG``): killed with ``kill -9``, this process takes both with it. Standard library
only.

Usage: ``python -m core.supervise -- <command> [args] -- <command> [args] ...``
"""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

#: Seconds a child has to end after SIGTERM before it is killed.
STOP_WAIT = 5.0
#: prctl(2)'s option: the signal a child gets when its parent dies.
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the supervisor dies (Linux; elsewhere the
    worker's own lifeline, ``core.lifeline``, does it)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return
    libc = ctypes.CDLL(name, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def split(argv: Sequence[str]) -> list[list[str]]:
    """The commands of ``argv``: each after a ``--``."""
    commands: list[list[str]] = []
    for arg in argv:
        if arg == "--":
            commands.append([])
        elif commands:
            commands[-1].append(arg)
        else:
            raise SystemExit("usage: supervise -- <command> [args] -- <command> [args] ...")
    if not commands or not all(commands):
        raise SystemExit("usage: supervise -- <command> [args] -- <command> [args] ...")
    return commands


def stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT
    for child in children:
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def main(argv: Sequence[str]) -> int:
    commands = split(argv)
    stopping: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    children = [subprocess.Popen(command, preexec_fn=_die_with_parent) for command in commands]
    status = 0
    while not stopping:
        ended = [n for n, child in enumerate(children) if child.poll() is not None]
        if ended:
            status = children[ended[0]].returncode or 1
            print(
                f"supervise: {' '.join(commands[ended[0]])} ended ({status}); stopping the others",
                file=sys.stderr,
            )
            break
        time.sleep(0.2)
    stop(children)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

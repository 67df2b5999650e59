"""Helpers shared by the benchmark scripts; nothing to run on its own.

The scripts run as ``python benchmarks/NAME.py``, which puts this directory on sys.path, and
``import common``. Live servers and the hurried player come from ``tests/support.py``, shared with
the tests.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "performance.md"

if str(ROOT) not in sys.path:  # the servers and players the tests use too
    sys.path.insert(0, str(ROOT))

from tests.support import (  # noqa: E402
    TEST_DEAL_POSITIONS,
    TEST_DIFFICULTY_GAMES,
    TEST_DIFFICULTY_WEEK,
    Daphne,
    Deployment,
    Nginx,
    RedisServer,
    Worker,
    deal_days,
    django_env,
    free_port,
    migrate,
    next_action,
    player_action,
    post_json,
    postgres_database,
)

__all__ = [
    "TEST_DEAL_POSITIONS",
    "TEST_DIFFICULTY_GAMES",
    "TEST_DIFFICULTY_WEEK",
    "Daphne",
    "Deployment",
    "Nginx",
    "RedisServer",
    "Worker",
    "django_env",
    "free_port",
    "machine",
    "deal_days",
    "migrate",
    "next_action",
    "player_action",
    "post_json",
    "postgres_database",
    "replace_section",
    "write_section",
]


def timed(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and p90 of ``repeat`` calls of ``call``, in ms, after a warm-up call."""
    call()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.9))]


def machine(arch: bool = False) -> str:
    """The machine in one line: Python, the architecture if ``arch``, CPUs, load average."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{platform.python_implementation()} {platform.python_version()}, "
        + (f"{platform.machine()}, " if arch else "")
        + f"{os.cpu_count()} CPUs, load average before the run {load}"
    )


def replace_section(text: str, heading: str, section: str) -> str:
    """``text`` with its "## heading" section, up to the next "## " heading or the end, replaced
    by ``section`` (other sections stay); ``section`` appended if there is none."""
    start = text.find(f"\n## {heading}\n")
    if start < 0:
        return text.rstrip("\n") + "\n\n" + section
    end = text.find("\n## ", start + 1)
    return text[: start + 1] + section + (text[end:] if end >= 0 else "")


def write_section(heading: str, section: str, path: Path = DOCS) -> None:
    """Replace the "## heading" section of docs/performance.md (see replace_section)."""
    text = path.read_text() if path.exists() else "# Performance\n"
    path.write_text(replace_section(text, heading, section))

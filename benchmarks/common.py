"""Helpers shared by the benchmark scripts; nothing to run on its own.

The scripts run as ``python benchmarks/NAME.py``, which puts this directory on sys.path, and
``import common``.
"""

from __future__ import annotations

import os
import platform
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "performance.md"


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def machine(arch: bool = False) -> str:
    """The machine in one line: Python, the architecture if ``arch``, CPUs, load average."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{platform.python_implementation()} {platform.python_version()}, "
        + (f"{platform.machine()}, " if arch else "")
        + f"{os.cpu_count()} CPUs, load average before the run {load}"
    )


def django_env(database_url: str, redis_url: str | None = None, **extra: str) -> dict[str, str]:
    """The environment for a Django or Daphne subprocess: this one's without REDIS_URL and DEBUG,
    on ``database_url``, throttles off, warnings only; ``redis_url`` and ``extra`` if given."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DEBUG")}
    env.update(
        DJANGO_SETTINGS_MODULE="canfield_site.settings",
        DATABASE_URL=database_url,
        THROTTLE_ACTIONS="off",
        THROTTLE_SIGNUP="off",
        THROTTLE_LOGIN="off",
        LOG_LEVEL="WARNING",
        **extra,
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


@contextmanager
def postgres_database(server_url: str, name: str) -> Iterator[str]:
    """A PostgreSQL database ``name`` for the block: created through a connection to
    ``server_url`` (after dropping a leftover of the same name) and dropped afterwards. Yields its
    URL: ``server_url`` with the path replaced."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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

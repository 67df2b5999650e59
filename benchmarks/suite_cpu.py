"""Where the test suite's CPU goes: the figures of docs/performance.md, "The test suite's CPU".

Runs `make pytest` (as `make test` does: two processes, a file to a process) under the kernel's
process accounting, which writes down every process that ends with the CPU it used — Chromium's
short-lived renderers and the servers the tests start included, which the test processes' own
clock and a sampler of /proc both miss. A sampler of /proc beside it names the processes that
live long enough to be seen (their command lines), and each process counts towards the nearest
of itself and its ancestors that has a kind: Chromium (a renderer is a child of its zygote, a
child of the browser), a Daphne server of a test and all it starts (its solver pool), a worker of
the worker tier, Playwright's driver, the test processes, a `manage.py` command, PostgreSQL's
backends. What does not end before the run does (the database and Redis servers themselves) is
not counted.

Needs root and the `acct` package (`accton`, `dump-acct`: apt-get install acct). The suite runs
on what DATABASE_URL and REDIS_URL say, as `make test` does.

    .venv/bin/python benchmarks/suite_cpu.py [--workers 2] [--write-docs] [-- pytest arguments]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from common import ROOT, machine, write_section

HEADING = "The test suite's CPU"
OTHER = "other"


def own_kind(command: str, name: str) -> str | None:
    """The kind a process's own command line (or, not sampled, its name) says, if any."""
    if "lib/chromium/chromium" in command or name == "chromium":
        return "Chromium"
    if "playwright" in command and "node" in command:
        return "Playwright's driver"
    if "canfield_site.serve" in command:
        return "Daphne servers (and their solver pools)"
    if "manage.py worker" in command or "db_worker" in command:
        return "workers of the worker tier"
    if "manage.py" in command:
        return "manage.py commands"
    if name == "postgres":
        return "PostgreSQL backends"
    if "pytest" in command:
        return "test processes (pytest and its workers)"
    return None


class Sampler(threading.Thread):
    """The command line and parent of every process seen, every `interval` seconds."""

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.commands: dict[int, str] = {}
        self.parents: dict[int, int] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit() or int(entry.name) in self.commands:
                    continue
                try:
                    with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                        command = f.read().replace(b"\0", b" ").decode(errors="replace")
                    with open(f"/proc/{entry.name}/stat") as f:
                        parent = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if command:
                    self.commands[int(entry.name)] = command
                    self.parents[int(entry.name)] = parent


def accounted(path: Path) -> list[tuple[str, float, int, int]]:
    """(name, CPU seconds, pid, parent pid) of each process written down in `path`."""
    dump = subprocess.run(["dump-acct", str(path)], capture_output=True, text=True, check=True)
    rows = []
    for line in dump.stdout.splitlines():
        fields = [field.strip() for field in line.split("|")]
        if len(fields) < 11 or fields[1] != "v3":
            continue
        cpu = (float(fields[2]) + float(fields[3])) / 100  # clock ticks, USER_HZ = 100
        rows.append((fields[0], cpu, int(fields[9]), int(fields[10])))
    return rows


def kind_of(pid: int, names: dict[int, str], sampler: Sampler, parents: dict[int, int]) -> str:
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        kind = own_kind(sampler.commands.get(pid, ""), names.get(pid, ""))
        if kind is not None:
            return kind
        pid = parents.get(pid, sampler.parents.get(pid, 0))
    return OTHER


def loop_seconds() -> float:
    """The machine's speed, measured just before the run: seconds for 10**7 additions in one
    process (about 0.3 s on a quiet machine here; a busy one takes several times as long)."""
    started = time.perf_counter()
    total = 0
    for i in range(10**7):
        total += i
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist processes")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's own arguments")
    args = parser.parse_args()
    if os.geteuid() != 0 or not shutil.which("accton") or not shutil.which("dump-acct"):
        sys.exit("needs root and the acct package (apt-get install acct): accton, dump-acct")

    # What `make test` runs, as it runs it.
    command = ["make", "pytest", f"PYTEST_WORKERS={args.workers}"]
    command += [f"PYTEST_ARGS={shlex.join(args.pytest_args)}"]
    before = machine()
    speed = loop_seconds()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "pacct"
        log.touch()
        sampler = Sampler()
        sampler.start()
        subprocess.run(["accton", str(log)], check=True, capture_output=True)
        started = time.monotonic()
        try:
            run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        finally:
            wall = time.monotonic() - started
            subprocess.run(["accton", "off"], check=True, capture_output=True)
            sampler.done.set()
        rows = accounted(log)

    names = {pid: name for name, _, pid, _ in rows}
    parents = {pid: parent for _, _, pid, parent in rows}
    cpu: dict[str, float] = {}
    count: Counter[str] = Counter()
    for _, seconds, pid, _ in rows:
        kind = kind_of(pid, names, sampler, parents)
        cpu[kind] = cpu.get(kind, 0.0) + seconds
        count[kind] += 1
    total = sum(cpu.values())
    summary = run.stdout.strip().splitlines()[-1].strip("= ") if run.stdout.strip() else "-"
    cores = os.cpu_count() or 1
    floor = total / cores

    lines = [
        f"## {HEADING}",
        "",
        "Where the CPU of a run of the suite goes (`benchmarks/suite_cpu.py`: the kernel's process",
        "accounting counts every process that ends, and each counts towards the nearest of itself",
        "and its ancestors that has a kind). The run:",
        "",
        "```",
        f".venv/bin/python benchmarks/suite_cpu.py --workers {args.workers}"
        + (f" -- {shlex.join(args.pytest_args)}" if args.pytest_args else ""),
        f"DATABASE_URL={'set' if os.environ.get('DATABASE_URL') else 'unset (SQLite)'}, "
        f"REDIS_URL={'set' if os.environ.get('REDIS_URL') else 'unset (in-memory)'}",
        f"{before}; 10**7 additions in {speed:.2f} s",
        f"pytest: {summary}",
        f"wall {wall:.0f} s; CPU {total:.0f} s, {total / (wall * cores):.0%} of {cores} cores",
        "```",
        "",
        f"However the tests are spread over the processes, {cores} cores cannot run this in less",
        f"than {floor:.0f} s (the CPU over the cores); the run took {wall / floor:.2f} times that.",
        "",
        "| kind of process | CPU s | share | processes |",
        "|---|---:|---:|---:|",
    ]
    for kind, seconds in sorted(cpu.items(), key=lambda item: -item[1]):
        lines.append(f"| {kind} | {seconds:.0f} | {seconds / total:.0%} | {count[kind]} |")
    section = "\n".join(lines) + "\n"
    print(section)
    if run.returncode != 0:
        print(run.stdout[-4000:], run.stderr[-2000:], sep="\n")
        sys.exit(f"pytest exited {run.returncode}")
    if args.write_docs:
        write_section(HEADING, section)


if __name__ == "__main__":
    main()

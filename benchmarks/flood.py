"""The audit's two attacks on a Daphne, and what the process does under them: the figures of
docs/reliability.md, "Floods".

(a) sockets: --sockets anonymous websockets on today's board (a board of 100 players: a
    snapshot of ~37 KB) send 1 KB messages of an unknown type, ``{"type": "zzz…"}``, in a loop
    for --seconds, reading nothing — the audit's attack; with --reconnect, a socket the server
    stops is replaced by a new one at once (an attacker who persists). Measured: the process's
    RSS at the start, its peak, and --after seconds after the attack; ``GET /api/health/``
    p50/p99 idle and during the attack (from a process of its own); the sockets opened and how
    each one ended.
(b) headers: connections opened as fast as one client opens them for --header-seconds, each
    sending a request line and one header, then one more byte of a header every 5 s (so that an
    idle timeout never fires): how many the process holds at the end, and at most; health p99
    meanwhile.

The Daphne is started as production starts it (``daphne canfield_site.asgi:application``; SQLite,
the settings' defaults). The clients come from one address, as the audit's did (the per-network
cap, 50 sockets, admits the 20).

    .venv/bin/python benchmarks/flood.py [--sockets 20] [--seconds 20] [--after 60]
        [--reconnect] [--header-seconds 55] [--skip sockets headers]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import Daphne, django_env, machine, migrate

from tests.site.sockets import RawWebsocket, Refused, frame, rss_kib, seed_board, server_ended

#: The health prober, a process of its own (the attack's threads share this one's interpreter
#: lock: timed here, a request's latency would be theirs too): one line per request,
#: "<monotonic time> <latency or -1>".
PROBE = """
import sys, time, urllib.request
url = sys.argv[1]
while True:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            answer.read()
        print(started, time.monotonic() - started, flush=True)
    except OSError:
        print(started, -1, flush=True)
    time.sleep(0.05)
"""


class Health:
    """``GET /api/health/`` every 50 ms from a process of its own; the latencies by phase (the
    phase when each request started)."""

    def __init__(self, url: str) -> None:
        self.url = f"{url}/api/health/"
        self.phases: list[tuple[float, str]] = [(0.0, "idle")]
        self.latencies: dict[str, list[float]] = {}
        self.failures = 0

    @property
    def phase(self) -> str:
        return self.phases[-1][1]

    @phase.setter
    def phase(self, name: str) -> None:
        self.phases.append((time.monotonic(), name))

    def read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            started, latency = (float(x) for x in line.split())
            phase = [name for at, name in self.phases if at <= started][-1]
            if latency < 0:
                self.failures += 1
            else:
                self.latencies.setdefault(phase, []).append(latency)

    def figures(self, phase: str) -> str:
        values = sorted(self.latencies.get(phase, []))
        if not values:
            return "no answer"
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        return (
            f"p50 {statistics.median(values) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms "
            f"({len(values)} requests)"
        )

    def __enter__(self) -> Health:
        self.process = subprocess.Popen(
            [sys.executable, "-c", PROBE, self.url], stdout=subprocess.PIPE, text=True
        )
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.reader.join(timeout=5)


class Memory:
    """The server's RSS every 0.25 s, in a thread of its own: the peak."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = rss_kib(pid)
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_kib(self.pid))
            time.sleep(0.25)

    def __enter__(self) -> Memory:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.running = False
        self.thread.join(timeout=5)


def mb(kib: int) -> str:
    return f"{kib / 1024:.0f} MB"


def sockets_attack(
    daphne: Daphne, sockets: int, seconds: float, after: float, reconnect: bool
) -> None:
    path = f"/ws/daily/{dt.datetime.now(dt.UTC).date().isoformat()}/"
    junk = frame(1, json.dumps({"type": "z" * 1000}).encode()) * 64  # 64 messages a write
    ends: dict[str, int] = {}
    opened = [0]
    lock = threading.Lock()

    abandoned: list[RawWebsocket] = []

    def attacker(deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                client = RawWebsocket(daphne.port, path, timeout=30)
            except (OSError, Refused) as exc:
                with lock:
                    ends[f"refused: {exc}"[:60]] = ends.get(f"refused: {exc}"[:60], 0) + 1
                continue
            with lock:
                opened[0] += 1
                abandoned.append(client)
            client.sock.settimeout(1)
            try:
                while time.monotonic() < deadline:
                    client.sock.sendall(junk)
            except OSError:  # it stopped reading us (a timeout), or reset us
                if not reconnect:
                    while time.monotonic() < deadline:
                        time.sleep(0.1)

    time.sleep(2)
    start = rss_kib(daphne.pid)
    with Health(daphne.url) as health, Memory(daphne.pid) as memory:
        time.sleep(10)
        health.phase = "during"
        deadline = time.monotonic() + seconds
        threads = [threading.Thread(target=attacker, args=(deadline,)) for _ in range(sockets)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=seconds + 60)
        end_of_attack = rss_kib(daphne.pid)
        for client in abandoned:
            try:
                _, code, reason = client.read_to_close(timeout=10)
                end = f"closed {code} {reason}" if code else "reset"
            except TimeoutError:
                end = "still open"
            ends[end] = ends.get(end, 0) + 1
            client.close()
        health.phase = "after"
        time.sleep(after)
        later = rss_kib(daphne.pid)
        peak = memory.peak
    again = ", each replaced when stopped" if reconnect else ""
    print(f"(a) {sockets} sockets{again}: 1 KB unknown messages for {seconds:.0f} s, not reading")
    print(f"    sockets opened: {opened[0]}; how they ended: {json.dumps(ends)}")
    print(
        f"    RSS: start {mb(start)}, peak {mb(peak)} (+{mb(peak - start)}), "
        f"at the end {mb(end_of_attack)}, {after:.0f} s after {mb(later)}"
    )
    print(f"    health idle: {health.figures('idle')}")
    print(f"    health during: {health.figures('during')}; failures {health.failures}")


def headers_attack(daphne: Daphne, seconds: float) -> None:
    held: list[socket.socket] = []
    opened = most = errors = 0
    with Health(daphne.url) as health:
        time.sleep(5)
        health.phase = "during"
        deadline = time.monotonic() + seconds
        last_trickle = time.monotonic()
        while time.monotonic() < deadline:
            try:
                connection = socket.create_connection(("127.0.0.1", daphne.port), timeout=5)
                connection.sendall(b"GET /api/health/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                connection.setblocking(False)
                held.append(connection)
                opened += 1
            except OSError:
                errors += 1
                time.sleep(0.01)
            if time.monotonic() - last_trickle > 5 or len(held) % 500 == 0:
                held = [c for c in held if not server_ended(c)]
                most = max(most, len(held))
            if time.monotonic() - last_trickle > 5:
                last_trickle = time.monotonic()
                for connection in held:
                    with contextlib.suppress(OSError):
                        connection.send(b"a")  # one more byte of the header
        held = [c for c in held if not server_ended(c)]
        most = max(most, len(held))
    print(f"(b) half-sent headers for {seconds:.0f} s, one more byte each every 5 s")
    print(
        f"    connections opened: {opened} ({errors} failed to open); held at the end: "
        f"{len(held)}; held at most: {most}"
    )
    print(f"    health idle: {health.figures('idle')}")
    print(f"    health during: {health.figures('during')}; failures {health.failures}")
    for connection in held:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--after", type=float, default=60)
    parser.add_argument("--reconnect", action="store_true")
    parser.add_argument("--header-seconds", type=float, default=55)
    parser.add_argument("--skip", nargs="*", default=[], choices=["sockets", "headers"])
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        env = django_env(f"sqlite:///{Path(tmp) / 'db.sqlite3'}")
        migrate(env)
        seed_board(env, 100)
        with Daphne(env, Path(tmp) / "daphne.log") as daphne:
            if "sockets" not in args.skip:
                sockets_attack(daphne, args.sockets, args.seconds, args.after, args.reconnect)
            if "headers" not in args.skip:
                headers_attack(daphne, args.header_seconds)


if __name__ == "__main__":
    main()

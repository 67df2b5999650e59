"""The audit's floods on a web process, and what it does under them: the figures of
docs/reliability.md, "Floods".

(a) sockets: --sockets anonymous websockets on today's board (a board of 100 players: a
    snapshot of ~33 KB) send 1 KB messages of an unknown type, ``{"type": "zzz…"}``, in a loop
    for --seconds, reading nothing — the audit's attack; with --reconnect, a socket the server
    stops is replaced by a new one at once (an attacker who persists). Measured: the process's
    RSS at the start, its peak, and --after seconds after the attack; ``GET /api/health/``
    p50/p99 idle and during the attack (from a process of its own); the sockets opened and how
    each one ended.
(b) unread: --sockets websockets that ask for a snapshot once a second (within the rate) and
    read nothing, for --seconds: how each ended, and the RSS.
(c) pings: --sockets websockets that send protocol pings in a loop and read nothing (the server
    answers each with a pong, which it holds unread), for --ping-seconds (long enough for
    Daphne's ping time-out to act: 20 s quiet, then 30 s unanswered, by default): how each ended,
    the RSS.
(d) headers, against the deployed shape (nginx with ``deploy/nginx.conf`` in front of two
    Daphne processes): connections opened as fast as one client opens them for
    --header-seconds, each sending a request line and one header, then one more byte of a header
    every 5 s (so that an idle timeout never fires): how many nginx holds at the end, and at
    most, and whether any reached a Daphne; health p99 through nginx meanwhile.

Each Daphne is started as every web process is (``python -m canfield_site.serve``; SQLite, the
settings' defaults). The clients come from one address, as the audit's did (the per-network cap,
50 sockets, admits the 20).

    .venv/bin/python benchmarks/flood.py [--sockets 20] [--seconds 15] [--after 60]
        [--reconnect] [--ping-seconds 60] [--header-seconds 55]
        [--skip sockets unread pings headers]
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

from common import Daphne, Deployment, django_env, machine, migrate

from tests.site.sockets import (
    PING,
    RawWebsocket,
    Refused,
    frame,
    rss_kib,
    seed_board,
    server_ended,
)

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
                end = f"closed {code} {reason}".strip() if code else "reset"
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


def quiet_sockets_attack(
    daphnes: list[Daphne], port: int, kind: str, sockets: int, seconds: float, where: str
) -> None:
    """(b) ``unread``: a resync a second, nothing read; (c) ``pings``: protocol pings in a loop,
    nothing read; on ``port`` (a Daphne's, or nginx's in front of ``daphnes``). How each socket
    ended, and the RSS of the Daphne processes (summed)."""
    path = f"/ws/daily/{dt.datetime.now(dt.UTC).date().isoformat()}/"
    pings = frame(PING, b"p" * 125) * 64  # 64 pings a write
    clients: list[RawWebsocket] = []
    ended: list[float] = []
    lock = threading.Lock()

    def attacker(n: int, deadline: float) -> None:
        try:
            client = RawWebsocket(port, path, receive_buffer=2048, segment=536)
        except (OSError, Refused):
            return
        with lock:
            clients.append(client)
        began = time.monotonic()
        client.sock.settimeout(1)
        try:
            while time.monotonic() < deadline and not client.closed():
                if kind == "unread":
                    client.send_text('{"type": "resync"}')  # ~33 KB each, never read
                    time.sleep(1.05)
                else:
                    client.sock.sendall(pings)
        except OSError:  # it stopped reading us (a timeout), or reset us
            pass
        while time.monotonic() < deadline and not client.closed():
            time.sleep(0.1)
        if client.closed():
            with lock:
                ended.append(time.monotonic() - began)

    def logs() -> str:
        return "".join(d.log.read_text(errors="replace") for d in daphnes if d.log is not None)

    time.sleep(2)
    start = sum(rss_kib(d.pid) for d in daphnes)
    log_before = logs().count("(not_reading)")
    with contextlib.ExitStack() as stack:
        memories = [stack.enter_context(Memory(d.pid)) for d in daphnes]
        deadline = time.monotonic() + seconds
        threads = [threading.Thread(target=attacker, args=(n, deadline)) for n in range(sockets)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=seconds + 60)
        end_of_attack = sum(rss_kib(d.pid) for d in daphnes)
        peak = sum(memory.peak for memory in memories)
    not_reading = logs().count("(not_reading)") - log_before
    for client in clients:
        client.close()
    what = (
        "a resync a second, reading nothing"
        if kind == "unread"
        else "protocol pings in a loop (64 per write), reading nothing"
    )
    print(
        f"({'b' if kind == 'unread' else 'c'}) {sockets} sockets{where}: {what}, "
        f"for {seconds:.0f} s"
    )
    slowest = f", the last after {max(ended):.1f} s" if ended else ""
    print(
        f"    sockets opened: {len(clients)}; ended by the server: {len(ended)}{slowest}; "
        f"closed not_reading (the log): {not_reading}"
    )
    print(
        f"    RSS: start {mb(start)}, peak {mb(peak)} (+{mb(peak - start)}), "
        f"at the end {mb(end_of_attack)}"
    )


def headers_attack(site: Deployment, seconds: float) -> None:
    """(d) half-sent headers, through nginx (the deployed shape)."""
    held: list[socket.socket] = []
    opened = most = errors = 0
    port = site.nginx.port
    with Health(site.url) as health:
        time.sleep(5)
        health.phase = "during"
        deadline = time.monotonic() + seconds
        last_trickle = time.monotonic()
        while time.monotonic() < deadline:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=5)
                connection.sendall(b"GET /api/health/?slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
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
    print(f"(d) half-sent headers through nginx for {seconds:.0f} s, one more byte each every 5 s")
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
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--after", type=float, default=60)
    parser.add_argument("--reconnect", action="store_true")
    parser.add_argument("--ping-seconds", type=float, default=60)
    parser.add_argument("--header-seconds", type=float, default=55)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["sockets", "unread", "pings", "headers"]
    )
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        env = django_env(f"sqlite:///{Path(tmp) / 'db.sqlite3'}")
        migrate(env)
        seed_board(env, 100)
        if "sockets" not in args.skip:
            with Daphne(env, Path(tmp) / "sockets.log") as daphne:
                sockets_attack(daphne, args.sockets, args.seconds, args.after, args.reconnect)
        for kind, seconds in (("unread", args.seconds), ("pings", args.ping_seconds)):
            if kind not in args.skip:
                with Daphne(env, Path(tmp) / f"{kind}.log") as daphne:
                    quiet_sockets_attack([daphne], daphne.port, kind, args.sockets, seconds, "")
        if "pings" not in args.skip or "headers" not in args.skip:
            with Deployment(env, Path(tmp) / "site") as site:
                if "pings" not in args.skip:
                    quiet_sockets_attack(
                        list(site.daphnes),
                        site.nginx.port,
                        "pings",
                        args.sockets,
                        args.ping_seconds,
                        " through nginx (two Daphne processes)",
                    )
                if "headers" not in args.skip:
                    headers_attack(site, args.header_seconds)


if __name__ == "__main__":
    main()

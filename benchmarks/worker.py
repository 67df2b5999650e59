"""The worker tier: a player's search never waits behind background work. The figures of
docs/performance.md, "The worker tier".

`make run` on a fresh database (the default solver budgets: dealing a day with its difficulty
takes seconds to a minute): its worker deals today and then tomorrow while players play. As soon
as the site answers, --hinters players each sign up and, again and again, start a practice game
on a random deal, ask for a hint (a search every time) and think --think seconds (or as long as a
refusal's Retry-After says), for as long as the worker deals; then the same load again for
--seconds with nothing being dealt: the baseline of the same run.

Aims: the first hint answers <= 3 s after the site answers, with no 503; while the days are
being dealt, hint p99 <= 3 s and no 503; once today is dealt, the first POST /api/daily/ of a new
player <= 300 ms.

    .venv/bin/python benchmarks/worker.py [--hinters 2] [--think 4] [--seconds 30] [--write-docs]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from common import free_port, machine, write_section
from offload import Client, aim, make_run, pct, sign_up, wait_health

HEADING = "The worker tier"


class Hinter(threading.Thread):
    """A player who starts a practice game on a random deal, asks for a hint and thinks, again
    and again: each answer's milliseconds and status, with when it came."""

    def __init__(self, url: str, name: str, think: float) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.name = name
        self.think = think
        self.stop = threading.Event()
        self.answers: list[tuple[float, int, float]] = []  # (when, status, ms)

    def run(self) -> None:
        client = Client(self.url, sign_up(self.url, self.name))
        while not self.stop.is_set():
            status, game, _ = client.call("POST", "/api/games/", {"draw": 3})
            if status == 201:
                status, game, ms = client.call("GET", f"/api/games/{game['id']}/hint/")
                self.answers.append((time.monotonic(), status, ms))
            wait = self.think
            if status in (429, 503) and isinstance(game, dict):
                wait = max(wait, float(game.get("retry_after", wait)))
            self.stop.wait(wait)


def dealt(database: Path) -> int:
    try:
        with sqlite3.connect(database, timeout=5) as db:
            rows = db.execute("SELECT COUNT(*) FROM leaderboard_dailydeal WHERE code != ''")
            return int(rows.fetchone()[0])
    except sqlite3.Error:  # (not migrated yet)
        return 0


def summary(answers: list[tuple[float, int, float]]) -> dict[str, Any]:
    statuses = Counter(status for _, status, _ in answers)
    times = [ms for _, status, ms in answers if status == 200]
    return {
        "hints": len(times),
        "p50": pct(times, 0.5),
        "p99": pct(times, 0.99),
        "statuses": dict(statuses),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="canfield-worker-") as tmp:
        database = Path(tmp) / "db.sqlite3"
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        with make_run(database, port, Path(tmp) / "make-run.log"):
            wait_health(url, timeout=300)
            up = time.monotonic()
            first = Client(url, sign_up(url, "firstplayer"))
            status, game, _ = first.call("POST", "/api/games/", {"draw": 3})
            assert status == 201, game
            status, hint, ms = first.call("GET", f"/api/games/{game['id']}/hint/")
            first_hint = {"status": status, "ms": ms, "after": time.monotonic() - up}
            print(f"first hint: {first_hint} {hint}", file=sys.stderr)

            hinters = [Hinter(url, f"hinter{n}", args.think) for n in range(args.hinters)]
            for hinter in hinters:
                hinter.start()
            while dealt(database) < 2 and time.monotonic() - up < 600:
                time.sleep(0.2)
            dealing = time.monotonic() - up
            switch = time.monotonic()
            time.sleep(args.seconds)
            for hinter in hinters:
                hinter.stop.set()
            for hinter in hinters:
                hinter.join()
            answers = [a for h in hinters for a in h.answers]
            during = summary([a for a in answers if a[0] <= switch])
            after = summary([a for a in answers if a[0] > switch])

            player = Client(url, sign_up(url, "dailyplayer"))
            status, body, daily_ms = player.call("POST", "/api/daily/")
            daily = {"status": status, "ms": daily_ms, "code": body.get("code")}
    result = {
        "first_hint": first_hint,
        "dealing_seconds": dealing,
        "during": during,
        "after": after,
        "daily": daily,
    }
    print(result, file=sys.stderr)
    return result


def rows(r: dict[str, Any], hinters: int, think: float) -> str:
    first, during, after, daily = r["first_hint"], r["during"], r["after"], r["daily"]
    refused = during["statuses"].get(503, 0)
    first_met = first["status"] == 200 and first["after"] <= 3
    during_met = refused == 0 and during["p99"] <= 3000
    daily_met = daily["status"] == 201 and daily["ms"] <= 300

    def line(label: str, s: dict[str, Any]) -> str:
        other = ", ".join(f"{n} × {k}" for k, n in sorted(s["statuses"].items()) if k != 200)
        return (
            f"| {label} | {s['hints']} | {s['p50']:.0f} ms | {s['p99']:.0f} ms | "
            f"{other or 'none'} |"
        )

    return "\n".join(
        [
            f"`make run` on a fresh database; {hinters} players each starting a random deal and "
            f"asking for a hint, then thinking {think:g} s (or a refusal's Retry-After), "
            f"while its worker dealt today and tomorrow ({r['dealing_seconds']:.0f} s), then the "
            "same load with nothing being dealt.",
            "",
            "| hints | answered | p50 | p99 | other answers |",
            "|---|---:|---:|---:|---|",
            line("while the worker deals", during),
            line("nothing being dealt (baseline)", after),
            "",
            "| measure | figure | aim |",
            "|---|---:|---|",
            f"| first hint after the site answers | {first['status']}, "
            f"{first['after']:.2f} s after ({first['ms']:.0f} ms) | ≤ 3 s, no 503: "
            f"{aim(first_met)} (before: 37 s of 503 `busy`) |",
            f"| hints while days are dealt: p99, 503s | {during['p99'] / 1000:.2f} s, {refused} "
            f"| ≤ 3 s, 0: {aim(during_met)} (before: 503 for the whole dealing) |",
            f"| first POST /api/daily/ once dealt | {daily['status']}, {daily['ms']:.0f} ms "
            f"| ≤ 300 ms: {aim(daily_met)} |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hinters", type=int, default=2)
    parser.add_argument("--think", type=float, default=4.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    table = rows(run(args), args.hinters, args.think)
    section = "\n".join(
        [
            f"## {HEADING}\n",
            "Background duties run in the worker tier (`manage.py worker`, docs/architecture.md), "
            "never in a web process: a player's search has the web process's solver pool to "
            "itself.\n",
            f"Command: `python benchmarks/worker.py --write-docs` ({machine()})\n",
            table + "\n",
        ]
    )
    print(section)
    if args.write_docs:
        write_section(HEADING, section)


if __name__ == "__main__":
    main()

"""Random sequences of a live board's top, for the frames' property tests (server side in
tests/leaderboard/test_live_frames.py, the browser's script in tests/frontend/): each step
changes a few players — newcomers entering anywhere (rank 1 included, above a crowd of ties), rows
moving up or down with new values, rows overtaken by time alone, values changing in place, rows
leaving the board — while the open attempts' clocks run on. The top is the first 100 rows of a
board that may hold more, so rows leave it and enter it from below. No Django here."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

TOP = 100
START = 1_900_000_000.0  # seconds: the frames' "at" is START + 0.25 × seq


def iso(seconds: float) -> str:
    import datetime as dt

    moment = dt.datetime.fromtimestamp(seconds, dt.UTC)
    return moment.isoformat().replace("+00:00", "Z")


@dataclass
class Entry:
    player: str
    status: str
    cards: int
    actions: int
    started: float  # seconds
    finished: float | None

    def row(self, rank: int, at: float) -> dict[str, Any]:
        end = self.finished if self.finished is not None else at
        return {
            "rank": rank,
            "player": self.player,
            "status": self.status,
            "result": self.status,
            "won": self.status == "won",
            "foundation_cards": self.cards,
            "actions": self.actions,
            "time_seconds": round(end - self.started, 3),
            "score": 5 * (self.cards - 1),
            "finished_at": None if self.finished is None else iso(self.finished),
            "game_id": int(self.player[1:]),
        }


@dataclass
class Board:
    """A whole board in rank order (the order is whatever the steps make it)."""

    entries: list[Entry]
    seq: int = 1
    names: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))

    def snapshot(self) -> dict[str, Any]:
        at = START + 0.25 * self.seq
        return {
            "type": "snapshot",
            "date": "2030-06-15",
            "seq": self.seq,
            "at": iso(at),
            "count": len(self.entries),
            "results": [e.row(r, at) for r, e in enumerate(self.entries[:TOP], start=1)],
        }


def entry(draw: Any, name: str) -> Entry:
    status = draw(st.sampled_from(["in_progress", "in_progress", "resigned", "won"]))
    started = START - draw(st.sampled_from([10.0, 60.0, 600.0]))
    finished = None if status == "in_progress" else started + draw(st.sampled_from([5.0, 30.0]))
    cards = 52 if status == "won" else draw(st.sampled_from([1, 2, 3]))
    return Entry(name, status, cards, draw(st.sampled_from([10, 11, 12])), started, finished)


@st.composite
def boards(draw: Any, steps: int = 12) -> tuple[list[dict[str, Any]], list[set[str]]]:
    """The snapshots of a board through ``steps`` steps, and the players each step touched."""
    size = draw(st.sampled_from([0, 3, 40, 99, 100, 101, 130, 150]))
    tied = draw(st.booleans())  # a crowd of identical rows (one entry copied under many names)
    first = entry(draw, "p0")
    board = Board(
        [
            Entry(f"p{i}", first.status, first.cards, first.actions, first.started, first.finished)
            if tied
            else entry(draw, f"p{i}")
            for i in range(size)
        ]
    )
    snapshots = [board.snapshot()]
    touched: list[set[str]] = []
    for _ in range(draw(st.integers(1, steps))):
        board.seq += 1
        changed: set[str] = set()
        for _ in range(draw(st.integers(0, 3))):
            n = len(board.entries)
            kind = draw(st.sampled_from(["enter", "enter", "move", "overtaken", "edit", "leave"]))
            if kind == "enter" or n == 0:
                new = entry(draw, f"p{next(board.names)}")
                board.entries.insert(draw(st.integers(0, min(n, TOP + 5))), new)
                changed.add(new.player)
                continue
            i = draw(st.integers(0, n - 1))
            mover = board.entries[i]
            if kind == "leave":
                del board.entries[i]
            elif kind == "edit":
                mover.actions += 1
            else:
                del board.entries[i]
                if kind == "move":
                    mover.actions += 1
                board.entries.insert(draw(st.integers(0, n - 1)), mover)
            changed.add(mover.player)
        snapshots.append(board.snapshot())
        touched.append(changed)
    return snapshots, touched

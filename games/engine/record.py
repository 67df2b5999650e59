"""Canfield records: a game's headers and its actions as text, in the manner of PGN.

    [Code "CF1-D3-AAAAACL"]
    [Variant "app"]
    [Draw "3"]
    [Player "alice"]
    [Date "2026-11-29"]
    [Result "won"]
    [Score "255"]

    R-T2 R-F1 T2:2-T4 D W-T1 ...

Only ``Code`` is required. ``Variant`` and ``Draw`` repeat what the code says and must agree with
it. ``Result`` is ``won``, ``resigned``, ``closed`` (a daily attempt closed when its day ended) or
``in_progress``. :func:`verify_record` replays a record and reports the first disagreement.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from .actions import Action, parse_tokens
from .deals import DealCode
from .errors import EngineError, NotationError
from .game import Canfield

RESULTS = ("won", "resigned", "closed", "in_progress")
HEADER_ORDER = ("Code", "Variant", "Draw", "Player", "Date", "Result", "Score")
_HEADER_RE = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*) "((?:[^"\\]|\\.)*)"\]')
_DIGITS_RE = re.compile(r"[0-9]+")  # not str.isdigit(): it accepts "²", which int() refuses


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


@dataclass(frozen=True)
class GameRecord:
    code: DealCode
    actions: tuple[Action, ...] = ()
    player: str | None = None
    date: str | None = None
    result: str | None = None
    score: int | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_game(
        cls,
        game: Canfield,
        player: str | None = None,
        date: str | None = None,
        result: str | None = None,
    ) -> GameRecord:
        if result is None:
            result = "won" if game.is_won() else "in_progress"
        return cls(game.code, tuple(game.history), player, date, result, game.score)

    @property
    def tokens(self) -> list[str]:
        return [a.token() for a in self.actions]

    def headers(self) -> dict[str, str]:
        headers = {
            "Code": str(self.code),
            "Variant": self.code.variant,
            "Draw": str(self.code.draw),
        }
        if self.player is not None:
            headers["Player"] = self.player
        if self.date is not None:
            headers["Date"] = self.date
        if self.result is not None:
            headers["Result"] = self.result
        if self.score is not None:
            headers["Score"] = str(self.score)
        headers.update(self.extra)
        return headers

    def text(self) -> str:
        """The record as text; ``GameRecord.parse(r.text()) == r``."""
        for key, value in self.headers().items():
            if len(value.splitlines()) > 1 or value != value.strip(
                "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
            ):
                raise NotationError(f"header {key} holds a line break: a header is one line")
        lines = [f'[{key} "{_escape(value)}"]' for key, value in self.headers().items()]
        body = textwrap.fill(" ".join(self.tokens), width=80, break_on_hyphens=False)
        return "\n".join(lines) + "\n\n" + (body + "\n" if body else "")

    def __str__(self) -> str:
        return self.text()

    @classmethod
    def parse(cls, text: str) -> GameRecord:
        """Parse a record; raises :class:`NotationError` naming the bad line or token."""
        if not isinstance(text, str):
            raise NotationError("a game record is text")
        headers: dict[str, str] = {}
        body: list[str] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("["):
                if body:
                    raise NotationError(f"line {number}: a header after the actions")
                m = _HEADER_RE.fullmatch(line)
                if m is None:
                    raise NotationError(f'line {number}: not a header like [Code "CF1-D3-..."]')
                key, value = m.group(1), _unescape(m.group(2))
                if key in headers:
                    raise NotationError(f"line {number}: header {key} given twice")
                headers[key] = value
            else:
                body.append(line)
        if "Code" not in headers:
            raise NotationError("the record has no Code header")
        code = DealCode.parse(headers.pop("Code"))
        variant = headers.pop("Variant", code.variant)
        if variant != code.variant:
            raise NotationError(f"Variant {variant!r} disagrees with the code {code}")
        draw = headers.pop("Draw", str(code.draw))
        if draw != str(code.draw):
            raise NotationError(f"Draw {draw!r} disagrees with the code {code}")
        result = headers.pop("Result", None)
        if result is not None and result not in RESULTS:
            raise NotationError(f"Result {result!r} is not one of {', '.join(RESULTS)}")
        score_text = headers.pop("Score", None)
        score = None
        if score_text is not None:
            if not _DIGITS_RE.fullmatch(score_text):
                raise NotationError(f"Score {score_text!r} is not a whole number")
            score = int(score_text)
        return cls(
            code=code,
            actions=tuple(parse_tokens(" ".join(body))),
            player=headers.pop("Player", None),
            date=headers.pop("Date", None),
            result=result,
            score=score,
            extra=headers,
        )


@dataclass(frozen=True)
class Verification:
    """The outcome of replaying a record: ``ok``, or the ply and reason of the first problem."""

    ok: bool
    game: Canfield
    ply: int | None = None
    message: str = ""

    def __bool__(self) -> bool:
        return self.ok


def verify_record(record: GameRecord | str, final: dict[str, object] | None = None) -> Verification:
    """Replay ``record`` through the rules. Reports the first illegal action, then any header
    (Score, Result) or expected final full view (``final``, any subset of its keys) that
    disagrees with the replayed game."""
    if isinstance(record, str):
        record = GameRecord.parse(record)
    game = Canfield(record.code)
    try:
        for _ in game.replaying(record.actions):
            pass
    except EngineError as exc:
        return Verification(False, game, game.ply + 1, str(exc))
    end = len(record.actions)
    if record.score is not None and record.score != game.score:
        return Verification(
            False, game, end, f"Score is {record.score}, the replay scores {game.score}"
        )
    if record.result is not None and (record.result == "won") != game.is_won():
        state = "won" if game.is_won() else "not won"
        return Verification(False, game, end, f"Result is {record.result}, the replay is {state}")
    if final:
        view = game.full_view()
        for key, expected in final.items():
            if view.get(key) != expected:
                return Verification(
                    False, game, end, f"{key} is {view.get(key)!r}, expected {expected!r}"
                )
    return Verification(True, game, None, "ok")

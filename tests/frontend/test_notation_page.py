"""The pages read and write action tokens only through the engine's description of its notation
(``games.engine.actions.notation``, in every page): in Chromium, the page's reader and writer
(``notation.js``) agree with ``Action.parse`` and ``Action.token`` on every legal token of random
games, on every move the piles could name, and on thousands of texts that are not tokens — a
move onto the reserve or the waste, a count written for one card, from a pile that gives one card,
past 52 or with a leading zero, a run onto a foundation."""

from __future__ import annotations

import json
import random
from typing import Any

from games.engine import Action, Canfield, NotationError
from games.engine.actions import PILE_NAMES, notation

#: Deals of both rule sets and both draws.
CODES = ("CF1-D3-AAAAACL", "CF1-D1-EEEEEEE", "CF1-H3-AAAAACL", "CF1-H1-CZPWVII")

NOTATION_JS = "/static/frontend/js/notation.js"


def legal_tokens(seed: int = 7, games: int = 6, plies: int = 120) -> set[str]:
    """Every legal token met along random games of each deal (undos included)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    for code in CODES:
        for _ in range(games):
            game = Canfield(code)
            for _ in range(plies):
                legal = list(game.legal_moves)
                seen.update(action.token() for action in legal)
                if not legal or game.is_won():
                    break
                game.push(rng.choice(legal))
    return seen


def engine_reads(text: str) -> dict[str, Any] | None:
    """What the engine reads in `text`: a move's parts, another action's kind, or None."""
    try:
        action = Action.parse(text)
    except NotationError:
        return None
    if action.kind != "move":
        return {"kind": action.kind}
    return {"kind": "move", "src": action.src_name, "count": action.count, "dst": action.dst_name}


def texts() -> list[str]:
    """Tokens and near misses: every pile (and some that are none) to every other, with every
    kind of count, and texts that only look like tokens."""
    piles = [*PILE_NAMES, "S", "F0", "F5", "T0", "T5", "X", ""]
    counts = ["", ":0", ":1", ":2", ":3", ":01", ":02", ":13", ":52", ":53", ":99", ":100", ":"]
    written = [f"{src}{count}-{dst}" for src in piles for count in counts for dst in piles]
    others = ["D", "C", "U", "d", "DD", "", " ", "R-T2 ", " R-T2", "r-t2", "R - T2", "R–T2"]
    return written + others + ["R-T2-T3", "T1:2:3-T2", "T1:+2-T2", "T1:2.0-T2", "T1:٢-T2"]


def page_reads(page: Any, tokens: list[str]) -> list[dict[str, Any] | None]:
    read: list[dict[str, Any] | None] = page.evaluate(
        """async ([url, tokens]) => {
            const { actionKind, parseMoveToken } = await import(url);
            return tokens.map((token) => {
                const kind = actionKind(token);
                if (kind === null) return null;
                return kind === "move" ? { kind, ...parseMoveToken(token) } : { kind };
            });
        }""",
        [NOTATION_JS, tokens],
    )
    return read


def test_the_page_holds_the_engines_notation(new_player: Any) -> None:
    page = new_player().goto("/how-to-play/")
    shown = page.locator("#action-notation").text_content()
    assert shown is not None and json.loads(shown) == notation()


def test_every_legal_token_reads_and_writes_as_the_engine_does(new_player: Any) -> None:
    page = new_player().goto("/how-to-play/")
    tokens = sorted(legal_tokens())
    assert {"D", "C", "U"} <= set(tokens) and any(":" in token for token in tokens)
    assert any(token.startswith("F") for token in tokens)  # take-backs too

    assert page_reads(page, tokens) == [engine_reads(token) for token in tokens]
    moves = [engine_reads(token) for token in tokens if Action.parse(token).kind == "move"]
    written = page.evaluate(
        """async ([url, moves]) => {
            const { moveToken } = await import(url);
            return moves.map(({ src, count, dst }) => moveToken(src, count, dst));
        }""",
        [NOTATION_JS, moves],
    )
    assert written == [token for token in tokens if Action.parse(token).kind == "move"]


def test_what_the_engine_refuses_the_page_refuses(new_player: Any) -> None:
    page = new_player().goto("/how-to-play/")
    candidates = texts()
    expected = [engine_reads(text) for text in candidates]
    assert page_reads(page, candidates) == expected
    # (the near misses are mostly refused: onto R or W, counts of one, from R, past 52, …)
    refused = [text for text, read in zip(candidates, expected, strict=True) if read is None]
    for text in ("T1-R", "R-W", "T1:1-T2", "R:2-T1", "T1:53-T2", "T1:02-T2", "T1:2-F1", "F1-F2"):
        assert text in refused


def test_the_page_writes_exactly_the_moves_the_engine_writes(new_player: Any) -> None:
    """Every pile to every pile, 0 to 53 cards: the page's token where the engine has one (an
    action whose token it reads back), and none elsewhere."""
    page = new_player().goto("/how-to-play/")
    asked = [
        (src, count, dst) for src in PILE_NAMES for dst in PILE_NAMES for count in range(0, 54)
    ]
    expected = []
    for src, count, dst in asked:
        token: str | None
        try:
            token = Action.move(src, dst, count).token()
        except NotationError:
            token = None
        move = {"kind": "move", "src": src, "count": count, "dst": dst}
        if token is not None and engine_reads(token) != move:
            token = None  # (an action the notation does not write: its token reads as none)
        expected.append(token)
    written = page.evaluate(
        """async ([url, asked]) => {
            const { moveToken } = await import(url);
            return asked.map(([src, count, dst]) => moveToken(src, count, dst));
        }""",
        [NOTATION_JS, asked],
    )
    assert written == expected
    assert sum(token is not None for token in written) == 60 + 12 * 51  # one card; the runs

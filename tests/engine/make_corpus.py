"""Regenerate the engine's game corpus: ``.venv/bin/python tests/engine/make_corpus.py``.

Writes the generated records into ``tests/engine/corpus/`` and, for every record there (the
hand-kept ``won-AAAAACL.txt`` included), its final position into ``corpus/expected.json``.
Every game is deterministic: solver lines and seeded random playouts. Run it only when the corpus
is meant to change; ``test_corpus.py`` then pins what it wrote. Review the diff of expected.json
first: a change there for an existing record means the rules changed.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.engine import UNDO, Action, Canfield, GameRecord  # noqa: E402
from games.engine.solver import solve  # noqa: E402

CORPUS = Path(__file__).parent / "corpus"
PLAYER = "corpus"
#: A budget in positions, not seconds, keeps the solver's lines the same on every machine.
SOLVER_POSITIONS = 100_000


def solved(code: str) -> Canfield:
    result = solve(code, max_positions=SOLVER_POSITIONS)
    assert result.outcome == "win", f"the solver found no win for {code}"
    return Canfield.replay(code, result.line)


def with_undos_and_take_backs(code: str) -> Canfield:
    """A solver's win, interrupted by undos (each followed by playing the same action again,
    once two in a row) and by take-backs from a foundation whose card is then placed again, so
    that the game ends won with more than 255 points."""
    result = solve(code, max_positions=SOLVER_POSITIONS)
    assert result.outcome == "win"
    line = result.line
    game = Canfield(code)
    take_backs = 0
    for i, action in enumerate(line):
        game.push(action)
        if i % 29 == 7:
            game.push(UNDO)
            game.push(action)
        if i == 60:
            game.push(UNDO)
            game.push(UNDO)
            game.push(line[i - 1])
            game.push(action)
        if take_backs < 3 and game.foundation_cards >= 6 + 4 * take_backs:
            back = next(
                (a for a in game.generate_legal() if a.kind == "move" and a.src_name[0] == "F"),
                None,
            )
            if back is not None and not game.is_won():
                game.push(back)
                game.push(Action.move(back.dst, back.src))
                take_backs += 1
    assert game.is_won() and take_backs == 3
    return game


def random_playout(code: str, seed: int, actions: int) -> Canfield:
    """A seeded random game: legal actions drawn uniformly, undo included."""
    rng = random.Random(seed)
    game = Canfield(code)
    for _ in range(actions):
        legal = game.generate_legal()
        if not legal:
            break
        game.push(rng.choice(legal))
    return game


def main() -> None:
    games = {
        "won-d1-AAAAAAA.txt": (solved("CF1-D1-AAAAAAA"), None),
        "won-classic-AAAAAAB.txt": (solved("CF1-H3-AAAAAAB"), None),
        "undos-takebacks-AAAAAAC.txt": (with_undos_and_take_backs("CF1-D3-AAAAAAC"), None),
        "unfinished-AAAAAAD.txt": (random_playout("CF1-D3-AAAAAAD", 4, 150), "in_progress"),
        "resigned-classic-d1-AAAAAAE.txt": (random_playout("CF1-H1-AAAAAAE", 5, 80), "resigned"),
    }
    for name, (game, result) in games.items():
        record = GameRecord.from_game(game, player=PLAYER, result=result)
        (CORPUS / name).write_text(record.text(), encoding="utf-8")
    expected = {}
    for path in sorted(CORPUS.glob("*.txt")):
        record = GameRecord.parse(path.read_text(encoding="utf-8"))
        game = Canfield(record.code)
        for action in record.actions:
            game.push(action)
        expected[path.name] = game.full_view()
    text = json.dumps(expected, indent=1) + "\n"
    (CORPUS / "expected.json").write_text(text, encoding="utf-8")
    for name, view in expected.items():
        print(f"{name}: {view['code']} ply {view['ply']} score {view['score']} won {view['won']}")


if __name__ == "__main__":
    main()

"""Static files are compressed once: a second collectstatic compresses only what changed."""

from __future__ import annotations

import os

from core.storage import IncrementalCompressedStaticFilesStorage


def compressed(storage, names):
    done = storage.post_process({name: (storage, name) for name in names})
    return sorted({(original, made) for original, made, _ in done})


def test_it_compresses_only_the_files_that_changed_since_their_last_compression(tmp_path):
    for name in ("site.css", "game.js"):
        (tmp_path / name).write_text(f"/* {name} */\n" + "body { color: black; }\n" * 200)
    storage = IncrementalCompressedStaticFilesStorage(location=str(tmp_path), base_url="/static/")

    first = compressed(storage, ["site.css", "game.js"])
    again = compressed(storage, ["site.css", "game.js"])
    (tmp_path / "game.js").write_text("let changed = true;\n" * 300)
    os.utime(tmp_path / "game.js", (1, 2))  # (a copy made now by collectstatic: another time)
    after_change = compressed(storage, ["site.css", "game.js"])

    assert first == [
        ("game.js", "game.js.br"),
        ("game.js", "game.js.gz"),
        ("site.css", "site.css.br"),
        ("site.css", "site.css.gz"),
    ]
    assert again == []
    assert after_change == [("game.js", "game.js.br"), ("game.js", "game.js.gz")]

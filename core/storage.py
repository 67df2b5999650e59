"""Static files, compressed once: ``collectstatic`` (which ``make run`` and the Docker image run)
gzips and Brotli-compresses only the files whose compressed copies are missing or stale.

WhiteNoise's ``CompressedStaticFilesStorage`` compresses every collected file at every run: 547
files, some 24 s of each restart of ``make run``. Its compressed copies carry the modification
time of the file they were made from, and ``collectstatic`` copies a file again only when its
source changed (which gives the copy a new time): a copy whose ``.gz`` or ``.br`` has its time
is compressed already.
"""

from __future__ import annotations

import os
from typing import Any

from whitenoise.storage import CompressedStaticFilesStorage  # type: ignore[import-untyped]


class IncrementalCompressedStaticFilesStorage(CompressedStaticFilesStorage):  # type: ignore[misc]
    def post_process(self, paths: dict[str, Any], dry_run: bool = False, **options: Any) -> Any:
        stale = {path: found for path, found in paths.items() if not self.compressed(path)}
        return super().post_process(stale, dry_run, **options)

    def compressed(self, path: str) -> bool:
        """Whether ``path`` has a compressed copy made from it as it is now."""
        full = self.path(path)
        try:
            made = os.stat(full).st_mtime
        except FileNotFoundError:
            return False
        for suffix in (".br", ".gz"):
            try:
                if os.stat(full + suffix).st_mtime == made:
                    return True
            except FileNotFoundError:
                continue
        return False

"""The site's settings with the catalogs at CANFIELD_LOCALE_COPY: makemessages writes there, not
into the repository's locale/ (tests/i18n/test_catalogs.py)."""

import os
from pathlib import Path

from canfield_site.settings import *  # noqa: F403

LOCALE_PATHS = [Path(os.environ["CANFIELD_LOCALE_COPY"])]

"""What the service's logs leave out: Django logs every 5xx answer as an error
(``django.request``), but a 503 the service gives by design — a search refused ``busy``, a deal
not dealt yet (``deal_pending``), readiness while the database is down — is the service working as
meant, and is logged once, as a warning, by the code that answers it. :class:`IntendedUnavailable`
drops Django's second line for such an answer: a 503 with no exception behind it. A 503 with an
exception behind it (the database away, answered by ``core.api_errors.handler500``) keeps its
error and traceback."""

from __future__ import annotations

import logging


class IntendedUnavailable(logging.Filter):
    """A filter for the ``django.request`` logger (``settings.LOGGING``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (getattr(record, "status_code", None) == 503 and record.exc_info is None)

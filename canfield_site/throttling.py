"""Rate limits by scope (signup, login, actions), counted in the default cache.

A view opts in with `throttle_scope = "<scope>"`; ScopedThrottle is in DRF's
DEFAULT_THROTTLE_CLASSES, so nothing else is needed. The rates are settings.THROTTLE_RATES
(environment: THROTTLE_SIGNUP, THROTTLE_LOGIN, THROTTLE_ACTIONS). A client is its user when
authenticated, else its IP address (behind proxies see REST_FRAMEWORK["NUM_PROXIES"]).

The counters live in the cache (Redis when REDIS_URL is set). When the cache cannot be reached
the limits fail open: the request goes through and a warning is logged, because a refused or
failed request would be worse than an unlimited one for as long as Redis is away.
"""

import logging
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

log = logging.getLogger(__name__)

#: What a cache that cannot be reached raises (redis-py's errors; socket errors below them).
CACHE_ERRORS = (RedisError, OSError)


class ScopedThrottle(ScopedRateThrottle):
    """DRF's ScopedRateThrottle reading the rates when asked, not at import.

    DRF copies DEFAULT_THROTTLE_RATES into a class attribute at import time, so a test's
    override of REST_FRAMEWORK would go unseen; this reads the current api_settings.
    """

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if self.scope not in rates:
            raise ImproperlyConfigured(f"no throttle rate for the scope {self.scope!r}")
        rate = rates[self.scope]
        return None if rate is None else str(rate)

    def allow_request(self, request: Request, view: Any) -> bool:
        try:
            return super().allow_request(request, view)
        except CACHE_ERRORS as exc:
            log.warning("rate limit %r not applied: the cache is unreachable (%s)", self.scope, exc)
            return True

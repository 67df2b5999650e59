"""The admin's log-in page, with the API's log-in limits (core.throttling.LoginLimits):
every attempt counts per client address, every failed one per account and network and per
account — counted before the password is checked, so a burst gets no more through —; over a
limit the page answers 429 with Retry-After, before any password is checked. Without it the
admin had no limit at all: 50 wrong passwords, then in.

Its password is checked as the API's is (Django's ``authenticate()`` with
``core.accounts.hashing.SlotBackend``): no database connection held during the hash, in
one of the process's hashing slots; with none free, 503 with Retry-After, and nothing counted
against the account.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from core.accounts.hashing import Busy
from core.throttling import LoginLimits


def _plain(status: int, text: str, retry_after: int) -> HttpResponse:
    response = HttpResponse(f"{text}\n", status=status, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(retry_after)
    return response


def admin_login(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    if request.method != "POST":
        return admin.site.login(request, **kwargs)
    limits = LoginLimits(request, request.POST.get("username", ""))
    refusal = limits.admit()  # (counted before any password is hashed)
    if refusal is not None:
        wait = math.ceil(getattr(refusal, "wait", None) or 1)  # (Throttled's; not in its stub)
        return _plain(429, str(refusal.detail), wait)
    try:
        response = admin.site.login(request, **kwargs)
    except Busy as exc:
        limits.not_checked()
        return _plain(503, exc.message, exc.retry_after)
    if response.status_code != 200:  # (200: the form again, with its error: a failed log-in)
        limits.succeeded()
    return response

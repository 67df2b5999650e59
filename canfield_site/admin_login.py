"""The admin's log-in page, with the API's log-in limits (canfield_site.throttling.LoginLimits):
every attempt counts per client address, every failed one per account — counted before the
password is checked, so a burst gets no more through —; over either limit the page answers 429
with Retry-After, before any password is checked. Without it the admin had no
limit at all: 50 wrong passwords, then in.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from canfield_site.throttling import LoginLimits


def admin_login(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    if request.method != "POST":
        return admin.site.login(request, **kwargs)
    limits = LoginLimits(request, request.POST.get("username", ""))
    refusal = limits.admit()  # (counted before any password is hashed)
    if refusal is not None:
        wait = math.ceil(getattr(refusal, "wait", None) or 1)  # (Throttled's; not in its stub)
        response = HttpResponse(
            f"{refusal.detail}\n", status=429, content_type="text/plain; charset=utf-8"
        )
        response["Retry-After"] = str(wait)
        return response
    response = admin.site.login(request, **kwargs)
    if response.status_code != 200:  # (200: the form again, with its error: a failed log-in)
        limits.succeeded()
    return response

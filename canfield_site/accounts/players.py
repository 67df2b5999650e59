"""Who a request comes from, as the services want it."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request


def player(request: Request) -> User:
    """The logged-in player making ``request``; ``NotAuthenticated`` (401) for anyone else.
    Views that require a login check it first (``IsAuthenticated``); this gives the services the
    ``User`` they work with."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise NotAuthenticated()
    return user

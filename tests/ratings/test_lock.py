"""Two workers rating at once: the second finds the ratings' lock taken and leaves, rating
nothing (PostgreSQL, which has row locks; SQLite has one writer at a time)."""

from __future__ import annotations

import os
import threading

import pytest
from django.db import close_old_connections, transaction

from ratings import services
from ratings.models import RatedDay, RatingLock
from tests.ratings.helpers import DAY, result, settle

pytestmark = [
    pytest.mark.skipif(not os.environ.get("DATABASE_URL"), reason="PostgreSQL's row locks"),
    pytest.mark.django_db(transaction=True),
]


def test_a_second_worker_leaves_while_the_first_holds_the_lock():
    result("ann", DAY, cards=52)
    result("bob", DAY, cards=10)
    settle(DAY)
    RatingLock.objects.get_or_create(id=1)
    held, release = threading.Event(), threading.Event()

    def first_worker() -> None:
        try:
            with transaction.atomic():
                RatingLock.objects.select_for_update().get(id=1)
                held.set()
                release.wait(10)
        finally:
            close_old_connections()

    thread = threading.Thread(target=first_worker)
    thread.start()
    try:
        assert held.wait(10)
        assert services.rate_due() == []
        assert not RatedDay.objects.exists()
    finally:
        release.set()
        thread.join(10)

    assert services.rate_due() == [DAY]

"""The daily deal: an HMAC of the date under a server secret, draw 3, app rules."""

import datetime as dt
import hashlib
import hmac

import pytest

from games.engine import DealCode
from leaderboard import services


@pytest.fixture(autouse=True)
def daily_deal() -> None:
    """The real daily deal here (conftest.py's fixture of that name replaces it elsewhere)."""


def test_it_derives_the_deal_number_from_an_hmac_of_the_date(settings):
    settings.DAILY_DEAL_SECRET = "s3cret"
    day = dt.date(2030, 6, 15)
    digest = hmac.new(b"s3cret", b"2030-06-15", hashlib.sha256).digest()

    assert services.deal_number(day) == int.from_bytes(digest, "big") % 26**7


def test_it_deals_draw_3_with_app_rules(settings):
    settings.DAILY_DEAL_SECRET = "s3cret"
    day = dt.date(2030, 6, 15)

    code = services.daily_deal(day)

    assert code == DealCode(services.deal_number(day), 3, "app")
    assert str(code).startswith("CF1-D3-")


def test_it_gives_each_day_its_own_deal_and_each_secret_its_own_deals(settings):
    days = [dt.date(2030, 1, 1) + dt.timedelta(days=n) for n in range(50)]
    settings.DAILY_DEAL_SECRET = "one"
    one = [services.deal_number(day) for day in days]
    settings.DAILY_DEAL_SECRET = "two"
    two = [services.deal_number(day) for day in days]

    assert len(set(one)) == 50
    assert all(0 <= n < 26**7 for n in one)
    assert one != two

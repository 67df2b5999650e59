"""The server plays only decks it dealt (games.services.was_dealt): a random deal and any code of
it, a classic numbered deal (CF1), a published daily deal. Any other deck is refused 400
``unknown_deal``, with nothing created, whoever asks — the same answer, byte for byte, whether the
deck is today's daily deal or a wrong guess, so that guessing the hidden cards of today's deck
learns nothing. As a second wall, a deck it would play that is the same game as a daily deal not
public yet, up to the game's symmetries (games.engine.symmetry), is refused 403
``daily_not_public``: the audit's relabelled copies of today's deck."""

from __future__ import annotations

import datetime as dt
import itertools
import json

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from core.accounts.models import Guest
from games.engine import DealCode, daily_deal_code
from games.engine.symmetry import COLUMN_ORDERS, SUIT_MAPS, Symmetry, canonical
from games.models import DealtDeck, Game
from leaderboard.models import DailyDeal
from tests.conftest import token_client
from tests.leaderboard.helpers import player, store_deal

pytestmark = pytest.mark.usefixtures("only_our_days")

SECRET = b"a secret for the dealt decks"

UNKNOWN = {
    "code": "unknown_deal",
    "message": "This code is not a deal this server has dealt: start a random deal, a numbered "
    "deal (a CF1 code), a past day's daily deal, or the code of a game someone played here.",
}
NOT_PUBLIC = {
    "code": "daily_not_public",
    "message": "This deck is a daily deal that is not public yet: it can be played as practice "
    "once its day is over.",
}


@pytest.fixture
def days(clock) -> dict[str, str]:
    """Yesterday, today and tomorrow dealt by the keyed generator (any 52! order, as the days
    are; their certification is tests/leaderboard/test_deal.py's): their codes."""
    DailyDeal.objects.all().delete()
    today = clock.now.date()
    codes = {}
    for name, offset in (("yesterday", -1), ("today", 0), ("tomorrow", 1)):
        day = today + dt.timedelta(days=offset)
        codes[name] = store_deal(day, str(daily_deal_code(SECRET, day, 0))).code
    return codes


@pytest.fixture
def unthrottled(throttle_rates) -> None:
    throttle_rates(practice=None, practice_network=None, guests=None, guest_games=None)


def deck_of(code: str) -> tuple[int, ...]:
    return DealCode.parse(code).deck()


def cf2(deck: tuple[int, ...], draw: int = 3, variant: str = "app") -> str:
    return str(DealCode.from_deck(deck, draw, variant))  # type: ignore[arg-type]


def swapped(deck: tuple[int, ...], i: int, j: int) -> tuple[int, ...]:
    cards = list(deck)
    cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def relabelled(deck: tuple[int, ...]) -> list[tuple[int, ...]]:
    """126 images of ``deck`` other than itself: every suit map with every rotation (its columns
    in one order or another, in turn), and the columns alone in each other order."""
    orders = itertools.cycle(COLUMN_ORDERS)
    images = [
        Symmetry(suits, shift, next(orders)).apply(deck)
        for suits in SUIT_MAPS
        for shift in range(13)
    ]
    images += [Symmetry(columns=columns).apply(deck) for columns in COLUMN_ORDERS]
    return [image for image in dict.fromkeys(images) if image != deck]


def nothing_created() -> bool:
    return not Game.objects.filter(kind="practice").exists() and not Guest.objects.exists()


# --- the first wall: a deck nobody was dealt here -----------------------------------------------


def test_it_refuses_the_relabelled_copies_of_todays_deck(days, unthrottled):
    """The audit's 26 copies (suits swapped within a colour, ranks rotated) and more: every
    suit map and rotation, the columns in every order, each by a CF2 code in some mode; and a
    copy with two stock cards swapped. None was ever dealt here."""
    today = deck_of(days["today"])
    copies = relabelled(today)
    assert len(copies) >= 26 and all(canonical(copy) == canonical(today) for copy in copies)
    copies.append(swapped(today, 40, 41))
    helper = token_client(player("helper"))

    answers = set()
    for i, copy in enumerate(copies):
        code = cf2(copy, (1, 3)[i % 2], ("app", "classic")[i // 2 % 2])
        response = helper.post("/api/games/", {"code": code})
        answers.add((response.status_code, response.content))

    assert len(answers) == 1
    status, content = answers.pop()
    assert (status, json.loads(content)) == (400, UNKNOWN)
    assert APIClient().post("/api/games/", {"code": cf2(today)}).content == content
    assert nothing_created() and not DealtDeck.objects.exists()


@pytest.mark.parametrize(("who", "games_left"), [("visitor", 2), ("guest", 1), ("player", 2)])
def test_a_right_guess_and_a_wrong_one_get_the_same_answer(days, who, games_left, throttle_rates):
    """The guessing attack: the scout sees today's columns, base card, reserve top and the whole
    stock, guesses the 12 hidden reserve cards and asks for the deck. Before, the right guess
    was refused 403 and a wrong one played: an oracle. Now both are refused, byte for byte
    alike, and use up no limit: the games the limits allow all start afterwards."""
    throttle_rates(practice="2/hour", practice_network="2/hour", guests="1/hour", guest_games=None)
    today = deck_of(days["today"])
    right = cf2(today)
    wrong = cf2(swapped(today, 3, 7))  # two hidden reserve cards the other way round
    client = APIClient()
    if who == "guest":
        assert client.post("/api/games/", {}).status_code == 201  # a random deal: a guest now
    elif who == "player":
        client = token_client(player("scout"))
    games_before = Game.objects.count()
    users_before = User.objects.count()

    answers = [client.post("/api/games/", {"code": code}) for code in (right, wrong, right)]
    answers += [client.post("/api/games/", {"code": right, "draw": 1, "variant": "classic"})]
    answers += [client.post("/api/games/", {"code": days["today"]})]  # the stored code itself

    assert {(a.status_code, a.content) for a in answers} == {(400, answers[0].content)}
    assert answers[0].json() == UNKNOWN
    assert (Game.objects.count(), User.objects.count()) == (games_before, users_before)
    after = [client.post("/api/games/", {}).status_code for _ in range(games_left + 1)]
    assert after == [201] * games_left + [429]


@pytest.mark.parametrize("who", ["visitor", "guest", "player"])
def test_a_never_dealt_deck_is_refused_to_anyone(days, who):
    deck = tuple(reversed(deck_of("CF1-D3-AAAAAAB")))  # no random deal, no daily's
    client = APIClient()
    if who == "guest":
        client.post("/api/games/", {})
    elif who == "player":
        client = token_client(player("ann"))
    games_before, users_before = Game.objects.count(), User.objects.count()

    response = client.post("/api/games/", {"code": cf2(deck)})

    assert (response.status_code, response.json()) == (400, UNKNOWN)
    assert (Game.objects.count(), User.objects.count()) == (games_before, users_before)


# --- what the server plays ------------------------------------------------------------------------


def test_a_random_deals_code_can_be_shared_and_played_by_others(days):
    ann, bob = token_client(player("ann")), token_client(player("bob"))
    dealt = ann.post("/api/games/", {"draw": 1}).json()["code"]
    assert dealt.startswith("CF1-D1-")
    deck = deck_of(dealt)
    assert DealtDeck.objects.filter(fingerprint=DealtDeck.fingerprint_of(deck)).exists()

    shared = [
        bob.post("/api/games/", {"code": dealt}),
        bob.post("/api/games/", {"code": cf2(deck, 1)}),  # its CF2 form
        bob.post("/api/games/", {"code": cf2(deck, 3, "classic")}),  # in another mode
        APIClient().post("/api/games/", {"code": cf2(deck)}),  # a visitor: a guest
    ]

    assert [response.status_code for response in shared] == [201] * 4
    assert {deck_of(response.json()["code"]) for response in shared} == {deck}
    assert DealtDeck.objects.count() == 1  # the random deal's deck, recorded once


def test_it_records_the_deck_of_every_cf1_deal_and_of_nothing_else(days, owner_api):
    owner_api.post("/api/games/", {"code": "CF1-H3-QWERTYU"})
    owner_api.post("/api/games/", {"code": "CF1-D1-QWERTYU"})  # the same deck
    owner_api.post("/api/games/", {"code": cf2(deck_of("CF1-D3-QWERTYU"), 1)})  # the same deck
    owner_api.post("/api/games/", {"code": days["yesterday"]})  # a published daily's: known

    assert list(DealtDeck.objects.values_list("fingerprint", flat=True)) == [
        DealtDeck.fingerprint_of(deck_of("CF1-D3-QWERTYU"))
    ]
    assert Game.objects.filter(kind="practice").count() == 4


def test_a_cf1_code_plays(days, owner_api):
    for code in ("CF1-D3-ZZZZZZZ", "CF1-H1-AAAAAAA", "CF1-D3-HELLOAB"):
        response = owner_api.post("/api/games/", {"code": code})
        assert (response.status_code, response.json()["code"]) == (201, code)


def test_a_published_dailys_code_plays_in_any_mode_and_its_copies_do_not(days, owner_api):
    yesterday = deck_of(days["yesterday"])
    played = [
        owner_api.post("/api/games/", {"code": days["yesterday"]}),
        owner_api.post("/api/games/", {"code": cf2(yesterday, 1, "classic")}),
        owner_api.post("/api/games/", {"code": days["yesterday"], "draw": 1}),
    ]
    copy = Symmetry((0, 2, 1, 3), 5).apply(yesterday)  # (not a deck dealt here)
    refused = owner_api.post("/api/games/", {"code": cf2(copy)})

    assert [response.status_code for response in played] == [201] * 3
    assert (refused.status_code, refused.json()) == (400, UNKNOWN)


def test_todays_code_plays_once_the_day_is_over(days, owner_api, clock):
    assert owner_api.post("/api/games/", {"code": days["today"]}).json() == UNKNOWN

    clock.advance(24 * 3600)

    response = owner_api.post("/api/games/", {"code": days["today"]})
    assert (response.status_code, response.json()["kind"]) == (201, "practice")
    assert owner_api.post("/api/games/", {"code": days["tomorrow"]}).json() == UNKNOWN


# --- the second wall: a dealt deck that is a daily's up to the symmetries -------------------------

#: A classic numbered deal, and a symmetry to deal an image of it as a day: the colours
#: exchanged (spades to hearts, hearts to clubs, diamonds to spades, clubs to diamonds), every
#: rank 4 up, T1 and T3 exchanged.
NUMBERED = "CF1-D3-BANANAS"
IMAGE = Symmetry((1, 3, 0, 2), 4, (2, 1, 0, 3))


@pytest.mark.parametrize("ahead", [0, 1, 2])
def test_a_cf1_deal_that_is_an_unpublished_dailys_game_is_refused(days, owner_api, clock, ahead):
    """Today (or a day dealt ahead) is dealt as an image of a CF1 deal: that CF1 deal is the
    day's game in other names, so it is refused, in any mode, until the day is over."""
    day = clock.now.date() + dt.timedelta(days=ahead)
    store_deal(day, cf2(IMAGE.apply(deck_of(NUMBERED))))
    modes = [NUMBERED, NUMBERED.replace("-D3-", "-H1-")]

    refused = [owner_api.post("/api/games/", {"code": code}) for code in modes]
    refused.append(owner_api.post("/api/games/", {"code": NUMBERED, "draw": 1}))

    assert [(r.status_code, r.json()) for r in refused] == [(403, NOT_PUBLIC)] * 3
    assert nothing_created() and not DealtDeck.objects.exists()

    clock.advance((ahead + 1) * 24 * 3600)  # the day is over
    played = owner_api.post("/api/games/", {"code": NUMBERED})
    assert (played.status_code, played.json()["code"]) == (201, NUMBERED)


def test_a_dealt_deck_that_is_an_unpublished_dailys_game_is_refused(days, owner_api):
    """A random deal that happens to be an image of today's deck (recorded as dealt, as a random
    deal's would be) is refused by any code; the deck with two stock cards swapped, recorded so
    too, is another game and plays."""
    today = deck_of(days["today"])
    image = IMAGE.apply(today)
    other = swapped(today, 20, 30)
    DealtDeck.objects.bulk_create(
        [DealtDeck(fingerprint=DealtDeck.fingerprint_of(deck)) for deck in (image, other)]
    )

    refused = [owner_api.post("/api/games/", {"code": cf2(image, d)}) for d in (1, 3)]
    played = owner_api.post("/api/games/", {"code": cf2(other)})

    assert [(r.status_code, r.json()) for r in refused] == [(403, NOT_PUBLIC)] * 2
    assert played.status_code == 201
    assert Game.objects.filter(kind="practice").count() == 1


# --- the record ----------------------------------------------------------------------------------


def test_a_decks_fingerprint_is_the_sha256_of_its_cards():
    """docs/deal-format.md, "Which decks the server plays": deal 63's."""
    assert DealtDeck.fingerprint_of(deck_of("CF1-D3-AAAAACL")) == (
        "87908de4fc3f342151eab05d0f0731ae210bdbb495fa2eda2a6094798e965505"
    )


def migrate(targets: list[tuple[str, str]]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def latest_schema_afterwards():
    """The database goes back to the latest migrations once the test is over."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_afterwards")
def test_the_migration_records_the_decks_of_earlier_cf1_practice_games():
    """Random deals played before decks were recorded keep playing by their CF2 form."""
    old = migrate([("games", "0009_game_analysis")])
    owner = old.get_model("auth", "User").objects.create(username="early")
    games = old.get_model("games", "Game").objects
    for code in ("CF1-D3-QWERTYU", "CF1-H1-QWERTYU", "CF1-D1-AAAAAAB"):
        games.create(owner=owner, code=code)
    games.create(owner=owner, code=cf2(tuple(range(52))))  # a code a player chose: not dealt
    games.create(owner=owner, code="CF1-D3-ZZZZZZZ", kind="daily", daily_date=dt.date(2026, 1, 1))

    new = migrate([("games", "0010_dealt_deck")])

    recorded = set(
        new.get_model("games", "DealtDeck").objects.values_list("fingerprint", flat=True)
    )
    assert recorded == {
        DealtDeck.fingerprint_of(deck_of("CF1-D3-QWERTYU")),
        DealtDeck.fingerprint_of(deck_of("CF1-D3-AAAAAAB")),
    }

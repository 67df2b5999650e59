"""The language of a request: the menu's cookie, else Accept-Language, else English; the
account's preference, stored by the menu and applied at log-in; the API's messages in that
language with their codes unchanged; plural forms; the live board's error frames."""

from __future__ import annotations

import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation
from django.utils.translation import ngettext
from rest_framework.test import APIClient

from canfield_site.asgi import application
from core.accounts.models import LanguagePreference
from games import services
from games.engine import Reason
from games.sentences import describe
from tests.conftest import PASSWORD
from tests.games.helpers import CODE

#: The worked example's deal: the reserve's queen of clubs (QC) may go neither on column 1's six
#: of clubs (6C) nor on column 3's queen of hearts (QH); refused in each language, same code.
#: (action, language) -> the refusal's reason and message, on the worked example's deal.
REFUSALS = {
    ("R-T1", "en"): "The queen of clubs cannot go on the six of clubs: they are the same colour.",
    ("R-T1", "tr"): "Sinek kızı, sinek altılısı üzerine konamaz: ikisi aynı renk.",
    ("R-T1", "fi"): "Risti kuningatar ei voi mennä kortin risti 6 päälle: ne ovat samanvärisiä.",
    ("R-T1", "sq"): (
        "Çikë spathi nuk mund të vihet mbi gjashtëshe spathi: janë me të njëjtën ngjyrë."
    ),
    ("R-T3", "en"): "The queen of clubs cannot go on the queen of hearts: a queen goes on a king.",
    ("R-T3", "tr"): "Sinek kızı, kupa kızı üzerine konamaz: kız ancak papaz üzerine konur.",
    ("R-T3", "fi"): (
        "Risti kuningatar ei voi mennä kortin hertta kuningatar päälle: kuningatar menee vain "
        "arvon kuningas päälle."
    ),
    ("R-T3", "sq"): "Çikë spathi nuk mund të vihet mbi çikë kupë: çikë vihet vetëm mbi mbret.",
}
REASON_OF = {"R-T1": "same_colour", "R-T3": "not_one_rank_lower"}


def home_heading(client: Client, **headers: Any) -> tuple[str, str]:
    """(<html lang>, the visitor's home page heading)."""
    html = client.get("/", **headers).content.decode()
    lang = re.search(r'<html lang="([^"]+)"', html)
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", html)
    assert lang is not None and heading is not None
    return lang.group(1), heading.group(1)


HEADINGS = {
    "en": "Canfield solitaire, every day",
    "tr": "Her gün Canfield solitaire",
    "fi": "Canfield-pasianssi joka päivä",
    "sq": "Pasiansi Canfield, çdo ditë",
}


@pytest.mark.parametrize(
    ("accept", "language"),
    [
        ("tr", "tr"),
        ("tr-TR,tr;q=0.9,en;q=0.8", "tr"),
        ("fi-FI", "fi"),
        ("sq-AL,sq;q=0.9", "sq"),
        ("en-GB", "en"),
        ("de-DE,de;q=0.9", "en"),  # not offered: English
        ("xx", "en"),
        ("", "en"),  # none asked for
        ("de,fi;q=0.5", "fi"),  # the best that is offered
    ],
)
def test_the_page_follows_accept_language_and_falls_back_to_english(
    db: None, accept: str, language: str
) -> None:
    assert home_heading(Client(), HTTP_ACCEPT_LANGUAGE=accept) == (language, HEADINGS[language])


def test_an_unknown_language_in_the_cookie_falls_back_to_accept_language(db: None) -> None:
    client = Client()
    client.cookies["django_language"] = "xx"
    assert home_heading(client, HTTP_ACCEPT_LANGUAGE="fi")[0] == "fi"
    assert home_heading(client)[0] == "en"


def test_the_menu_choice_is_a_cookie_that_outranks_accept_language(db: None) -> None:
    client = Client()
    response = client.post("/i18n/setlang/", {"language": "sq", "next": "/leaderboard/"})
    assert response.status_code == 302
    assert response["Location"] == "/leaderboard/"
    cookie = response.cookies["django_language"]
    assert cookie.value == "sq"
    assert int(cookie["max-age"]) >= 300 * 24 * 3600
    assert home_heading(client, HTTP_ACCEPT_LANGUAGE="tr") == ("sq", HEADINGS["sq"])
    html = client.get("/leaderboard/", HTTP_ACCEPT_LANGUAGE="tr").content.decode()
    assert "Renditja e sotme" in html


def test_the_menu_refuses_an_unknown_language_and_a_get(db: None) -> None:
    client = Client()
    response = client.post("/i18n/setlang/", {"language": "xx", "next": "/"})
    assert "django_language" not in response.cookies
    assert client.get("/i18n/setlang/?language=fi").status_code == 405


def test_the_menu_lists_the_four_languages_with_the_current_one_selected(db: None) -> None:
    html = Client().get("/", HTTP_ACCEPT_LANGUAGE="fi").content.decode()
    options = re.findall(r'<option value="(\w+)" lang="\w+"( selected)?>([^<]+)</option>', html)
    assert options == [
        ("en", "", "English"),
        ("tr", "", "Türkçe"),
        ("fi", " selected", "Suomi"),
        ("sq", "", "Shqip"),
    ]
    assert 'action="/i18n/setlang/"' in html


def test_a_logged_in_choice_is_stored_and_applied_again_at_log_in(owner: User) -> None:
    browser = Client()
    browser.force_login(owner)
    browser.post("/i18n/setlang/", {"language": "fi", "next": "/"})
    assert LanguagePreference.objects.get(user=owner).language == "fi"

    # Another browser, which asks for English: logging in brings the account's language back.
    elsewhere = APIClient()
    response = elsewhere.post(
        "/api/auth/login/",
        {"username": "owner", "password": PASSWORD},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert response.cookies["django_language"].value == "fi"
    page = Client()
    page.cookies = elsewhere.cookies
    assert home_heading(page, HTTP_ACCEPT_LANGUAGE="en")[0] == "fi"


def test_a_first_log_in_keeps_the_language_in_use_as_the_preference(owner: User) -> None:
    client = APIClient()
    client.cookies["django_language"] = "tr"
    response = client.post(
        "/api/auth/login/", {"username": "owner", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200
    assert LanguagePreference.objects.get(user=owner).language == "tr"


def test_sign_up_stores_the_language_of_the_visitor(db: None) -> None:
    client = APIClient()
    response = client.post(
        "/api/auth/signup/",
        {"username": "kalle", "password": PASSWORD},
        format="json",
        HTTP_ACCEPT_LANGUAGE="fi-FI",
    )
    assert response.status_code == 201
    assert LanguagePreference.objects.get(user__username="kalle").language == "fi"
    assert response.cookies["django_language"].value == "fi"


@pytest.mark.parametrize(("action", "language"), sorted(REFUSALS))
def test_an_illegal_move_is_refused_in_the_request_language_with_the_same_code(
    owner: User, owner_api: APIClient, action: str, language: str
) -> None:
    game = services.new_game(owner, code=CODE)
    response = owner_api.post(
        f"/api/games/{game.pk}/actions/",
        {"ply": 0, "action": action},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": "illegal_action",
        "reason": REASON_OF[action],
        "message": REFUSALS[action, language],
    }


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "en",
            "The action was made in position 3, but the game is at position 0; reload the game.",
        ),
        ("tr", "Eylem 3. konumda yapıldı, ama oyun 0. konumda; oyunu yeniden yükleyin."),
        (
            "fi",
            "Toiminto tehtiin asemassa 3, mutta peli on asemassa 0; lataa peli uudelleen.",
        ),
        (
            "sq",
            "Veprimi u bë në pozicionin 3, por loja është në pozicionin 0; ringarkoni lojën.",
        ),
    ],
)
def test_a_service_refusal_is_translated_and_keeps_its_code_and_fields(
    owner: User, owner_api: APIClient, language: str, message: str
) -> None:
    game = services.new_game(owner, code=CODE)
    response = owner_api.post(
        f"/api/games/{game.pk}/actions/",
        {"ply": 3, "action": "D"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 409
    assert response.json() == {"code": "stale_ply", "message": message, "ply": 0}


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "No such game."),
        ("tr", "Böyle bir oyun yok."),
        ("fi", "Peliä ei ole."),
        ("sq", "Kjo lojë nuk ekziston."),
        ("de", "No such game."),
    ],
)
def test_not_found_is_translated(owner_api: APIClient, language: str, message: str) -> None:
    response = owner_api.get("/api/games/999999/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": message}


def test_validation_messages_are_translated(api: APIClient) -> None:
    response = api.post(
        "/api/auth/signup/",
        {"username": "x", "password": PASSWORD},
        format="json",
        HTTP_ACCEPT_LANGUAGE="tr",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["fields"]["username"] == [
        "Kullanıcı adları 3 ile 30 karakter arasındadır: harfler, rakamlar, _ ve -."
    ]


def test_wrong_credentials_are_refused_in_finnish(owner: User, api: APIClient) -> None:
    response = api.post(
        "/api/auth/login/",
        {"username": "owner", "password": "not-it-at-all"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="fi",
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_credentials",
        "message": "Väärä käyttäjänimi tai salasana.",
    }


#: The stock still holding 1, 2 and 5 cards (ngettext's forms), in each language.
PLURALS = {
    "en": [f"The stock still holds {n}: draw instead." for n in ("1 card", "2 cards", "5 cards")],
    # Turkish: the singular after any number
    "tr": [f"Çekme destesinde hâlâ {n} kart var: bunun yerine kart çekin." for n in (1, 2, 5)],
    "fi": [
        f"Nostopakassa on vielä {n}: nosta sen sijaan."
        for n in ("1 kortti", "2 korttia", "5 korttia")
    ],
    "sq": [
        f"Grumbulli i tërheqjes ka ende {n}: tërhiqni." for n in ("1 kartë", "2 karta", "5 karta")
    ],
}


@pytest.mark.parametrize("language", sorted(PLURALS))
def test_plural_forms_for_one_two_and_five(language: str) -> None:
    with translation.override(language):
        got = [describe(Reason("stock_not_empty", count=n)) for n in (1, 2, 5)]
    assert got == PLURALS[language]


@pytest.mark.parametrize(
    ("language", "pages"),
    [
        ("en", ["The board has 1 page.", "The board has 2 pages.", "The board has 5 pages."]),
        (
            "fi",
            ["Tulostaululla on 1 sivu.", "Tulostaululla on 2 sivua.", "Tulostaululla on 5 sivua."],
        ),
    ],
)
def test_plural_forms_in_service_messages(language: str, pages: list[str]) -> None:
    with translation.override(language):
        got = [
            ngettext("The board has %(count)d page.", "The board has %(count)d pages.", n)
            % {"count": n}
            for n in (1, 2, 5)
        ]
    assert got == pages


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ([(b"accept-language", b"fi")], "Viesti on JSON-olio."),
        (
            [(b"cookie", b"django_language=sq"), (b"accept-language", b"fi")],
            "Një mesazh është një objekt JSON.",
        ),
        ([(b"accept-language", b"de")], "A message is a JSON object."),
    ],
)
def test_the_live_board_speaks_the_socket_language(
    transactional_db: None, headers: list[tuple[bytes, bytes]], message: str
) -> None:
    async def exchange() -> dict[str, Any]:
        import datetime as dt

        day = dt.datetime.now(dt.UTC).date().isoformat()
        client = WebsocketCommunicator(
            application,
            f"/ws/daily/{day}/",
            headers=[(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"), *headers],
        )
        connected, _ = await client.connect(timeout=5)
        assert connected
        await client.receive_json_from(timeout=5)  # the snapshot
        await client.send_to(text_data="not json")
        frame: dict[str, Any] = await client.receive_json_from(timeout=5)
        await client.disconnect()
        return frame

    frame = async_to_sync(exchange)()
    assert frame == {"type": "error", "code": "malformed", "message": message}


@pytest.mark.parametrize(
    ("language", "blank", "missing"),
    [
        ("sq", "Kjo fushë nuk mund të jetë bosh.", "Kjo fushë është e detyrueshme."),
        ("fi", "Tämä kenttä ei voi olla tyhjä.", "Tämä kenttä vaaditaan."),
        ("tr", "Bu alan boş bırakılamaz.", "Bu alan zorunludur."),
        ("en", "This field may not be blank.", "This field is required."),
    ],
)
def test_the_frameworks_field_messages_are_translated_too(
    api: APIClient, language: str, blank: str, missing: str
) -> None:
    """Django REST framework has no Albanian catalog: the project's catalogs carry its texts."""
    response = api.post(
        "/api/auth/login/", {"username": ""}, format="json", HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 400
    assert response.json()["fields"] == {"username": [blank], "password": [missing]}


def test_a_visitor_is_told_to_log_in_in_albanian(api: APIClient) -> None:
    response = api.get("/api/games/", HTTP_ACCEPT_LANGUAGE="sq")
    assert response.status_code == 401
    assert response.json() == {
        "code": "not_authenticated",
        "message": "Nuk u dhanë kredencialet: hyni në llogari.",
    }


@pytest.mark.parametrize("path", ["/", "/games/7/", "/games/7/replay/", "/leaderboard/", "/login/"])
def test_each_page_loads_the_javascript_catalog_before_its_modules(
    client: Client, owner: User, path: str
) -> None:
    client.force_login(owner)
    html = client.get(path, HTTP_ACCEPT_LANGUAGE="tr").content.decode()
    scripts = re.findall(r"<script([^>]*)\bsrc=\"([^\"]+)\"", html)
    sources = [src for _attrs, src in scripts]
    modules = [i for i, (attrs, _src) in enumerate(scripts) if 'type="module"' in attrs]
    assert "/jsi18n/" in sources
    assert modules and sources.index("/jsi18n/") < min(modules)
    assert all(src == "/jsi18n/" or src.startswith("/static/frontend/js/") for src in sources)


def test_the_javascript_catalog_is_the_request_language_and_allowed_by_the_policy(
    client: Client, db: None
) -> None:
    response = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="fi")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert '"Nostopakka"' in body
    assert "n != 1" in body  # Finnish plural rule
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "Accept-Language" in response["Vary"]


@pytest.mark.parametrize(
    ("language", "title", "reason"),
    [
        ("fi", "Sivua ei löytynyt", "Sen nimistä pelaajaa ei ole."),
        ("tr", "Sayfa bulunamadı", "Bu adda bir oyuncu yok."),
        ("sq", "Faqja nuk u gjet", "Nuk ka lojtar me këtë emër."),
        ("en", "Page not found", "There is no player of that name."),
    ],
)
def test_the_error_pages_speak_the_request_language(
    client: Client, db: None, language: str, title: str, reason: str
) -> None:
    response = client.get("/players/nobody-at-all/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert f'<h1 id="error-title">{title}</h1>' in html
    assert reason in html

"""The pages in Turkish, Finnish and Albanian, in Chromium: chosen with the header's menu, kept
across pages and log-in; the home, game, rules, leaderboard, profile and replay pages show no
English text of the catalogs once their scripts have drawn them; plurals, numbers and dates follow
the page's language.
Screenshots of the game page in each language go to artifacts/game-<lang>.png."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.frontend.conftest import PASSWORD
from tests.i18n.catalogs import english_msgids

from .helpers import WORKED_EXAMPLE, settle

LANGUAGES = ("tr", "fi", "sq")

#: English texts of the catalog that may stand in a translated page: names, notation and
#: abbreviations each language writes the same way.
ALLOWED = {
    "Canfield",
    "Canfield Online",
    "Hoyle",
    "Par",  # the golf word, used as it is
    "min",  # minutes (Finnish and Albanian write "min" too)
    "h",
}

#: English month and weekday names: Intl must write dates in the page's language.
ENGLISH_DATES = re.compile(
    r"\b(January|February|March|April|June|July|August|September|October|November|December|"
    r"Mon|Tue|Wed|Thu|Fri|Sat|Sun|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
)

_PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|<[^>]+>")


def english_phrases() -> set[str]:
    """The literal pieces of every English msgid (the text between its placeholders and tags)
    that hold a word of three letters or more."""
    phrases = set()
    for msgid in english_msgids():
        for piece in _PLACEHOLDER.split(msgid):
            piece = piece.strip(" .,:;·/()!?…“”\"'←→-")
            if re.search(r"[A-Za-z]{3,}", piece) and piece not in ALLOWED:
                phrases.add(piece)
    return phrases


PHRASES = sorted(english_phrases(), key=len, reverse=True)


def english_left(text: str) -> list[str]:
    return [p for p in PHRASES if re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", text)]


def visible_text(page: Page) -> str:
    settle(page)
    text: str = page.evaluate("() => document.title + '\\n' + document.body.innerText")
    return text


def check_page(page: Page, language: str) -> str:
    expect(page.locator("html")).to_have_attribute("lang", language)
    text = visible_text(page)
    assert english_left(text) == [], text
    assert not ENGLISH_DATES.search(text), text
    return text


def choose_language(page: Page, language: str) -> None:
    """The header's menu, as a person uses it: the page comes back in that language."""
    page.get_by_test_id("language").select_option(language)
    expect(page.locator("html")).to_have_attribute("lang", language)


#: "%(count)s card" for 1, 2 and 5 in the page's catalog (Django's JavaScript ngettext).
JS_PLURALS = {
    "en": ["1 card", "2 cards", "5 cards"],
    "tr": ["1 kart", "2 kart", "5 kart"],
    "fi": ["1 kortti", "2 korttia", "5 korttia"],
    "sq": ["1 kartë", "2 karta", "5 karta"],
}


#: R-T2 of the worked example (the reserve's queen of clubs onto column 2), in words.
FIRST_ACTION = {
    "tr": "Sinek kızı: yedek deste → 2. sütun",
    "fi": "Risti kuningatar: varanto → sarake 2",
    "sq": "Çikë spathi: rezerva → kolona 2",
}

#: 12345 as the pages write it: Intl's grouping (Chromium has no Albanian data: no grouping).
NUMBERS = {"tr": "12.345", "fi": "12\u00a0345", "sq": "12345"}


def test_the_pages_speak_each_language_with_no_english_left(
    new_player: Any, artifacts: Path
) -> None:
    alice = new_player("kieli")
    # A game in progress, a finished one to replay, and today's attempt on the board.
    playing = alice.api("POST", "/api/games/", {"code": WORKED_EXAMPLE})
    for ply, token in enumerate(["R-T2", "R-F1"]):
        alice.api("POST", f"/api/games/{playing['id']}/actions/", {"ply": ply, "action": token})
    finished = alice.api("POST", "/api/games/", {"code": WORKED_EXAMPLE})
    for ply, token in enumerate(["R-T2", "R-F1", "T2:2-T4", "D"]):
        alice.api("POST", f"/api/games/{finished['id']}/actions/", {"ply": ply, "action": token})
    alice.api("POST", f"/api/games/{finished['id']}/resign/")
    daily = alice.start_daily()
    alice.api("POST", f"/api/games/{daily['id']}/actions/", {"ply": 0, "action": "D"})
    club = alice.api("POST", "/api/groups/", {"name": "Kerho"})

    page = alice.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    for language in LANGUAGES:
        page = alice.goto("/")
        choose_language(page, language)
        page.wait_for_selector("[data-recent] table")
        page.wait_for_selector("[data-daily-body] .daily-status")
        check_page(page, language)
        plurals = page.evaluate(
            """() => [1, 2, 5].map((n) =>
              interpolate(ngettext("%(count)s card", "%(count)s cards", n), { count: n }, true))"""
        )
        assert plurals == JS_PLURALS[language]
        number = page.evaluate(
            "async () => (await import('/static/frontend/js/ui.js')).formatNumber(12345)"
        )
        assert number == NUMBERS[language]

        page = alice.goto(f"/games/{playing['id']}/")
        page.wait_for_selector(".pile.stock")
        expect(page.locator("[data-actions]")).to_have_text("2")
        check_page(page, language)
        page.screenshot(path=str(artifacts / f"game-{language}.png"))

        page = alice.goto("/how-to-play/")
        page.wait_for_selector(".tour-board .pile.stock")
        check_page(page, language)

        page = alice.goto("/leaderboard/")
        page.wait_for_selector(f'[data-rows] tr[data-player="{alice.username}"]')
        expect(page.locator("[data-live-state]")).to_have_attribute("data-state", "live")
        text = check_page(page, language)
        day = page.locator("[data-day-label]").text_content() or ""
        assert day and day in text
        page = alice.goto("/leaderboard/?view=following")  # (the Following view: hers alone)
        mine = f'[data-rows] tr[data-player="{alice.username}"] [data-col="board-rank"]'
        page.wait_for_selector(mine)
        check_page(page, language)

        page = alice.goto(f"/groups/{club['id']}/")
        page.wait_for_selector(f'[data-rows] tr[data-player="{alice.username}"]')
        page.wait_for_selector('[data-testid="group-week"] tbody tr')
        expect(page.locator("[data-live-state]")).to_have_attribute("data-state", "live")
        check_page(page, language)
        page = alice.goto("/groups/")
        page.wait_for_selector("[data-group-list] ul")
        check_page(page, language)

        page = alice.goto(f"/players/{alice.username}/")
        page.wait_for_selector("[data-history] table")
        page.wait_for_selector("[data-games] table")
        check_page(page, language)

        page = alice.goto(f"/games/{finished['id']}/replay/")
        expect(page.locator("[data-step]")).to_have_text("0/4")
        # The first action in words: the card and the piles named in the page's language.
        expect(page.locator('[data-tokens] button[data-position="1"]')).to_contain_text(
            FIRST_ACTION[language]
        )
        page.locator('[data-tokens] button[data-position="2"]').click()
        expect(page.locator("[data-step]")).to_have_text("2/4")
        check_page(page, language)

        page = alice.goto(f"/games/{playing['id']}/replay/")  # (being played: watched live)
        expect(page.locator("[data-live-state]")).to_have_attribute("data-state", "live")
        expect(page.locator("[data-watching]")).to_be_visible()
        check_page(page, language)

        page = alice.goto("/watch/")
        page.wait_for_selector(f"[data-playing] tr[data-game='{playing['id']}']")
        check_page(page, language)
    assert alice.errors == []


def test_the_english_pages_pass_the_same_check_only_because_they_are_english(
    new_player: Any,
) -> None:
    """The check finds English where there is some (it is not blind)."""
    bob = new_player("english")
    page = bob.goto("/")
    page.wait_for_selector("[data-daily-body] .daily-status")
    assert len(english_left(visible_text(page))) >= 5


@pytest.mark.parametrize("language", ["fi"])
def test_the_choice_holds_across_pages_and_comes_back_at_log_in(
    new_player: Any, browser: Any, daphne_server: str, language: str
) -> None:
    carol = new_player("valinta")
    page = carol.goto("/leaderboard/")
    choose_language(page, language)
    assert page.url.endswith("/leaderboard/")  # the menu brings the page back
    for path in ("/", "/players/" + carol.username + "/", "/leaderboard/"):
        page = carol.goto(path)
        expect(page.locator("html")).to_have_attribute("lang", language)

    # Another browser, in English: logging in as carol brings Finnish back.
    context = browser.new_context(locale="en-US")
    try:
        other = context.new_page()
        other.goto(f"{daphne_server}/login/")
        expect(other.locator("html")).to_have_attribute("lang", "en")
        other.locator("input[name=username]").fill(carol.username)
        other.locator("input[name=password]").fill(PASSWORD)
        other.locator("form[data-auth-form] button[type=submit]").click()
        other.wait_for_url(f"{daphne_server}/")
        expect(other.locator("html")).to_have_attribute("lang", language)
        expect(other.locator("#daily-title")).to_have_text("Päivän jako")
    finally:
        context.close()


def test_a_visitor_gets_the_browser_language_and_an_unknown_one_gets_english(
    browser: Any, daphne_server: str
) -> None:
    for locale, language in (("tr-TR", "tr"), ("fi-FI", "fi"), ("sq-AL", "sq"), ("de-DE", "en")):
        context = browser.new_context(locale=locale)
        try:
            page = context.new_page()
            for path in ("/", "/login/", "/signup/"):
                page.goto(f"{daphne_server}{path}")
                if language == "en":
                    expect(page.locator("html")).to_have_attribute("lang", "en")
                else:
                    check_page(page, language)
        finally:
            context.close()


def test_the_moments_and_explanations_speak_finnish(new_player: Any) -> None:
    """The texts of the game page's notices and of the explanations, in another language: the
    stuck notice and its buttons (the scripts' catalog), the ranking order, the rule sets."""
    from .test_moments import STUCK_CODE, STUCK_LINE

    alice = new_player("moments")
    game = alice.api("POST", "/api/games/", {"code": STUCK_CODE})
    for ply, token in enumerate(STUCK_LINE):
        alice.api("POST", f"/api/games/{game['id']}/actions/", {"ply": ply, "action": token})
    alice.context.add_cookies([{"name": "django_language", "value": "fi", "url": alice.base}])

    page = alice.goto(f"/games/{game['id']}/")
    expect(page.locator("[data-messages]")).to_have_attribute("data-kind", "stuck")
    expect(page.locator("[data-message-text]")).to_have_text(
        "Lopullisesti jumissa: mikään siirto näkyvillä korteilla ei voi paljastaa uutta korttia"
        " eikä viedä korttia perustukseen. Peruuta tai luovuta, niin tämä peli päättyy."
    )
    expect(page.locator("[data-message-actions] button")).to_have_text(["Peruuta", "Luovuta"])
    check_page(page, "fi")

    page = alice.goto("/how-to-play/")
    page.wait_for_selector(".tour-board .pile.stock")
    expect(page.locator("[data-variants] h2")).to_have_text(
        "Tavalliset ja klassiset (Hoyle) säännöt"
    )
    expect(page.locator("[data-ranking-order]")).to_have_text(
        "Sijoitus: ensin voitetut, sitten kortit perustuksissa, sitten vähemmän toimintoja"
        " (peruutuskin on toiminto), sitten lyhyempi aika."
    )
    check_page(page, "fi")
    page = alice.goto("/")
    classic = page.locator("form[data-new-game-form]").get_by_role(
        "radio", name="Klassiset (Hoyle)"
    )
    expect(classic).to_have_accessible_description(re.compile(r"^Kasinopeli: sarake siirtyy"))
    assert alice.errors == []

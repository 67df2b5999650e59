"""Every page at 360 px in each language: no horizontal scroll, and no label that overflows its
box or is clipped — measured in the page (every element with text of its own: its text's boxes
against its own box and the window, and whether it hides any of it), with the longest strings
the site shows: a 30-character username, a 47-character CF2 game code, the longest messages of
the game page, the sign-up form's errors. The header's menu open, the daily's result card and
the game page's dialogs are measured too. One browser context per language; screenshots of
some pages go to artifacts/phone-<page>-<lang>.png."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from games.engine import DealCode

from .conftest import PASSWORD, STEP_TIMEOUT_MS, yesterday

WIDTH = 360

#: What is wrong with the page's layout, measured in the page.
MEASURE = """(where) => {
  const problems = [];
  const width = window.innerWidth;
  const doc = document.documentElement;
  if (doc.scrollWidth > width) problems.push(`${where}: the page is ${doc.scrollWidth}px wide`);
  const classes = (el) => (typeof el.className === "string" ? el.className.trim() : "");
  const name = (el) => [el.tagName.toLowerCase(), ...classes(el).split(/ +/)]
    .filter(Boolean).join(".");
  for (const el of document.body.querySelectorAll("*")) {
    const own = [...el.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!own.length) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") continue;
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue; // not drawn, or read to screen readers only
    const text = own.map((n) => n.textContent.trim()).join(" ").slice(0, 60);
    for (const node of own) {
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.width < 0.5) continue;
        if (r.left < box.left - 1 || r.right > box.right + 1) {
          problems.push(`${where}: "${text}" (${name(el)}) overflows its box`);
        } else if (r.left < -0.5 || r.right > width + 0.5) {
          problems.push(`${where}: "${text}" (${name(el)}) runs out of the window`);
        }
      }
    }
    if (style.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${where}: "${text}" (${name(el)}) is clipped`);
    }
  }
  // The header's parts side by side, none touching the next (the logo once touched a link).
  const parts = [...document.querySelector(".topbar").children].filter((el) =>
    el.getBoundingClientRect().width > 1 && getComputedStyle(el).position !== "absolute");
  parts.slice(1).forEach((el, i) => {
    if (el.getBoundingClientRect().left < parts[i].getBoundingClientRect().right + 4) {
      problems.push(`${where}: ${name(parts[i])} touches ${name(el)} in the header`);
    }
  });
  // The head-up display's figures stay in line, whatever their labels' lines (a label on two
  // lines once dropped its number below the others).
  for (const row of document.querySelectorAll(".stats")) {
    const lines = new Set([...row.querySelectorAll("dd")]
      .map((dd) => Math.round(dd.getBoundingClientRect().bottom)));
    if (lines.size > 1) problems.push(`${where}: the figures of ${name(row)} are not in line`);
  }
  return [...new Set(problems)];
}"""

LANGUAGES = ("en", "tr", "fi", "sq")


def long_username() -> str:
    """30 characters, the most a username has, of the widest letters."""
    return ("W" + uuid.uuid4().hex[:8] + "M" * 30)[:30]


@pytest.fixture(scope="module")
def games_to_show(browser: Browser, daphne_server: str) -> Iterator[dict[str, Any]]:
    """One player (the longest name) with a practice game of a CF2 code in progress, a finished
    game, and today's daily attempt, resigned."""
    context = browser.new_context()
    try:
        username = long_username()
        signup = context.request.post(
            f"{daphne_server}/api/auth/signup/", data={"username": username, "password": PASSWORD}
        )
        assert signup.status == 201, signup.text()
        token = signup.json()["token"]
        headers = {"Authorization": f"Token {token}"}

        def call(method: str, path: str, data: Any = None) -> Any:
            response = context.request.fetch(
                f"{daphne_server}{path}", method=method, data=data, headers=headers
            )
            assert response.ok, f"{method} {path}: {response.status} {response.text()}"
            return response.json()

        finished = call("POST", "/api/games/", {"code": "CF1-D3-AAAAACL"})
        for ply, token_ in enumerate(["R-T2", "R-F1", "T2:2-T4", "D"]):
            call("POST", f"/api/games/{finished['id']}/actions/", {"ply": ply, "action": token_})
        call("POST", f"/api/games/{finished['id']}/resign/")
        # The longest code: the CF2 form of a deal dealt here (the one just above).
        code = str(DealCode.from_deck(DealCode(63).deck(), 3))
        practice = call("POST", "/api/games/", {"code": code})
        call("POST", f"/api/games/{practice['id']}/actions/", {"ply": 0, "action": "D"})
        daily = call("POST", "/api/daily/")
        call("POST", f"/api/games/{daily['id']}/actions/", {"ply": 0, "action": "D"})
        call("POST", f"/api/games/{daily['id']}/resign/")
        club = call("POST", "/api/groups/", {"name": "W" * 40})  # (the longest name)
        yield {
            "group": club["id"],
            "invite": club["invite"],
            "username": username,
            "code": code,
            "practice": practice["id"],
            "finished": finished["id"],
            "daily": daily["id"],
        }
    finally:
        context.close()


def log_in(page: Page, base: str, username: str) -> None:
    response = page.context.request.post(
        f"{base}/api/auth/login/", data={"username": username, "password": PASSWORD}
    )
    assert response.status == 200, response.text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_fits_a_phone_in_each_language(
    browser: Browser,
    daphne_server: str,
    games_to_show: dict[str, Any],
    artifacts: Path,
    language: str,
) -> None:
    context = browser.new_context(
        viewport={"width": WIDTH, "height": 700}, base_url=daphne_server, has_touch=True
    )
    context.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        problems: list[str] = []

        def measure(where: str) -> None:
            problems.extend(page.evaluate(MEASURE, where))

        def visit(path: str, ready: str, shot: str = "") -> None:
            page.goto(path)
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.locator(ready).first).to_be_visible()
            page.evaluate("document.fonts.ready")
            measure(path)
            if shot:
                page.screenshot(path=str(artifacts / f"phone-{shot}-{language}.png"))

        log_in(page, daphne_server, games_to_show["username"])

        def choose_language() -> None:
            context.add_cookies(
                [{"name": "django_language", "value": language, "url": daphne_server}]
            )

        choose_language()  # (after the log-in, which sets the account's)
        day = yesterday().isoformat()
        me = games_to_show["username"]
        visit("/", "[data-recent] table", "home")
        page.locator("[data-nav-toggle]").click()  # the header's menu, open
        expect(page.locator("[data-nav] .nav-user")).to_have_text(me)
        measure("/ (menu)")
        visit("/how-to-play/", ".tour-board .pile.stock", "rules")
        visit("/leaderboard/", f'[data-rows] tr[data-player="{me}"]')
        visit("/leaderboard/?view=following", f'tr[data-player="{me}"] [data-col="board-rank"]')
        visit(f"/leaderboard/{day}/", "[data-deal-code] code", "past-day")
        visit(f"/players/{me}/", "[data-profile]:has([data-history] table):has([data-games] table)")
        visit(f"/games/{games_to_show['practice']}/", ".pile.stock")
        expect(page.locator("[data-code]")).to_have_text(games_to_show["code"])
        page.locator('.card[data-pile="T1"]').first.tap()  # a card that may not move: why, in words
        expect(page.locator("[data-messages]")).to_have_attribute("data-kind", "refused")
        measure("game (a refused tap)")
        page.screenshot(path=str(artifacts / f"phone-game-{language}.png"))
        page.locator("[data-open-new-game]").first.tap()
        measure("game (new game)")
        page.keyboard.press("Escape")
        visit(f"/games/{games_to_show['daily']}/", ".pile.stock")
        page.locator("[data-open-result]").tap()
        expect(page.locator("[data-result-card]")).to_be_visible()
        measure("daily (result card)")
        visit(f"/games/{games_to_show['finished']}/replay/?ply=4", ".pile.stock", "replay")
        live = '[data-live-state][data-state="live"]'  # (a game in progress, watched live)
        visit(f"/games/{games_to_show['practice']}/replay/", live, "live")
        visit("/watch/", "[data-practice] table", "watch")
        visit(f"/leaderboard/{day}/solution/", ".pile.stock")
        visit("/groups/", "[data-group-list] ul", "groups")
        visit(f"/groups/{games_to_show['group']}/", f'[data-rows] tr[data-player="{me}"]', "group")
        expect(page.locator('[data-testid="group-week"] tbody tr')).to_have_count(1)
        measure("group (its week)")
        visit(f"/groups/join/{games_to_show['invite']}/", "[data-join]")
        visit("/logout/", "main h1")
        visit("/no-such-page/", "[data-error-status]")

        context.request.post(f"{daphne_server}/api/auth/logout/")
        context.clear_cookies()
        choose_language()
        visit("/", "[data-play-first] ~ [data-game] .pile.stock", "home-visitor")
        visit(f"/games/{games_to_show['daily']}/replay/", "[data-refusal]")  # (not yet: why)
        visit("/login/", "form[data-auth-form]")
        visit("/signup/", "form[data-auth-form]")
        page.locator("input[name=username]").fill(long_username())
        page.locator("input[name=password]").fill("12345")
        page.locator("input[name=password2]").fill("12345")
        page.locator("form[data-auth-form] button[type=submit]").click()
        expect(page.locator("[data-field-error=password]")).not_to_be_empty()
        measure("/signup/ (errors)")
        page.screenshot(path=str(artifacts / f"phone-signup-{language}.png"), full_page=True)

        assert problems == [], "\n".join(problems)
        assert errors == []
    finally:
        context.close()


#: What lies over what on the board: each pile's name against every pile (with the edges a
#: stacked pile shows below and beside it), every count and the other names; each count of the
#: reserve and the waste against every card. Boxes as drawn (getBoundingClientRect).
BOARD_OVERLAPS = """() => {
  const board = document.querySelector("[data-board]");
  const box = (el) => el.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const name = (el) => el.dataset.pile || el.dataset.card || el.className;
  const piles = [...board.querySelectorAll(".pile")].map((el) => {
    const r = box(el);
    // (a stacked pile's edges: 2 px right and 3 px down, and their shadow, 2 px and 3 px more)
    const edge = el.classList.contains("stacked") ? 5 : 0;
    const bottom = r.bottom + (edge ? 6 : 0);
    return [name(el), { left: r.left, top: r.top, right: r.right + edge, bottom }];
  });
  const badges = [...board.querySelectorAll(".badge")]
    .filter((el) => getComputedStyle(el).display !== "none")
    .map((el) => [`${el.closest(".pile").dataset.pile} count`, box(el)]);
  const captions = [...board.querySelectorAll(".caption")].map((el) => [el.textContent, el]);
  const found = [];
  for (const [text, el] of captions) {
    const r = box(el);
    for (const [what, other] of [...piles, ...badges]) {
      if (meets(r, other)) found.push(`"${text}" meets ${what}`);
    }
    for (const [other, el2] of captions) {
      if (el2 !== el && meets(r, box(el2))) found.push(`"${text}" meets "${other}"`);
    }
  }
  const cards = [...board.querySelectorAll(".card")];
  for (const badge of board.querySelectorAll(".pile.reserve .badge, .pile.waste .badge")) {
    for (const card of cards) {
      if (meets(box(badge), box(card))) {
        found.push(`${badge.closest(".pile").dataset.pile} count over ${card.dataset.card}`);
      }
    }
  }
  return found;
}"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_label_lies_under_a_pile_and_counts_are_beside_their_cards(
    browser: Browser,
    daphne_server: str,
    games_to_show: dict[str, Any],
    artifacts: Path,
    language: str,
) -> None:
    """On the game page at 360×740 and on a desktop, in each language: no pile's name lies under
    a pile (nor its count, nor another name), and the reserve's and the waste's counts lie beside
    their cards, over none; the page is axe clean at 360×740."""
    from .test_accessibility import violations

    viewports: list[ViewportSize] = [
        {"width": WIDTH, "height": 740},
        {"width": 1440, "height": 900},
    ]
    for viewport in viewports:
        context = browser.new_context(viewport=viewport, base_url=daphne_server, bypass_csp=True)
        context.set_default_timeout(STEP_TIMEOUT_MS)
        try:
            page = context.new_page()
            log_in(page, daphne_server, games_to_show["username"])
            context.add_cookies(
                [{"name": "django_language", "value": language, "url": daphne_server}]
            )
            page.goto(f"/games/{games_to_show['practice']}/")
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.locator(".pile.waste .card")).to_have_count(3)
            expect(page.locator(".pile.reserve.stacked")).to_have_count(1)
            page.evaluate("document.fonts.ready")
            assert page.evaluate(BOARD_OVERLAPS) == [], viewport
            if viewport["width"] == WIDTH:
                page.screenshot(path=str(artifacts / f"phone-labels-{language}.png"))
                assert violations(page) == []
        finally:
            context.close()

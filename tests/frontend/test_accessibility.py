"""Accessibility checked in the browser: axe-core (tests/frontend/vendor) finds no serious or
critical violation of WCAG 2.1 A/AA on the home, game, leaderboard, replay, profile, rules,
watch (and a game watched live) and sign-up pages, in the light and the dark theme. Dark mode
follows prefers-color-scheme, and the header's toggle switches it and is remembered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import PHONE, WIDE
from .helpers import WORKED_EXAMPLE, play_line

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
RUN_AXE = """async () => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
  });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 5).map((n) => [n.target.join(" "), n.failureSummary]),
    }));
}"""


#: Waits until the page's finite animations have ended (a live board's row that flashes as an
#: update arrives passes through colours that are not the row's): axe judges the page at rest.
SETTLE = """Promise.all(document.getAnimations()
  .filter((a) => a.effect && a.effect.getComputedTiming().iterations !== Infinity)
  .map((a) => a.finished.catch(() => null)))"""


def at_rest(page: Page) -> list[Any]:
    """Axe's serious violations on ``page`` (axe injected), once its animations have ended."""
    page.evaluate(SETTLE)
    found: list[Any] = page.evaluate(RUN_AXE)
    return found


def violations(page: Page) -> list[Any]:
    page.add_script_tag(path=str(AXE))
    return at_rest(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(
    new_player: Any,
    browser: Browser,
    daphne_server: str,
    artifacts: Path,
    scheme: Literal["light", "dark"],
) -> None:
    # The tests' own script is injected past the Content-Security-Policy (bypass_csp).
    alice = new_player(viewport=WIDE, color_scheme=scheme, bypass_csp=True)
    game_id = play_line(alice, WORKED_EXAMPLE, ["R-T2", "R-F1", "D"])
    finished = play_line(alice, WORKED_EXAMPLE, ["R-T2"])
    alice.api("POST", f"/api/games/{finished}/resign/")
    club = alice.api("POST", "/api/groups/", {"name": "Axe club"})
    pages = {
        "home": ("/", "[data-recent] table"),
        "game": (f"/games/{game_id}/", ".pile.stock"),
        "leaderboard": ("/leaderboard/", "[data-rows] tr"),
        "following": ("/leaderboard/?view=following", "[data-board-rank-col]"),
        "player": (f"/players/{new_player().username}/", "[data-follow-button]"),
        "replay": (f"/games/{finished}/replay/?ply=1", "[data-tokens] button"),
        "profile": (f"/players/{alice.username}/", "[data-games] table"),
        "rules": ("/how-to-play/", ".tour-board .pile.stock"),
        "groups": ("/groups/", "[data-group-list] ul"),
        "group": (f"/groups/{club['id']}/", '[data-testid="group-week"] tbody tr'),
        "group join": (f"/groups/join/{club['invite']}/", "[data-join]"),
        "leagues": ("/leagues/", "[data-no-division]"),
        "watch": ("/watch/", "[data-playing] table"),
        "live": (f"/games/{game_id}/replay/", '[data-live-state][data-state="live"]'),
    }
    found = {}
    for name, (path, ready) in pages.items():
        page = alice.goto(path)
        expect(page.locator(ready).first).to_be_visible()
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.dataset.theme") == scheme
        found[name] = violations(page)
        if name in ("game", "leaderboard", "replay", "rules", "live"):  # and their phone layout
            page.set_viewport_size(PHONE)
            found[f"{name} (phone)"] = at_rest(page)
            page.set_viewport_size(WIDE)
    visitor = browser.new_context(viewport=PHONE, color_scheme=scheme, bypass_csp=True)
    try:
        page = visitor.new_page()
        page.goto(f"{daphne_server}/signup/")
        expect(page.locator("form[data-auth-form]")).to_be_visible()
        found["signup"] = violations(page)
        page.screenshot(path=str(artifacts / f"signup-phone-{scheme}.png"))
    finally:
        visitor.close()
    page = alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    page.screenshot(path=str(artifacts / f"game-desktop-{scheme}.png"))  # light: the README's
    bad = {name: v for name, v in found.items() if v}
    assert bad == {}, json.dumps(bad, indent=1)
    assert alice.errors == []


def test_the_theme_toggle_is_remembered_without_a_flash(new_player: Any) -> None:
    alice = new_player(viewport=PHONE, color_scheme="light")
    page = alice.goto("/")
    root = page.locator("html")
    expect(root).to_have_attribute("data-theme", "light")
    toggle = page.locator("[data-theme-toggle]")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(root).to_have_attribute("data-theme", "dark")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    dark = page.evaluate("getComputedStyle(document.querySelector('.panel')).backgroundColor")

    # The next page starts dark: the theme is set in <head>, before the body is parsed.
    alice.context.add_init_script(
        """new MutationObserver((records, observer) => {
          if (!document.body) return;
          window.themeAtBody = document.documentElement.dataset.theme || "unset";
          observer.disconnect();
        }).observe(document, { childList: true, subtree: true });"""
    )
    alice.goto("/leaderboard/")
    assert page.evaluate("window.themeAtBody") == "dark"
    assert (
        page.evaluate("getComputedStyle(document.querySelector('.panel')).backgroundColor") == dark
    )
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # The system's dark preference is followed until a choice is made; the choice wins over it.
    page.emulate_media(color_scheme="dark")
    page.locator("[data-theme-toggle]").click()
    expect(root).to_have_attribute("data-theme", "light")
    alice.goto("/")
    expect(root).to_have_attribute("data-theme", "light")
    assert alice.errors == []


def test_dark_mode_follows_the_system_without_a_choice(new_player: Any) -> None:
    alice = new_player(color_scheme="dark")
    page = alice.goto("/")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.emulate_media(color_scheme="light")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert alice.errors == []

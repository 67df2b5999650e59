"""Every page works under the site's Content-Security-Policy: Chromium reports no violation on
any of them — the board with its websocket, the replay, the API docs (Swagger UI) — and each
page's script ran."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import ConsoleMessage, expect


def test_no_page_breaks_the_content_security_policy(new_player: Any) -> None:
    player = new_player("csp")
    game = player.api("POST", "/api/games/", {"code": "CF1-D3-AAAAACL"})
    player.api("POST", f"/api/games/{game['id']}/actions/", {"ply": 0, "action": "D"})
    page = player.page
    violations: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text}")

    page.on("console", on_console)
    pages = {
        "/": "[data-testid=play-daily]",
        f"/games/{game['id']}/": ".pile.stock",
        f"/games/{game['id']}/replay/": "[data-replay]",
        "/leaderboard/": "[data-live-state]",
        f"/players/{player.username}/": "h1",
        "/login/": "form[data-auth-form]",
        "/how-to-play/": ".tour-board .pile.stock",
        "/api/docs/": ".swagger-ui .info .title",
    }
    for path, drawn in pages.items():
        response = page.goto(player.url(path))
        assert (
            response is not None
            and "script-src 'self'" in response.headers["content-security-policy"]
        )
        expect(page.locator(drawn).first).to_be_visible()

    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Canfield Online API")
    page.goto(player.url("/leaderboard/"))
    expect(page.locator("[data-live-state]")).to_have_text("Live")  # the websocket: connect-src
    assert violations == []
    assert player.errors == []

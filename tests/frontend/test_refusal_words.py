"""Why a move is refused is the server's to say, in each language. The game page has no words of
its own for a rule: a tap on a card that cannot move asks the server about the moves the tap
stands for (the card to the foundation of its suit, onto the first other column that has cards)
and shows the refusals as the server words them — each the engine's reason, rendered by
``games.sentences`` in the page's language — and a refused drop shows the server's refusal.
In English, Turkish, Finnish and Albanian, every code a tap meets in play is checked: an empty
foundation's starting rank, a foundation's next card, a column's card one rank higher, the same
colour, and classic rules' whole columns."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation
from playwright.sync_api import Page, expect

from games.engine import Action, Canfield
from games.sentences import describe

from .helpers import WORKED_EXAMPLE, card, mouse_drag, pile, play_line, tap

LANGUAGES = ("en", "tr", "fi", "sq")
#: The worked example's deal under classic rules, and a line to a column of two cards.
CLASSIC = "CF1-H3-AAAAACL"
CLASSIC_LINE = ["T2-T4"]
#: The rule codes a refused tap meets in the positions below: every one a tap can meet in play
#: (an empty column is refilled from the reserve at once, so none refuses a card while another
#: column holds one; under classic rules an empty column takes only the waste's top card, which
#: a tap asks about only when no other column has a card).
TAP_CODES = {
    "not_starting_rank",
    "not_next_rank",
    "not_one_rank_lower",
    "same_colour",
    "classic_whole_column",
}


class Asked:
    """The actions a page sends (over the game's socket or REST), in order."""

    def __init__(self, page: Page) -> None:
        self.actions: list[str] = []
        page.on("websocket", lambda ws: ws.on("framesent", self.frame))
        page.on("request", self.request)

    def frame(self, payload: str | bytes) -> None:
        frame = json.loads(payload)
        if frame.get("type") == "action" and "action" in frame:
            self.actions.append(frame["action"])

    def request(self, request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/actions/"):
            body = request.post_data_json
            if "action" in body:
                self.actions.append(body["action"])

    def since(self, start: int) -> list[str]:
        return self.actions[start:]


def server_says(
    language: str, code: str, line: list[str], tokens: list[str]
) -> tuple[str, set[str]]:
    """What the server answers the refusals of `tokens`, made after `line` on deal `code`: its
    sentences in `language`, as the message area shows them (one after another), and the codes."""
    game = Canfield(code)
    for token in line:
        game.push(Action.parse(token))
    reasons = [game.reason(Action.parse(token)) for token in tokens]
    assert all(reason is not None for reason in reasons), tokens
    with translation.override(language):
        text = " ".join(describe(reason) for reason in reasons if reason is not None)
    return text, {reason.code for reason in reasons if reason is not None}


def refused_tap(page: Page, asked: Asked, target: Any, tokens: list[str], expected: str) -> None:
    start = len(asked.actions)
    tap(page, target)
    message = page.locator("[data-message-text]")
    expect(message).to_have_text(expected)
    expect(page.locator("[data-messages]")).to_have_attribute("data-kind", "refused")
    assert asked.since(start) == tokens


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refusal_is_said_in_the_servers_words(new_player: Any, language: str) -> None:
    alice = new_player()
    page = alice.page
    alice.context.add_init_script("localStorage.setItem('canfield.rulesSeen', '1')")
    alice.goto("/")
    page.get_by_test_id("language").select_option(language)
    expect(page.locator("html")).to_have_attribute("lang", language)
    asked = Asked(page)
    met: set[str] = set()

    game_id = play_line(alice, WORKED_EXAMPLE, [])
    alice.goto(f"/games/{game_id}/")
    page.wait_for_selector(".pile.stock")
    # 6C: clubs start with the seven, and it is no card for the king of hearts;
    # QH: the hearts foundation needs the nine; AS: spades start with the seven, AS on 6C.
    for column, tokens in (("T1", ["T1-F4", "T1-T2"]), ("T3", ["T3-F1", "T3-T1"])):
        text, codes = server_says(language, WORKED_EXAMPLE, [], tokens)
        refused_tap(page, asked, card(page, column), tokens, text)
        met |= codes
    text, codes = server_says(language, WORKED_EXAMPLE, [], ["T4-F2", "T4-T1"])
    refused_tap(page, asked, card(page, "T4"), ["T4-F2", "T4-T1"], text)
    met |= codes

    # A drop the rules refuse: the reserve's queen of clubs onto the ace of spades.
    text, codes = server_says(language, WORKED_EXAMPLE, [], ["R-T4"])
    start = len(asked.actions)
    mouse_drag(page, card(page, "R"), pile(page, "T4"))
    expect(page.locator("[data-message-text]")).to_have_text(text)
    assert asked.since(start) == ["R-T4"]
    met |= codes

    classic = play_line(alice, CLASSIC, CLASSIC_LINE)
    alice.goto(f"/games/{classic}/")
    page.wait_for_selector(".pile.stock")
    text, codes = server_says(language, CLASSIC, CLASSIC_LINE, ["T4-F1", "T4-T1"])
    refused_tap(page, asked, card(page, "T4"), ["T4-F1", "T4-T1"], text)
    met |= codes

    assert met == TAP_CODES
    board = alice.api("GET", f"/api/games/{game_id}/")
    assert board["ply"] == 0  # every refusal changed nothing
    assert alice.errors == []

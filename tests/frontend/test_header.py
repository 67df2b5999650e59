"""The header's links, signed in, in each language: on one line beside the logo from 1280 px up;
folded under the Menu button below that (where they would wrap onto a second line)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

#: The header's parts as the page lays them out: the nav's links' tops, the header's height, and
#: whether the Menu button shows.
LAYOUT = """() => {
  const links = [...document.querySelectorAll("#site-nav a")].filter((a) => a.offsetParent);
  const tops = new Set(links.map((a) => Math.round(a.getBoundingClientRect().top)));
  const nav = document.querySelector("#site-nav").getBoundingClientRect();
  const brand = document.querySelector(".brand").getBoundingClientRect();
  return {
    links: links.length,
    rows: tops.size,
    apart: brand.right <= nav.left,
    toggle: getComputedStyle(document.querySelector("[data-nav-toggle]")).display !== "none",
  };
}"""


@pytest.mark.parametrize("language", ["en", "tr", "fi", "sq"])
def test_the_signed_in_header_fits_one_line_or_folds(
    new_player: Callable[..., Any], language: str
) -> None:
    player = new_player(prefix="wanderer")  # the longest names are cut short
    page = player.context.new_page()
    player.context.add_cookies([{"name": "django_language", "value": language, "url": player.base}])
    page.goto(f"{player.base}/leaderboard/")
    expect(page.locator("[data-nav-toggle]")).to_be_attached()
    for width in (1280, 1440):
        page.set_viewport_size({"width": width, "height": 800})
        layout = page.evaluate(LAYOUT)
        assert layout["links"] >= 8, layout  # Play … Watch, Groups, Leagues, the player, Log out
        assert layout == {**layout, "rows": 1, "apart": True, "toggle": False}, (width, layout)
    for width in (1279, 900):
        page.set_viewport_size({"width": width, "height": 800})
        layout = page.evaluate(LAYOUT)
        assert layout["toggle"] and layout["links"] == 0, (width, layout)
        page.click("[data-nav-toggle]")
        opened = page.evaluate(LAYOUT)
        assert opened["links"] >= 8, (width, opened)
        page.click("[data-nav-toggle]")

"""The board always fits the window: a 20-card column at 1440×900 and at 360×740 leaves no page
to scroll, every card of it shows its corner whole; tables fit a phone's width."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import SIZES
from .helpers import LONG_COLUMN_CODE, LONG_COLUMN_LINE, assert_no_page_scroll, play_line

COLUMN_GEOMETRY = """() => {
  const cards = [...document.querySelectorAll('.pile[data-pile="T3"] .card')];
  const boxes = cards.map((el) => el.getBoundingClientRect());
  // Each covered card's rank, its ink down to a Q's tail or a J's foot, ends above the next card:
  // the glyph's own depth below the baseline, as the font measures it.
  const pen = document.createElement("canvas").getContext("2d");
  const inkBottom = (rank) => {
    const style = getComputedStyle(rank);
    pen.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const glyph = getComputedStyle(rank, "::before").content.replaceAll('"', "");
    const m = pen.measureText(glyph);
    const font = m.fontBoundingBoxAscent + m.fontBoundingBoxDescent;
    const top = rank.getBoundingClientRect().top;
    const baseline = top + (parseFloat(style.lineHeight) - font) / 2 + m.fontBoundingBoxAscent;
    return baseline + m.actualBoundingBoxDescent;
  };
  const hidden = cards.slice(0, -1)
    .filter((el, i) => inkBottom(el.querySelector(".idx-rank")) > boxes[i + 1].top + 0.5)
    .map((el) => el.dataset.card);
  return {
    n: cards.length,
    bottom: boxes.at(-1).bottom,
    width: boxes[0].width,
    least_step: Math.min(...boxes.slice(1).map((b, i) => b.top - boxes[i].top)),
    ranks_cut: hidden,
  };
}"""


@pytest.mark.parametrize("size", SIZES)
def test_a_long_column_fits_the_window(new_player: Any, artifacts: Path, size: str) -> None:
    alice = new_player(viewport=SIZES[size])
    game_id = play_line(alice, LONG_COLUMN_CODE, LONG_COLUMN_LINE)
    for path in (f"/games/{game_id}/", f"/games/{game_id}/replay/?ply={len(LONG_COLUMN_LINE)}"):
        page = alice.goto(path)
        expect(page.locator('.pile[data-pile="T3"] .card')).to_have_count(20)
        column = page.evaluate(COLUMN_GEOMETRY)
        assert column["bottom"] <= SIZES[size]["height"], column
        # every card's rank and suit stay in view: at least a quarter of a card's width apart
        assert column["least_step"] >= column["width"] * 0.24, column
        assert column["width"] >= 34, column
        assert column["ranks_cut"] == [], column  # (a queen's index once read "O")
        assert_no_page_scroll(page)
        page.screenshot(
            path=str(
                artifacts / f"long-column-{'replay' if 'replay' in path else 'game'}-{size}.png"
            )
        )
    assert alice.errors == []


def test_tables_fit_a_phone(new_player: Any, artifacts: Path) -> None:
    from .conftest import PHONE

    alice = new_player("xyzzy_quokka_bumpy_", viewport=PHONE)
    game_id = play_line(alice, LONG_COLUMN_CODE, LONG_COLUMN_LINE[:3])
    alice.api("POST", f"/api/games/{game_id}/resign/")
    daily = alice.start_daily()
    state = alice.api("GET", f"/api/games/{daily['id']}/")["state"]
    alice.api("POST", f"/api/games/{daily['id']}/actions/", {"ply": 0, "action": state["legal"][0]})
    for path, table in (
        ("/", "[data-recent] table"),
        ("/leaderboard/", "table[data-testid=leaderboard]"),
        (f"/players/{alice.username}/", "[data-history] table"),
    ):
        page = alice.goto(path)
        expect(page.locator(f"{table} tbody tr").first).to_be_visible()
        expect(page.locator(f"{table} .empty-row")).to_have_count(0)
        clipped = page.evaluate(
            """(sel) => {
              const table = document.querySelector(sel);
              const box = table.closest('.panel').getBoundingClientRect();
              const cells = [...table.querySelectorAll('tbody td')];
              return cells
                .map((td) => [td.textContent, td.getBoundingClientRect()])
                .filter(([, r]) => r.width > 0
                  && (r.left < box.left - 0.5 || r.right > box.right + 0.5))
                .map(([text]) => text);
            }""",
            table,
        )
        assert clipped == [], (path, clipped)
        assert_no_page_scroll_x(page)
        page.screenshot(
            path=str(artifacts / f"table-phone-{path.strip('/').split('/')[0] or 'home'}.png"),
            full_page=True,
        )
    assert alice.errors == []


def assert_no_page_scroll_x(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

"""The fair-play audit replayed through the API (issue 29): a careful cheater — a scout account
that draws through the stock and resigns, and a main account from another network, in the same
browser, that plays the solver's line plus one move and its undo at 0.65 s an action — a bot
that sees only what a player sees and wins close to par, and three honest players behind one
/24 playing as the simulated players do, at a person's pace. The cheater's two attempts and the
bot are flagged, for the reasons expected, and head the day's review; the honest players are
not flagged."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.devices import COOKIE
from games.engine import Action, Canfield
from games.engine.players import CASUAL, play
from games.engine.solver import solve
from leaderboard import review
from tests.conftest import token_client
from tests.leaderboard.audit import SightBot
from tests.leaderboard.helpers import player, store_deal, utc_today

pytestmark = pytest.mark.usefixtures("only_our_days")

#: The day's certified deal: a CF1 deal the solver wins, its line (par) found within
#: PAR_POSITIONS positions as a day's deal is certified on a budget of positions.
CODE = "CF1-D3-AAAXFZR"
PAR_POSITIONS = 20_000
#: Seconds an action: the audit's cheater and bot, and a person.
CHEAT_PACE, PERSON_PACE = 0.65, 4.0


@pytest.fixture(scope="module")
def par_line() -> list[str]:
    found = solve(CODE, max_positions=PAR_POSITIONS)
    assert found.outcome == "win"
    return found.tokens()


class Player:
    """One account's client: its address and device cookie on every request."""

    def __init__(self, clock: Any, name: str, address: str, device: str) -> None:
        self.clock, self.name, self.address = clock, name, address
        self.api = token_client(player(name))
        self.api.cookies[COOKIE] = device
        started = self.api.post("/api/daily/", REMOTE_ADDR=address)
        assert started.status_code == 201, started.content
        self.game: dict[str, Any] = started.json()

    @property
    def id(self) -> int:
        return int(self.game["id"])

    def act(self, token: str, pace: float) -> dict[str, Any]:
        self.clock.advance(pace)
        answer = self.api.post(
            f"/api/games/{self.id}/actions/",
            {"ply": self.game["ply"], "action": token},
            format="json",
            REMOTE_ADDR=self.address,
        )
        assert answer.status_code == 200, answer.content
        self.game = answer.json()
        return self.game

    def play(self, tokens: list[str], pace: float) -> None:
        for token in tokens:
            self.act(token, pace)

    def resign(self) -> None:
        self.clock.advance(PERSON_PACE)
        answer = self.api.post(f"/api/games/{self.id}/resign/", REMOTE_ADDR=self.address)
        assert answer.status_code == 200, answer.content


def with_a_move_and_its_undo(line: list[str]) -> list[str]:
    """``line`` with a move it does not play, and its undo, where one is first legal."""
    game = Canfield(CODE)
    for k, token in enumerate(line):
        other = next(
            (a.token() for a in game.legal_moves if a.token() not in (token, "D", "C", "U")), None
        )
        if other is not None:
            return [*line[:k], other, "U", *line[k:]]
        game.push(Action.parse(token))
    raise AssertionError("no other move anywhere on the line")


def honest_lines(par: int, count: int) -> list[list[str]]:
    """The first ``count`` casual players' games of the deal (seeded) well above par: 15 % or
    more."""
    lines: list[list[str]] = []
    seed = 0
    while len(lines) < count:
        played = play(CODE, CASUAL, f"audit|casual|{seed}")
        if played.actions >= par * 1.15:
            lines.append(list(played.tokens))
        seed += 1
    return lines


def test_it_flags_the_audits_cheater_and_bot_and_not_three_honest_players_on_one_network(
    clock, par_line
):
    day = utc_today()
    store_deal(day, CODE, par_line)
    par = len(par_line)

    # The cheater: a scout, then the main account from another network in the same browser.
    scout = Player(clock, "scout", "198.51.100.20", "cheatersbrowser0000001")
    scout.play(["D"] * 12, PERSON_PACE)  # draw 3: the 34 stock cards, all seen
    scout.resign()
    main = Player(clock, "main", "203.0.113.50", "cheatersbrowser0000001")
    cheat = with_a_move_and_its_undo(par_line)
    main.play(cheat, CHEAT_PACE)
    # The bot: its own account, network and browser; only what the API shows it.
    bot = Player(clock, "bot", "192.0.2.77", "botsbrowser00000000001")
    sight = SightBot(bot.game["state"])
    while bot.game["status"] == "in_progress" and bot.game["ply"] < 3 * par:
        token = sight.choose()
        sight.saw(token, bot.act(token, CHEAT_PACE)["state"])
    # Three honest players behind one /24, each in a browser of their own.
    honest = [
        Player(clock, f"honest{k}", f"100.64.10.{k + 1}", f"honestbrowser{k:09d}") for k in range(3)
    ]
    for person, line in zip(honest, honest_lines(par, 3), strict=True):
        person.play(line, PERSON_PACE)

    assert main.game["status"] == "won" and main.game["ply"] == par + 2
    assert bot.game["status"] == "won" and bot.game["ply"] <= par * (1 + review.NEAR_PAR)
    rows = {row.player: row for row in review.day_review(day, clock.now)}
    over = (par + 2 - par) / par * 100
    assert rows["main"].reasons == [
        f"won in {par + 2} actions, {over:.1f} % over par ({par})",
        f"linked to scout's attempt #{scout.id} by device",
    ]
    assert rows["main"].flags == ("par", "linked") and rows["main"].suspicion == 80
    assert rows["scout"].reasons == [
        "scouted: saw 40 of the 52 cards, ended with 1 home (1 at most), then resigned",
        f"linked to main's attempt #{main.id} by device",
    ]
    assert rows["scout"].flags == ("scout", "linked") and rows["scout"].suspicion == 55
    assert rows["bot"].flags == ("par",) and rows["bot"].result == "won"
    for k in range(3):
        row = rows[f"honest{k}"]
        assert (row.flags, row.suspicion, row.same_network) == ((), 0, 3)
        assert row.actions >= par * 1.15

    # The page: the cheater and the bot above the honest players, with their reasons.
    staff = User.objects.create_superuser("judge", password="x")
    judge = Client()
    judge.force_login(staff)
    page = judge.get("/admin/leaderboard/attemptreview/", {"day": day.isoformat()})
    text = html.unescape(page.content.decode())
    order = [int(game) for game in re.findall(r'data-game="(\d+)"', text)]
    assert order[:3] == [main.id, scout.id, bot.id]
    assert sorted(order[3:]) == sorted(person.id for person in honest)
    assert f"linked to scout's attempt #{scout.id} by device" in text
    assert "scouted: saw 40 of the 52 cards, ended with 1 home (1 at most), then resigned" in text

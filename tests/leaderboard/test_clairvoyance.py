"""The clairvoyance test end to end (issue 41): a cheater's scout reads the daily's deck, and the
cheater plays an offline solver's line for it, padded by 15 % with undone moves and detours, at
a person's pace, from another network than the scout's, in a script that logs both accounts in
from one machine; honest experts (simulated players, who see only what a person sees) win the
same deal. Once their attempts end, the worker tier judges them (``leaderboard.tasks``, run for
real by ``manage.py worker --batch``): the cheater is flagged ``clairvoyant``, and linked to the
scout by the device mark of their tokens; the experts are not flagged. The staff page shows the
ratio, the decisive forks and the linked scout; no player's answer carries any of it."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django_tasks_db.models import DBTaskResult
from rest_framework.test import APIClient

from games.engine import Canfield
from games.engine.clairvoyance import Budget
from games.engine.players import EXPERT, play
from games.engine.solver import solve
from games.models import Game
from leaderboard import review, services, tasks
from leaderboard.models import AttemptReview
from tests.conftest import PASSWORD
from tests.leaderboard.helpers import play as play_through
from tests.leaderboard.helpers import player, store_deal, utc_today

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from clairvoyance import pad  # noqa: E402  (the calibration's own padding)

pytestmark = pytest.mark.usefixtures("only_our_days")

#: The day's deal — one of the calibration's (benchmarks/clairvoyance.py), a Monday's daily —
#: and its par line, found as a day's deal is certified, on a budget of positions.
CODE = "CF2-D3-4kHgQKqqNDWMB29eMjYAJbFoYPsw4NTawjHAd5o4H"
PAR_POSITIONS = 20_000
#: What judging may cost here: one sample a fork and a fifth of the service's positions, so that
#: the test takes seconds of judging, not minutes (the service's budget takes several seconds to
#: a minute an attempt). The threshold and the model are the service's.
BUDGET = Budget(samples=1, truth=1000, positions=200)
#: Seconds an action: a person's pace.
PACE = 4.0
#: The scripts' user agents.
SCRIPT = "cheat-script/1.0"


@pytest.fixture(scope="module")
def par_line() -> list[str]:
    found = solve(CODE, max_positions=PAR_POSITIONS)
    assert found.outcome == "win"
    return found.tokens()


def log_in(user: User, address: str, agent: str) -> APIClient:
    """An API client of ``user`` with the token its log-in from ``address`` and ``agent`` gave."""
    client = APIClient()
    answer = client.post(
        "/api/auth/login/",
        {"username": user.get_username(), "password": PASSWORD},
        format="json",
        REMOTE_ADDR=address,
        HTTP_USER_AGENT=agent,
    )
    assert answer.status_code == 200, answer.content
    client.logout()  # (the session the log-in opened: this client is a script's, token only)
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client


class Script:
    """One account's attempt at today's daily through the API, from ``address``."""

    def __init__(self, clock: Any, api: APIClient, address: str, agent: str) -> None:
        self.clock, self.api, self.address, self.agent = clock, api, address, agent
        started = api.post("/api/daily/", REMOTE_ADDR=address, HTTP_USER_AGENT=agent)
        assert started.status_code == 201, started.content
        self.game: dict[str, Any] = started.json()

    @property
    def id(self) -> int:
        return int(self.game["id"])

    def play(self, tokens: list[str]) -> None:
        for token in tokens:
            self.clock.advance(PACE)
            answer = self.api.post(
                f"/api/games/{self.id}/actions/",
                {"ply": self.game["ply"], "action": token},
                format="json",
                REMOTE_ADDR=self.address,
                HTTP_USER_AGENT=self.agent,
            )
            assert answer.status_code == 200, answer.content
            self.game = answer.json()

    def resign(self) -> None:
        self.clock.advance(PACE)
        answer = self.api.post(f"/api/games/{self.id}/resign/", REMOTE_ADDR=self.address)
        assert answer.status_code == 200, answer.content


#: Two simulated experts' games of the deal that they win, the shortest logs of sixty seeded
#: games (182 and 189 actions, undos included: a person's search, at a person's pace).
EXPERT_SEEDS = ("expert|58", "expert|15")


def expert_wins() -> list[list[str]]:
    wins = [play(CODE, EXPERT, seed) for seed in EXPERT_SEEDS]
    assert all(w.won for w in wins)
    return [list(w.tokens) for w in wins]


@pytest.mark.django_db(transaction=True)  # (each attempt's end handed over once committed)
def test_a_padded_offline_line_is_flagged_by_the_workers_judgement_and_honest_experts_are_not(
    clock, par_line, monkeypatch, throttle_rates
):
    monkeypatch.setattr(review, "JUDGE_BUDGET", BUDGET)
    throttle_rates(actions=None)  # (an expert's hundreds of actions in a few seconds)
    day = utc_today()
    store_deal(day, CODE, par_line)
    long_ago = clock.now - dt.timedelta(days=400)
    main, scout = player("main"), player("scout")
    honest = [player(f"expert{k}") for k in range(2)]
    # The main account and the experts are old; the scout is the day's throwaway.
    User.objects.filter(pk__in=[main.pk, *(h.pk for h in honest)]).update(date_joined=long_ago)

    cheat = pad(CODE, par_line, 0.15, "the test's padding")
    assert round(len(cheat) / len(par_line), 2) == 1.15  # (to the nearest pair)
    assert Canfield.replay(CODE, cheat).is_won()
    if True:
        # The scout reads the stock (draws through it, undoes every draw) and gives up.
        scouting = Script(clock, log_in(scout, "198.51.100.20", SCRIPT), "198.51.100.20", SCRIPT)
        draws = ["D"] * 12  # (draw 3: the 34 stock cards)
        scouting.play([*draws, *["U"] * len(draws)])
        scouting.resign()
        # The main account: logged in by the same script on the same machine, then playing
        # from another network the offline line padded by 15 %, at a person's pace.
        cheating = Script(clock, log_in(main, "198.51.100.21", SCRIPT), "203.0.113.50", SCRIPT)
        cheating.play(cheat)
        # Honest experts, each from a network and a browser of their own (through the service
        # the API calls: hundreds of actions each).
        for k, (person, line) in enumerate(zip(honest, expert_wins(), strict=True)):
            game = services.start_attempt(person, address=f"192.0.2.{10 + k}", device=f"{k:022}")
            assert play_through(game, line, clock, PACE).status == "won"

    assert cheating.game["status"] == "won"
    queued = AttemptReview.objects.exclude(judge_task="").count()
    assert queued == 4  # every attempt that ended was handed to the worker tier
    call_command("worker", "--batch")  # the worker's run of the tasks ready now

    kept = {r.game.owner.username: r for r in AttemptReview.objects.select_related("game__owner")}
    evidence = {name: r.evidence for name, r in kept.items()}
    assert (evidence["main"] or 0.0) >= review.CLAIRVOYANT
    for honest_evidence in (evidence["expert0"], evidence["expert1"]):
        assert honest_evidence is not None and honest_evidence < review.CLAIRVOYANT
    assert all(kept[name].judgement["complete"] for name in ("main", "expert0", "expert1"))
    # The scout, in the top of the board (four attempts), judged too: nothing of its line is in
    # effect, no fork. It saw the stock.
    assert kept["scout"].evidence == 0.0 and kept["scout"].judgement["seen"] == 40
    assert all(r.judge_task == "" for r in kept.values())

    rows = {row.player: row for row in review.day_review(day, clock.now)}
    assert rows["main"].flags == ("clairvoyant", "linked")
    assert rows["main"].reasons[1] == f"linked to scout's attempt #{scouting.id} by device"
    assert rows["scout"].flags == ("scout", "linked")
    assert rows["expert0"].flags == rows["expert1"].flags == ()
    assert rows["main"].forks and rows["main"].forks[0].evidence > 0

    # What staff see: the ratio, the decisive forks, the linked scout.
    staff = User.objects.create_superuser("judge", password="x")
    page = Client()
    page.force_login(staff)
    text = html.unescape(
        page.get("/admin/leaderboard/attemptreview/", {"day": day.isoformat()}).content.decode()
    )
    order = [int(game) for game in re.findall(r'data-game="(\d+)"', text)]
    assert order[:2] == [cheating.id, scouting.id]
    assert f"log ratio {evidence['main']:.2f}" in text
    decisive = rows["main"].forks[0]
    assert f'data-ply="{decisive.ply}"' in text and f"played {decisive.played}" in re.sub(
        "</?code>", "", text
    )
    assert f"linked to scout's attempt #{scouting.id} by device" in text
    assert "chose as one who sees the hidden cards: log ratio" in text

    # Nothing of it reaches a player: not the cheater, nor anyone else.
    secret = [kept["main"].device, f"{evidence['main']:.2f}", '"forks"', '"evidence"']
    for url in (
        f"/api/games/{cheating.id}/",
        f"/api/games/{cheating.id}/record/",
        "/api/daily/",
        f"/api/daily/{day}/board/",
        "/api/players/main/",
    ):
        body = cheating.api.get(url).content.decode()
        assert not [s for s in secret if s in body], url
    assert json.loads(cheating.api.get("/api/daily/").content)["attempt"]["id"] == cheating.id


@pytest.mark.django_db(transaction=True)
def test_the_sweep_asks_for_the_judgements_an_attempts_end_did_not(clock, par_line, monkeypatch):
    monkeypatch.setattr(review, "JUDGE_BUDGET", BUDGET)
    day = utc_today()
    store_deal(day, CODE, par_line)
    script = Script(clock, log_in(player("ann"), "198.51.100.7", SCRIPT), "198.51.100.7", SCRIPT)
    script.play(par_line[:10])
    script.resign()
    assert AttemptReview.objects.get().judge_task != ""  # handed to the worker tier...
    DBTaskResult.objects.all().delete()  # ... and lost

    assert tasks.sweep_judgements(clock.now) == 1  # in the top of the board: asked for again
    assert tasks.sweep_judgements(clock.now) == 0  # (its task waits: not asked twice)
    call_command("worker", "--batch")
    found = AttemptReview.objects.get()
    assert found.evidence is not None and found.judgement["version"] == review.JUDGE_VERSION
    assert tasks.sweep_judgements(clock.now) == 0  # judged: nothing more to ask
    assert review.judge(found.game_id) == "kept"
    assert Game.objects.get(pk=script.id).status == "resigned"

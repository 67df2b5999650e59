"""The clairvoyance test calibrated on simulations: ``python benchmarks/clairvoyance.py``.

``--deals`` days from ``--first-day`` are dealt as the service deals its dailies
(``games.engine.certify.certify`` under a benchmark secret, each day in its weekday's band of
``DAILY_DIFFICULTY_WEEK``; ``--positions`` and ``--shorten`` bound the certification, the
settings' ``DAILY_DEAL_POSITIONS`` and ``DAILY_DEAL_SHORTEN_POSITIONS`` by default), par being
the certified line's length. On each deal:

- **honest players**: ``--games`` games by each level of simulated player
  (``games.engine.players``: they see only what a person sees), with seeds of their own; every
  win is judged (``games.engine.clairvoyance.judge``, the service's budget:
  ``leaderboard.review.JUDGE_BUDGET`` is ``Budget()``);
- **clairvoyant players**: the certified line — a solver's line for the full deck — played as
  it is; padded with undo pairs (a move and its undo) and detours (a card moved between columns
  and back) to +15 % and +40 % of its length, at random places; and played after showing itself
  the stock (drawing through it and undoing every draw: the legitimate way to see the stock's
  cards before the line). Each is judged alike. Timing plays no part in the test, so none is
  simulated.

The honest model's temperature and habit weight are then fitted by maximum likelihood to the
honest winners' choices at their forks (:func:`fit`; the evidence of every attempt is computed
again with them from the stored shares and habits, ``clairvoyance.fork_evidence``, no search
needed), and the flag's threshold chosen (:func:`threshold`): at least ``log 1000`` — where the
martingale bound ``e^-t`` is 1 in 1,000 — and at least the upper 95 % confidence bound of the
evidence that one honest win in 1,000 reaches, from an exponential fitted to the highest tenth of
the honest wins' evidence (:func:`tail_bound`), rounded up to a half; how many honest wins reach
it is counted too.
The detection rate against each kind of cheater is printed at that threshold. ``--write-docs``
puts the figures in their section of docs/fair-play.md. ``--quick`` is a smoke run (2 deals, 1
game a level). The machine is shared: the load average is printed with the figures.

**Records.** Showing a false-positive rate of 1 in 1,000 by simulation takes about 1,000 honest
wins, each judged in seconds of CPU (up to a minute for the longest), and about two games played
for each: more than one run may give. With ``--records DIR`` each judged attempt is kept as a line
of JSON (its log, and its forks' moves, shares and outcomes: all the fit and the evidence read,
the habits computed again from the log's positions when read, :func:`rehabit`) in a file of the
run's own, written as each deal is done — so that a run stopped halfway keeps what it judged —
and the figures are computed over every record in DIR judged under the same search budget (a
record is known by its deal, its player and its game's seed: judged twice, it counts once). Runs
over other days add to the whole; ``--honest-only`` spends a run on honest players alone.
``--from-records`` computes the figures from DIR and plays nothing::

    .venv/bin/python benchmarks/clairvoyance.py --records benchmarks/records/clairvoyance \
        --first-day 2030-02-01 --deals 20 --games 5 --honest-only
    .venv/bin/python benchmarks/clairvoyance.py --records benchmarks/records/clairvoyance \
        --from-records --write-docs
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import multiprocessing
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from common import ROOT, machine, replace_section

from canfield_site import settings
from games.engine import UNDO, Action, Canfield
from games.engine.actions import COLUMNS
from games.engine.certify import certify
from games.engine.clairvoyance import (
    Budget,
    Judgement,
    fork_evidence,
    habit,
    honest_chances,
    judge,
)
from games.engine.difficulty import Band
from games.engine.players import LEVELS, play

DOCS = ROOT / "docs" / "fair-play.md"
HEADING = "The figures"
SECRET = "the benchmark secret of the clairvoyance test"
#: The cheaters: how much each pads the certified line, and whether it first shows itself the
#: stock.
CHEATERS: dict[str, tuple[float, bool]] = {
    "line as it is (+0 %)": (0.0, False),
    "padded +15 %": (0.15, False),
    "padded +40 %": (0.40, False),
    "stock shown first, then the line": (0.0, True),
}
#: The false-positive rate aimed at: one honest win in TARGET.
TARGET = 1000
#: The part of the honest wins whose evidence's tail is fitted (:func:`tail_bound`): the highest
#: tenth.
TAIL = 0.1
#: The standard normal's 95 % point: the threshold is an upper bound at 95 % confidence.
Z95 = 1.6449
#: The temperatures tried. None below 0.2: a share is an estimate from four samples, whose
#: standard error is up to 0.25, and a sharper softmax would read that noise as a preference.
TEMPERATURES = (0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)
#: The habit weights tried. None above 3: the simulated players keep to their habits as no
#: person does, and a model that trusts habits more would count a person's whim as evidence.
HABITS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0)


@dataclass
class Judged:
    kind: str
    level: str
    day: str
    actions: int
    par: int
    #: Each fork weighed: the shares of its moves, their habits, which the true deck kept
    #: winning, the index of the move made.
    forks: list[tuple[list[float], list[int], list[bool], int]]
    complete: bool
    seconds: float
    #: The deal's code, and the simulated game's number on it (the cheaters: 0).
    code: str = ""
    game: int = 0
    #: The attempt's log, and each fork's number in it and legal moves: what the forks' habits
    #: are computed from again when a record is read (:func:`rehabit`), so that a change of
    #: ``clairvoyance.habit`` needs no new search.
    tokens: list[str] = field(default_factory=list)
    plies: list[int] = field(default_factory=list)
    moves: list[list[str]] = field(default_factory=list)

    def evidence(self, model: Budget) -> float:
        return sum(fork_evidence(*fork, model)[1] for fork in self.forks)

    @property
    def key(self) -> tuple[str, str, str, int]:
        """What the record is of: its deal, its player and its game."""
        return (self.code, self.kind, self.level, self.game)


def _record(
    kind: str,
    level: str,
    day: str,
    par: int,
    tokens: list[str],
    found: Judgement,
    seconds: float,
    code: str,
    game: int,
) -> Judged:
    forks = []
    for fork in found.forks:
        played = next(k for k, m in enumerate(fork.moves) if m.move == fork.played)
        moves = fork.moves
        forks.append(
            ([m.share for m in moves], [m.habit for m in moves], [m.wins for m in moves], played)
        )
    return Judged(
        kind,
        level,
        day,
        len(tokens),
        par,
        forks,
        found.complete,
        seconds,
        code,
        game,
        tokens,
        [fork.ply for fork in found.forks],
        [[m.move for m in fork.moves] for fork in found.forks],
    )


def rehabit(one: Judged) -> Judged:
    """``one`` with its forks' habits as ``clairvoyance.habit`` gives them now, from the
    positions its log stood on at its forks."""
    if not one.tokens:
        return one
    game = Canfield(one.code)
    forks = []
    done = 0
    for (values, _habits, wins, played), ply, moves in zip(
        one.forks, one.plies, one.moves, strict=True
    ):
        for _ in game.replaying(one.tokens[done : ply - 1]):
            pass
        done = ply - 1
        forks.append((values, [habit(game, Action.parse(m)) for m in moves], wins, played))
    return replace(one, forks=forks)


def search_budget() -> dict[str, int]:
    """The service's budget's search counts: records judged under others are not comparable (the
    models' parameters are fitted again over the records, so they may differ)."""
    models = {"temperature", "habit", "slip"}
    budget = Budget()
    return {f.name: getattr(budget, f.name) for f in fields(budget) if f.name not in models}


def read_records(folder: Path) -> tuple[list[Judged], int]:
    """The records in ``folder`` judged under :func:`search_budget`, each attempt once, and how
    many lines were passed over (another budget, or a record already read)."""
    budget, passed = search_budget(), 0
    found: dict[tuple[str, str, str, int], Judged] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            data = json.loads(line)
            if data.pop("budget") != budget:
                passed += 1
                continue
            data["forks"] = [tuple(fork) for fork in data["forks"]]
            one = rehabit(Judged(**data))
            passed += one.key in found
            found.setdefault(one.key, one)
    return list(found.values()), passed


def write_records(path: Path, judged: list[Judged]) -> None:
    """Add ``judged`` to the records file ``path``, a line of JSON each."""
    budget = search_budget()
    with path.open("a") as out:
        for one in judged:
            out.write(json.dumps({**asdict(one), "budget": budget}, separators=(",", ":")) + "\n")


def pad(code: str, line: list[str], share: float, seed: str) -> list[str]:
    """``line`` with ``share`` of its length added as undo pairs (a move and its undo) and
    detours that return to the same position (a card moved between columns and back), at random
    places."""
    rng = random.Random(seed)
    extra = round(len(line) * share / 2)
    places = sorted(rng.sample(range(len(line)), min(extra, len(line))))
    out: list[str] = []
    game = Canfield(code)
    for k, token in enumerate(line):
        while places and places[0] == k:
            places.pop(0)
            moves = [a for a in game.generate_legal() if a != UNDO and a.token() != token]
            loop = None
            for move in moves:
                if not (move.kind == "move" and move.src in COLUMNS and move.dst in COLUMNS):
                    continue
                reverse = Action("move", move.dst, move.src, move.count)
                trial = game.copy()
                trial.push(move)
                if len(game.piles[move.src]) > move.count and trial.reason(reverse) is None:
                    loop = (move, reverse)
                    break
            if loop is not None and rng.random() < 0.5:
                pair = [loop[0].token(), loop[1].token()]
            elif moves:
                pair = [rng.choice(moves).token(), "U"]
            else:
                continue
            for extra_token in pair:
                game.push(Action.parse(extra_token))
            out += pair
        game.push(Action.parse(token))
        out.append(token)
    return out


def show_stock(code: str, line: list[str]) -> list[str]:
    """``line`` after drawing through the whole stock and undoing every draw."""
    game = Canfield(code)
    draws = 0
    while game.stock:
        game.push(Action.parse("D"))
        draws += 1
    return ["D"] * draws + ["U"] * draws + line


def deal_figures(args: dict[str, Any], day: dt.date) -> list[Judged]:
    """Deal ``day``, play it honestly and clairvoyantly, and judge every win."""
    week: tuple[Band, ...] = settings.DAILY_DIFFICULTY_WEEK
    found = certify(
        args["secret"].encode(),
        day,
        positions=args["positions"],
        shorten_positions=args["shorten"],
        candidates=settings.DAILY_DEAL_CANDIDATES,
        band=week[day.weekday()],
        games=settings.DAILY_DIFFICULTY_GAMES,
    )
    code, line, par = found.code, list(found.line), len(found.line)
    budget = Budget()
    judged: list[Judged] = []

    def judge_one(kind: str, level: str, tokens: list[str], game: int) -> None:
        start = time.perf_counter()
        result = judge(code, tokens, seed=f"{code}|{kind}|{level}|{len(tokens)}", budget=budget)
        seconds = time.perf_counter() - start
        judged.append(
            _record(kind, level, day.isoformat(), par, tokens, result, seconds, code, game)
        )

    for level in LEVELS:
        for k in range(args["games"]):
            played = play(code, level, f"{code}|{level.name}|clairvoyance|{k}")
            if played.won:
                judge_one("honest", level.name, list(played.tokens), k)
    if not args["honest_only"]:
        for kind, (share, stock) in CHEATERS.items():
            tokens = show_stock(code, line) if stock else pad(code, line, share, f"{code}|{kind}")
            judge_one("cheater", kind, tokens, 0)
    return judged


def fit(honest: list[Judged]) -> Budget:
    """The service's budget with the temperature and habit weight under which the honest
    winners' choices at their forks are likeliest (the honest model's chance of each move made,
    ``clairvoyance.honest_chances``), over :data:`TEMPERATURES` and :data:`HABITS`."""

    def likelihood(pair: tuple[float, float]) -> float:
        temperature, weight = pair
        total = 0.0
        for one in honest:
            for values, habits, _wins, played in one.forks:
                total += math.log(honest_chances(values, habits, temperature, weight)[played])
        return total

    temperature, weight = max(
        ((t, w) for t in TEMPERATURES for w in HABITS), key=likelihood, default=(0.5, 1.0)
    )
    return replace(Budget(), temperature=temperature, habit=weight)


def tail_bound(values: list[float], rate: float) -> tuple[float, float, int]:
    """The evidence that a share ``rate`` of honest wins reaches, estimated from the highest
    :data:`TAIL` of ``values`` (at least 10): the excesses over the value below them fitted by
    an exponential (peaks over a threshold, the generalized Pareto with shape 0 — the evidence
    is a sum of per-fork terms, each bounded by its fork's ``-log P_honest(W)``, whose tail is no
    heavier), whose quantile is ``u + σ · log(k / (n · rate))``. Returns that estimate, its
    upper bound at 95 % confidence (``2kσ̂/σ`` is χ² with 2k degrees of freedom; its 5 % point
    by Wilson and Hilferty's approximation), and k."""
    ordered = sorted(values)
    n = len(ordered)
    k = min(n - 1, max(10, round(TAIL * n)))
    if k < 2:
        return math.inf, math.inf, k
    under = ordered[-k - 1]
    scale = sum(v - under for v in ordered[-k:]) / k
    dof = 2 * k
    low = dof * (1 - 2 / (9 * dof) - Z95 * math.sqrt(2 / (9 * dof))) ** 3
    reach = math.log(k / (n * rate))
    return under + scale * reach, under + dof * scale / low * reach, k


def threshold(values: list[float]) -> tuple[float, str]:
    """The flag's threshold for the honest wins' evidence ``values``, and what they show of it:
    the larger of log TARGET (where the martingale bound is 1 in TARGET) and the upper 95 %
    confidence bound of the evidence that one honest win in TARGET reaches
    (:func:`tail_bound`), rounded up to a half."""
    ordered = sorted(values)
    estimate, bound, k = tail_bound(ordered, 1 / TARGET)
    cut = math.ceil(max(math.log(TARGET), bound) * 2) / 2
    reached = sum(v >= cut for v in ordered)
    top = ordered[-1] if ordered else 0.0
    rule = 3 / len(ordered) if ordered else 1.0
    return cut, (
        f"the evidence one honest win in {TARGET} reaches is {estimate:.1f} by the exponential "
        f"fitted to the highest {k} of the {len(ordered)} honest wins, at most {bound:.1f} at "
        f"95 % confidence; {reached} of them reach the threshold (the highest: {top:.2f}) — by "
        f"the count alone, a false-positive rate below {rule:.2%} at 95 % confidence (the rule "
        "of three)"
    )


def simulate(args: argparse.Namespace) -> tuple[list[Judged], str]:
    """Deal, play and judge the run's days (each deal's records written as it is done, with
    ``--records``), and say what was run."""
    first = dt.date.fromisoformat(args.first_day)
    days = [first + dt.timedelta(days=k) for k in range(args.deals)]
    options = {
        "secret": args.secret,
        "games": args.games,
        "positions": args.positions,
        "shorten": args.shorten,
        "honest_only": args.honest_only,
    }
    out = None
    if args.records:
        args.records.mkdir(parents=True, exist_ok=True)
        out = args.records / f"{first}-{args.deals}d-{args.games}g.jsonl"
    context = multiprocessing.get_context("spawn")
    start = time.perf_counter()
    results: list[Judged] = []
    with ProcessPoolExecutor(args.jobs, mp_context=context) as executor:
        for done in as_completed([executor.submit(deal_figures, options, day) for day in days]):
            judged = done.result()
            results += judged
            if out is not None:
                write_records(out, judged)
    wall = time.perf_counter() - start
    return results, (
        f"{len(days)} days from {first} dealt as the service deals them, {args.games} games "
        f"per level and day{', honest players only' if args.honest_only else ''}: "
        f"{wall:.0f} s on {args.jobs} processes"
    )


def run(results: list[Judged], ran: str) -> str:
    """The figures of the judged attempts ``results``, which ``ran`` says how they were had."""
    if not results:
        return f"{ran}: no attempt won, none judged."
    honest = [j for j in results if j.kind == "honest"]
    cheaters = [j for j in results if j.kind == "cheater"]
    model = fit(honest)
    values = [j.evidence(model) for j in honest]
    cut, shown = threshold(values)
    pars = sorted(j.par for j in results)
    seconds = [j.seconds for j in results]
    days = sorted({j.day for j in results})
    lines = [
        f"{ran}. In all, {len(days)} days ({days[0]} to {days[-1]}; pars "
        f"{pars[0]}–{pars[-1]}): {len(honest)} honest wins "
        f"and {len(cheaters)} clairvoyant lines judged with the service's budget ({Budget()}) "
        f"(judging: median "
        f"{statistics.median(seconds):.1f} s, max {max(seconds):.1f} s an attempt; "
        f"{sum(not j.complete for j in results)} judgements cut short by the position budget).",
        "",
        f"Fitted honest model: temperature **{model.temperature:g}**, habit weight "
        f"**{model.habit:g}** (maximum likelihood of the honest winners' choices at their "
        f"{sum(len(j.forks) for j in honest)} forks, over temperatures "
        + ", ".join(f"{t:g}" for t in TEMPERATURES)
        + " and habit weights "
        + ", ".join(f"{w:g}" for w in HABITS)
        + ").",
        "",
        "| player | attempts | forks (median) | evidence: median | p99 | max "
        f"| at or above {cut:g} |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def row(name: str, group: list[Judged]) -> str:
        if not group:
            return f"| {name} | 0 | – | – | – | – | – |"
        found = [j.evidence(model) for j in group]
        ordered = sorted(found)
        p99 = ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]
        flagged = sum(v >= cut for v in found)
        return (
            f"| {name} | {len(group)} | {statistics.median(len(j.forks) for j in group):g} "
            f"| {statistics.median(found):.2f} | {p99:.2f} | {max(found):.2f} "
            f"| {flagged} ({flagged / len(group):.0%}) |"
        )

    for level in LEVELS:
        lines.append(row(f"honest {level.name} wins", [j for j in honest if j.level == level.name]))
    lines.append(row("all honest wins", honest))
    for kind in CHEATERS:
        lines.append(row(f"clairvoyant: {kind}", [j for j in cheaters if j.level == kind]))
    lines += [
        "",
        f"Threshold: **{cut:g}** — {shown}. The martingale bound at it: e^-{cut:g} = "
        f"{math.exp(-cut):.2g}.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--first-day", default="2030-01-07")
    parser.add_argument("--games", type=int, default=3, help="games per level and deal")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--positions", type=int, default=settings.DAILY_DEAL_POSITIONS)
    parser.add_argument("--shorten", type=int, default=settings.DAILY_DEAL_SHORTEN_POSITIONS)
    parser.add_argument("--secret", default=SECRET)
    parser.add_argument("--quick", action="store_true", help="2 deals, 1 game a level")
    parser.add_argument("--honest-only", action="store_true", help="no clairvoyant lines")
    parser.add_argument(
        "--records", type=Path, help="keep each judged attempt here, and count all kept here"
    )
    parser.add_argument(
        "--from-records", action="store_true", help="the figures of --records alone: play nothing"
    )
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.deals, args.games = 2, 1
    if args.from_records and not args.records:
        parser.error("--from-records reads --records DIR")
    host = machine(arch=True)
    results, ran = ([], "") if args.from_records else simulate(args)
    if args.records:
        results, passed = read_records(args.records)
        files = len(list(args.records.glob("*.jsonl")))
        kept = f"{len(results)} judged attempts from {files} runs' records in {args.records}"
        ran = f"{ran}; {kept}" if ran else kept.capitalize()
        if passed:
            ran += f" ({passed} passed over: judged again, or under another budget)"
    figures = run(results, ran)
    if args.from_records:
        command = (
            f"`.venv/bin/python benchmarks/clairvoyance.py --records {args.records} --from-records`"
        )
    else:
        command = (
            f"`.venv/bin/python benchmarks/clairvoyance.py --deals {args.deals} --first-day "
            f"{args.first_day} --games {args.games} --jobs {args.jobs} --positions "
            f"{args.positions} --shorten {args.shorten}"
            f"{' --honest-only' if args.honest_only else ''}"
            f"{f' --records {args.records}' if args.records else ''}`"
        )
    section = f"## {HEADING}\n\n{command} ({host})\n\n{figures}\n"
    print(section)
    if args.write_docs:
        text = DOCS.read_text() if DOCS.exists() else ""
        Path(DOCS).write_text(replace_section(text, HEADING, section))


if __name__ == "__main__":
    main()

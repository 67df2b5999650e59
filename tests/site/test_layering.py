"""The project's floors (STYLE.md, docs/architecture.md), from the ground up:

- ``games.engine``: the rules, the solver; the standard library alone;
- ``core``: what the apps stand on (accounts, limits, API errors, bounded Redis, the task tier);
  it imports none of the apps nor the wiring;
- ``games`` ← ``leaderboard`` ← ``social`` (follows) ← ``groups`` ← ``ratings`` ← ``leagues`` ←
  ``frontend``: the apps, each importing only those below it;
- ``canfield_site``: the wiring (settings, URLs, the ASGI application), which names them all.

The HTTP layer (DRF, drf-spectacular and the API parts of ``core``) is imported only by the apps'
``api`` packages (and ``frontend``, which serves pages). No import runs back up a floor, and no
two modules import each other, at any depth of a file (a function's import counts), outside the
engine's type-only references."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLOORS = (
    "games.engine", "core", "games", "leaderboard", "social", "groups", "ratings", "leagues",
    "frontend", "canfield_site",
)  # fmt: skip
HTTP = ("rest_framework", "drf_spectacular", "core.schema", "core.api_errors", "core.strict")
#: The packages of the project (the floors' tops that exist).
APPS = tuple(
    top
    for top in (
        "games", "core", "leaderboard", "social", "groups", "ratings", "leagues", "frontend",
        "canfield_site",
    )
    if (ROOT / top).is_dir()
)  # fmt: skip
#: The parts of ``core`` that every floor may use: the standard library alone (tested below).
SHARED = ("core.formats", "core.lifeline", "core.networks")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, *, type_only: bool = True) -> set[str]:
    """Every module ``path`` imports, at any depth of the file (relative imports resolved);
    without ``type_only``, those under ``if TYPE_CHECKING:`` left out."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    tree = ast.parse(path.read_text(), str(path))
    skipped: set[int] = set()
    if not type_only:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skipped.update(id(inner) for child in node.body for inner in ast.walk(child))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            found.add(base)
            # `from games import services` imports the module games.services
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def sources(*tops: str, outside: tuple[str, ...] = ()) -> list[Path]:
    return [
        path
        for top in tops
        for path in sorted((ROOT / top).rglob("*.py"))
        if not any(part in outside for part in path.relative_to(ROOT).parts)
    ]


def floor_of(module: str) -> int | None:
    """The floor of a module of the project (the longest floor name it starts with)."""
    best = None
    for index, name in enumerate(FLOORS):
        inside = module == name or module.startswith(name + ".")
        if inside and (best is None or len(name) > len(FLOORS[best])):
            best = index
    return best


def upward() -> dict[str, list[str]]:
    found = {}
    for path in sources(*APPS):
        own = floor_of(module_name(path))
        assert own is not None
        bad = sorted(
            m
            for m in imports_of(path)
            if (floor := floor_of(m)) is not None and floor > own and m not in SHARED
        )
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


def test_no_import_runs_back_up_a_floor():
    assert upward() == {}


def test_the_check_sees_an_import_up_a_floor():
    floors = [
        floor_of(m)
        for m in ("games.engine.game", "core.throttling", "games.services", "leaderboard.tasks")
    ]
    assert floors == [0, 1, 2, 3]
    wiring = imports_of(ROOT / "canfield_site" / "asgi.py")
    assert {"games.routing", "leaderboard.routing"} <= wiring


def cycles() -> list[list[str]]:
    """The import circles among the project's modules (Tarjan's strongly connected components),
    type-only imports left out."""
    paths = sources(*APPS)
    names = {module_name(path): path for path in paths}
    graph = {
        name: sorted(m for m in imports_of(path, type_only=False) if m in names and m != name)
        for name, path in names.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            # (a package and the modules it re-exports are one thing, not a circle)
            if len(component) > 1 and not all(
                c.startswith(min(component, key=len)) for c in component
            ):
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for name in graph:
        if name not in index:
            visit(name)
    return found


def test_no_two_modules_import_each_other():
    assert cycles() == []


@pytest.mark.parametrize("app", ["games", "leaderboard", "social"])
def test_only_the_api_packages_import_the_http_layer(app):
    found = {}
    for path in sources(app, outside=("api", "migrations", "admin.py")):
        bad = sorted(
            m for m in imports_of(path) if any(m == h or m.startswith(h + ".") for h in HTTP)
        )
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert found == {}


def test_the_ground_imports_no_app():
    found = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imports_of(path) if m.split(".")[0] in {"games", "leaderboard", "frontend"}
        )
        for path in sources("core")
    }
    assert {path: bad for path, bad in found.items() if bad} == {}


@pytest.mark.parametrize("module", SHARED)
def test_what_every_floor_shares_is_the_standard_library_alone(module):
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    imported = {m.split(".")[0] for m in imports_of(path)}
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}


def test_the_apps_register_their_error_tables_with_the_ground():
    from core.api_errors import STATUS
    from games.api.errors import STATUS as GAMES
    from groups.api.errors import STATUS as GROUPS
    from leaderboard.api.errors import STATUS as LEADERBOARD
    from leagues.api.errors import STATUS as LEAGUES
    from ratings.api.errors import STATUS as RATINGS
    from social.api.errors import STATUS as SOCIAL

    assert STATUS == {**GAMES, **LEADERBOARD, **SOCIAL, **GROUPS, **RATINGS, **LEAGUES}

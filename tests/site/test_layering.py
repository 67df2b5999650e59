"""The apps depend one way (STYLE.md): ``games.engine`` ← ``games`` ← ``leaderboard`` ←
``frontend``, with ``canfield_site`` wiring them. The HTTP layer (DRF, drf-spectacular and the
site's API code) is imported only by the apps' ``api`` packages; the site imports no app but in
its wiring (URLs, settings, the ASGI application), and the apps give it what it needs of them
(their error tables) from their ``AppConfig.ready``. What both sides share is a module of the
standard library alone (``canfield_site.formats``)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTTP = ("rest_framework", "drf_spectacular", "canfield_site")
APPS = ("games", "leaderboard", "frontend")
#: The site's modules that every layer may import: standard library only (tested below).
SHARED = ("canfield_site.formats", "canfield_site.lifeline", "canfield_site.networks")
#: What else the apps may use of ``canfield_site``, which is not HTTP: the bounded connections to
#: Redis (redis-py and Django's settings) and the worker tier's schedule of periodic duties.
NOT_HTTP = ("canfield_site.redis_bounds", "canfield_site.worker.schedule")
#: The site's wiring, which names the apps: its URLs, its settings, its ASGI application.
WIRING = ("urls.py", "settings.py", "asgi.py")


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of the file (relative imports resolved)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.add(f"{base}.{node.module}" if node.module else base)
            else:
                found.add(node.module or "")
    return found


def modules(app: str, *, outside: tuple[str, ...] = ()) -> list[Path]:
    return [
        path
        for path in sorted((ROOT / app).rglob("*.py"))
        if not any(part in outside for part in path.relative_to(ROOT / app).parts)
    ]


def offenders(paths: list[Path], forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {}
    for path in paths:
        bad = sorted(
            m
            for m in imports_of(path)
            if (m.split(".")[0] in forbidden or m in forbidden) and m not in SHARED + NOT_HTTP
        )
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


@pytest.mark.parametrize("app", ["games", "leaderboard"])
def test_only_the_api_packages_import_the_http_layer(app):
    assert offenders(modules(app, outside=("api", "migrations")), HTTP) == {}


def test_games_never_imports_the_leaderboard_or_the_frontend():
    assert offenders(modules("games"), ("leaderboard", "frontend")) == {}


def test_the_leaderboard_never_imports_the_frontend():
    assert offenders(modules("leaderboard"), ("frontend",)) == {}


def test_the_check_sees_the_http_layer_where_it_is_allowed():
    serializers = ROOT / "games" / "api" / "serializers.py"

    assert "canfield_site.schema" in imports_of(serializers)
    assert offenders([serializers], HTTP) == {
        "games/api/serializers.py": [
            "canfield_site",
            "canfield_site.schema",
            "drf_spectacular.utils",
            "rest_framework",
        ]
    }


def test_the_site_imports_no_app_outside_its_wiring():
    assert offenders(modules("canfield_site", outside=WIRING), APPS) == {}


def test_the_check_sees_the_site_s_wiring():
    assert offenders([ROOT / "canfield_site" / "asgi.py"], APPS) == {
        "canfield_site/asgi.py": ["games", "leaderboard.live.broadcast", "leaderboard.routing"]
    }


@pytest.mark.parametrize("module", SHARED)
def test_what_every_layer_shares_is_the_standard_library_alone(module):
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    imported = {m.split(".")[0] for m in imports_of(path)}
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}


def test_the_apps_register_their_error_tables_with_the_site():
    from canfield_site.api_errors import STATUS
    from games.api.errors import STATUS as GAMES
    from leaderboard.api.errors import STATUS as LEADERBOARD

    assert STATUS == {**GAMES, **LEADERBOARD}

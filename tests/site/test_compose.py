"""docker-compose.yml requires DAILY_DEAL_SECRET: a deployment never deals from a public secret;
its worker service runs the background duties (the days dealt ahead among them), and no web
service runs anything but Daphne."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def compose_config(tmp_path: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    """``docker-compose config`` with exactly ``variables`` of ours (an empty .env file: none
    read from the working tree's)."""
    if shutil.which("docker-compose") is None:
        pytest.fail("docker-compose is missing: apt-get install docker-compose (make tools)")
    env = {k: v for k, v in os.environ.items() if k not in {"DAILY_DEAL_SECRET", "SECRET_KEY"}}
    env.update(variables)
    empty = tmp_path / "empty.env"
    empty.write_text("")
    return subprocess.run(
        ["docker-compose", "--env-file", str(empty), "-f", "docker-compose.yml", "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_compose_config_fails_without_the_daily_deal_secret(tmp_path):
    result = compose_config(tmp_path)

    assert result.returncode != 0
    assert "set DAILY_DEAL_SECRET" in result.stderr


def test_the_compose_config_passes_the_secret_and_runs_the_worker_tier(tmp_path):
    import yaml

    result = compose_config(tmp_path, DAILY_DEAL_SECRET="a-deployment-secret-of-32-bytes!")

    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    for name in ("web1", "web2", "worker", "migrate"):
        secret = services[name]["environment"]["DAILY_DEAL_SECRET"]
        assert secret == "a-deployment-secret-of-32-bytes!"
    assert "jobs" not in services  # no loop of commands: the worker tier schedules the duties
    worker = services["worker"]
    assert worker["command"] == ["python", "manage.py", "worker"]
    assert worker["healthcheck"]["test"] == ["CMD", "python", "manage.py", "workers", "--check"]
    assert worker["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for web in ("web1", "web2"):
        assert "command" not in services[web]  # the image's: Daphne, and nothing else


def test_the_cache_is_bounded_and_apart_from_the_rankings_sets(tmp_path):
    import yaml

    result = compose_config(tmp_path, DAILY_DEAL_SECRET="a-deployment-secret-of-32-bytes!")
    services = yaml.safe_load(result.stdout)["services"]

    cache, ranking = services["cache"]["command"], services["redis"]["command"]
    assert cache[cache.index("--maxmemory") + 1] == "256mb"
    assert cache[cache.index("--maxmemory-policy") + 1] == "allkeys-lru"
    assert ranking[ranking.index("--maxmemory-policy") + 1] == "noeviction"  # never evicted
    for web in ("web1", "web2", "worker"):
        environment = services[web]["environment"]
        assert environment["REDIS_URL"] == "redis://redis:6379/0"
        assert environment["REDIS_CACHE_URL"] == "redis://cache:6379/0"

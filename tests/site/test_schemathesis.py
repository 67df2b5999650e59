"""The schema is the contract, fuzzed: schemathesis against a live Daphne, a bounded and seeded
run (examples, coverage, fuzzing, stateful scenarios that chain the links between operations),
failing on any 5xx, any status the schema does not document, any body or content type that does
not match it, and any request that breaks the schema yet is accepted.

A fresh database; rate limits off (429 is documented, but they would stop the fuzzing); a token
of a player signed up first. Log-out is left out: it would delete the token the run uses.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import Daphne, deal_days, django_env, migrate, post_json, start_daily

SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
]
#: Cases per operation and phase, and the seed: the run is the same every time.
MAX_EXAMPLES = 6
SEED = 20261201


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daphne, str, Path]]:
    work = tmp_path_factory.mktemp("schemathesis")
    env = django_env(f"sqlite:///{work / 'db.sqlite3'}")
    migrate(env)
    deal_days(env)  # (today dealt, as the worker tier deals it)
    with Daphne(env, work / "daphne.log") as daphne:
        status, body = post_json(
            f"{daphne.url}/api/auth/signup/",
            {"username": "fuzzer", "password": "felt-green-canfield-42"},
        )
        assert status == 201, body
        # Today dealt first (a player's attempt waits for it), as a running service has it.
        _, dealer = post_json(
            f"{daphne.url}/api/auth/signup/",
            {"username": "dealer", "password": "felt-green-canfield-42"},
        )
        assert start_daily(daphne.url, dealer["token"])[0] == 201
        yield daphne, body["token"], work


def test_the_api_keeps_its_schema_under_fuzzing(server):
    daphne, token, work = server
    started = time.monotonic()
    run = subprocess.run(
        [
            SCHEMATHESIS,
            "run",
            f"{daphne.url}/api/schema/?format=json",
            "--header",
            f"Authorization: Token {token}",
            "--exclude-path",
            "/api/auth/logout/",
            "--checks",
            ",".join(CHECKS),
            "--max-examples",
            str(MAX_EXAMPLES),
            "--seed",
            str(SEED),
            "--generation-database",
            "none",
            "--workers",
            "1",
            "--request-timeout",
            "20",
            "--no-color",
            "--report",
            "junit",
            "--report-junit-path",
            str(work / "schemathesis.xml"),
        ],
        cwd=work,  # (its cache, .schemathesis/, stays out of the repository and of later runs)
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = run.stdout + run.stderr
    print(output[-3000:])
    print(f"schemathesis: {time.monotonic() - started:.1f} s")

    assert run.returncode == 0, output[-12000:]
    assert "Internal Server Error" not in daphne.output()

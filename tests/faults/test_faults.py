"""The fault scenarios of tests/faults/scenarios.py, bounded for the suite (a few seconds of
load each); benchmarks/faults.py runs them longer and records the figures in
docs/reliability.md."""

from __future__ import annotations

from tests.faults.scenarios import kill_daphne_under_load, restart_redis_under_load


def test_killing_daphne_under_load_loses_no_acknowledged_action(tmp_path):
    report = kill_daphne_under_load(tmp_path, players=6, kills=2, interval=2.0)

    assert report.player_errors == []
    assert report.tally.acknowledged > 50
    assert report.tally.retries > 0  # the kills cut requests, and the players sent them again
    assert report.tally.server_errors == 0
    assert report.mismatches == []  # every acknowledged action logged once, nothing else
    assert report.verify_status == 0, report.verify_output


def test_killing_and_restarting_redis_under_load_pauses_the_live_board_only(tmp_path):
    report = restart_redis_under_load(tmp_path, players=6, before=2.5, down=3.0, after=4.0)

    assert report.player_errors == []
    assert report.tally.server_errors == 0
    assert sum(report.during_outage.values()) > 10
    assert set(report.during_outage) == {200}  # every action acknowledged while Redis was away
    assert report.health_while_down == (200, {"status": "degraded", "redis": "down"})
    assert 4503 in report.close_codes
    assert report.resumed_after is not None and report.resumed_after < 5
    assert report.updates_after > 0
    assert report.resynced

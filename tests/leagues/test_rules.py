"""The leagues' rules as numbers (docs/leagues.md): points, zones, movements, ISO weeks."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from games.errors import GameError
from leagues.models import Movement, Tier
from leagues.rules import (
    MOVEMENT_SQL,
    POINTS_SQL,
    movement_of,
    parse_week,
    points_for,
    week_label,
    week_of,
    zone_size,
)


def test_points_are_ten_plus_ninety_times_the_percentile_rounded_half_up():
    assert points_for(1.0) == 100
    assert points_for(0.0) == 10
    assert points_for(0.5) == 55
    assert points_for(1 / 3) == 40  # 30 exactly, though 90 / 3 is a hair off in floating point
    assert points_for(2 / 3) == 70
    assert points_for(0.25) == 33  # 22.5: half up
    assert points_for(0.75) == 78  # 67.5
    assert points_for(1 - 2 / 3) == 40  # as SQL computes it: 1 - percent_rank


def test_a_third_of_a_division_and_at_most_five_go_up_and_as_many_down():
    assert [zone_size(n) for n in (1, 2, 3, 4, 14, 15, 16, 30)] == [0, 0, 1, 1, 4, 5, 5, 5]


def test_movement_stops_at_the_highest_and_the_lowest_tier():
    assert [movement_of(p, 30, Tier.GOLD) for p in (1, 5, 6, 25, 26, 30)] == [
        Movement.UP,
        Movement.UP,
        Movement.STAY,
        Movement.STAY,
        Movement.DOWN,
        Movement.DOWN,
    ]
    assert movement_of(1, 30, Tier.DIAMOND) == Movement.STAY
    assert movement_of(30, 30, Tier.DIAMOND) == Movement.DOWN
    assert movement_of(30, 30, Tier.BRONZE) == Movement.STAY
    assert movement_of(1, 30, Tier.BRONZE) == Movement.UP
    assert movement_of(1, 2, Tier.GOLD) == Movement.STAY  # a division of two: nobody moves


def test_an_iso_week_is_read_and_written_back():
    assert parse_week("2026-W49") == dt.date(2026, 11, 30)
    assert parse_week("2030-W25") == dt.date(2030, 6, 17)
    assert parse_week("2020-W53") == dt.date(2020, 12, 28)  # 2020 has 53 weeks
    assert week_label(dt.date(2020, 12, 28)) == "2020-W53"
    assert week_of(dt.date(2030, 6, 23)) == dt.date(2030, 6, 17)  # Sunday: its week's Monday
    assert week_label(week_of(dt.date(2027, 1, 1))) == "2026-W53"


@pytest.mark.parametrize("text", ["2026-W60", "2026-W00", "2025-W53", "abc", "2026-49", "2026-W4"])
def test_anything_but_an_iso_week_is_refused(text):
    with pytest.raises(GameError) as refused:
        parse_week(text)

    assert refused.value.code == "invalid_week"
    assert text in refused.value.message


def _numbers(top: int) -> str:
    return f"WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < {top}) "


@pytest.mark.django_db
def test_the_sql_movement_is_movement_of_place_by_place():
    movement = MOVEMENT_SQL.format(place="p.x", members="m.x", tier="(t.x - 1)")
    with connection.cursor() as cursor:
        cursor.execute(
            _numbers(30) + f"SELECT p.x, m.x, t.x - 1, {movement} FROM n p, n m, n t "
            "WHERE p.x <= m.x AND t.x <= 6"
        )
        found = cursor.fetchall()

    assert len(found) == 6 * 30 * 31 // 2
    assert {(place, members, tier): moved for place, members, tier, moved in found} == {
        (place, members, tier): int(movement_of(place, members, tier))
        for members in range(1, 31)
        for place in range(1, members + 1)
        for tier in range(6)
    }


@pytest.mark.django_db
def test_the_sql_points_are_points_for_rank_by_rank():
    # 1 - percent_rank, as the percentiles are computed: (r - 1) / (n - 1) for rank r of n.
    share = "(1.0 - CAST(r.x - 1 AS DOUBLE PRECISION) / (n.x - 1))"
    with connection.cursor() as cursor:
        cursor.execute(
            _numbers(120) + f"SELECT n.x, r.x, {POINTS_SQL.format(percentile=share)} "
            "FROM n, n r WHERE n.x >= 2 AND r.x <= n.x"
        )
        found = {(n, r): points for n, r, points in cursor.fetchall()}

    assert found == {
        (n, r): points_for(1.0 - (r - 1) / (n - 1)) for n in range(2, 121) for r in range(1, n + 1)
    }
    assert found[5, 4] == 33 and found[5, 2] == 78  # 22.5 and 67.5: half up

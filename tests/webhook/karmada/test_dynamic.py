"""Karmada v1.18.2's division by free capacity (Aggregated, dynamic weights), with the tables
of ``pkg/scheduler/core/assignment_test.go`` that scale up (``Test_dynamicScaleUp``, and the
scale-up rows of ``Test_dynamicScale``), of ``division_algorithm_test.go``
(``Test_dynamicDivideReplicas``: a first schedule) and the general estimator's summary path."""

from __future__ import annotations

from fractions import Fraction

import pytest

from webhook.karmada.dynamic import AGGREGATED, DYNAMIC_WEIGHT, available_replicas, scale_up

FILE = "pkg/scheduler/core/assignment_test.go"
M1, M2, M3, M4 = "member1", "member2", "member3", "member4"

# (test and row, strategy, replicas, available per candidate, scheduled, want: None = error)
ROWS: list[tuple[str, str, int, dict[str, int], dict[str, int], dict[str, int] | None]] = [
    (
        "Test_dynamicScaleUp: replica 12, dynamic weight 6:8:10",
        DYNAMIC_WEIGHT,
        12,
        {M1: 6, M2: 8, M3: 10},
        {},
        {M1: 3, M2: 4, M3: 5},
    ),
    (
        "Test_dynamicScaleUp: replica 12, dynamic weight 8:8:10",
        DYNAMIC_WEIGHT,
        12,
        {M1: 8, M2: 8, M3: 10},
        {},
        {M1: 4, M2: 4, M3: 4},
    ),
    (
        "Test_dynamicScaleUp: replica 12, dynamic weight 3:3:3",
        DYNAMIC_WEIGHT,
        12,
        {M1: 3, M2: 3, M3: 3},
        {},
        None,
    ),
    (
        "Test_dynamicScaleUp: replica 12, aggregated 6:8:10",
        AGGREGATED,
        12,
        {M1: 6, M2: 8, M3: 10},
        {},
        {M2: 5, M3: 7},
    ),
    (
        "Test_dynamicScaleUp: replica 12, aggregated 12:8:10",
        AGGREGATED,
        12,
        {M1: 12, M2: 8, M3: 10},
        {},
        {M1: 12},
    ),
    (
        "Test_dynamicScaleUp: replica 12, aggregated 3:3:3",
        AGGREGATED,
        12,
        {M1: 3, M2: 3, M3: 3},
        {},
        None,
    ),
    (
        "Test_dynamicScaleUp: replica 12, dynamic weight 3:3, with cluster3 disappeared and "
        "cluster2 appeared",
        DYNAMIC_WEIGHT,
        12,
        {M1: 3, M2: 3},
        {M1: 6, M3: 6},
        {M1: 9, M2: 3},
    ),
    (
        "Test_dynamicScale: replica 12 -> 24, dynamic weighted 10:10:10",
        DYNAMIC_WEIGHT,
        24,
        {M1: 10, M2: 10, M3: 10},
        {M1: 2, M2: 4, M3: 6},
        {M1: 6, M2: 8, M3: 10},
    ),
    (
        "Test_dynamicScale: replica 12 -> 24, dynamic weighted 1:1:1",
        DYNAMIC_WEIGHT,
        24,
        {M1: 1, M2: 1, M3: 1},
        {M1: 2, M2: 4, M3: 6},
        None,
    ),
    (
        "Test_dynamicScale: replica 12 -> 24, aggregated 4:6:8",
        AGGREGATED,
        24,
        {M1: 4, M2: 6, M3: 8},
        {M1: 4, M2: 8},
        {M1: 7, M2: 12, M3: 5},
    ),
    (
        "Test_dynamicScale: replica 12 -> 24, aggregated 6:6:20",
        AGGREGATED,
        24,
        {M1: 6, M2: 6, M3: 20},
        {M1: 4, M2: 8},
        {M1: 10, M2: 14},
    ),
    (
        "Test_dynamicScale: replica 12 -> 24, aggregated 1:1:1",
        AGGREGATED,
        24,
        {M1: 1, M2: 1, M3: 1},
        {M1: 4, M2: 8},
        None,
    ),
    (
        "Test_dynamicScale: replica 12 -> 24, aggregated 4:8:12, with cluster2 disappeared and "
        "cluster4 appeared",
        AGGREGATED,
        24,
        {M1: 4, M3: 8, M4: 12},
        {M1: 4, M2: 8},
        {M1: 7, M3: 7, M4: 10},
    ),
]


@pytest.mark.parametrize(
    ("strategy", "replicas", "available", "scheduled", "want"),
    [pytest.param(*row[1:], id=row[0]) for row in ROWS],
)
def test_karmada_scale_up_tables(
    strategy: str,
    replicas: int,
    available: dict[str, int],
    scheduled: dict[str, int],
    want: dict[str, int] | None,
) -> None:
    result = scale_up(strategy, replicas, available, scheduled)
    assert result.replicas == want
    assert result.available == sum(available.values())


# division_algorithm_test.go, Test_dynamicDivideReplicas: (row, strategy, replicas, available
# per cluster, want); nothing scheduled yet.
DIVIDE_ROWS: list[tuple[str, str, int, dict[str, int], dict[str, int]]] = [
    ("replica 12, dynamic weight 18:12:6", DYNAMIC_WEIGHT, 12, {M1: 18, M2: 12, M3: 6},
     {M1: 6, M2: 4, M3: 2}),
    ("replica 12, dynamic weight 20:12:6", DYNAMIC_WEIGHT, 12, {M1: 20, M2: 12, M3: 6},
     {M1: 6, M2: 4, M3: 2}),
    ("replica 12, dynamic weight 6:12:6", DYNAMIC_WEIGHT, 12, {M1: 6, M2: 12, M3: 6},
     {M1: 3, M2: 6, M3: 3}),
    ("replica 12, aggregated 12:6:6", AGGREGATED, 12, {M2: 12, M1: 6, M3: 6}, {M2: 12}),
    ("replica 12, aggregated 6:6:6", AGGREGATED, 12, {M1: 6, M2: 6, M3: 6}, {M1: 6, M2: 6}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("strategy", "replicas", "available", "want"),
    [pytest.param(*row[1:], id=f"Test_dynamicDivideReplicas: {row[0]}") for row in DIVIDE_ROWS],
)
def test_karmada_first_division_tables(
    strategy: str, replicas: int, available: dict[str, int], want: dict[str, int]
) -> None:
    result = scale_up(strategy, replicas, available)
    assert (result.replicas, result.alternative) == (want, None)


def test_a_tie_shows_both_outcomes() -> None:
    """3 replicas over two clusters with room for 5 each: the UID's hash picks who gets 2."""
    result = scale_up(DYNAMIC_WEIGHT, 3, {"a": 5, "b": 5})
    assert (result.replicas, result.alternative) == ({"a": 2, "b": 1}, {"a": 1, "b": 2})


def test_nothing_missing_keeps_what_the_binding_has() -> None:
    assert scale_up(AGGREGATED, 4, {"a": 0, "b": 9}, {"a": 4}).replicas == {"a": 4}


GI = 2**30


@pytest.mark.parametrize(
    ("free", "pod", "count"),
    [
        pytest.param({"cpu": Fraction(4), "pods": Fraction(100)}, {"cpu": Fraction(1, 2)}, 8),
        pytest.param(
            {"cpu": Fraction(4), "memory": Fraction(3 * GI), "pods": Fraction(100)},
            {"cpu": Fraction(1, 2), "memory": Fraction(GI), "pods": Fraction(1)},
            3,
            id="memory is the tightest",
        ),
        pytest.param(
            {"cpu": Fraction(4), "pods": Fraction(2)},
            {"cpu": Fraction(1, 10), "pods": Fraction(1)},
            2,
            id="pods",
        ),
        pytest.param(
            {"cpu": Fraction(-1), "pods": Fraction(5)},
            {"cpu": Fraction(1, 10), "pods": Fraction(1)},
            0,
            id="already over",
        ),
        pytest.param({"cpu": Fraction(4)}, {"cpu": Fraction(0), "memory": Fraction(GI)}, 0),
    ],
)
def test_available_replicas_by_the_cluster_summary(
    free: dict[str, Fraction], pod: dict[str, Fraction], count: int
) -> None:
    assert available_replicas(free, pod) == count

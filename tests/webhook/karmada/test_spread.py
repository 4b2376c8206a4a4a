"""Karmada v1.18.2's spread-constraint selection, with the tables of
``pkg/scheduler/core/spreadconstraint/select_groups_test.go`` (``TestSelectGroups``),
``select_clusters_by_region_test.go`` (``Test_selectBestClustersByRegion``),
``select_clusters_test.go`` (``TestSelectBestClusters``) and ``group_clusters_test.go``
(``Test_CalcGroupScoreForDuplicate``)."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.karmada.spread import Detail, Group, by_region, group_score, select, select_groups

# TestSelectGroups: (name, groups (name, value, weight), min, max, target, expected names)
GROUPS: list[tuple[str, list[tuple[str, int, int]], int, int, int, list[str] | None]] = [
    ("empty groups", [], 2, 3, 1, None),
    ("no enough groups", [("R1", 1, 80)], 2, 3, 1, None),
    ("no enough value", [("R1", 1, 80), ("R2", 2, 30)], 2, 3, 4, None),
    ("select one group", [("R1", 1, 80)], 1, 3, 1, ["R1"]),
    (
        "prioritize one path",
        [("R1", 1, 80), ("R3", 1, 80), ("R2", 1, 60), ("R5", 2, 60), ("R4", 5, 50), ("R6", 3, 50)],
        1,
        3,
        10,
        ["R5", "R4", "R6"],
    ),
    (
        "select groups with less total number",
        [("R1", 1, 80), ("R2", 4, 40), ("R3", 1, 30), ("R4", 3, 30), ("R5", 3, 20), ("R6", 5, 10)],
        2,
        6,
        5,
        ["R1", "R2"],
    ),
    (
        "select groups with the highest score",
        [("R1", 1, 60), ("R2", 1, 50), ("R3", 1, 40), ("R4", 3, 30), ("R5", 3, 20), ("R6", 3, 10)],
        1,
        3,
        6,
        ["R1", "R4", "R5"],
    ),
    (
        "select groups that are chosen earlier",
        [("R1", 1, 60), ("R2", 2, 50), ("R3", 3, 40), ("R4", 4, 30)],
        1,
        2,
        5,
        ["R1", "R4"],
    ),
    (
        "select groups with greater value",
        [("R4", 1, 60), ("R3", 3, 50), ("R1", 3, 40), ("R2", 4, 30)],
        1,
        2,
        5,
        ["R3", "R1"],
    ),
]


@pytest.mark.parametrize(
    ("groups", "low", "high", "target", "expected"),
    [pytest.param(*row[1:], id=row[0]) for row in GROUPS],
)
def test_select_groups_table(
    groups: list[tuple[str, int, int]],
    low: int,
    high: int,
    target: int,
    expected: list[str] | None,
) -> None:
    chosen = select_groups([Group(*g) for g in groups], low, high, target)
    assert (None if chosen is None else [g.name for g in chosen]) == expected


R = dict[str, tuple[int, list[tuple[str, int, int]]]]
# Test_selectBestClustersByRegion: (name, region (min, max), cluster (min, max),
# regions {name: (score, [(cluster, score, available)])}, want: None = an error)
REGIONS: list[tuple[str, tuple[int, int], tuple[int, int], R, list[str] | None]] = [
    (
        "select cluster from the region with the higher score",
        (1, 1),
        (2, 2),
        {
            "R1": (100, [("member1", 100, 40), ("member2", 80, 40)]),
            "R2": (80, [("member3", 80, 40), ("member4", 80, 40), ("member5", 60, 40)]),
        },
        ["member1", "member2"],
    ),
    (
        "select cluster from the region with enough clusters",
        (1, 1),
        (3, 3),
        {
            "R1": (100, [("member1", 100, 40), ("member2", 80, 40)]),
            "R2": (80, [("member3", 80, 40), ("member4", 80, 40), ("member5", 60, 40)]),
        },
        ["member3", "member4", "member5"],
    ),
    (
        "select cluster from the region with enough clusters and higher score",
        (2, 2),
        (4, 5),
        {
            "R1": (90, [("member1", 90, 40)]),
            "R2": (70, [("member2", 70, 40), ("member3", 60, 40), ("member4", 30, 40)]),
            "R3": (80, [("member5", 80, 40), ("member6", 50, 60)]),
            "R4": (
                50,
                [
                    ("member7", 50, 50),
                    ("member8", 40, 50),
                    ("member9", 10, 50),
                    ("member10", 0, 50),
                ],
            ),
        },
        ["member1", "member2", "member3", "member4"],
    ),
    (
        "select cluster from more than `minGroups` regions with enough clusters and higher score",
        (1, 3),
        (6, 8),
        {
            "R1": (70, [("member1", 70, 40)]),
            "R2": (40, [("member2", 40, 40), ("member3", 40, 40), ("member4", 40, 40)]),
            "R3": (60, [("member5", 60, 40), ("member6", 50, 60)]),
            "R4": (70, [("member7", 70, 100)]),
            "R5": (50, [("member8", 50, 50)]),
        },
        ["member1", "member5", "member2", "member6", "member3", "member4"],
    ),
    (
        "no enough region",
        (3, 3),
        (3, 3),
        {
            "R1": (100, [("member1", 100, 40), ("member2", 80, 40)]),
            "R2": (80, [("member3", 80, 40), ("member4", 80, 40), ("member5", 60, 40)]),
        },
        None,
    ),
    (
        "no enough clusters",
        (1, 1),
        (4, 4),
        {
            "R1": (100, [("member1", 100, 40), ("member2", 80, 60)]),
            "R2": (80, [("member3", 80, 40), ("member4", 80, 40), ("member5", 60, 40)]),
        },
        None,
    ),
    (
        "no more regions to replace",
        (1, 1),
        (3, 4),
        {"R1": (100, [("member1", 100, 40), ("member2", 80, 20)])},
        None,
    ),
]


@pytest.mark.parametrize(
    ("region", "cluster", "regions", "want"),
    [pytest.param(*row[1:], id=row[0]) for row in REGIONS],
)
def test_select_best_clusters_by_region_table(
    region: tuple[int, int], cluster: tuple[int, int], regions: R, want: list[str] | None
) -> None:
    given = {
        name: (score, [Detail(c, name, s, a) for c, s, a in found])
        for name, (score, found) in regions.items()
    }
    result = by_region(given, region, cluster)
    assert (list(result.clusters) if result.error is None else None) == want


def details(**regions: str) -> list[Detail]:
    return [Detail(name.replace("_", "-"), region, 0, 10) for name, region in regions.items()]


DUPLICATED_ONE_REGION: dict[str, Any] = {
    "spreadConstraints": [
        {"spreadByField": "region", "maxGroups": 1, "minGroups": 1},
        {"spreadByField": "cluster", "maxGroups": 2, "minGroups": 1},
    ]
}


def test_duplicated_in_one_region_takes_the_region_with_more_clusters() -> None:
    found = details(a="eu", b="eu", c="us")
    assert select(DUPLICATED_ONE_REGION, found, 2).clusters == ("a", "b")


def test_the_clusters_the_binding_targets_win_a_tie() -> None:
    found = [Detail("a", "eu", 0, 10), Detail("c", "us", 100, 10)]
    assert select(DUPLICATED_ONE_REGION, found, 2).clusters == ("c",)


def test_zone_alone_fails_the_scheduler() -> None:
    placement = {"spreadConstraints": [{"spreadByField": "zone", "maxGroups": 1}]}
    assert select(placement, details(a="eu"), 1).error is not None


def test_static_weights_ignore_spread_constraints() -> None:
    placement = {
        **DUPLICATED_ONE_REGION,
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {"staticWeightList": [{"targetCluster": {}, "weight": 1}]},
        },
    }
    assert select(placement, details(a="eu", b="eu", c="us"), 2).clusters == ("a", "b", "c")


# select_clusters_test.go, generateClusterInfo: (name, region, score, available replicas), in
# the order the test hands them over (score, highest first).
BEST = [
    Detail("member4", "R2", 60, 50),
    Detail("member2", "R1", 40, 60),
    Detail("member3", "R1", 30, 80),
    Detail("member1", "R1", 20, 40),
]
BY_CLUSTER = [{"spreadByField": "cluster", "maxGroups": 2, "minGroups": 1}]
STATIC = {
    "replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted",
    "weightPreference": {
        "staticWeightList": [{"targetCluster": {"clusterNames": ["member1"]}, "weight": 2}]
    },
}
# The Go test leaves replicaDivisionPreference empty (the API server would default it to
# Weighted, which ignores the constraints): the port passes it empty too.
DIVIDED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": ""}

# TestSelectBestClusters: (name, placement, needReplicas, want; None: an error)
SELECT_BEST: list[tuple[str, dict[str, Any], int, list[str] | None]] = [
    (
        "select clusters by cluster score",
        {"spreadConstraints": BY_CLUSTER},
        100,
        ["member4", "member2"],
    ),
    (
        "select clusters by cluster score and ignore available resources when scheduling "
        "strategy is duplicated",
        {
            "spreadConstraints": BY_CLUSTER,
            "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
        },
        120,
        ["member4", "member2"],
    ),
    (
        "select clusters by cluster score and ignore available resources when scheduling "
        "strategy is static weight",
        {"spreadConstraints": BY_CLUSTER, "replicaScheduling": STATIC},
        120,
        ["member4", "member2", "member3", "member1"],
    ),
    (
        "select clusters by cluster score and satisfy available resources",
        {"spreadConstraints": BY_CLUSTER, "replicaScheduling": DIVIDED},
        120,
        ["member4", "member3"],
    ),
    (
        "select clusters by cluster score and insufficient resources",
        {"spreadConstraints": BY_CLUSTER, "replicaScheduling": DIVIDED},
        200,
        None,
    ),
    (
        "select clusters by cluster score and exceeded the number of available clusters.",
        {"spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 7, "minGroups": 7}]},
        30,
        None,
    ),
]


@pytest.mark.parametrize(
    ("placement", "replicas", "want"),
    [pytest.param(*row[1:], id=row[0]) for row in SELECT_BEST],
)
def test_select_best_clusters_table(
    placement: dict[str, Any], replicas: int, want: list[str] | None
) -> None:
    result = select(placement, BEST, replicas)
    assert (list(result.clusters) if result.error is None else None) == want


@pytest.mark.parametrize(
    "clusters",
    [
        pytest.param([], id="get 0 score when clusters is empty"),
        pytest.param(
            [Detail("member1", "", 50, 5), Detail("member2", "", 50, 5)],
            id="get 0 score when all clusters can not meet the replica requirements",
        ),
    ],
)
def test_calc_group_score_for_duplicate_table(clusters: list[Detail]) -> None:
    assert group_score(clusters, 10, {}, 1) == 0

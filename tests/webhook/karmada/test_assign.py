"""The scheduler's whole step after filtering and scoring (``webhook/karmada/assign.py``):
named cases recorded from Karmada v1.18.2's own code through the oracle
(``tests/oracles/karmada``, ``divide``), each a mismatch the differential found or a path it
must keep (``tests/oracles/test_karmada_division.py`` replays them against Karmada every run)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from webhook.bundle.model import Cluster
from webhook.karmada.assign import Candidate, assign

AGGREGATED = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Aggregated",
    }
}
DYNAMIC = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"},
    }
}


def static(weights: dict[str, int]) -> dict[str, Any]:
    entries = [{"targetCluster": {"clusterNames": [n]}, "weight": w} for n, w in weights.items()]
    return {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"staticWeightList": entries},
        }
    }


def by_cluster(placement: dict[str, Any], low: int, high: int) -> dict[str, Any]:
    spread = [{"spreadByField": "cluster", "minGroups": low, "maxGroups": high}]
    return {**placement, "spreadConstraints": spread}


@dataclass(frozen=True)
class Row:
    """Candidates (room each), replicas, placement, the last result, UID; ``want``: replicas
    per cluster (0: not a workload) or ``None``: the scheduler fails."""

    room: dict[str, int]
    replicas: int
    placement: dict[str, Any]
    want: dict[str, int] | None
    previous: list[tuple[str, int]] = field(default_factory=list)
    uid: str = ""
    regions: dict[str, str] = field(default_factory=dict)
    requirements: bool = False


ROWS = {
    "room-summed-past-int32-wraps": Row({"a": 2**31 - 2, "b": 10}, 4, DYNAMIC, None),
    "max-int32-room-is-no-bound": Row({"a": 2**31 - 1, "b": 1}, 4, AGGREGATED, {"a": 4}),
    "weights-summing-to-2-to-the-64-read-as-equal": Row(
        {"a": 1, "b": 1, "c": 1},
        3,
        static({"a": 2, "b": 2**63 - 1, "c": 2**63 - 1}),
        {"a": 1, "b": 1, "c": 1},
    ),
    "float64-tie-of-weights-past-2-to-the-53": Row(
        {"a": 1, "b": 1}, 1, static({"a": 2**53, "b": 2**53 + 1}), {"a": 1}
    ),
    "cluster-constraint-of-0-groups-fails-divided": Row(
        {"a": 5, "b": 5}, 2, by_cluster(DYNAMIC, 1, 0), None
    ),
    "cluster-constraint-of-0-groups-duplicated-has-no-clusters": Row(
        {"a": 5, "b": 5}, 2, by_cluster({}, 1, 0), None
    ),
    "scale-down-dynamic-by-what-each-has": Row(
        {"a": 0, "b": 0}, 5, DYNAMIC, {"a": 3, "b": 2}, [("a", 6), ("b", 4)]
    ),
    "scale-down-aggregated-keeps-the-fewest": Row(
        {"a": 0, "b": 0, "c": 0}, 5, AGGREGATED, {"b": 5}, [("a", 2), ("b", 6), ("c", 3)]
    ),
    "scale-up-adds-to-what-the-binding-has": Row(
        {"a": 4, "b": 8}, 8, DYNAMIC, {"a": 4, "b": 4}, [("a", 2)]
    ),
    "scale-up-aggregated-fills-the-used-cluster-first": Row(
        {"a": 3, "b": 8}, 5, AGGREGATED, {"a": 2, "b": 3}, [("a", 1)]
    ),
    "previous-on-a-cluster-gone-is-scheduled-again": Row(
        {"a": 5, "b": 5}, 4, DYNAMIC, {"a": 2, "b": 2}, [("gone", 4)]
    ),
    "same-count-keeps-the-last-result": Row(
        {"a": 0, "b": 0}, 4, AGGREGATED, {"a": 1, "b": 3}, [("a", 1), ("b", 3)]
    ),
    "not-a-workload-goes-everywhere": Row({"a": 0, "b": 0}, 0, DYNAMIC, {"a": 0, "b": 0}),
    "no-candidates-fail": Row({}, 3, DYNAMIC, None),
    "workload-of-0-replicas-duplicated-goes-nowhere": Row(
        {"a": 5, "b": 5}, 0, {}, {}, requirements=True
    ),
    "workload-of-0-replicas-scales-down-to-nothing": Row(
        {"a": 5, "b": 5}, 0, DYNAMIC, {}, [("a", 2), ("b", 1)], requirements=True
    ),
    "too-little-room-fails": Row({"a": 1, "b": 1}, 3, AGGREGATED, None),
    "odd-uid-tie-to-larger-name": Row({"a": 5, "b": 5}, 1, DYNAMIC, {"b": 1}, uid="uid-1"),
    "even-uid-tie-to-smaller-name": Row({"a": 5, "b": 5}, 1, DYNAMIC, {"a": 1}, uid="uid-0"),
    "region-spread-aggregated-in-the-selection-order": Row(
        {"a": 3, "b": 3, "c": 9},
        4,
        {
            **AGGREGATED,
            "spreadConstraints": [
                {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
                {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2},
            ],
        },
        {"c": 4},
        regions={"a": "us", "b": "eu", "c": "us"},
    ),
}


def candidates(row: Row) -> list[Candidate]:
    scheduled = {name for name, _ in row.previous}
    return [
        Candidate(
            Cluster(name, {}, region=row.regions.get(name)), 100 if name in scheduled else 0, room
        )
        for name, room in row.room.items()
    ]


def oracle_request(row: Row) -> dict[str, Any]:
    """The row as the oracle's ``divide`` request."""
    scheduled = {name for name, _ in row.previous}
    return {
        "op": "divide",
        "candidates": [
            {
                "cluster": {
                    "metadata": {"name": name},
                    "spec": {"region": row.regions[name]} if name in row.regions else {},
                },
                "score": 100 if name in scheduled else 0,
                "available": room,
            }
            for name, room in row.room.items()
        ],
        "replicas": row.replicas,
        "placement": row.placement,
        "previous": [{"name": n, "replicas": r} for n, r in row.previous],
        "uid": row.uid,
        "requirements": row.requirements,
    }


@pytest.mark.parametrize("name", list(ROWS))
def test_assign_as_karmada_v1_18_2(name: str) -> None:
    row = ROWS[name]
    done = assign(
        row.placement,
        candidates(row),
        row.replicas,
        row.previous,
        row.uid,
        requirements=row.requirements,
    )
    got = None if done.error else {c: n or 0 for c, n in done.clusters.items()}
    assert got == row.want

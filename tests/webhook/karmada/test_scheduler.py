"""Placement as Karmada's scheduler computes it without live capacity (karmada v1.18.0
pkg/scheduler/core, reference/karmada-v1.18/division.md)."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.bundle.model import Bundle
from webhook.karmada.interpreter import Replicas
from webhook.karmada.scheduler import schedule

WEIGHTED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}


@pytest.mark.parametrize(
    ("placement", "replicas", "expected"),
    [
        pytest.param(
            {},
            None,
            {"cluster-a": None, "cluster-b": None, "cluster-c": None},
            id="no-affinity-every-cluster",
        ),
        pytest.param(
            {"clusterAffinity": {"clusterNames": ["cluster-a"]}},
            Replicas(3, False),
            {"cluster-a": 3},
            id="duplicated-by-default",
        ),
        pytest.param(
            {"replicaScheduling": {}},
            Replicas(4, False),
            {"cluster-a": 2, "cluster-b": 1, "cluster-c": 1},
            id="empty-strategy-is-divided-equal",
        ),
        pytest.param(
            {
                "replicaScheduling": {
                    **WEIGHTED,
                    "weightPreference": {
                        "staticWeightList": [
                            {
                                "targetCluster": {
                                    "labelSelector": {"matchLabels": {"residency": "eu"}}
                                },
                                "weight": 1,
                            },
                            {"targetCluster": {"clusterNames": ["cluster-a"]}, "weight": 3},
                        ]
                    },
                }
            },
            Replicas(4, False),
            {"cluster-a": 3, "cluster-b": 1},
            id="static-weights-max-of-matching-entries-unmatched-get-none",
        ),
        pytest.param(
            {
                "replicaScheduling": {
                    **WEIGHTED,
                    "weightPreference": {
                        "staticWeightList": [
                            {"targetCluster": {"clusterNames": ["nowhere"]}, "weight": 5},
                        ]
                    },
                }
            },
            Replicas(3, False),
            {"cluster-a": 1, "cluster-b": 1, "cluster-c": 1},
            id="no-entry-matching-means-equal",
        ),
        pytest.param(
            {"replicaScheduling": WEIGHTED},
            Replicas(0, True),
            {},
            id="zero-with-requirements-goes-nowhere",
        ),
        pytest.param(
            {"replicaScheduling": WEIGHTED},
            Replicas(0, False),
            {"cluster-a": None, "cluster-b": None, "cluster-c": None},
            id="zero-without-is-not-a-workload",
        ),
        pytest.param(
            {
                "clusterAffinities": [
                    {"affinityName": "us", "clusterNames": ["nowhere"]},
                    {"affinityName": "eu", "labelSelector": {"matchLabels": {"residency": "eu"}}},
                ]
            },
            Replicas(2, False),
            {"cluster-a": 2, "cluster-b": 2},
            id="affinities-first-term-that-fits",
        ),
        pytest.param(
            {"spreadConstraints": [{"spreadByField": "zone"}]},
            None,
            {},
            id="spread-by-a-missing-field-filters",
        ),
    ],
)
def test_schedule(
    placement: dict[str, Any], replicas: Replicas | None, expected: dict[str, Any], bundle: Bundle
) -> None:
    assert dict(schedule(placement, replicas, bundle.clusters).clusters) == expected


def test_dynamic_weights_show_the_most_each_cluster_can_get(bundle: Bundle) -> None:
    placement = {
        "replicaScheduling": {
            **WEIGHTED,
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    }
    result = schedule(placement, Replicas(5, False), bundle.clusters)
    assert dict(result.clusters) == {"cluster-a": 5, "cluster-b": 5, "cluster-c": 5}
    assert "free capacity" in result.notes[0]


def test_a_tie_shows_both_outcomes(bundle: Bundle) -> None:
    placement = {
        "clusterAffinity": {"clusterNames": ["cluster-a", "cluster-b"]},
        "replicaScheduling": WEIGHTED,
    }
    result = schedule(placement, Replicas(3, False), bundle.clusters)
    assert dict(result.clusters) == {"cluster-a": 2, "cluster-b": 1}
    assert result.alternative == {"cluster-a": 1, "cluster-b": 2}


def test_weights_after_spread_constraints_show_the_most_each_cluster_can_get(
    bundle: Bundle,
) -> None:
    """A weightPreference without a staticWeightList keeps the spread constraints: Karmada
    divides among the clusters they pick by room, so one can get more than a division over
    all (the division oracle found c getting 1 of 2 where the webhook showed it none)."""
    placement = {
        "replicaScheduling": {**WEIGHTED, "weightPreference": {}},
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}],
    }
    result = schedule(placement, Replicas(2, False), bundle.clusters)
    assert dict(result.clusters) == {"cluster-a": 2, "cluster-b": 2, "cluster-c": 2}
    assert "spread constraints pick the clusters" in result.notes[-1]

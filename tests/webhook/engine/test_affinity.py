from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.karmada.tables import cluster_match_cases, selector_cluster
from webhook.bundle.model import Bundle, Cluster
from webhook.engine.affinity import candidate_clusters, unknown_cluster_names


@pytest.mark.parametrize(
    ("affinity", "expected"),
    [
        pytest.param(None, ("cluster-a", "cluster-b", "cluster-c"), id="none-means-all"),
        pytest.param({}, ("cluster-a", "cluster-b", "cluster-c"), id="empty-means-all"),
        pytest.param({"clusterNames": ["cluster-b"]}, ("cluster-b",), id="names"),
        pytest.param(
            {"labelSelector": {"matchLabels": {"residency": "eu"}}},
            ("cluster-a", "cluster-b"),
            id="labels",
        ),
        pytest.param(
            {
                "labelSelector": {
                    "matchExpressions": [
                        {"key": "region", "operator": "NotIn", "values": ["eu-west"]}
                    ]
                }
            },
            ("cluster-b", "cluster-c"),
            id="not-in",
        ),
        pytest.param(
            {"labelSelector": {"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}},
            ("cluster-a", "cluster-b", "cluster-c"),
            id="does-not-exist",
        ),
        pytest.param(
            {
                "fieldSelector": {
                    "matchExpressions": [{"key": "provider", "operator": "In", "values": ["aws"]}]
                }
            },
            ("cluster-a", "cluster-c"),
            id="field-provider",
        ),
        pytest.param(
            {"labelSelector": {"matchLabels": {"residency": "eu"}}, "exclude": ["cluster-a"]},
            ("cluster-b",),
            id="exclude-wins",
        ),
        pytest.param(
            {
                "clusterNames": ["cluster-a", "cluster-c"],
                "labelSelector": {"matchLabels": {"residency": "eu"}},
            },
            ("cluster-a",),
            id="criteria-are-anded",
        ),
        pytest.param(
            {
                "labelSelector": {
                    "matchExpressions": [{"key": "region", "operator": "Gt", "values": ["1"]}]
                }
            },
            (),
            id="bad-operator",
        ),
    ],
)
def test_candidates(
    bundle: Bundle, affinity: dict[str, Any] | None, expected: tuple[str, ...]
) -> None:
    assert candidate_clusters(affinity, bundle.clusters) == expected


def test_unknown_names(bundle: Bundle) -> None:
    affinity = {"clusterNames": ["cluster-a", "cluster-x"], "exclude": ["cluster-y"]}
    assert unknown_cluster_names(affinity, bundle.clusters) == ("cluster-x", "cluster-y")


@pytest.mark.parametrize(("affinity", "want"), cluster_match_cases())
def test_the_tenancy_rules_select_as_karmadas_own_tables(
    affinity: dict[str, Any], want: bool
) -> None:
    """The clusters a placement is judged on are the ones Karmada's scheduler selects: its
    ClusterMatches table (v1.18.0, the one the scheduler simulation runs) through the
    engine's path, zones, numeric field requirements and invalid selectors included."""
    cluster = selector_cluster()
    assert candidate_clusters(affinity, {cluster.name: cluster}) == (
        (cluster.name,) if want else ()
    )


def test_a_cluster_spanning_zones_is_selected_by_any_of_them() -> None:
    """Judged on its first zone only, a placement on the second zone was read as selecting
    nothing, where Karmada places on the cluster (``matchZones``)."""
    clusters = {
        "wide": Cluster("wide", {}, zone="z1", zones=("z1", "z2")),
        "narrow": Cluster("narrow", {}, zone="z1"),
    }
    affinity = {
        "fieldSelector": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z2"]}]}
    }
    assert candidate_clusters(affinity, clusters) == ("wide",)

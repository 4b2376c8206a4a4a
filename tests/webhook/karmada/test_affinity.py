from __future__ import annotations

from typing import Any

import pytest

from webhook.bundle.model import Bundle
from webhook.karmada.selector import candidate_clusters, unknown_cluster_names


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

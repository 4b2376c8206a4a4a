"""Karmada's selector tables (``cases/selector.yaml``, ported from karmada-io/karmada v1.18.0
pkg/util/selector_test.go) through ``webhook/karmada/selector.py``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.karmada.tables import (
    cluster_match_cases,
    extract_cluster_fields_cases,
    match_zones_cases,
    propagation_policy,
    resource_priority_cases,
    selector_cluster,
    selector_tables,
    unique_selector_cases,
    unique_selector_objects,
)
from webhook.bundle.model import Cluster
from webhook.karmada.detector import Policies
from webhook.karmada.selector import (
    ImplicitPriority,
    cluster_fields,
    cluster_matches,
    labels_match,
    requires_a_label,
    selector_priority,
    selectors_priority,
)
from webhook.karmada.selector import _zones_match as match_zones


@pytest.mark.parametrize(("affinity", "want"), cluster_match_cases())
def test_cluster_matches(affinity: dict[str, Any], want: bool) -> None:
    assert cluster_matches(selector_cluster(), affinity) is want


@pytest.mark.parametrize(("cluster", "want"), extract_cluster_fields_cases())
def test_extract_cluster_fields(cluster: Cluster, want: dict[str, str]) -> None:
    assert cluster_fields(cluster) == want


@pytest.mark.parametrize(("selectors", "want"), resource_priority_cases())
def test_resource_priority(selectors: list[dict[str, Any]], want: int) -> None:
    resource = selector_tables()["resource"]
    assert selectors_priority(resource, selectors) == ImplicitPriority(want)
    if len(selectors) == 1:
        assert selector_priority(resource, selectors[0]) == ImplicitPriority(want)


@pytest.mark.parametrize(("selectors", "want"), unique_selector_cases())
def test_unique_namespaced_selectors(
    selectors: list[dict[str, Any]], want: list[tuple[str, str]]
) -> None:
    """The detector claims, for each template, by the policy's selectors: the templates of the
    kinds Karmada's dedup keeps, and no other."""
    policies = Policies.of([propagation_policy(selectors)])
    claimed = [
        (o["apiVersion"], o["kind"])
        for o in unique_selector_objects(selectors)
        if policies.claim(o).policy is not None
    ]
    assert claimed == want


@pytest.mark.parametrize(("expression", "zones", "matched"), match_zones_cases())
def test_match_zones(expression: dict[str, Any], zones: list[str], matched: bool) -> None:
    assert match_zones(expression, zones) is matched


@pytest.mark.parametrize(
    ("selector", "labels", "matched"),
    [
        pytest.param({}, {"a": "b"}, True, id="empty-selects-everything"),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "In"}]},
            {"a": "b"},
            False,
            id="in-without-values-is-invalid",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
            {"a": "b"},
            False,
            id="exists-with-values-is-invalid",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "zzz", "operator": "DoesNotExist"}]},
            {"a": "b"},
            True,
            id="does-not-exist",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["c"]}]},
            {},
            True,
            id="not-in-a-missing-key",
        ),
        pytest.param(
            {"matchLabels": {"a": "b c"}},
            {"a": "b c"},
            False,
            id="an-invalid-value-selects-nothing",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
            {"a": "2"},
            False,
            id="gt-is-not-a-label-operator",
        ),
    ],
)
def test_label_selectors_as_kubernetes_builds_them(
    selector: dict[str, Any], labels: dict[str, str], matched: bool
) -> None:
    assert labels_match(selector, labels) is matched


@pytest.mark.parametrize(
    ("label_selector", "want"),
    [
        pytest.param(None, False, id="no label selector: every object"),
        pytest.param({}, False, id="empty: every object"),
        pytest.param({"matchLabels": {"app": "web"}}, True, id="matchLabels"),
        pytest.param({"matchExpressions": [{"key": "zzz", "operator": "DoesNotExist"}]}, False),
        pytest.param(
            {"matchExpressions": [{"key": "t", "operator": "NotIn", "values": ["b"]}]}, False
        ),
        pytest.param({"matchExpressions": [{"key": "t", "operator": "Exists"}]}, True),
        pytest.param(
            {
                "matchExpressions": [
                    {"key": "zzz", "operator": "DoesNotExist"},
                    {"key": "t", "operator": "In", "values": ["a"]},
                ]
            },
            True,
            id="one positive requirement is enough",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "t", "operator": "In"}]}, True, id="invalid: nothing"
        ),
    ],
)
def test_requires_a_label(label_selector: dict[str, Any] | None, want: bool) -> None:
    selector: dict[str, Any] = {"apiVersion": "v1", "kind": "Secret"}
    if label_selector is not None:
        selector["labelSelector"] = label_selector
    assert requires_a_label(selector) is want


@pytest.mark.parametrize(
    ("expression", "matched"),
    [
        # lifted.NodeSelectorRequirementsAsSelector builds each requirement with
        # labels.NewRequirement (apimachinery v0.35.3, vendored by karmada v1.18.0), which checks
        # every value as a label value whatever the operator: "-5" and "+5" parse as integers
        # but are not label values, so the selector fails to build and matches no cluster.
        pytest.param({"operator": "Gt", "values": ["5"]}, True, id="gt"),
        pytest.param({"operator": "Lt", "values": ["20"]}, True, id="lt"),
        pytest.param({"operator": "Gt", "values": ["10"]}, False, id="gt-equal"),
        pytest.param({"operator": "Gt", "values": ["-5"]}, False, id="gt-negative-not-a-label"),
        pytest.param({"operator": "Gt", "values": ["+5"]}, False, id="gt-plus-not-a-label"),
        pytest.param({"operator": "Gt", "values": ["5", "6"]}, False, id="gt-two-values"),
        pytest.param({"operator": "Gt", "values": ["x"]}, False, id="gt-not-an-integer"),
        pytest.param({"operator": "in", "values": ["10"]}, False, id="lower-case-in"),
        pytest.param({"operator": "", "values": ["10"]}, False, id="empty-operator"),
        pytest.param({"values": ["10"]}, False, id="absent-operator"),
    ],
)
def test_field_selector_operators_on_a_numeric_region(
    expression: dict[str, Any], matched: bool
) -> None:
    cluster = Cluster("c", {}, provider="aws", region="10")
    affinity = {"fieldSelector": {"matchExpressions": [{"key": "region", **expression}]}}
    assert cluster_matches(cluster, affinity) is matched

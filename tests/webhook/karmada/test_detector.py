"""Which policy claims a template: Karmada's tables (``cases/detector.yaml``, ported from
karmada-io/karmada v1.18.0 pkg/detector/compare_test.go) and the detector's other steps."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.webhook.karmada.tables import (
    POLICY_API,
    detector_cases,
    detector_objects,
    event_filter_cases,
    higher_priority_cases,
    kind_only_policy,
    look_for_cases,
)
from webhook.karmada.detector import Policies, _best, not_a_template, policy_ref


@pytest.mark.parametrize(("kind", "row"), detector_cases())
def test_highest_priority_policy(kind: str, row: dict[str, Any]) -> None:
    template, policies = detector_objects(kind, row)
    claim = Policies.of(policies).claim(template)
    assert (policy_ref(claim.policy)[2] if claim.policy else None) == row["want"]


@pytest.mark.parametrize(("kind", "row"), higher_priority_cases())
def test_higher_priority_policy(kind: str, row: dict[str, Any]) -> None:
    """getHigherPriority*PropagationPolicy through the detector's ranking (``_best``, the port of
    getHighestPriority*PropagationPolicy that calls it): equal priorities, the smaller name."""
    template = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx"}}
    template["metadata"]["namespace"] = "test"
    names = [n for n in (row["a"], row["b"]) if n is not None]
    for order in (names, names[::-1]):
        policies = [kind_only_policy(kind, name, template) for name in order]
        claim = _best(template, policies)
        assert claim.policy is not None and policy_ref(claim.policy)[2] == row["want"]


@pytest.mark.parametrize(("obj", "template"), event_filter_cases())
def test_event_filter(obj: dict[str, Any], template: bool) -> None:
    assert (not_a_template(obj) is None) is template


@pytest.mark.parametrize("row", look_for_cases())
def test_look_for_matched_policy(row: dict[str, Any]) -> None:
    claim = Policies.of(row["policies"]).claim(row["obj"])
    assert claim.policy is not None
    kind, namespace, name = policy_ref(claim.policy)
    assert {"kind": kind, "namespace": namespace, "name": name} == row["want"]


def _policy(kind: str, name: str, priority: int = 0, **metadata: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, **metadata}
    if kind == "PropagationPolicy":
        meta.setdefault("namespace", "test")
    return {
        "apiVersion": POLICY_API,
        "kind": kind,
        "metadata": meta,
        "spec": {
            "priority": priority,
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
        },
    }


def _template(**metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "namespace": "test", **metadata},
    }


def test_a_propagation_policy_wins_over_any_cluster_policy() -> None:
    """propagateResource: the namespace's PropagationPolicies first, ClusterPropagationPolicies
    only when none matches, whatever their priority."""
    policies = Policies.of(
        [
            _policy("ClusterPropagationPolicy", "cluster", 1000),
            _policy("PropagationPolicy", "local"),
        ]
    )
    claim = policies.claim(_template())
    assert claim.policy is not None and policy_ref(claim.policy) == (
        "PropagationPolicy",
        "test",
        "local",
    )


def test_an_existing_claim_keeps_its_policy() -> None:
    """A template already claimed (annotations and permanent-id label) keeps that policy while
    it matches; a claim naming a missing policy is cleaned up and matched afresh."""
    policies = Policies.of(
        [_policy("PropagationPolicy", "a", 10), _policy("PropagationPolicy", "b")]
    )
    claimed = _template(
        annotations={
            "propagationpolicy.karmada.io/namespace": "test",
            "propagationpolicy.karmada.io/name": "b",
        },
        labels={"propagationpolicy.karmada.io/permanent-id": "x"},
    )
    claim = policies.claim(claimed)
    assert claim.policy is not None and policy_ref(claim.policy)[2] == "b"
    claimed["metadata"]["annotations"]["propagationpolicy.karmada.io/name"] = "gone"
    claim = policies.claim(claimed)
    assert claim.policy is not None and policy_ref(claim.policy)[2] == "a"


@pytest.mark.parametrize(
    ("obj", "ignored"),
    [
        pytest.param(_template(namespace="karmada-system"), True, id="reserved-namespace"),
        pytest.param(_template(namespace="karmada-es-member1"), True, id="execution-space"),
        pytest.param(_template(namespace="kube-public"), True, id="skipped-kube-namespaces"),
        pytest.param(_template(namespace="kubernetes"), False, id="only-kube-dash"),
        pytest.param(
            {
                "apiVersion": "work.karmada.io/v1alpha2",
                "kind": "ResourceBinding",
                "metadata": {"name": "x"},
            },
            True,
            id="karmada-api",
        ),
        pytest.param(
            {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "x"}},
            True,
            id="events",
        ),
        pytest.param(
            {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "x"}},
            True,
            id="leases",
        ),
        pytest.param(
            _template(labels={"resourcetemplate.karmada.io/claimed-by": "mcs"}),
            True,
            id="claimed-by",
        ),
        pytest.param(_template(), False, id="a-template"),
    ],
)
def test_what_the_detector_ignores(obj: dict[str, Any], ignored: bool) -> None:
    assert (not_a_template(obj) is not None) is ignored


_NAMES = st.sampled_from(["web", "db", "cache"])
_SELECTOR = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["apps/v1", "v1"]),
        "kind": st.sampled_from(["Deployment", "ConfigMap"]),
    },
    optional={
        "name": _NAMES,
        "namespace": st.sampled_from(["test", "other"]),
        "labelSelector": st.fixed_dictionaries(
            {"matchLabels": st.dictionaries(st.sampled_from(["app", "tier"]), _NAMES, max_size=2)}
        ),
    },
)
_POLICY = st.builds(
    lambda kind, name, priority, selectors: {
        "apiVersion": POLICY_API,
        "kind": kind,
        "metadata": {
            "name": name,
            **({"namespace": "test"} if kind == "PropagationPolicy" else {}),
        },
        "spec": {"priority": priority, "resourceSelectors": selectors},
    },
    st.sampled_from(["PropagationPolicy", "ClusterPropagationPolicy"]),
    st.sampled_from(["a", "b", "c", "d"]),
    st.integers(-2, 2),
    st.lists(_SELECTOR, max_size=3),
)


def _brute_force(template: dict[str, Any], policies: list[dict[str, Any]]) -> str | None:
    """The detector without an index: every policy of the namespace, then every cluster one."""
    from webhook.karmada.detector import _best  # noqa: PLC0415 - the unindexed step itself

    local = [p for p in policies if p["kind"] == "PropagationPolicy"]
    found = _best(template, local).policy
    if found is None:
        found = _best(template, [p for p in policies if p["kind"] != "PropagationPolicy"]).policy
    return None if found is None else "/".join(policy_ref(found))


@given(
    policies=st.lists(_POLICY, max_size=8, unique_by=lambda p: (p["kind"], p["metadata"]["name"])),
    kind=st.sampled_from(["Deployment", "ConfigMap"]),
    name=_NAMES,
    labels=st.dictionaries(st.sampled_from(["app", "tier"]), _NAMES, max_size=2),
)
@settings(max_examples=400, deadline=None)
def test_the_index_finds_what_a_scan_finds(
    policies: list[dict[str, Any]], kind: str, name: str, labels: dict[str, str]
) -> None:
    """Policies are indexed by what their selectors name; the claim must be the one a scan of
    every policy gives."""
    template = {
        "apiVersion": "apps/v1" if kind == "Deployment" else "v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "test", "labels": labels},
    }
    claim = Policies.of(policies).claim(template)
    indexed = None if claim.policy is None else "/".join(policy_ref(claim.policy))
    assert indexed == _brute_force(template, policies)

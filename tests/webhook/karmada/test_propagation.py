"""One template's whole path through Karmada (detector, interpreter, scheduler, override
manager), as ``fedgate plan`` and the webhook see it."""

from __future__ import annotations

from typing import Any

from webhook.bundle.model import Bundle
from webhook.karmada.detector import Policies
from webhook.karmada.propagation import propagate, trace

API = "policy.karmada.io/v1alpha1"


def _deployment(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "payments"},
        "spec": {
            "template": {"spec": {"containers": [{"name": "web", "image": "r.io/p/web:1"}]}},
            **spec,
        },
    }


def _pp(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "PropagationPolicy",
        "metadata": {"name": "web", "namespace": "payments"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            **spec,
        },
    }


def _cop(
    name: str, overriders: dict[str, Any], target: dict[str, Any] | None = None
) -> dict[str, Any]:
    rule: dict[str, Any] = {"overriders": overriders}
    if target is not None:
        rule["targetCluster"] = target
    return {
        "apiVersion": API,
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": name},
        "spec": {"overrideRules": [rule]},
    }


def test_revised_then_overridden_per_cluster(bundle: Bundle) -> None:
    policies = Policies.of(
        [
            _pp(
                placement={
                    "clusterAffinity": {"clusterNames": ["cluster-a", "cluster-c"]},
                    "replicaScheduling": {},
                }
            ),
            _cop(
                "us",
                {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 9}]},
                {"clusterNames": ["cluster-c"]},
            ),
        ]
    )
    plan = propagate(_deployment(replicas=4), policies, bundle.clusters)
    assert plan.policy == ("PropagationPolicy", "payments", "web")
    assert dict(plan.placement) == {"cluster-a": 2, "cluster-c": 2}
    copies = {c: m.object["spec"]["replicas"] for c, m in plan.copies.items() if m.object}
    assert copies == {"cluster-a": 2, "cluster-c": 9}
    assert plan.copies["cluster-c"].overrides == ("ClusterOverridePolicy us",)
    base, steps = trace(plan, bundle.clusters["cluster-c"], policies)
    assert base["spec"]["replicas"] == 2
    assert [(s.policy, s.rule, s.object["spec"]["replicas"]) for s in steps] == [
        ("ClusterOverridePolicy us", 0, 9)
    ]


def test_a_failing_override_leaves_the_cluster_without_a_copy(bundle: Bundle) -> None:
    policies = Policies.of(
        [
            _pp(),
            _cop(
                "broken",
                {
                    "imageOverrider": [
                        {"component": "Registry", "operator": "replace", "value": "UPPER"}
                    ],
                    "plaintext": [{"path": "/spec/missing/x", "operator": "add", "value": 1}],
                },
            ),
        ]
    )
    plan = propagate(_deployment(replicas=1), policies, bundle.clusters)
    assert set(plan.placement) == {"cluster-a", "cluster-b", "cluster-c"}
    assert all(
        m.object is None and "ClusterOverridePolicy broken" in (m.error or "")
        for m in plan.copies.values()
    )


def test_replicas_absent_are_defaulted_as_the_api_server_does(bundle: Bundle) -> None:
    plan = propagate(
        _deployment(), Policies.of([_pp(placement={"replicaScheduling": {}})]), bundle.clusters
    )
    assert dict(plan.placement) == {"cluster-a": 1}
    assert any("the API server stores 1" in n for n in plan.notes)


def test_waiting_for_dependent_overrides_propagates_nothing(bundle: Bundle) -> None:
    plan = propagate(
        _deployment(replicas=1), Policies.of([_pp(dependentOverrides=["missing"])]), bundle.clusters
    )
    assert plan.placement == {} and "dependentOverrides missing" in plan.notes[-1]


def test_namespaces_go_everywhere_with_cluster_overrides_only(bundle: Bundle) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "payments"}}
    policies = Policies.of(
        [_cop("label", {"labelsOverrider": [{"operator": "add", "value": {"a": "b"}}]})]
    )
    plan = propagate(namespace, policies, bundle.clusters)
    assert plan.policy is None and set(plan.copies) == {"cluster-a", "cluster-b", "cluster-c"}
    assert all(
        m.object and m.object["metadata"]["labels"] == {"a": "b"} for m in plan.copies.values()
    )
    skipped = {
        **namespace,
        "metadata": {"name": "x", "labels": {"namespace.karmada.io/skip-auto-propagation": "True"}},
    }
    assert propagate(skipped, policies, bundle.clusters).copies == {}


def test_a_divided_job_shares_its_completions(bundle: Bundle) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "web", "namespace": "payments"},
        "spec": {"parallelism": 3, "completions": 6},
    }
    pp = _pp(
        placement={
            "clusterAffinity": {"clusterNames": ["cluster-a", "cluster-b"]},
            "replicaScheduling": {},
        }
    )
    pp["spec"]["resourceSelectors"] = [{"apiVersion": "batch/v1", "kind": "Job"}]
    plan = propagate(job, Policies.of([pp]), bundle.clusters)
    specs = {c: m.object["spec"] for c, m in plan.copies.items() if m.object}
    assert specs == {
        "cluster-a": {"parallelism": 2, "completions": 4},
        "cluster-b": {"parallelism": 1, "completions": 2},
    }


def test_override_policies_see_what_the_cluster_policies_did(bundle: Bundle) -> None:
    """applyNamespacedOverrides runs on the object applyClusterOverrides changed: a label a
    ClusterOverridePolicy adds can select it for an OverridePolicy."""
    labelled = _cop("label", {"labelsOverrider": [{"operator": "add", "value": {"mirror": "yes"}}]})
    op = {
        "apiVersion": API,
        "kind": "OverridePolicy",
        "metadata": {"name": "by-label", "namespace": "payments"},
        "spec": {
            "resourceSelectors": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "labelSelector": {"matchLabels": {"mirror": "yes"}},
                }
            ],
            "overrideRules": [
                {
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Registry", "operator": "replace", "value": "m.io"}
                        ]
                    }
                }
            ],
        },
    }
    plan = propagate(_deployment(replicas=1), Policies.of([_pp(), labelled, op]), bundle.clusters)
    copy = plan.copies["cluster-a"]
    assert copy.overrides == ("ClusterOverridePolicy label", "OverridePolicy payments/by-label")
    assert copy.object is not None
    assert copy.object["spec"]["template"]["spec"]["containers"][0]["image"] == "m.io/p/web:1"

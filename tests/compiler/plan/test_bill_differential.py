"""The plan bills as the quota rule does: for generated workloads (replicas, autoscalers' minimums,
a Job's parallelism and completions, containers with requests, limits or only limits, sidecars,
Duplicated or Divided over the clusters) next to the example apps, each tenant's total in the
plan is what ``tenancy.quota`` bills for the same objects in the webhook's index, and the plan's
per-app and per-workload bills add up to it."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.commands.compile import compile_paths
from compiler.plan.core import RESOURCES, plan
from compiler.plan.tree import policies_of
from compiler.render.pipeline import RenderedApp
from tests.conftest import EXAMPLES, POLICIES
from webhook.bundle.index import TreeIndex
from webhook.bundle.model import Bundle
from webhook.engine.quota import git_bill
from webhook.karmada.propagation import propagate

NAMESPACE = "platform-demo"  # team-a's
CLUSTERS = ("cluster-a", "cluster-b")

QUANTITY = {
    "cpu": st.sampled_from(["100m", "250m", "1", "2"]),
    "memory": st.sampled_from(["64Mi", "1Gi"]),
}


@st.composite
def resources(draw: st.DrawFn) -> dict[str, Any]:
    """Requests only, limits only (billed as the request), both, or nothing."""
    found: dict[str, Any] = {}
    for field in draw(st.sampled_from([(), ("requests",), ("limits",), ("requests", "limits")])):
        found[field] = {r: draw(q) for r, q in QUANTITY.items() if draw(st.booleans())}
    return found


@st.composite
def container(draw: st.DrawFn, name: str, sidecar: bool = False) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "image": f"registry.example.com/platform/{name}:1"}
    found["resources"] = draw(resources())
    if sidecar:
        found["restartPolicy"] = "Always"
    return found


@st.composite
def workload(draw: st.DrawFn, name: str) -> list[dict[str, Any]]:
    """A workload, maybe its PropagationPolicy, maybe an autoscaler of it."""
    kind = draw(st.sampled_from(["Deployment", "StatefulSet", "Job"]))
    pod: dict[str, Any] = {
        "containers": [draw(container(f"{name}-{i}")) for i in range(draw(st.integers(1, 2)))]
    }
    if draw(st.booleans()):
        pod["initContainers"] = [draw(container(f"{name}-init", sidecar=draw(st.booleans())))]
    count = draw(st.none() | st.integers(0, 6))
    spec: dict[str, Any] = {"template": {"metadata": {"labels": {"app": name}}, "spec": pod}}
    if kind == "Job":
        spec |= {"parallelism": count} if count is not None else {}
        completions = draw(st.none() | st.integers(0, 6))
        spec |= {"completions": completions} if completions is not None else {}
    else:
        spec |= {"replicas": count} if count is not None else {}
        spec["selector"] = {"matchLabels": {"app": name}}
    api = "batch/v1" if kind == "Job" else "apps/v1"
    meta = {"name": name, "namespace": NAMESPACE}
    objects = [{"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec}]
    scheduling = draw(st.sampled_from([None, "Duplicated", "Divided"]))
    if scheduling is not None:
        placement: dict[str, Any] = {"clusterAffinity": {"clusterNames": list(CLUSTERS)}}
        placement["replicaScheduling"] = {"replicaSchedulingType": scheduling}
        if scheduling == "Divided":
            placement["replicaScheduling"] |= {
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": [c]}, "weight": draw(st.integers(1, 3))}
                        for c in CLUSTERS
                    ]
                },
            }
        objects.append(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "PropagationPolicy",
                "metadata": meta,
                "spec": {
                    "resourceSelectors": [{"apiVersion": api, "kind": kind, "name": name}],
                    "placement": placement,
                },
            }
        )
    scaler = draw(st.sampled_from([None, "FederatedHPA", "HorizontalPodAutoscaler"]))
    if scaler is not None and kind != "Job":
        least = draw(st.integers(1, 6))
        objects.append(
            {
                "apiVersion": "autoscaling.karmada.io/v1alpha1"
                if scaler == "FederatedHPA"
                else "autoscaling/v2",
                "kind": scaler,
                "metadata": meta,
                "spec": {
                    "scaleTargetRef": {"apiVersion": api, "kind": kind, "name": name},
                    "minReplicas": least,
                    "maxReplicas": least + draw(st.integers(0, 4)),
                },
            }
        )
    return objects


class Examples:
    """The example bundle and apps, with a short repr for hypothesis' failure report (not a
    dataclass: hypothesis would print every field)."""

    def __init__(self, bundle: Bundle, apps: tuple[RenderedApp, ...]) -> None:
        self.bundle, self.apps = bundle, apps

    def __repr__(self) -> str:
        return "<the example bundle and apps>"


@pytest.fixture(scope="module")
def examples(bundle: Bundle) -> Examples:
    return Examples(bundle, tuple(compile_paths([EXAMPLES / "apps"], POLICIES).rendered))


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(drawn=st.integers(0, 3).flatmap(lambda n: st.tuples(*(workload(f"w{i}") for i in range(n)))))
def test_the_plans_tenant_total_is_what_the_quota_rule_bills(
    examples: Examples, drawn: tuple[list[dict[str, Any]], ...]
) -> None:
    bundle = examples.bundle
    written = [o for objects in drawn for o in objects]
    tree = [*(o for r in examples.apps for o in r.objects), *written]
    policies = policies_of(tree)
    templates = [
        propagate(o, policies, bundle.clusters) for o in written if "Policy" not in o["kind"]
    ]
    result = plan(examples.apps, bundle, policies, templates)
    webhook = replace(bundle, index=TreeIndex.of(tree))  # the bundle as the webhook holds it
    assert webhook.index is not None
    for bill in result.tenants:
        quota, _ = git_bill(webhook.index, webhook.tenants[bill.tenant], webhook)
        assert dict(bill.used) == quota
        apps = [a for a in result.apps if a.tenant == bill.tenant]
        for r in RESOURCES:
            shown = sum((b[r] for a in apps for b in a.bill.values()), Fraction(0))
            assert shown + bill.hand_written.get(r, Fraction(0)) == bill.used[r]
            assert bill.ceiling[r] >= bill.used[r]  # the ceiling is never below the bill

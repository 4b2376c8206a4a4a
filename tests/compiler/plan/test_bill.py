"""The tenant bill is the tenant's whole bill. A hand-written workload of the synced
tree in a tenant's namespaces is on that tenant's bill, a pod billed as ``tenancy.quota`` bills
it (``webhook/engine/quota.py``) times the pods of each cluster Karmada places it on."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
import yaml

from compiler.argocd.manifests import Manifest
from compiler.plan.changes import TemplateChange, tenant_before
from compiler.plan.core import TenantBill, plan, workload_bill
from compiler.plan.tree import TemplateResult, policies_of
from webhook.bundle.index import key_of
from webhook.bundle.model import Bundle
from webhook.engine.quota import requested
from webhook.karmada.propagation import propagate


def workload(kind: str, name: str, namespace: str, count: int | None, **pod: Any) -> str:
    api = "batch/v1" if kind == "Job" else "v1" if kind == "Pod" else "apps/v1"
    container = {
        "name": name,
        "image": f"registry.example.com/platform/{name}:1.0",
        "resources": {"requests": pod.pop("requests", {"cpu": "1", "memory": "64Mi"})},
    }
    spec: dict[str, Any] = {"containers": [container], **pod}
    field = "parallelism" if kind == "Job" else "replicas"
    body: dict[str, Any] = (
        spec
        if kind == "Pod"
        else {
            **({field: count} if count is not None else {}),
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        }
    )
    return yaml.safe_dump(
        {
            "apiVersion": api,
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
            "spec": body,
        }
    )


def policy(kind: str, name: str, namespace: str, scheduling: str | None) -> str:
    api = "batch/v1" if kind == "Job" else "v1" if kind in ("Pod", "ConfigMap") else "apps/v1"
    placement: dict[str, Any] = {"clusterAffinity": {"clusterNames": ["cluster-a", "cluster-b"]}}
    if scheduling == "Duplicated":
        placement["replicaScheduling"] = {"replicaSchedulingType": "Duplicated"}
    elif scheduling == "Divided":
        placement["replicaScheduling"] = {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [c]}, "weight": 1}
                    for c in ("cluster-a", "cluster-b")
                ]
            },
        }
    return yaml.safe_dump(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "resourceSelectors": [{"apiVersion": api, "kind": kind, "name": name}],
                "placement": placement,
            },
        }
    )


SIDECAR = {
    "initContainers": [
        {
            "name": "proxy",
            "image": "registry.example.com/platform/proxy:1.0",
            "restartPolicy": "Always",
            "resources": {"requests": {"cpu": "250m"}},
        }
    ]
}
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: platform-demo}\n"

# (case, manifests, team-a's hand-written cpu; None: not on team-a's bill)
CASES: list[tuple[str, list[str], str | None]] = [
    (
        "no policy: counted once, as check counts it",
        [workload("Deployment", "d", "platform-demo", 50)],
        "50",
    ),
    (
        "Duplicated: every cluster runs the total",
        [
            workload("Deployment", "d", "platform-demo", 6, requests={"cpu": "500m"}),
            policy("Deployment", "d", "platform-demo", "Duplicated"),
        ],
        "6",
    ),
    (
        "Divided: the clusters share the total",
        [
            workload("Deployment", "d", "platform-demo", 6, requests={"cpu": "500m"}),
            policy("Deployment", "d", "platform-demo", "Divided"),
        ],
        "3",
    ),
    (
        "a StatefulSet's sidecar is billed as the scheduler counts it",
        [
            workload("StatefulSet", "s", "platform-demo", 3, **SIDECAR),
            policy("StatefulSet", "s", "platform-demo", "Duplicated"),
        ],
        "7.5",
    ),
    (
        "a DaemonSet: quota's one pod in each cluster",
        [
            workload("DaemonSet", "ds", "platform-demo", None),
            policy("DaemonSet", "ds", "platform-demo", None),
        ],
        "2",
    ),
    (
        "a Job divided: its parallelism shared",
        [workload("Job", "j", "platform-demo", 4), policy("Job", "j", "platform-demo", "Divided")],
        "4",
    ),
    (
        "a Pod duplicated: one in each cluster",
        [
            workload("Pod", "p", "platform-demo", None),
            policy("Pod", "p", "platform-demo", "Duplicated"),
        ],
        "2",
    ),
    (
        "replicas absent: the API server's 1",
        [workload("Deployment", "d", "platform-demo", None)],
        "1",
    ),
    ("a ConfigMap runs no pod", [CONFIGMAP], None),
    ("a namespace no tenant owns", [workload("Deployment", "d", "platform", 50)], None),
]


def _bill(bundle: Bundle, manifests: list[str]) -> tuple[TenantBill | None, list[Any]]:
    objects = [o for m in manifests for o in yaml.safe_load_all(m)]
    policies = policies_of(objects)
    templates = [
        propagate(o, policies, bundle.clusters) for o in objects if not policies.is_policy(o)
    ]
    result = plan([], bundle, policies, templates)
    return next((t for t in result.tenants if t.tenant == "team-a"), None), templates


@pytest.mark.parametrize(("manifests", "cpu"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_hand_written_workload_is_on_its_tenants_bill(
    bundle: Bundle, manifests: list[str], cpu: str | None
) -> None:
    bill, templates = _bill(bundle, manifests)
    if cpu is None:
        assert bill is None
        return
    assert bill is not None
    assert bill.hand_written["cpu"] == bill.used["cpu"] == Fraction(cpu)
    for template in templates:  # never less than check's tenancy.quota counts (a lower bound)
        for resource, amount in requested(template.template).items():
            assert workload_bill(template)[resource] >= amount


def _result(bundle: Bundle, manifests: list[str]) -> TemplateResult:
    objects = [o for m in manifests for o in yaml.safe_load_all(m)]
    policies = policies_of(objects)
    [template] = [o for o in objects if not policies.is_policy(o)]
    manifest = Manifest("extra.yaml", 1, template)
    return TemplateResult(manifest, propagate(template, policies, bundle.clusters))


def test_the_tenant_at_head_swaps_each_changed_workloads_bill(bundle: Bundle) -> None:
    """HEAD had 2 pods of 1 CPU divided; the tree has 3 duplicated on two clusters (6 CPU)."""
    cpu = {"requests": {"cpu": "1"}}
    before = _result(bundle, [workload("Deployment", "d", "platform-demo", 2, **cpu)])
    after = _result(
        bundle,
        [
            workload("Deployment", "d", "platform-demo", 3, **cpu),
            policy("Deployment", "d", "platform-demo", "Duplicated"),
        ],
    )
    identity = after.manifest.identity
    bill = TenantBill("team-a", {"cpu": Fraction(10)}, {"cpu": Fraction(20)})
    changed = TemplateChange(identity, "change", after, before)
    added = TemplateChange(identity, "add", after, None)
    gone = TemplateChange(identity, "remove", None, before)
    owned = ["platform-demo"]
    assert tenant_before(bill, [], [changed], owned) == {"cpu": 10 - 6 + 2, "memory": 0}
    assert tenant_before(bill, [], [added], owned) == {"cpu": 10 - 6, "memory": 0}
    assert tenant_before(bill, [], [gone], owned) == {"cpu": 10 + 2, "memory": 0}
    assert tenant_before(bill, [], [changed], ["payments"]) == bill.used  # another tenant's


def test_the_tenant_at_head_takes_off_the_bill_it_summed(bundle: Bundle) -> None:
    """Today's side of a changed workload comes off as the plan summed it (the quota rule's:
    here a FederatedHPA keeps 5 of its 3 replicas), not as ``workload_bill`` counts it alone."""
    cpu = {"requests": {"cpu": "1"}}
    before = _result(bundle, [workload("Deployment", "d", "platform-demo", 2, **cpu)])
    after = _result(bundle, [workload("Deployment", "d", "platform-demo", 3, **cpu)])
    summed = {key_of(after.plan.template): {"cpu": Fraction(5)}}
    bill = TenantBill("team-a", {"cpu": Fraction(10)}, {"cpu": Fraction(20)}, workloads=summed)
    changed = TemplateChange(after.manifest.identity, "change", after, before)
    assert tenant_before(bill, [], [changed], ["platform-demo"]) == {"cpu": 10 - 5 + 2, "memory": 0}

"""The tenant bill is the tenant's whole bill. A hand-written workload of the synced
tree in a tenant's namespaces is on that tenant's bill, a pod billed as ``tenancy.quota`` bills
it (``webhook/engine/quota.py``) times the pods of each cluster Karmada places it on."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
import yaml

from compiler.argocd.manifests import Manifest
from compiler.commands.compile import compile_paths
from compiler.plan.changes import AppChange, TemplateChange, tenant_before
from compiler.plan.core import TenantBill, plan, workload_bill
from compiler.plan.text import ceiling_line
from compiler.plan.tree import TemplateResult, policies_of
from tests.conftest import EXAMPLES, POLICIES
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


def test_the_ceiling_is_the_autoscalers_maximum_beside_the_bill(bundle: Bundle) -> None:
    """The bill is the quota rule's floor, the ceiling the autoscalers' maximum: web-frontend
    (FederatedHPA 2 to 10, 500m a pod, weights 3:2) bills 0.5 CPU a cluster and may grow to 3
    and 2; payments-api (member HPAs 2 to 6, Duplicated) bills 1 a cluster, may grow to 3; an
    app Git scales has its bill as its ceiling. A tenant's ceiling adds up its apps'."""
    result = plan(compile_paths([EXAMPLES / "apps"], POLICIES).rendered, bundle)
    apps = {a.name: a for a in result.apps}
    web, payments = apps["web-frontend"], apps["payments-api"]
    assert {c: b["cpu"] for c, b in web.bill.items()} == {"cluster-a": Fraction(1, 2)} | {
        "cluster-b": Fraction(1, 2)
    }
    assert {c: b["cpu"] for c, b in web.ceiling.items()} == {"cluster-a": 3, "cluster-b": 2}
    assert {c: b["cpu"] for c, b in payments.bill.items()} == {"cluster-a": 1, "cluster-b": 1}
    assert {c: b["cpu"] for c, b in payments.ceiling.items()} == {"cluster-a": 3, "cluster-b": 3}
    assert apps["status-page"].ceiling == apps["status-page"].bill
    for bill in result.tenants:
        mine = [a for a in result.apps if a.tenant == bill.tenant]
        for r in ("cpu", "memory"):
            assert bill.ceiling[r] == sum(
                (b[r] for a in mine for b in a.ceiling.values()), Fraction(0)
            )
            assert bill.ceiling[r] >= bill.used[r]
    team_a = next(t for t in result.tenants if t.tenant == "team-a")
    assert (team_a.used["cpu"], team_a.ceiling["cpu"]) == (Fraction(39, 10), Fraction(79, 10))
    # HEAD had web-frontend at 2 to 4: its ceiling then was 1.5 + 1 CPU, not 3 + 2
    cpu = {"cluster-a": Fraction(3, 2), "cluster-b": Fraction(1)}
    head = replace(web, ceiling={c: {**b, "cpu": cpu[c]} for c, b in web.ceiling.items()})
    change = AppChange(web.namespace, web.name, "change", web, head)
    before = tenant_before(team_a, [change], ceiling=True)
    assert before is not None and before["cpu"] == Fraction(79, 10) - 5 + Fraction(5, 2)
    assert tenant_before(team_a, [change]) == team_a.used  # its bill did not change
    assert ceiling_line(team_a, before).text == (
        "    ceiling      cpu 5.4 -> 7.9, memory 9Gi (autoscalers at their maximum)"
    )


def test_a_hand_written_workload_s_ceiling_is_never_below_its_bill(bundle: Bundle) -> None:
    """A FederatedHPA keeps 5 of a Deployment's 3 replicas: billed 5, its ceiling is not the 3
    it is placed with."""
    manifests = [
        workload("Deployment", "d", "platform-demo", 3),
        yaml.safe_dump(
            {
                "apiVersion": "autoscaling.karmada.io/v1alpha1",
                "kind": "FederatedHPA",
                "metadata": {"name": "d", "namespace": "platform-demo"},
                "spec": {
                    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                    "minReplicas": 5,
                    "maxReplicas": 8,
                },
            }
        ),
    ]
    bill, _ = _bill(bundle, manifests)
    assert bill is not None
    assert bill.used["cpu"] == bill.ceiling["cpu"] == 5

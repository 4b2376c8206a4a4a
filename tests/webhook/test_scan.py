"""The background audit (webhook/scan.py, webhook/policyreport.py): live objects judged as Argo
CD's next rewrite of them, and the PolicyReports that carry the answer."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.policyreport import RESULTS, policy_reports
from webhook.scan import PLATFORM, ObjectRef, scan

GOLDEN = ROOT / "tests" / "golden" / "examples"


def golden_objects() -> list[tuple[str, dict[str, Any]]]:
    """The example world's rendered tree: every object Argo CD syncs, as live objects."""
    found = []
    for path in sorted(GOLDEN.rglob("*.yaml")):
        for index, document in enumerate(yaml.safe_load_all(path.read_text(encoding="utf-8"))):
            if document:
                found.append((f"{path.relative_to(ROOT)}#{index}", document))
    return found


def test_the_admitted_example_world_has_nothing_to_report(bundle: Bundle) -> None:
    objects = golden_objects()
    result = scan(objects, bundle)
    assert result.findings == () and result.unreadable == ()
    assert result.objects == len(objects) > 20


def _replicas(obj: dict[str, Any]) -> int:
    spec = obj.get("spec") or {}
    if obj["kind"] in ("FederatedHPA", "HorizontalPodAutoscaler"):
        return int(spec.get("maxReplicas", 0))
    return int(spec.get("replicas", 0)) if obj["kind"] in ("Deployment", "StatefulSet") else 0


def _selected(policy: dict[str, Any]) -> set[tuple[str, str, str]]:
    namespace = policy["metadata"]["namespace"]
    return {
        (namespace, s["kind"], s["name"])
        for s in policy["spec"].get("resourceSelectors", [])
        if "name" in s
    }


@pytest.mark.parametrize("limit", [1, 2, 4, 5])
def test_after_a_rule_change_exactly_the_objects_it_denies_are_listed(
    policies_copy: Path, limit: int
) -> None:
    """A platform lowers every tenant's maxReplicasPerApp: the audit lists every live object of
    the tenants' namespaces above the new limit (counted here from the objects themselves, not
    from the engine), each once, under the max-replicas rule; and besides them only the
    OverridePolicies of those workloads (a member's copy above the limit)."""
    tenants = policies_copy / "tenants.yaml"
    text = tenants.read_text(encoding="utf-8")
    tenants.write_text(
        text.replace("maxReplicasPerApp: 50", f"maxReplicasPerApp: {limit}").replace(
            "maxReplicasPerApp: 100", f"maxReplicasPerApp: {limit}"
        ),
        encoding="utf-8",
    )
    bundle = load_bundle(policies_copy)
    objects = golden_objects()
    tenant_namespaces = {n for t in bundle.tenants.values() for n in t.namespaces}
    expected = {
        (o["metadata"]["namespace"], o["kind"], o["metadata"]["name"])
        for _, o in objects
        if o["metadata"].get("namespace") in tenant_namespaces and _replicas(o) > limit
    }
    overrides = {
        (o["metadata"]["namespace"], o["kind"], o["metadata"]["name"])
        for _, o in objects
        if o["kind"] == "OverridePolicy" and _selected(o) & expected
    }
    result = scan(objects, bundle)
    denied = {(r.namespace, r.kind, r.name) for r in result.denied}
    assert expected, "the example world has apps above the limit"
    assert expected <= denied <= expected | overrides, (denied, expected)
    assert {f.violation.rule for f in result.findings} == {"max-replicas"}
    assert len(result.findings) == len(denied)


def test_an_object_is_judged_as_git_rewriting_it_so_ownership_of_live_fields_stays_quiet(
    bundle: Bundle,
) -> None:
    """A live Deployment carries what the control plane wrote (status, resourceVersion, the
    replicas an autoscaler set): rewriting it as it stands changes no field, so no ownership
    rule objects, while the content rules still judge it."""
    [(where, deployment)] = [
        (w, o)
        for w, o in golden_objects()
        if o["kind"] == "Deployment" and o["metadata"]["name"] == "web-frontend"
    ]
    live = copy.deepcopy(deployment)
    live["metadata"].update(resourceVersion="123", uid="u-1", generation=4)
    live["spec"]["replicas"] = 7
    live["status"] = {"replicas": 7, "readyReplicas": 7}
    assert scan([(where, live)], bundle).findings == ()
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "docker.io/library/nginx:1.27"
    result = scan([(where, live)], bundle)
    assert {f.violation.rule for f in result.findings} == {"registry-allowed"}
    [ref] = result.denied
    assert ref == ObjectRef("platform-demo", "Deployment", "web-frontend", "apps/v1", "u-1")
    assert {f.tenant for f in result.findings} == {"team-a"}


def test_lists_are_opened_and_what_cannot_be_judged_is_named(bundle: Bundle) -> None:
    objects = [o for _, o in golden_objects()[:3]]
    documents = [
        ("list.yaml:1", {"apiVersion": "v1", "kind": "List", "items": objects}),
        ("bare.yaml:1", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}),
        ("text.yaml:1", "just text"),
    ]
    result = scan(documents, bundle)
    assert result.objects == 3
    assert result.unreadable == (
        ("bare.yaml:1", "no metadata.name"),
        ("text.yaml:1", "not a Kubernetes object (a mapping)"),
    )


def test_policy_reports_count_what_they_hold_per_namespace(policies_copy: Path) -> None:
    tenants = policies_copy / "tenants.yaml"
    tenants.write_text(
        tenants.read_text(encoding="utf-8").replace(
            "maxReplicasPerApp: 50", "maxReplicasPerApp: 1"
        ),
        encoding="utf-8",
    )
    result = scan(golden_objects(), load_bundle(policies_copy))
    reports = policy_reports(result, seconds=1_800_000_000)
    namespaces = [r["metadata"].get("namespace") for r in reports]
    assert namespaces == sorted(namespaces) and len(set(namespaces)) == len(namespaces)
    assert {r["kind"] for r in reports} == {"PolicyReport"}  # no cluster-scoped object here
    held = 0
    for report in reports:
        assert report["apiVersion"] == "wgpolicyk8s.io/v1alpha2"
        results = report["results"]
        held += len(results)
        assert report["summary"] == {r: sum(x["result"] == r for x in results) for r in RESULTS}
        for entry in results:
            [resource] = entry["resources"]
            assert resource.get("namespace") == report["metadata"].get("namespace")
            assert entry["timestamp"] == {"seconds": 1_800_000_000, "nanos": 0}
            assert all(isinstance(v, str) for v in entry.get("properties", {}).values())
    assert held == len(result.findings) + len(result.clean)
    failing = {
        (r["metadata"]["namespace"], x["resources"][0]["name"])
        for r in reports
        for x in r["results"]
        if x["result"] == "fail"
    }
    assert failing == {(ref.namespace, ref.name) for ref in result.denied}
    assert all(f.tenant != PLATFORM for f in result.findings)


def test_a_cluster_scoped_object_goes_to_the_cluster_policy_report(bundle: Bundle) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "scratch"}}
    result = scan([("ns.yaml:1", namespace)], bundle)
    [report] = policy_reports(result, seconds=0)
    assert report["kind"] == "ClusterPolicyReport" and "namespace" not in report["metadata"]
    assert [r["resources"][0] for r in report["results"]] == [
        {"apiVersion": "v1", "kind": "Namespace", "name": "scratch"}
    ]


@pytest.mark.parametrize(
    ("audit_action", "result", "enforced"),
    [
        pytest.param("deny", "fail", None, id="enforced-at-audit"),
        pytest.param("warn", "warn", "deny", id="staged-at-audit"),
    ],
)
def test_the_audit_judges_at_its_own_enforcement_point(
    policies_copy: Path, audit_action: str, result: str, enforced: str | None
) -> None:
    """image-tag only audited at the webhook for now: a live :latest got in; the audit, at its
    own point, still finds it (and, staged there too, says the deny to come)."""
    binding = policies_copy / "rules" / "image-tag" / "binding.yaml"
    binding.write_text(
        binding.read_text().replace(
            "action: deny",
            "action: scoped\nscopedEnforcementActions:\n"
            "  - {action: audit, enforcementPoints: [{name: webhook}]}\n"
            f"  - {{action: {audit_action}, enforcementPoints: [{{name: audit}}]}}\n"
            "  - {action: deny, enforcementPoints: [{name: '*'}]}",
        )
    )
    bundle = load_bundle(policies_copy)
    objects = golden_objects()
    for _, obj in objects:
        if obj["kind"] == "Deployment" and obj["metadata"]["name"] == "status-page":
            container = obj["spec"]["template"]["spec"]["containers"][0]
            container["image"] = container["image"].rsplit(":", 1)[0] + ":latest"
    found = scan(objects, bundle)
    [finding] = found.findings
    assert (finding.violation.rule, finding.result, finding.violation.enforced) == (
        "image-tag",
        result,
        enforced,
    )
    [reported] = [
        r
        for report in policy_reports(found, seconds=0)
        for r in report.get("results") or ()
        if r["policy"] == "image-tag"
    ]
    assert (reported["result"], reported["properties"].get("enforced")) == (result, enforced)

"""Rendered objects validate against the real schemas: Karmada v1.18 CRDs and Kubernetes.

The CRD schemas are made strict (unknown fields rejected) because the API server would prune an
unknown field silently and Argo CD would then show drift forever. On top of the CRD schema, the
checks Karmada's validating webhook makes on the fields fedgate renders (api-facts.md) run too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from compiler.commands.compile import compile_paths
from tests.compiler.strict_schema import strict
from tests.conftest import EXAMPLES, POLICIES

KUBERNETES_VERSION = "1.33"
CRD_FILES = {
    ("policy.karmada.io/v1alpha1", "PropagationPolicy"): "policy.karmada.io_propagationpolicies",
    ("policy.karmada.io/v1alpha1", "OverridePolicy"): "policy.karmada.io_overridepolicies",
    ("autoscaling.karmada.io/v1alpha1", "FederatedHPA"): "autoscaling.karmada.io_federatedhpas",
}
RENDERED = sorted(compile_paths([EXAMPLES / "apps"], POLICIES).files.items())
ARGOCD_CRD = ("argoproj.io/v1alpha1", "Application")


def _crd_schema(reference: Path, name: str) -> dict[str, Any]:
    crd = yaml.safe_load((reference / "karmada-v1.18" / "crds" / f"{name}.yaml").read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1")
    schema: dict[str, Any] = strict(version["schema"]["openAPIV3Schema"])
    return schema


@pytest.mark.parametrize(("path", "data"), RENDERED, ids=[p for p, _ in RENDERED])
def test_rendered_object_is_valid(path: str, data: bytes, reference: Path) -> None:
    obj = yaml.safe_load(data)
    if (obj["apiVersion"], obj["kind"]) == ARGOCD_CRD:
        jsonschema.validate(obj, _argocd_schema(reference))
        assert "Replace=true" not in obj["spec"].get("syncPolicy", {}).get("syncOptions", [])
        return
    if obj["kind"] == "AppProject":  # no AppProject CRD in the reference data: its shape only
        assert set(obj["spec"]) == {
            "description",
            "sourceRepos",
            "destinations",
            "clusterResourceWhitelist",
            "namespaceResourceWhitelist",
        }
        return
    crd = CRD_FILES.get((obj["apiVersion"], obj["kind"]))
    if crd is None:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
        return
    jsonschema.validate(obj, _crd_schema(reference, crd))
    assert karmada_webhook_problems(obj) == []


def test_strict_schema_rejects_unknown_fields(reference: Path) -> None:
    schema = _crd_schema(reference, CRD_FILES[("policy.karmada.io/v1alpha1", "PropagationPolicy")])
    policy = yaml.safe_load(dict(RENDERED)["platform-demo/demo-http/propagationpolicy.yaml"])
    policy["spec"]["placement"]["replicaSchedulling"] = {}
    with pytest.raises(jsonschema.ValidationError, match="replicaSchedulling"):
        jsonschema.validate(policy, schema)


def _argocd_schema(reference: Path) -> dict[str, Any]:
    crd = yaml.safe_load((reference / "argocd" / "application-crd.yaml").read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1")
    schema: dict[str, Any] = strict(version["schema"]["openAPIV3Schema"])
    return schema


def test_every_autoscaled_field_is_ignored_by_argocd() -> None:
    """The replicas an HPA owns are in the tenant Application's ignoreDifferences."""
    files = dict(RENDERED)
    application = yaml.safe_load(files["argocd/team-a-application.yaml"])
    ignored = {
        (d.get("name"), p)
        for d in application["spec"]["ignoreDifferences"]
        for p in d["jsonPointers"]
    }
    assert ("web-frontend", "/spec/replicas") in ignored
    assert (None, "/metadata/labels/propagationpolicy.karmada.io~1permanent-id") in ignored
    assert ("demo-http", "/spec/replicas") not in ignored
    assert application["spec"]["syncPolicy"]["syncOptions"] == ["RespectIgnoreDifferences=true"]


def karmada_webhook_problems(obj: dict[str, Any]) -> list[str]:
    """What karmada-webhook v1.18 would deny or rewrite in the fields fedgate emits."""
    problems = []
    spec, namespace = obj["spec"], obj["metadata"]["namespace"]
    for selector in spec.get("resourceSelectors", []):
        if selector.get("namespace") != namespace:
            problems.append("resourceSelectors[].namespace must be the policy's namespace")
    if obj["kind"] == "PropagationPolicy":
        application = spec.get("failover", {}).get("application")
        if application and not spec.get("propagateDeps"):
            problems.append("failover.application requires propagateDeps: true")
        if application:
            gracefully = application.get("purgeMode") == "Gracefully"
            if gracefully != ("gracePeriodSeconds" in application):
                problems.append("gracePeriodSeconds iff purgeMode Gracefully (and emitted)")
        scheduling = spec["placement"].get("replicaScheduling", {})
        if scheduling.get("replicaSchedulingType") == "Divided" and (
            scheduling.get("replicaDivisionPreference") != "Weighted"
        ):
            problems.append("the webhook would default replicaDivisionPreference: drift")
        for key in ("conflictResolution", "preemption", "priority", "schedulerName"):
            if key not in spec:
                problems.append(f"{key} left to the default: drift")
        if any("permanent-id" in label for label in obj["metadata"].get("labels", {})):
            problems.append("permanent-id is Karmada's label: never emit it")
    if obj["kind"] == "FederatedHPA" and "minReplicas" not in spec:
        problems.append("minReplicas left to the webhook default: drift")
    return problems

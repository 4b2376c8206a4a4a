"""A health answer for every kind fedgate renders, as Argo CD shows it.

The Lua that deploy/ ships is run, on real Lua 5.1, the way its hosts run it (``lua_vms.py``),
and its result is judged by Argo CD's HPA health check, ported below from
argoproj/argo-cd gitops-engine/pkg/health/health_hpa.go (commit 37ee0097). Member statuses are
shaped like gitops-engine's testdata (hpa-v2-healthy/degraded/progressing.yaml).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.compiler.strict_schema import strict
from tests.conftest import ROOT
from tests.deploy.lua_vms import argocd_health, karmada

CUSTOMIZATIONS = ROOT / "deploy" / "karmada" / "resource-interpreter-customizations.yaml"
ARGOCD_CM = ROOT / "deploy" / "argocd" / "argocd-cm-health.yaml"

DEGRADED = {
    ("AbleToScale", "FailedGetScale"),
    ("AbleToScale", "FailedUpdateScale"),
    ("ScalingActive", "FailedGetResourceMetric"),
    ("ScalingActive", "FailedGetObjectMetric"),
    ("ScalingActive", "FailedGetPodsMetric"),
    ("ScalingActive", "FailedGetExternalMetric"),
    ("ScalingActive", "FailedComputeMetricsReplicas"),
    ("ScalingActive", "InvalidSelector"),
}
"""health_hpa.go isDegraded."""


def argocd_hpa_health(obj: Mapping[str, Any]) -> dict[str, str]:
    """getAutoScalingV2HPAHealth / checkConditions of health_hpa.go."""
    conditions = (obj.get("status") or {}).get("conditions") or []
    for c in conditions:
        if (c.get("type"), c.get("reason")) in DEGRADED:
            return {"status": "Degraded", "message": c.get("message", "")}
    for c in conditions:
        if c.get("type") in ("AbleToScale", "ScalingLimited") and c.get("status") == "True":
            return {"status": "Healthy", "message": c.get("message", "")}
    return {"status": "Progressing", "message": "Waiting to Autoscale"}


def _scripts() -> dict[str, str]:
    document = yaml.safe_load(CUSTOMIZATIONS.read_text())
    customizations = document["spec"]["customizations"]
    return {
        "ReflectStatus": customizations["statusReflection"]["luaScript"],
        "AggregateStatus": customizations["statusAggregation"]["luaScript"],
    }


def _condition(kind: str, status: str, reason: str, message: str = "") -> dict[str, str]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message or f"{kind} {reason}",
        "lastTransitionTime": "2026-11-30T10:00:00Z",
    }


HEALTHY = [
    _condition("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size"),
    _condition("ScalingActive", "True", "ValidMetricFound"),
    _condition("ScalingLimited", "False", "DesiredWithinRange"),
]
FAILED_METRIC = [
    _condition("AbleToScale", "True", "SucceededGetScale"),
    _condition("ScalingActive", "False", "FailedGetResourceMetric", "missing request for cpu"),
    _condition("ScalingLimited", "False", "DesiredWithinRange"),
]
TEMPLATE = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "payments-api", "namespace": "payments", "generation": 1},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "payments-api"},
        "minReplicas": 2,
        "maxReplicas": 10,
    },
}


def _member(conditions: list[dict[str, str]] | None, replicas: int = 2) -> dict[str, Any]:
    status: dict[str, Any] = {
        "currentReplicas": replicas,
        "desiredReplicas": replicas,
        "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu"}}],
    }
    if conditions is not None:
        status["conditions"] = conditions
    return {**TEMPLATE, "status": status}


def _reflect(member: Mapping[str, Any]) -> dict[str, Any]:
    return karmada(_scripts()["ReflectStatus"], "ReflectStatus", member)


def _aggregate(members: Mapping[str, Mapping[str, Any] | None]) -> dict[str, Any]:
    items = [
        {"clusterName": cluster, "applied": status is not None, "status": status}
        if status is not None
        else {"clusterName": cluster, "applied": False}
        for cluster, status in members.items()
    ]
    return karmada(_scripts()["AggregateStatus"], "AggregateStatus", copy.deepcopy(TEMPLATE), items)


def _native_aggregate(members: Mapping[str, Mapping[str, Any] | None]) -> dict[str, Any]:
    """What Karmada does without the customization (aggregatestatus.go): sums, no conditions."""
    statuses = [s for s in members.values() if s]
    return {
        **TEMPLATE,
        "status": {
            "currentReplicas": sum(s.get("currentReplicas", 0) for s in statuses),
            "desiredReplicas": sum(s.get("desiredReplicas", 0) for s in statuses),
        },
    }


def test_without_the_customization_a_member_hpa_stays_progressing() -> None:
    """The finding: Karmada's default interpreter drops the conditions Argo CD needs."""
    members = {"cluster-a": {"currentReplicas": 2, "desiredReplicas": 2}}
    assert argocd_hpa_health(_native_aggregate(members))["status"] == "Progressing"


def test_reflect_keeps_the_conditions_and_replicas() -> None:
    reflected = _reflect(_member(HEALTHY, replicas=3))
    assert reflected == {"currentReplicas": 3, "desiredReplicas": 3, "conditions": HEALTHY}


def test_reflect_of_a_member_without_status_is_empty() -> None:
    member = copy.deepcopy(TEMPLATE)
    assert _reflect(member) == {}


@pytest.mark.parametrize(
    ("members", "health", "message"),
    [
        pytest.param(
            {"cluster-a": HEALTHY, "cluster-b": HEALTHY},
            "Healthy",
            "all 2 member clusters: recommended size matches current size",
            id="every member healthy",
        ),
        pytest.param(
            {"cluster-a": HEALTHY, "cluster-b": FAILED_METRIC},
            "Degraded",
            "cluster-b: missing request for cpu",
            id="one member cannot read its metric",
        ),
        pytest.param(
            {"cluster-a": HEALTHY, "cluster-b": None},
            "Progressing",
            "Waiting to Autoscale",
            id="one member not reported yet",
        ),
        pytest.param(
            {"cluster-a": HEALTHY, "cluster-b": []},
            "Progressing",
            "Waiting to Autoscale",
            id="one member without conditions yet",
        ),
        pytest.param({}, "Progressing", "Waiting to Autoscale", id="no member yet"),
    ],
)
def test_aggregated_status_is_judged_like_one_hpa(
    members: dict[str, list[dict[str, str]] | None], health: str, message: str
) -> None:
    reflected = {
        cluster: None if conditions is None else _reflect(_member(conditions))
        for cluster, conditions in members.items()
    }
    aggregated = _aggregate(reflected)
    assert aggregated["status"]["currentReplicas"] == 2 * sum(
        1 for c in members.values() if c is not None
    )
    assert argocd_hpa_health(aggregated) == {"status": health, "message": message}


REASONS = st.sampled_from(
    sorted(
        {r for _, r in DEGRADED} | {"ReadyForNewScale", "ValidMetricFound", "DesiredWithinRange"}
    )
)
CONDITIONS = st.lists(
    st.builds(
        _condition,
        st.sampled_from(["AbleToScale", "ScalingActive", "ScalingLimited"]),
        st.sampled_from(["True", "False", "Unknown"]),
        REASONS,
    ),
    max_size=3,
    unique_by=lambda c: c["type"],
)


@settings(max_examples=150, deadline=None)
@given(members=st.lists(st.one_of(st.none(), CONDITIONS), max_size=4))
def test_the_aggregate_is_never_healthier_than_its_worst_member(
    members: list[list[dict[str, str]] | None],
) -> None:
    """Degraded anywhere is Degraded; Healthy only when every member reported and is Healthy."""
    named = {f"cluster-{i}": m for i, m in enumerate(members)}
    reflected = {c: None if m is None else _reflect(_member(m)) for c, m in named.items()}
    verdict = argocd_hpa_health(_aggregate(reflected))["status"]
    alone = [argocd_hpa_health(_member(m))["status"] for m in members if m is not None]
    if "Degraded" in alone:
        assert verdict == "Degraded"
    elif verdict == "Healthy":
        assert members and None not in members and set(alone) == {"Healthy"}
    if members and None not in members and set(alone) == {"Healthy"}:
        every_able = all(
            any(c["type"] == "AbleToScale" and c["status"] == "True" for c in m)
            for m in members
            if m is not None
        )
        assert verdict == "Healthy" or not every_able


def test_the_customization_is_valid_against_karmadas_crd(reference: Path) -> None:
    crd = yaml.safe_load(
        (
            reference
            / "karmada-v1.18"
            / "crds"
            / "config.karmada.io_resourceinterpretercustomizations.yaml"
        ).read_text()
    )
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    jsonschema.validate(
        yaml.safe_load(CUSTOMIZATIONS.read_text()), strict(version["schema"]["openAPIV3Schema"])
    )


def _federated_hpa_script() -> str:
    data = yaml.safe_load(ARGOCD_CM.read_text())["data"]
    script: str = data["resource.customizations.health.autoscaling.karmada.io_FederatedHPA"]
    return script


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        pytest.param(HEALTHY, "Healthy", id="healthy"),
        pytest.param(FAILED_METRIC, "Degraded", id="failed metric"),
        pytest.param(
            [_condition("AbleToScale", "False", "FailedGetTargetClusters", "no binding yet")],
            "Degraded",
            id="karmada's own reason",
        ),
        pytest.param([], "Progressing", id="no conditions"),
        pytest.param(None, "Progressing", id="no status"),
    ],
)
def test_argocd_health_of_a_federated_hpa(
    conditions: list[dict[str, str]] | None, expected: str
) -> None:
    obj: dict[str, Any] = {"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "FederatedHPA"}
    if conditions is not None:
        obj["status"] = {"conditions": conditions}
    assert argocd_health(_federated_hpa_script(), obj)["status"] == expected


@settings(max_examples=200, deadline=None)
@given(conditions=CONDITIONS)
def test_the_federated_hpa_check_is_argocds_hpa_check(conditions: list[dict[str, str]]) -> None:
    """On the reasons an HPA can have, the shipped check answers what health_hpa.go answers."""
    obj = {"status": {"conditions": conditions}}
    assert argocd_health(_federated_hpa_script(), obj) == argocd_hpa_health(obj)

"""Karmada's own test tables (ported as data under ``cases/``) and how to run one case.

Shared by the pure-function tests here and by the ``fedgate plan --tree`` tests in
``tests/compiler/plan/``: each case file names its upstream source.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonpointer
import pytest
import yaml

from tests.conftest import POLICIES
from webhook.bundle.model import Cluster
from webhook.karmada.overridemanager import apply_overrides
from webhook.karmada.overriders import OverrideError, apply_overriders

CASES = Path(__file__).resolve().parent / "cases"
POLICY_API = "policy.karmada.io/v1alpha1"


@dataclass(frozen=True)
class OverrideCase:
    """One row of an override table."""

    source: str
    name: str
    template: Mapping[str, Any]
    cluster: str
    policies: tuple[Mapping[str, Any], ...]
    expect: Mapping[str, Any]
    applied: tuple[str, ...] | None
    rules: tuple[tuple[str, int | None], ...] | None
    """Each rule applied, in order (the Go test's list of policyOverriders), when it says."""
    error: bool
    bare: bool
    """Bare overriders (the Go test builds patches) rather than whole policies."""


def _wrap(template: Mapping[str, Any], overriders: Mapping[str, Any]) -> dict[str, Any]:
    """A rule of bare overriders as the one rule of a ClusterOverridePolicy naming the template."""
    return {
        "apiVersion": POLICY_API,
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "case"},
        "spec": {
            "resourceSelectors": [
                {
                    "apiVersion": template["apiVersion"],
                    "kind": template["kind"],
                    "name": template["metadata"]["name"],
                }
            ],
            "overrideRules": [{"overriders": dict(overriders)}],
        },
    }


def override_cases() -> list[Any]:
    """Every case, as pytest params with the Go test's name."""
    return list(_cases())


def _cases() -> Iterator[Any]:
    data = yaml.safe_load((CASES / "overridemanager.yaml").read_text())
    for row in data["cases"]:
        template = data["templates"][row["template"]]
        policies = row["policies"] if "policies" in row else [_wrap(template, row["overriders"])]
        case = OverrideCase(
            source=row["source"],
            name=row["name"],
            template=template,
            cluster=row.get("cluster", "test1"),
            policies=tuple(policies),
            expect=row.get("expect", {}),
            applied=tuple(row["applied"]) if "applied" in row else None,
            rules=tuple((p, r) for p, r in row["rules"]) if "rules" in row else None,
            error=bool(row.get("error")),
            bare="overriders" in row,
        )
        yield pytest.param(case, id=f"{row['source'].split('.go')[0]}: {row['name']}")


@functools.cache
def karmada_clusters() -> dict[str, Cluster]:
    """The clusters of the tables (``test/helper.NewCluster``: no labels, no fields)."""
    data = yaml.safe_load((CASES / "overridemanager.yaml").read_text())
    return {name: Cluster(name, {}) for name in data["clusters"]}


def write_bundle(directory: Path, clusters: Mapping[str, Cluster]) -> Path:
    """A policy bundle of these clusters, no tenants and no rules (the tables judge Karmada's
    arithmetic, not fedgate's rules), and the shipped writers."""
    directory.mkdir(parents=True, exist_ok=True)
    listed = []
    for cluster in clusters.values():
        row: dict[str, Any] = {"name": cluster.name, "labels": dict(cluster.labels)}
        for key in ("provider", "region", "zone"):
            if getattr(cluster, key):
                row[key] = getattr(cluster, key)
        if cluster.zones:
            row["zones"] = list(cluster.zones)
        listed.append(row)
    (directory / "clusters.yaml").write_text(yaml.safe_dump({"clusters": listed}))
    (directory / "tenants.yaml").write_text("tenants: []\n")
    (directory / "writers.yaml").write_text((POLICIES / "writers.yaml").read_text())
    return directory


def write_tree(directory: Path, case: OverrideCase) -> Path:
    """The case as a manifest tree: the template, a ClusterPropagationPolicy sending it to the
    case's cluster, and the case's override policies."""
    directory.mkdir(parents=True, exist_ok=True)
    placement = {
        "apiVersion": POLICY_API,
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "place"},
        "spec": {
            "resourceSelectors": [
                {"apiVersion": case.template["apiVersion"], "kind": case.template["kind"]}
            ],
            "placement": {"clusterAffinity": {"clusterNames": [case.cluster]}},
        },
    }
    (directory / "template.yaml").write_text(yaml.safe_dump_all([dict(case.template), placement]))
    (directory / "policies.yaml").write_text(yaml.safe_dump_all([dict(p) for p in case.policies]))
    return directory


def run_pure(
    case: OverrideCase,
) -> tuple[dict[str, Any], tuple[str, ...], tuple[tuple[str, int | None], ...]]:
    """The case through the override manager (or, for bare overriders, through
    ``apply_overriders`` as the Go test calls buildPatches)."""
    cluster_policies = [p for p in case.policies if p["kind"] == "ClusterOverridePolicy"]
    namespaced = [p for p in case.policies if p["kind"] == "OverridePolicy"]
    applied = apply_overrides(
        case.template, cluster_policies, namespaced, karmada_clusters()[case.cluster]
    )
    return applied.object, applied.applied, applied.rules


def run_overriders(case: OverrideCase) -> dict[str, Any]:
    """Only the overriders of a bare-overrider case, with no policy around them."""
    [rule] = case.policies[0]["spec"]["overrideRules"]
    return apply_overriders(copy.deepcopy(dict(case.template)), rule["overriders"])


def check(
    case: OverrideCase,
    result: Mapping[str, Any] | None,
    applied: Any = None,
    rules: Any = None,
) -> None:
    """The result holds what the Go test wants (``rules``: (policy, rule) pairs applied)."""
    if case.error:
        assert result is None, f"Karmada fails this case; got {result}"
        return
    assert result is not None
    for pointer, value in case.expect.items():
        assert jsonpointer.resolve_pointer(result, pointer) == value, pointer
    if case.applied is not None and applied is not None:
        assert tuple(applied) == case.applied
    if case.rules is not None:
        assert rules is not None
        assert tuple((p, r) for p, r in rules) == case.rules


__all__ = ["OverrideCase", "OverrideError", "check", "karmada_clusters", "override_cases"]


# ------------------------------------------------------------------------------- selectors


@functools.cache
def selector_tables() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CASES / "selector.yaml").read_text())
    return data


def selector_cluster() -> Cluster:
    row = selector_tables()["cluster"]
    return Cluster(
        row["name"],
        row["labels"],
        provider=row["provider"],
        region=row["region"],
        zones=tuple(row["zones"]),
    )


def extract_cluster_fields_cases() -> list[Any]:
    """Test_extractClusterFields: (the cluster, the fields wanted)."""
    return [
        pytest.param(
            Cluster("cluster1", {}, **row["cluster"]),
            row["want"],
            id=f"Test_extractClusterFields: {row['name']}",
        )
        for row in selector_tables()["extractClusterFields"]
    ]


def cluster_match_cases() -> list[Any]:
    return [
        pytest.param(row["affinity"], row["want"], id=f"TestClusterMatches: {row['name']}")
        for row in selector_tables()["clusterMatches"]
    ]


def resource_priority_cases() -> list[Any]:
    return [
        pytest.param(row["selectors"], row["want"], id=f"{row['source']}: {row['name']}")
        for row in selector_tables()["resourcePriority"]
    ]


def propagation_policy(selectors: list[Any], affinity: Any = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"resourceSelectors": selectors}
    if affinity is not None:
        spec["placement"] = {"clusterAffinity": affinity}
    return {
        "apiVersion": POLICY_API,
        "kind": "PropagationPolicy",
        "metadata": {"name": "case", "namespace": "default"},
        "spec": spec,
    }


def match_zones_cases() -> list[Any]:
    """Test_matchZones: (the zone requirement, the cluster's zones, whether it holds)."""
    return [
        pytest.param(
            {"key": "zone", "operator": row["operator"], "values": row["values"]},
            row["zones"],
            row["want"],
            id=f"Test_matchZones: {row['name']}",
        )
        for row in selector_tables()["matchZones"]
    ]


def unique_selector_cases() -> list[Any]:
    """TestExtractUniqueNamespacedSelectors: (the policy's selectors, the (apiVersion, kind)
    pairs Karmada keeps, in order)."""
    return [
        pytest.param(
            row["selectors"],
            [(w["apiVersion"], w["kind"]) for w in row["want"]],
            id=f"TestExtractUniqueNamespacedSelectors: {row['name']}",
        )
        for row in selector_tables()["uniqueNamespacedSelectors"]
    ]


def unique_selector_objects(selectors: list[Any]) -> list[dict[str, Any]]:
    """One template in ``default`` per distinct (apiVersion, kind) of ``selectors``, and a
    ConfigMap none of them names."""
    kinds = dict.fromkeys((s["apiVersion"], s["kind"]) for s in selectors)
    kinds[("v1", "ConfigMap")] = None
    return [
        {"apiVersion": a, "kind": k, "metadata": {"name": "probe", "namespace": "default"}}
        for a, k in kinds
    ]


# -------------------------------------------------------------------------------- detector


@functools.cache
def detector_tables() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CASES / "detector.yaml").read_text())
    return data


def detector_cases() -> list[Any]:
    """Each row twice: with PropagationPolicies and with ClusterPropagationPolicies."""
    cases = []
    for kind, test in (
        ("PropagationPolicy", "Test_getHighestPriorityPropagationPolicies"),
        ("ClusterPropagationPolicy", "Test_getHighestPriorityClusterPropagationPolicies"),
    ):
        for row in detector_tables()["cases"]:
            cases.append(pytest.param(kind, row, id=f"{test}: {row['name']}"))
    return cases


def detector_objects(
    kind: str, row: Mapping[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the template, the policies) of a detector row."""
    data = detector_tables()
    template = copy.deepcopy(data["template"])
    template["metadata"]["namespace"] = row.get("namespace", "test")
    policies = []
    for entry in row["policies"]:
        metadata = {"name": entry["name"]}
        if kind == "PropagationPolicy":
            metadata["namespace"] = "test"
        spec: dict[str, Any] = {"resourceSelectors": [data["selectors"][entry["selector"]]]}
        if "priority" in entry:
            spec["priority"] = entry["priority"]
        policies.append(
            {"apiVersion": POLICY_API, "kind": kind, "metadata": metadata, "spec": spec}
        )
    return template, policies


# ----------------------------------------------------------------------------- imageparser


@functools.cache
def image_tables() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CASES / "imageparser.yaml").read_text())
    return data


def image_parse_cases() -> list[Any]:
    return [pytest.param(row, id=f"TestParse: {row['name']}") for row in image_tables()["parse"]]


# ------------------------------------------------------------------------------------- e2e


@functools.cache
def e2e_tables() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CASES / "e2e.yaml").read_text())
    return data


def e2e_cases() -> list[Any]:
    """Each e2e It, named ``file: Describe / Context / It``."""
    cases = []
    for row in e2e_tables()["cases"]:
        where = " / ".join(part for part in (row["describe"], row["context"], row["it"]) if part)
        cases.append(pytest.param(row, id=f"{row['source'].split('.go')[0]}: {where}"))
    return cases


def e2e_clusters(row: Mapping[str, Any]) -> dict[str, Cluster]:
    """The members of the case (the suite's three, with what the case sets on them)."""
    listed = row.get("clusters") or [{"name": name} for name in e2e_tables()["clusters"]]
    return {
        entry["name"]: Cluster(
            entry["name"],
            entry.get("labels", {}),
            provider=entry.get("provider"),
            region=entry.get("region"),
        )
        for entry in listed
    }


def template_key(template: Mapping[str, Any]) -> str:
    """``Kind namespace/name`` (``Kind name`` when cluster-scoped), as the e2e cases name them."""
    namespace = template["namespace"]
    return f"{template['kind']} {namespace + '/' if namespace else ''}{template['name']}"


def higher_priority_cases() -> list[Any]:
    """compare_test.go Test_GetHigherPriority*: each row for both policy kinds."""
    cases = []
    for kind, test in (
        ("PropagationPolicy", "Test_GetHigherPriorityPropagationPolicy"),
        ("ClusterPropagationPolicy", "Test_GetHigherPriorityClusterPropagationPolicy"),
    ):
        for row in detector_tables()["higherPriority"]:
            cases.append(pytest.param(kind, row, id=f"{test}: {row['name']}"))
    return cases


def kind_only_policy(kind: str, name: str, selector: Mapping[str, Any]) -> dict[str, Any]:
    """A policy of ``kind`` named ``name`` whose one selector names the kind of ``selector``."""
    metadata = {"name": name}
    if kind == "PropagationPolicy":
        metadata["namespace"] = "test"
    return {
        "apiVersion": POLICY_API,
        "kind": kind,
        "metadata": metadata,
        "spec": {
            "resourceSelectors": [{"apiVersion": selector["apiVersion"], "kind": selector["kind"]}]
        },
    }


def event_filter_cases() -> list[Any]:
    """detector_test.go TestEventFilter and the default rows of TestGVRDisabled."""
    data = detector_tables()
    return [
        *(
            pytest.param(r["obj"], r["expected"], id=f"TestEventFilter: {r['name']}")
            for r in data["eventFilter"]
        ),
        # gvrDisabled reports whether the kind is skipped: the object is a template when not
        *(
            pytest.param(r["obj"], not r["expected"], id=f"TestGVRDisabled: {r['name']}")
            for r in data["gvrDisabled"]
        ),
    ]


def look_for_cases() -> list[Any]:
    return [pytest.param(r, id=f"{r['source']}: {r['name']}") for r in detector_tables()["lookFor"]]


# ------------------------------------------------------------------------------ variations


@functools.cache
def variation_tables() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CASES / "variations.yaml").read_text())
    return data


def variation_cases() -> list[Any]:
    return [pytest.param(row, id=row["name"]) for row in variation_tables()["cases"]]


def policy_label(policy: Mapping[str, Any]) -> str:
    """``Kind namespace/name`` (``Kind name`` when cluster-scoped), as the cases name them."""
    metadata = policy.get("metadata") or {}
    namespace = metadata.get("namespace")
    return f"{policy['kind']} {namespace + '/' if namespace else ''}{metadata.get('name')}"


def variation_clusters() -> dict[str, Cluster]:
    return {
        row["name"]: Cluster(
            row["name"],
            row.get("labels", {}),
            provider=row.get("provider"),
            region=row.get("region"),
            zones=tuple(row.get("zones", ())),
        )
        for row in variation_tables()["clusters"]
    }


@dataclass(frozen=True)
class Observed:
    """What one path (the pure functions or ``plan --tree``'s JSON) says of one template."""

    policy: str | None
    placement: tuple[str, ...]
    clusters: Mapping[str, Any]
    overrides: Mapping[str, tuple[str, ...]]
    suspended: tuple[str, ...]


def check_variation(want: Mapping[str, Any], seen: Observed, key: str) -> None:
    """``seen`` holds what the case wants of the template ``key``."""
    if "policy" in want:
        assert seen.policy == want["policy"], key
    if "placement" in want:
        assert sorted(seen.placement) == sorted(want["placement"]), key
    failed = sorted(c for c in seen.placement if c not in seen.clusters)
    assert failed == sorted(want.get("failed", [])), f"{key}: the override fails on {failed}"
    for cluster, applied in want.get("overrides", {}).items():
        assert list(seen.overrides[cluster]) == applied, f"{key} on {cluster}"
    for cluster, labels in want.get("labels", {}).items():
        metadata = seen.clusters[cluster].get("metadata", {})
        assert metadata.get("labels") == labels, f"{key} on {cluster}"
    for cluster, pointers in want.get("absent", {}).items():
        for pointer in pointers:
            missing = jsonpointer.resolve_pointer(seen.clusters[cluster], pointer, None)
            assert missing is None, f"{key} on {cluster}: {pointer}"
    for cluster, pointers in want.get("equals", {}).items():
        for pointer, value in pointers.items():
            got = jsonpointer.resolve_pointer(seen.clusters[cluster], pointer)
            assert got == value, f"{key} on {cluster}: {pointer}"
    if "suspended" in want:
        assert list(seen.suspended) == want["suspended"], key

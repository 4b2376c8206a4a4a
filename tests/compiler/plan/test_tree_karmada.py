"""Karmada's own test tables (ported from karmada-io/karmada v1.18.0 into
tests/webhook/karmada/cases/, each file naming its source) through ``fedgate plan --tree``:
pkg/util/overridemanager/*_test.go (each case written as a manifest tree: the template, a
ClusterPropagationPolicy placing it on the case's cluster, the case's override policies; the
member copy in the JSON must hold what the Go test expects), pkg/util/selector_test.go (a
cluster affinity places a ConfigMap or not; a resource selector claims a Pod or not, at the
priority the test wants) and pkg/detector/compare_test.go (which policy claims the
template)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from compiler.cli import main
from tests.webhook.karmada.tables import (
    OverrideCase,
    check,
    cluster_match_cases,
    detector_cases,
    detector_objects,
    event_filter_cases,
    extract_cluster_fields_cases,
    higher_priority_cases,
    image_parse_cases,
    image_tables,
    karmada_clusters,
    kind_only_policy,
    look_for_cases,
    match_zones_cases,
    override_cases,
    propagation_policy,
    resource_priority_cases,
    selector_cluster,
    selector_tables,
    unique_selector_cases,
    unique_selector_objects,
    write_bundle,
    write_tree,
)
from tests.webhook.karmada.test_goyaml import configmap, field_cases, overrider
from tests.webhook.karmada.test_imageparser import image_override_cases
from webhook.bundle.model import Cluster
from webhook.karmada.validation import refusals


@pytest.fixture(scope="module")
def karmada_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_bundle(tmp_path_factory.mktemp("bundle"), karmada_clusters())


def refused_in(report: dict[str, Any], policy: str) -> bool:
    """The plan warns that Karmada's API refuses ``policy`` (``Kind ns/name``)."""
    return any(f"Karmada refuses {policy} " in w["message"] for w in report["warnings"])


def plan_tree(tree: Path, bundle: Path) -> tuple[int, dict[str, Any]]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(
        ["plan", "--tree", str(tree), "--policies", str(bundle), "--output", "json"],
        stdout=stdout,
        stderr=stderr,
    )
    assert stderr.getvalue() == ""
    return code, json.loads(stdout.getvalue())


@pytest.mark.parametrize("case", override_cases())
def test_karmada_table_through_plan_tree(
    case: OverrideCase, karmada_bundle: Path, tmp_path: Path
) -> None:
    code, report = plan_tree(write_tree(tmp_path / "tree", case), karmada_bundle)
    [template] = report["templates"]
    assert template["placement"] == {case.cluster: template["placement"][case.cluster]}
    result = template["clusters"].get(case.cluster)
    rules = template["appliedRules"].get(case.cluster)
    check(
        case,
        result,
        template["overrides"].get(case.cluster),
        rules and [(r["policy"], r["rule"]) for r in rules],
    )
    if case.error:
        assert code == 1
        assert template["violations"][case.cluster][0]["rule"] == "karmada.override"
    else:
        assert code == 0, template["violations"]


@pytest.mark.slow
def test_the_real_command(karmada_bundle: Path, tmp_path: Path) -> None:
    """The installed ``fedgate`` on one case (the rest run in-process, the same code)."""
    case = next(c.values[0] for c in override_cases() if c.values[0].name.startswith("test yaml"))
    tree = write_tree(tmp_path / "tree", case)
    fedgate = str(Path(sys.executable).with_name("fedgate"))
    done = subprocess.run(
        [
            fedgate,
            "plan",
            "--tree",
            str(tree),
            "--policies",
            str(karmada_bundle),
            "--output",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [template] = json.loads(done.stdout)["templates"]
    check(case, template["clusters"][case.cluster], template["overrides"][case.cluster])


@pytest.fixture(scope="module")
def selector_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cluster = selector_cluster()
    return write_bundle(tmp_path_factory.mktemp("selector-bundle"), {cluster.name: cluster})


def _write(tree: Path, objects: list[dict[str, Any]]) -> Path:
    tree.mkdir(parents=True, exist_ok=True)
    (tree / "objects.yaml").write_text(yaml.safe_dump_all(objects))
    return tree


CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "probe", "namespace": "default"},
}


@pytest.mark.parametrize(("affinity", "want"), cluster_match_cases())
def test_cluster_match_table_through_plan_tree(
    affinity: dict[str, Any], want: bool, selector_bundle: Path, tmp_path: Path
) -> None:
    """TestClusterMatches: the ConfigMap lands on cluster1 exactly when the affinity holds."""
    selectors = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "probe"}]
    policy = propagation_policy(selectors, affinity)
    code, report = plan_tree(_write(tmp_path / "tree", [CONFIGMAP, policy]), selector_bundle)
    [template] = report["templates"]
    assert template["placement"] == ({"cluster1": None} if want else {})
    assert code == 0
    # ClusterMatches answers the row; karmada-webhook would refuse some of these policies
    # (ValidatePolicyFieldSelector), and the plan says so
    assert refused_in(report, "PropagationPolicy default/case") is bool(refusals(policy))


@pytest.mark.parametrize(("cluster", "want"), extract_cluster_fields_cases())
def test_extract_cluster_fields_through_plan_tree(
    cluster: Any, want: dict[str, str], tmp_path: Path
) -> None:
    """Test_extractClusterFields: a fieldSelector ``KEY Exists`` selects the cluster exactly when
    Karmada extracts KEY from it, ``KEY In [value]`` / ``NotIn [value]`` exactly when it
    extracts / does not extract that value. (karmada-webhook would refuse the Exists and
    DoesNotExist policies; the plan warns so and answers as ClusterMatches does.)"""
    bundle = write_bundle(tmp_path / "bundle", {cluster.name: cluster})
    for key in ("provider", "region"):
        value = want.get(key, "foo")
        for expression, selected in (
            ({"key": key, "operator": "Exists"}, key in want),
            ({"key": key, "operator": "DoesNotExist"}, key not in want),
            ({"key": key, "operator": "In", "values": [value]}, key in want),
            ({"key": key, "operator": "NotIn", "values": [value]}, key not in want),
        ):
            affinity = {"fieldSelector": {"matchExpressions": [expression]}}
            selectors = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "probe"}]
            tree = _write(
                tmp_path / f"{key}-{expression['operator']}",
                [CONFIGMAP, propagation_policy(selectors, affinity)],
            )
            _, report = plan_tree(tree, bundle)
            [template] = report["templates"]
            assert template["placement"] == ({cluster.name: None} if selected else {}), expression


@pytest.mark.parametrize(("expression", "zones", "matched"), match_zones_cases())
def test_match_zones_through_plan_tree(
    expression: dict[str, Any], zones: list[str], matched: bool, tmp_path: Path
) -> None:
    """Test_matchZones: a cluster with the row's zones; the ConfigMap lands there exactly when
    the policy's one fieldSelector requirement (the row's, on ``zone``) holds."""
    cluster = Cluster("cluster1", {}, zones=tuple(zones))
    bundle = write_bundle(tmp_path / "bundle", {cluster.name: cluster})
    affinity = {"fieldSelector": {"matchExpressions": [expression]}}
    selectors = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "probe"}]
    policy = propagation_policy(selectors, affinity)
    code, report = plan_tree(_write(tmp_path / "tree", [CONFIGMAP, policy]), bundle)
    [template] = report["templates"]
    assert template["placement"] == ({"cluster1": None} if matched else {})
    assert code == 0
    # karmada-webhook would refuse a zone requirement with an operator other than In / NotIn
    # (ValidatePolicyFieldSelector): the plan warns so, and answers as matchZones does
    refused = expression["operator"] not in ("In", "NotIn")
    assert refused_in(report, "PropagationPolicy default/case") is refused


@pytest.mark.parametrize(("selectors", "want"), resource_priority_cases())
def test_resource_selector_table_through_plan_tree(
    selectors: list[dict[str, Any]], want: int, selector_bundle: Path, tmp_path: Path
) -> None:
    """TestResourceSelectorPriority and friends: the policy claims the Pod when the priority is
    above 0, and the plan says which priority won."""
    resource = selector_tables()["resource"]
    tree = _write(tmp_path / "tree", [resource, propagation_policy(selectors)])
    _, report = plan_tree(tree, selector_bundle)
    [template] = report["templates"]
    if want == 0:
        assert template["policy"] is None
        return
    assert template["policy"] == {
        "kind": "PropagationPolicy",
        "namespace": "default",
        "name": "case",
    }
    words = {1: "kind-only selector", 2: "label selector", 3: "name selector"}[want]
    assert f"(priority 0, {words})" in template["notes"][0]


@pytest.mark.parametrize(("selectors", "want"), unique_selector_cases())
def test_unique_namespaced_selectors_through_plan_tree(
    selectors: list[dict[str, Any]],
    want: list[tuple[str, str]],
    selector_bundle: Path,
    tmp_path: Path,
) -> None:
    """TestExtractUniqueNamespacedSelectors: each template the deduplicated selectors name is
    listed once and claimed by the policy; the ConfigMap no selector names is not."""
    objects = unique_selector_objects(selectors)
    tree = _write(tmp_path / "tree", [*objects, propagation_policy(selectors)])
    code, report = plan_tree(tree, selector_bundle)
    listed = [(t["apiVersion"], t["kind"]) for t in report["templates"]]
    assert sorted(listed) == sorted((o["apiVersion"], o["kind"]) for o in objects)
    claimed = {(t["apiVersion"], t["kind"]) for t in report["templates"] if t["policy"]}
    assert claimed == set(want)
    assert code == 0
    # no selectors at all: the CRD's minItems 1 would refuse the policy; the plan warns so
    assert refused_in(report, "PropagationPolicy default/case") is (not selectors)


@pytest.mark.parametrize(("kind", "row"), detector_cases())
def test_detector_table_through_plan_tree(
    kind: str, row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    template, policies = detector_objects(kind, row)
    _, report = plan_tree(_write(tmp_path / "tree", [template, *policies]), karmada_bundle)
    [planned] = report["templates"]
    assert (planned["policy"]["name"] if planned["policy"] else None) == row["want"]


@pytest.mark.parametrize(("kind", "row"), higher_priority_cases())
def test_higher_priority_table_through_plan_tree(
    kind: str, row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    """compare_test.go Test_GetHigherPriority*: two policies alike but for their names claim the
    Deployment; the smaller name wins. A policy without a name, or a nil one, cannot be written
    in a tree: those rows run through the detector in tests/webhook/karmada/test_detector.py."""
    if row["a"] in (None, ""):
        pytest.skip("a policy with no name (or a nil policy) cannot be a manifest in a tree")
    template = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "namespace": "test"},
    }
    policies = [kind_only_policy(kind, name, template) for name in (row["a"], row["b"])]
    _, report = plan_tree(_write(tmp_path / "tree", [template, *policies]), karmada_bundle)
    [planned] = report["templates"]
    assert planned["policy"]["name"] == row["want"]


@pytest.mark.parametrize(("obj", "template"), event_filter_cases())
def test_event_filter_table_through_plan_tree(
    obj: dict[str, Any], template: bool, karmada_bundle: Path, tmp_path: Path
) -> None:
    """detector_test.go TestEventFilter: a ClusterPropagationPolicy naming the object's kind
    claims it exactly when the detector lets the object through."""
    policy = kind_only_policy("ClusterPropagationPolicy", "all", obj)
    _, report = plan_tree(_write(tmp_path / "tree", [obj, policy]), karmada_bundle)
    claimed = [t for t in report["templates"] if t["policy"] is not None]
    assert len(claimed) == (1 if template else 0), report["templates"]


@pytest.mark.parametrize("row", look_for_cases())
def test_look_for_table_through_plan_tree(
    row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    _, report = plan_tree(_write(tmp_path / "tree", [row["obj"], *row["policies"]]), karmada_bundle)
    [planned] = report["templates"]
    assert planned["policy"] == row["want"]


def _deployment(image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "app", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "template": {"spec": {"containers": [{"name": "app", "image": image}]}},
        },
    }


def _registry_override(component: str, operator: str, value: str) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "registry"},
        "spec": {
            "overrideRules": [
                {
                    "overriders": {
                        "imageOverrider": [
                            {"component": component, "operator": operator, "value": value}
                        ]
                    }
                }
            ]
        },
    }


@pytest.mark.parametrize("row", image_parse_cases())
def test_image_parse_table_through_plan_tree(
    row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    """TestParse: a Registry replace shows where Karmada puts the host / repository split; an
    empty Registry add gives the image back (its String() round trip)."""
    deployment = _deployment(row["image"])
    placement = propagation_policy([{"apiVersion": "apps/v1", "kind": "Deployment"}])
    for override, expected in (
        (_registry_override("Registry", "replace", "mirror.example"), None),
        (_registry_override("Registry", "add", ""), row["image"]),
    ):
        tree = _write(
            tmp_path
            / override["spec"]["overrideRules"][0]["overriders"]["imageOverrider"][0]["operator"],
            [deployment, placement, override],
        )
        code, report = plan_tree(tree, karmada_bundle)
        [template] = report["templates"]
        images = {
            c: o["spec"]["template"]["spec"]["containers"][0]["image"]
            for c, o in template["clusters"].items()
        }
        tail = row["repository"] + (
            f":{row['tag']}" if row["tag"] else f"@{row['digest']}" if row["digest"] else ""
        )
        want = expected if expected is not None else f"mirror.example/{tail}"
        assert set(images.values()) == {want}, images
        assert code == 0


@pytest.mark.parametrize(
    "row", [pytest.param(r, id=r["name"]) for r in image_tables()["splitHostname"]]
)
def test_split_hostname_through_plan_tree(
    row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    """TestSplitHostname: the row's name as a container image; a Registry replace keeps the
    repository Karmada split off, a Repository replace keeps the hostname. The empty image:
    imageparser.Parse refuses it (reference.Parse: an empty name) before SplitHostname, so the
    override fails and the cluster gets no copy."""
    placement = propagation_policy([{"apiVersion": "apps/v1", "kind": "Deployment"}])
    host = row["hostname"] + "/" if row["hostname"] else ""
    for component, value, want in (
        ("Registry", "mirror.example", f"mirror.example/{row['repository']}"),
        ("Repository", "renamed", f"{host}renamed"),
    ):
        override = _registry_override(component, "replace", value)
        tree = _write(tmp_path / component, [_deployment(row["input"]), placement, override])
        code, report = plan_tree(tree, karmada_bundle)
        [template] = report["templates"]
        if not row["input"]:
            assert code == 1 and template["clusters"] == {}
            assert {v[0]["rule"] for v in template["violations"].values()} == {"karmada.override"}
            continue
        images = {
            o["spec"]["template"]["spec"]["containers"][0]["image"]
            for o in template["clusters"].values()
        }
        assert images == {want}, component
        assert code == 0


@pytest.mark.parametrize("row", [pytest.param(r, id=r["name"]) for r in image_tables()["examples"]])
def test_image_examples_through_plan_tree(
    row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    """parser_test.go Example*: the first n steps as the first n imageOverrider entries of one
    ClusterOverridePolicy; the member's image is the n-th line the Example prints."""
    placement = propagation_policy([{"apiVersion": "apps/v1", "kind": "Deployment"}])
    for n in range(1, len(row["steps"]) + 1):
        override = _registry_override("Registry", "add", "")
        override["spec"]["overrideRules"][0]["overriders"]["imageOverrider"] = [
            {"component": component, "operator": operator, "value": value}
            for component, operator, value, _ in row["steps"][:n]
        ]
        tree = _write(tmp_path / str(n), [_deployment(row["image"]), placement, override])
        code, report = plan_tree(tree, karmada_bundle)
        [template] = report["templates"]
        images = {
            o["spec"]["template"]["spec"]["containers"][0]["image"]
            for o in template["clusters"].values()
        }
        assert images == {row["steps"][n - 1][3]}, n
        assert code == 0


@pytest.mark.parametrize("row", [pytest.param(r, id=r["name"]) for r in image_tables()["string"]])
def test_image_string_through_plan_tree(
    row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    """ExampleComponents_String: the image goes through an override that changes nothing (an
    empty Registry add) and reaches the members as the Example prints it."""
    placement = propagation_policy([{"apiVersion": "apps/v1", "kind": "Deployment"}])
    override = _registry_override("Registry", "add", "")
    tree = _write(tmp_path / "tree", [_deployment(row["want"]), placement, override])
    _, report = plan_tree(tree, karmada_bundle)
    [template] = report["templates"]
    assert {
        o["spec"]["template"]["spec"]["containers"][0]["image"]
        for o in template["clusters"].values()
    } == {row["want"]}


@pytest.mark.parametrize("row", field_cases())
def test_field_overrider_cases_through_plan_tree(
    row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    """cases/fieldoverrider.yaml: a ConfigMap, a PropagationPolicy and an OverridePolicy whose
    fieldOverrider is the row's; the member's data is what Karmada's libraries wrote (or, where
    they fail, the cluster gets no copy and the failure is a violation)."""
    cm = configmap(row)
    placement = propagation_policy([{"apiVersion": "v1", "kind": "ConfigMap"}])
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "field", "namespace": "default"},
        "spec": {"overrideRules": [{"overriders": {"fieldOverrider": [overrider(row)]}}]},
    }
    code, report = plan_tree(_write(tmp_path / "tree", [cm, placement, override]), karmada_bundle)
    [template] = report["templates"]
    # karmada-webhook would refuse an add / replace without a value (validateOverrideOperator):
    # the plan warns so, and answers as the libraries do
    assert refused_in(report, "OverridePolicy default/field") is bool(refusals(override))
    if "error" in row:
        assert code == 1 and template["clusters"] == {}
        assert {v[0]["rule"] for v in template["violations"].values()} == {"karmada.override"}
        return
    assert code == 0
    assert {c["data"]["doc"] for c in template["clusters"].values()} == {row["want"]}


@pytest.mark.parametrize("row", image_override_cases())
def test_image_overrides_as_karmada_does_through_plan_tree(
    row: dict[str, Any], karmada_bundle: Path, tmp_path: Path
) -> None:
    """imageparser.yaml `overrides`: the member's image is what Karmada's Go code wrote, or the
    cluster gets no copy and the failed override is a violation."""
    placement = propagation_policy([{"apiVersion": "apps/v1", "kind": "Deployment"}])
    override = _registry_override(row["component"], row["operator"], row["value"])
    tree = _write(tmp_path / "tree", [_deployment(row["image"]), placement, override])
    code, report = plan_tree(tree, karmada_bundle)
    [template] = report["templates"]
    if "error" in row:
        assert code == 1 and template["clusters"] == {}
        assert {v[0]["rule"] for v in template["violations"].values()} == {"karmada.override"}
        return
    assert {
        o["spec"]["template"]["spec"]["containers"][0]["image"]
        for o in template["clusters"].values()
    } == {row["want"]}

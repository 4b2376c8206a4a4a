"""deploy/argocd/application-example.yaml, the plugin's Application, is tested like the
generated ones: valid against Argo CD's CRD, accepted by its own project,
every object the plugin prints permitted, and every field fedgate gives to another writer
ignored: the same pointers compile derives for a committed tree, and spec.replicas of exactly the
autoscaled Deployments (through the jq expression, run with libjq)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from compiler.argocd.permissions import application_cluster, application_refusals, sync_refusal
from compiler.commands.compile import compile_paths
from compiler.render.argocd import ignore_differences
from tests.conftest import EXAMPLES, POLICIES, ROOT

EXAMPLE = ROOT / "deploy" / "argocd" / "application-example.yaml"
jq = pytest.importorskip("jq", reason="jq (libjq for Python) is not installed")


def _example() -> tuple[dict[str, Any], dict[str, Any]]:
    project, application = yaml.safe_load_all(EXAMPLE.read_text())
    return project, application


def _plugin_output() -> list[dict[str, Any]]:
    compiled = compile_paths([EXAMPLES / "apps"], POLICIES)
    return [yaml.safe_load(d) for p, d in compiled.files.items() if not p.startswith("argocd/")]


def test_the_application_validates_against_argocds_crd(reference: Path) -> None:
    crd = yaml.safe_load((reference / "argocd" / "application-crd.yaml").read_text())
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    jsonschema.validate(_example()[1], version["schema"]["openAPIV3Schema"])


def test_argocd_accepts_it_and_syncs_everything_the_plugin_prints() -> None:
    project, application = _example()
    assert application["spec"]["project"] == project["metadata"]["name"] != "default"
    assert application_refusals(application, project) == []
    cluster = application_cluster(application)
    refused = [
        (o["kind"], o["metadata"]["name"], sync_refusal(project, cluster, o, namespaced=True))
        for o in _plugin_output()
    ]
    assert [r for r in refused if r[2]] == []
    cluster_scoped = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
    }
    assert sync_refusal(project, cluster, {**cluster_scoped, "metadata": {}}, namespaced=False)


def _jq_deletions(application: dict[str, Any], kind: str) -> list[str]:
    return [
        expression
        for entry in application["spec"]["ignoreDifferences"]
        if entry["kind"] == kind
        for expression in entry.get("jqPathExpressions", [])
    ]


def test_it_ignores_what_compile_would_ignore_for_a_committed_tree() -> None:
    _, application = _example()
    compiled = compile_paths([EXAMPLES / "apps"], POLICIES)
    derived = ignore_differences(compiled.apps)
    listed = {
        (e.get("group", ""), e["kind"]): set(e.get("jsonPointers", []))
        for e in application["spec"]["ignoreDifferences"]
    }
    for entry in derived:
        if "name" in entry:  # per object: only /spec/replicas, covered by the jq expression
            assert entry["jsonPointers"] == ["/spec/replicas"]
            continue
        assert set(entry["jsonPointers"]) <= listed[(entry.get("group", ""), entry["kind"])]
    autoscaled = {e["name"] for e in derived if "name" in e}
    [expression] = _jq_deletions(application, "Deployment")
    program = jq.compile(f"del({expression})")
    for obj in _plugin_output():
        if obj["kind"] != "Deployment":
            continue
        live = {**obj, "spec": {**obj["spec"], "replicas": 7}}
        [normalized] = program.input_value(live).all()
        ignored = "replicas" not in normalized["spec"]
        assert ignored == (obj["metadata"]["name"] in autoscaled), obj["metadata"]["name"]
    assert autoscaled == {"payments-api", "web-frontend"}


@pytest.mark.parametrize(
    "annotation",
    [None, "", "not json", "[[[", "[1]", '{"/spec/replicas": 5}', '{"":"git"}'],
)
def test_the_jq_expression_never_fails_on_a_ledger_the_writer_controls(
    annotation: str | None,
) -> None:
    """Argo CD normalizes the live object too, whose annotations anyone with write access sets:
    a broken ledger must not break the comparison (it keeps the field, as git's)."""
    _, application = _example()
    [expression] = _jq_deletions(application, "Deployment")
    metadata: dict[str, Any] = {"name": "x"}
    if annotation is not None:
        metadata["annotations"] = {"fedgate.dev/ownership": annotation}
    live = {"metadata": metadata, "spec": {"replicas": 3}}
    [normalized] = jq.compile(f"del({expression})").input_value(live).all()
    assert normalized["spec"] == {"replicas": 3}

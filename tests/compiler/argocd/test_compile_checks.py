"""Compile replays Argo CD's permission logic over every generated Application and every object
it syncs, and refuses a tree Argo CD would refuse, in Argo CD's words."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from compiler.argocd.compile_checks import keeps_absent_ignored_fields, version_warnings
from compiler.argocd.sync import ArgoCDTree
from compiler.compile.core import Compiled, compile_apps
from compiler.spec.load import parse_specs
from tests.conftest import EXAMPLES, POLICIES
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.errors import SpecError

PATH = "rendered"  # policies/argocd.yaml: path


def _bundle(tmp_path: Path, tenants: str | None = None, argocd: str | None = None) -> Bundle:
    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    if tenants is not None:
        text = (policies / "tenants.yaml").read_text()
        (policies / "tenants.yaml").write_text(text.replace(*tenants.split("=>")))
    if argocd is not None:
        (policies / "argocd.yaml").write_text(argocd)
    return load_bundle(policies)


def _specs(*extra: str) -> list[Any]:
    specs = []
    for path in sorted((EXAMPLES / "apps").glob("*.yaml")):
        specs.extend(parse_specs(path.read_text(), str(path)))
    for index, text in enumerate(extra):
        specs.extend(parse_specs(text, f"extra-{index}.yaml"))
    return specs


def _objects(compiled: Compiled) -> dict[str, Mapping[str, Any]]:
    return {
        path: yaml.safe_load(data)
        for path, data in compiled.files.items()
        if path.endswith(".yaml")
    }


def _replay(compiled: Compiled) -> list[str]:
    """Argo CD's verdict on every Application and every object of the tree, in its words."""
    objects = _objects(compiled)
    tree = ArgoCDTree.of(o for p, o in objects.items() if p.startswith("argocd/"))
    problems = [f"{name}: {why}" for name, why in tree.application_refusals()]
    for path, obj in objects.items():
        problems += [f"{path}: {why}" for why in tree.object_refusals(f"{PATH}/{path}", obj)]
    return problems


def test_argocd_accepts_every_generated_application_and_syncs_every_object(bundle: Bundle) -> None:
    compiled = compile_apps(_specs(), bundle)
    assert _replay(compiled) == []
    applications = [o for o in _objects(compiled).values() if o["kind"] == "Application"]
    assert {a["metadata"]["name"] for a in applications} == {
        "fedgate-tenants",
        "fedgate-team-a",
        "fedgate-team-b",
    }


SECOND_NAMESPACE = """\
apiVersion: fedgate.dev/v1alpha1
kind: App
metadata: {name: second, namespace: platform-demo-2}
spec:
  tenant: team-a
  image: registry.example.com/platform/second:1.0
  replicas: 1
  resources: {requests: {cpu: 100m, memory: 64Mi}}
  placement: {clusters: [cluster-a]}
  failover: {purge: never}
"""


def test_a_tenant_with_several_namespaces_syncs_all_of_them(tmp_path: Path) -> None:
    bundle = _bundle(
        tmp_path,
        tenants="namespaces: [platform-demo]=>namespaces: [platform-demo, platform-demo-2]",
    )
    compiled = compile_apps(_specs(SECOND_NAMESPACE), bundle)
    assert _replay(compiled) == []
    objects = _objects(compiled)
    application = objects["argocd/team-a-application.yaml"]
    assert application["spec"]["destination"]["namespace"] == "platform-demo"
    assert application["spec"]["source"]["directory"]["include"] == (
        "{platform-demo/*,platform-demo-2/*}"
    )
    project = objects["argocd/team-a-project.yaml"]
    assert [d["namespace"] for d in project["spec"]["destinations"]] == [
        "platform-demo",
        "platform-demo-2",
    ]


@pytest.mark.parametrize(
    ("obj", "path", "expected"),
    [
        pytest.param(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "ClusterPropagationPolicy",
                "metadata": {"name": "x"},
            },
            "platform-demo/x/cpp.yaml",
            "resource policy.karmada.io:ClusterPropagationPolicy is not permitted in project "
            "team-a",
            id="cluster-scoped kind",
        ),
        pytest.param(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "x", "namespace": "payments"},
            },
            "platform-demo/x/deployment.yaml",
            "namespace payments is not permitted in project 'team-a'",
            id="another tenant's namespace",
        ),
        pytest.param(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "x", "namespace": "kube-system"},
            },
            "platform-demo/x/deployment.yaml",
            "namespace kube-system is not permitted in project 'team-a'",
            id="a system namespace",
        ),
        pytest.param(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": "x", "namespace": "platform-demo"},
            },
            "platform-demo/x/rolebinding.yaml",
            "resource rbac.authorization.k8s.io:RoleBinding is not permitted in project team-a",
            id="a kind fedgate does not judge",
        ),
    ],
)
def test_tenant_projects_still_deny_cluster_scope_and_other_namespaces(
    bundle: Bundle, obj: dict[str, Any], path: str, expected: str
) -> None:
    compiled = compile_apps(_specs(), bundle)
    tree = ArgoCDTree.of(o for p, o in _objects(compiled).items() if p.startswith("argocd/"))
    namespaced = "namespace" in obj["metadata"]
    assert tree.object_refusals(f"{PATH}/{path}", obj, namespaced=namespaced) == [
        f"Argo CD Application fedgate-team-a: {expected}"
    ]


def test_a_file_no_application_reads_is_reported(bundle: Bundle) -> None:
    compiled = compile_apps(_specs(), bundle)
    tree = ArgoCDTree.of(o for p, o in _objects(compiled).items() if p.startswith("argocd/"))
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "namespace": "elsewhere"},
    }
    assert tree.object_refusals(f"{PATH}/elsewhere/x.yaml", obj) == [
        "no Argo CD Application syncs this file: it would never reach the cluster"
    ]


def test_compile_refuses_a_tree_argo_cd_would_refuse(tmp_path: Path) -> None:
    """A tenant namespace named like the Argo CD folder: its Application would also sync the
    Applications and AppProjects, which its project refuses and the root Application owns."""
    bundle = _bundle(tmp_path, tenants="namespaces: [payments]=>namespaces: [argocd]")
    specs = [s for s in _specs() if s.namespace != "payments"]
    with pytest.raises(SpecError) as raised:
        compile_apps(specs, bundle)
    messages = [f.message for f in raised.value.findings]
    assert (
        "argocd/team-b-project.yaml: two Applications sync this file (fedgate-team-b, "
        "fedgate-tenants): they would fight over it"
    ) in messages


def test_every_tenant_keeps_its_application_without_apps(bundle: Bundle) -> None:
    """So that Argo CD prunes what the tenant had, rather than orphaning it."""
    specs = [s for s in _specs() if s.namespace != "payments"]
    compiled = compile_apps(specs, bundle)
    application = _objects(compiled)["argocd/team-b-application.yaml"]
    assert application["spec"]["ignoreDifferences"] == []
    assert _replay(compiled) == []


@pytest.mark.parametrize(
    ("version", "keeps"),
    [
        ((2, 6, 15), False),
        ((2, 7, 17), False),
        ((2, 7, 18), True),
        ((2, 8, 14), False),
        ((2, 8, 15), True),
        ((2, 9, 10), False),
        ((2, 9, 11), True),
        ((2, 10, 5), False),
        ((2, 10, 6), True),
        ((2, 11, 0), True),
        ((3, 0, 0), True),
    ],
)
def test_which_argocd_keeps_an_ignored_field_git_leaves_out(
    version: tuple[int, int, int], keeps: bool
) -> None:
    """Tags containing argo-cd #17693 (git tag --contains on its cherry-picks)."""
    assert keeps_absent_ignored_fields(version) is keeps


ARGOCD = """\
argocd:
  namespace: argocd
  repoURL: https://git.example.com/platform/federation.git
  path: rendered
  destination: {name: karmada-apiserver}
  version: {version}
"""


def test_an_old_argocd_warns_for_every_autoscaled_app(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, argocd=ARGOCD.replace("{version}", "v2.10.3"))
    compiled = compile_apps(_specs(), bundle)
    warned = sorted(
        (Path(w.file).name, w.path) for w in compiled.warnings if "argo-cd #17693" in w.message
    )
    assert warned == [
        ("payments-api.yaml", "spec.autoscaling.owner"),
        ("web-frontend.yaml", "spec.autoscaling.owner"),
    ]
    assert version_warnings(compiled.apps, None) == []


def test_a_fixed_argocd_does_not_warn(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, argocd=ARGOCD.replace("{version}", "2.10.6"))
    compiled = compile_apps(_specs(), bundle)
    assert not [w for w in compiled.warnings if "argo-cd #17693" in w.message]


def test_an_include_argo_cd_would_crash_on_is_reported_for_the_file() -> None:
    application = {
        "kind": "Application",
        "metadata": {"name": "fedgate-team-a"},
        "spec": {
            "project": "default",
            "source": {"path": "rendered", "directory": {"recurse": True, "exclude": "??.yaml{"}},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "a"},
        },
    }
    tree = ArgoCDTree.of([application])
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "a"}}
    [refusal] = tree.object_refusals("rendered/ab.yaml", obj)
    assert refusal.startswith(
        "Argo CD's repo server would fail to generate the manifests: Argo CD would crash on the "
        "pattern '??.yaml{' (matching 'ab.yaml'"
    )
    assert tree.object_refusals("rendered/abc.yaml", obj) == []


def test_a_tenant_named_like_the_root_project_is_refused(tmp_path: Path) -> None:
    """Its AppProject would replace the one the root Application syncs under."""
    bundle = _bundle(tmp_path, tenants="name: team-b=>name: fedgate-root")
    with pytest.raises(SpecError) as raised:
        compile_apps([s for s in _specs() if s.namespace != "payments"], bundle)
    assert any(
        f.message.startswith("tenant fedgate-root: its AppProject would replace the root")
        for f in raised.value.findings
    )

"""Gatekeeper's CEL ConstraintTemplates and Constraints, read as the VAPs Gatekeeper makes.

The library's own suites (open-policy-agent/gatekeeper-library, every template with
K8sNativeValidation code, each ``suite.yaml`` case: the sample object and whether it has
violations) run when the library is beside the repository (``../shared/reference/
gatekeeper-library``) or named by ``FEDGATE_GATEKEEPER_LIBRARY``; they are skipped otherwise.
A small template in the library's format always runs.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import POLICIES, REFERENCE
from webhook.bundle.load import load_bundle
from webhook.engine.request import parse_review
from webhook.engine.review import review

TEMPLATE = """\
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8sreplicalimit}
spec:
  crd:
    spec:
      names: {kind: K8sReplicaLimit}
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: K8sNativeValidation
          source:
            variables:
              - {name: replicas, expression: "has(variables.anyObject.spec.replicas) ? variables.anyObject.spec.replicas : 1"}
            validations:
              - expression: "variables.replicas <= variables.params.max"
                messageExpression: "'at most ' + string(variables.params.max) + ' replicas'"
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sReplicaLimit
metadata: {name: small}
spec:
  enforcementAction: %s
  match:
    kinds: [{apiGroups: [apps], kinds: [Deployment]}]
    excludedNamespaces: [kube-*]
  parameters: {max: 3}
"""  # noqa: E501


def _bundle(tmp_path: Path, files: dict[str, str], backend: str = "cel-expr") -> Any:
    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    (policies / "vaps").mkdir()
    for name, text in files.items():
        (policies / "vaps" / name).write_text(text)
    return load_bundle(policies, backend)


def _request(obj: dict[str, Any], operation: str = "CREATE") -> Any:
    group, _, version = str(obj.get("apiVersion", "v1")).rpartition("/")
    kind = str(obj.get("kind"))
    metadata = obj.get("metadata") or {}
    namespace = "" if kind == "Namespace" else metadata.get("namespace", "default")
    return parse_review(
        {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "1",
                "kind": {"group": group, "version": version, "kind": kind},
                "resource": {"group": group, "version": version, "resource": kind.lower() + "s"},
                "operation": operation,
                "namespace": namespace,
                "name": metadata.get("name", ""),
                # the platform team: a namespace no tenant lists is the platform's
                "userInfo": {"username": "someone@example.com", "groups": ["platform-admins"]},
                "object": obj,
                "oldObject": None,
            },
        }
    )


def _five_replicas() -> dict[str, Any]:
    """A Deployment above the constraint's limit of 3."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 5},
    }


def _gatekeeper(decision: Any) -> list[Any]:
    return [v for v in decision.violations if v.rule.startswith("gatekeeper-")]


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
@pytest.mark.parametrize(
    ("action", "allowed", "as_action"),
    [("deny", False, "deny"), ("warn", True, "warn"), ("dryrun", True, "audit")],
)
def test_a_template_and_its_constraint(
    tmp_path: Path, backend: str, action: str, allowed: bool, as_action: str
) -> None:
    bundle = _bundle(tmp_path, {"replicas.yaml": TEMPLATE % action}, backend)
    deployment = _five_replicas()
    decision = review(_request(deployment), bundle)
    found = _gatekeeper(decision)
    assert [(v.rule, v.action, v.message) for v in found] == [
        ("gatekeeper-k8sreplicalimit/gatekeeper-small", as_action, "at most 3 replicas")
    ]
    assert decision.allowed is allowed
    deployment["spec"]["replicas"] = 2
    assert _gatekeeper(review(_request(deployment), bundle)) == []
    deployment["metadata"]["namespace"] = "kube-system"  # excludedNamespaces
    deployment["spec"]["replicas"] = 9
    assert _gatekeeper(review(_request(deployment), bundle)) == []
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"replicas": 9}}
    assert _gatekeeper(review(_request(pod), bundle)) == []  # match.kinds


@pytest.mark.parametrize(
    ("scoped", "as_action"),
    [
        pytest.param(
            "[{action: warn, enforcementPoints: [{name: vap.k8s.io}]},"
            " {action: deny, enforcementPoints: [{name: audit.gatekeeper.sh}]}]",
            "warn",
            id="vap-point",
        ),
        pytest.param(
            "[{action: dryrun, enforcementPoints: [{name: '*'}]}]", "audit", id="every-point"
        ),
    ],
)
def test_a_scoped_constraint_takes_its_vap_points_action(
    tmp_path: Path, scoped: str, as_action: str
) -> None:
    """As Gatekeeper generates the binding: the actions for vap.k8s.io (or ``*``)."""
    action = f"scoped\n  scopedEnforcementActions: {scoped}"
    bundle = _bundle(tmp_path, {"replicas.yaml": TEMPLATE % action})
    decision = review(_request(_five_replicas()), bundle)
    assert [v.action for v in _gatekeeper(decision)] == [as_action]
    assert decision.allowed


def _library() -> Path | None:
    named = os.environ.get("FEDGATE_GATEKEEPER_LIBRARY")
    for candidate in (Path(named) if named else None, REFERENCE / "gatekeeper-library"):
        if candidate is not None and (candidate / "library").is_dir():
            return candidate / "library"
    return None


def _cases() -> list[Any]:
    library = _library()
    if library is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=_ABSENT), id="absent")]
    found = []
    for suite_file in sorted(library.rglob("suite.yaml")):
        folder = suite_file.parent
        if "K8sNativeValidation" not in (folder / "template.yaml").read_text():
            continue
        for test in yaml.safe_load(suite_file.read_text()).get("tests", []):
            for case in test.get("cases", []):
                name = f"{folder.name}:{test['name']}:{case['name']}"
                found.append(pytest.param((folder, test, case), id=name))
    return found


_ABSENT = (
    "the Gatekeeper library is not beside this clone (../shared/reference/gatekeeper-library) "
    "and FEDGATE_GATEKEEPER_LIBRARY names none"
)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], Any]:
    return {}


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
@pytest.mark.parametrize("case", _cases())
def test_the_library_samples(
    tmp_path_factory: pytest.TempPathFactory,
    bundles: dict[tuple[str, str, str], Any],
    backend: str,
    case: Any,
) -> None:
    folder, test, sample = case
    key = (str(folder), test["name"], backend)
    if key not in bundles:
        files = {
            "template.yaml": (folder / test["template"]).read_text(),
            "constraint.yaml": (folder / test["constraint"]).read_text(),
        }
        try:
            bundles[key] = _bundle(tmp_path_factory.mktemp("gk"), files, backend)
        except Exception as exc:
            bundles[key] = exc
    bundle = bundles[key]
    if isinstance(bundle, Exception):
        # cel-python may refuse a template it cannot run; it must say so, naming the field
        assert backend == "cel-python" and "cel-python" in str(bundle), bundle
        return
    documents = [d for d in yaml.safe_load_all((folder / sample["object"]).read_text()) if d]
    obj, operation = documents[-1], "CREATE"
    if obj.get("kind") == "AdmissionReview":  # a sample written as a (partial) review
        operation = obj["request"].get("operation", "CREATE")
        obj = obj["request"].get("object") or obj["request"].get("oldObject")
    expected = [a["violations"] for a in sample.get("assertions", []) if "violations" in a]
    if not expected:
        pytest.skip("the case asserts no violation count")
    wanted = expected[0] in ("yes", True) or (isinstance(expected[0], int) and expected[0] > 0)
    found = _gatekeeper(review(_request(obj, operation), bundle))
    assert bool(found) is wanted, [v.message for v in found]

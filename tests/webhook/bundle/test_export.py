"""fedgate's CEL rules as ValidatingAdmissionPolicies: which go, valid against the Kubernetes
schema, and, read back by the importer, the same decisions as the rules they came from."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from compiler.compile.canonical import dump
from tests.conftest import POLICIES
from tests.webhook.suite_cases import CASES
from webhook.bundle.export import cel_literal, export, with_params
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.decision import Decision
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.suites import Case

EXPORTED = {"image-tag", "pod-security-baseline", "resource-requests", "stateful-purge"}


def test_which_rules_go_and_why(bundle: Bundle) -> None:
    placed = {p.rule: (p.where, p.reason) for p in export(bundle).placements}
    assert {rule for rule, (where, _) in placed.items() if where == "vap"} == EXPORTED
    assert placed["registry-allowed"] == ("webhook", "reads fedgate's tenant")
    assert placed["ownership.field-owner"][0] == "webhook"
    assert placed["ownership.field-owner"][1].startswith("built in (Python)")
    assert set(placed) == {r.id for r in bundle.rules}


@pytest.mark.parametrize("version", ["1.30.0", "1.34.0"])
def test_every_object_is_valid_kubernetes(bundle: Bundle, version: str) -> None:
    objects = export(bundle).objects
    assert len(objects) == 2 * len(EXPORTED)
    for obj in objects:
        kubernetes_validate.validate(obj, version, strict=True)


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory: pytest.TempPathFactory, bundle: Bundle) -> Bundle:
    """The bundle with the exported rules taken out and their VAPs read back in."""
    policies = tmp_path_factory.mktemp("round-trip") / "policies"
    shutil.copytree(POLICIES, policies)
    for rule in EXPORTED:
        shutil.rmtree(policies / "rules" / rule)
    (policies / "vaps").mkdir()
    text = b"---\n".join(dump(obj) for obj in export(bundle).objects)
    (policies / "vaps" / "exported.yaml").write_bytes(text)
    return load_bundle(policies)


def _essence(decision: Decision) -> tuple[object, ...]:
    """The decision with an imported rule's id (``x/x``) read as the rule's own (``x``)."""
    return (
        decision.allowed,
        sorted(
            (v.rule.split("/")[0], v.action, v.status, v.message if v.status != "error" else "")
            for v in decision.violations
        ),
    )


@pytest.mark.parametrize("case", CASES, ids=[f"{c.suite.split('/')[-2]}:{c.name}" for c in CASES])
def test_read_back_the_same_decisions(case: Case, bundle: Bundle, round_trip: Bundle) -> None:
    request = parse_review(case.review, require_uid=False)
    assert _essence(review(request, round_trip)) == _essence(review(request, bundle))


def test_params_are_written_in(policies_copy: Path) -> None:
    folder = policies_copy / "rules" / "replica-floor"
    folder.mkdir()
    (folder / "rule.yaml").write_text(
        "id: replica-floor\ndescription: d\nvalidations:\n"
        "  - expression: \"object.spec.replicas >= params.minimum || 'params' in params.names\"\n"
        "    message: too few\n"
    )
    (folder / "binding.yaml").write_text(
        'action: warn\nparams: {minimum: 2, names: [a, "q\'uote"]}\n'
        "match: {kinds: [{apiGroups: [apps], kinds: [Deployment]}], scope: any}\n"
    )
    original = load_bundle(policies_copy)
    exported = export(original)
    policy = next(o for o in exported.objects if o["metadata"]["name"] == "replica-floor")
    expression = policy["spec"]["validations"][0]["expression"]
    assert "params" not in expression.replace("'params'", "")
    assert "matchConditions" not in policy["spec"]  # scope: any
    shutil.rmtree(folder)
    (policies_copy / "vaps").mkdir()
    vaps = b"---\n".join(dump(o) for o in exported.objects)
    (policies_copy / "vaps" / "x.yaml").write_bytes(vaps)
    back = load_bundle(policies_copy)
    for replicas in (1, 3):
        obj: dict[str, Any] = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "w", "namespace": "elsewhere"},
            "spec": {"replicas": replicas},
        }
        body = {
            "request": {
                "uid": "u",
                "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
                "operation": "CREATE",
                "namespace": "elsewhere",
                "userInfo": {"username": "x"},
                "object": obj,
            },
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
        }
        request = parse_review(body)
        assert _essence(review(request, back)) == _essence(review(request, original))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param(
            {"a": [1, 2.5, True, None]},
            '{"a": [dyn(1), dyn(2.5), dyn(true), dyn(null)]}',
            id="mixed-items",
        ),
        pytest.param({"n": 1, "l": ["x"]}, '{"n": dyn(1), "l": dyn(["x"])}', id="mixed-values"),
        pytest.param({"n": 1, "m": 2}, '{"n": 1, "m": 2}', id="uniform"),
        pytest.param('it\'s "q"\n', '"it\'s \\"q\\"\\n"', id="escapes"),
    ],
)
def test_cel_literal(value: Any, text: str) -> None:
    assert cel_literal(value) == text


def test_params_inside_strings_are_left_alone() -> None:
    assert with_params("params.a == 'params.a'", {"a": 1}) == "({\"a\": 1}).a == 'params.a'"


def test_the_written_file_is_yaml_the_importer_reads(bundle: Bundle) -> None:
    text = b"---\n".join(dump(obj) for obj in export(bundle).objects).decode()
    assert [d["kind"] for d in yaml.safe_load_all(text)][:2] == [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ]


@pytest.mark.parametrize(
    ("expression", "named"),
    [
        ("math.greatest([object.spec.replicas, 1]) < 10", "math.greatest"),
        ("cel.bind(r, object.spec.replicas, r < 10)", "cel.bind"),
    ],
)
def test_a_rule_kubernetes_cel_lacks_stays_with_the_webhook(
    policies_copy: Path, expression: str, named: str
) -> None:
    """The API server refuses such a policy (undeclared reference: Kubernetes 1.34 has no
    ``math`` or ``cel`` namespace), so the rule is not exported."""
    folder = policies_copy / "rules" / "beyond"
    folder.mkdir()
    (folder / "rule.yaml").write_text(
        f'id: beyond\ndescription: d\nvalidations:\n  - expression: "{expression}"\n'
        "    message: m\n"
    )
    (folder / "binding.yaml").write_text(
        "action: warn\nmatch: {kinds: [{apiGroups: [apps], kinds: [Deployment]}], scope: any}\n"
    )
    placed = {p.rule: p for p in export(load_bundle(policies_copy)).placements}
    assert placed["beyond"].where == "webhook"
    assert named in placed["beyond"].reason and "Kubernetes 1.34" in placed["beyond"].reason
    assert "'math.x'" not in placed["beyond"].reason

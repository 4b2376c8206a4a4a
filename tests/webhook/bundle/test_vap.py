"""ValidatingAdmissionPolicies and bindings as they are, loaded and evaluated as the API
server would: params, match constraints, conditions, variables, actions, failure policy."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, POLICIES
from webhook.base.errors import BundleError
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.decision import AuditAnnotation, Decision
from webhook.engine.request import parse_review
from webhook.engine.review import review

REQUEST = json.loads(
    (EXAMPLES / "requests" / "deployment-update-by-argocd-allowed.json").read_text()
)

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  failurePolicy: %(failure)s
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [deployments]
  matchConditions:
    - {name: not-paused, expression: "!has(object.spec.paused) || !object.spec.paused"}
  variables:
    - {name: replicas, expression: "has(object.spec.replicas) ? object.spec.replicas : 1"}
    - {name: limit, expression: "int(params.data.maxReplicas)"}
    - {name: broken, expression: "object.spec.nothing.here"}
  validations:
    - expression: "variables.replicas <= variables.limit"
      messageExpression: >-
        'replicas ' + string(variables.replicas) + ' above ' + string(variables.limit)
      reason: Invalid
    - expression: "variables.replicas < 1000 || variables.broken"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: tenants}
spec:
  policyName: replica-limit
  validationActions: [%(actions)s]
  paramRef: {%(ref)s, parameterNotFoundAction: %(missing)s}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limit, namespace: platform-demo, labels: {limits: "yes"}}
data: {maxReplicas: "5"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: stricter, namespace: platform-demo, labels: {limits: "yes"}}
data: {maxReplicas: "4"}
"""


def bundle_with(
    tmp_path: Path, text: str, backend: str = "cel-expr", name: str = "policy.yaml"
) -> Bundle:
    policies = tmp_path / "policies"
    if not policies.exists():
        shutil.copytree(POLICIES, policies)
    (policies / "vaps").mkdir(exist_ok=True)
    (policies / "vaps" / name).write_text(text)
    return load_bundle(policies, backend)


def policy(
    *, failure: str = "Fail", actions: str = "Deny", ref: str = "name: replica-limit",
    missing: str = "Deny",
) -> str:  # fmt: skip
    return POLICY % {"failure": failure, "actions": actions, "ref": ref, "missing": missing}


def deployment(replicas: int, namespace: str = "platform-demo", **spec: Any) -> dict[str, Any]:
    body = copy.deepcopy(REQUEST)
    body["request"]["namespace"] = namespace
    for which in ("object", "oldObject"):  # an API server request names the object's namespace
        if body["request"].get(which):
            body["request"][which]["metadata"]["namespace"] = namespace
    body["request"]["object"]["spec"].update(replicas=replicas, **spec)
    return body


def vap_violations(decision: Decision) -> list[tuple[str, str, str, str]]:
    return [(v.rule, v.action, v.status, v.message) for v in decision.violations if "/" in v.rule]


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
def test_params_variables_and_message_expression(tmp_path: Path, backend: str) -> None:
    bundle = bundle_with(tmp_path, policy(), backend)
    assert review(parse_review(deployment(3)), bundle).allowed
    decision = review(parse_review(deployment(9)), bundle)
    assert not decision.allowed
    assert vap_violations(decision) == [
        ("replica-limit/tenants", "deny", "fail", "replicas 9 above 5")
    ]
    paused = review(parse_review(deployment(9, paused=True)), bundle)  # matchConditions
    assert vap_violations(paused) == []


def test_a_variable_that_fails_fails_only_what_reads_it(tmp_path: Path) -> None:
    bundle = bundle_with(tmp_path, policy())
    decision = review(parse_review(deployment(2000)), bundle)
    failed, error = sorted(vap_violations(decision), key=lambda v: v[2], reverse=True)
    assert failed[2:] == ("fail", "replicas 2000 above 5")
    assert error[3].startswith("validations[1] could not be evaluated")
    assert "(variables.broken could not be evaluated: " in error[3]


def test_params_in_the_request_namespace_and_parameter_not_found(tmp_path: Path) -> None:
    denied = bundle_with(tmp_path / "deny", policy())
    decision = review(parse_review(deployment(1, namespace="payments")), denied)
    assert vap_violations(decision) == [
        (
            "replica-limit/tenants",
            "deny",
            "error",
            "no params found for policy binding with `Deny` parameterNotFoundAction",
        )
    ]
    allowed = bundle_with(tmp_path / "allow", policy(missing="Allow"))
    assert vap_violations(review(parse_review(deployment(1, namespace="payments")), allowed)) == []


def test_a_selector_evaluates_the_policy_once_per_param(tmp_path: Path) -> None:
    bundle = bundle_with(tmp_path, policy(ref="selector: {matchLabels: {limits: 'yes'}}"))
    decision = review(parse_review(deployment(5)), bundle)
    assert [m for *_, m in vap_violations(decision)] == ["replicas 5 above 4"]


@pytest.mark.parametrize(
    ("actions", "failure", "allowed", "action"),
    [
        pytest.param("Warn", "Fail", True, "warn", id="warn"),
        pytest.param("Audit", "Fail", True, "audit", id="audit"),
        pytest.param("Deny, Audit", "Fail", False, "deny", id="deny-and-audit"),
    ],
)
def test_validation_actions(
    tmp_path: Path, actions: str, failure: str, allowed: bool, action: str
) -> None:
    bundle = bundle_with(tmp_path, policy(actions=actions, failure=failure))
    decision = review(parse_review(deployment(9)), bundle)
    assert decision.allowed is allowed
    assert [v[1] for v in vap_violations(decision)] == [action]


def test_failure_policy_ignore_lets_an_error_through(tmp_path: Path) -> None:
    bundle = bundle_with(tmp_path, policy(failure="Ignore"))
    decision = review(parse_review(deployment(2000)), bundle)
    assert [(v[1], v[2]) for v in vap_violations(decision)] == [("deny", "fail"), ("warn", "error")]


MATCHING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-scaling}
spec:
  matchConstraints:
    namespaceSelector: {matchLabels: {environment: production}}
    resourceRules:
      - apiGroups: ["*"]
        apiVersions: ["*"]
        operations: ["*"]
        resources: ["deployments", "deployments/scale"]
    excludeResourceRules:
      - apiGroups: [apps]
        apiVersions: ["*"]
        operations: ["*"]
        resources: [deployments]
        resourceNames: [exempt]
  validations:
    - {expression: "false", message: "no writes here"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: everywhere}
spec:
  policyName: no-scaling
  validationActions: [Deny]
  matchResources:
    objectSelector: {matchExpressions: [{key: app.kubernetes.io/name, operator: Exists}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: platform-demo, labels: {environment: production}}
"""


@pytest.mark.parametrize(
    ("change", "matched"),
    [
        pytest.param({}, True, id="matched"),
        pytest.param({"name": "exempt"}, False, id="excluded-by-name"),
        pytest.param({"namespace": "payments"}, False, id="namespace-not-selected"),
        pytest.param({"labels": {}}, False, id="object-not-selected"),
    ],
)
def test_match_constraints_and_match_resources(
    tmp_path: Path, change: dict[str, Any], matched: bool
) -> None:
    bundle = bundle_with(tmp_path, MATCHING)
    body = deployment(3)
    request = body["request"]
    if "name" in change:
        request["name"] = change["name"]
    if "namespace" in change:
        request["namespace"] = change["namespace"]
    if "labels" in change:
        for obj in (request["object"], request["oldObject"]):
            obj["metadata"]["labels"] = change["labels"]
    found = vap_violations(review(parse_review(body), bundle))
    assert bool(found) is matched


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            policy().replace("policyName: replica-limit", "policyName: nothing"),
            "spec.policyName: no ValidatingAdmissionPolicy 'nothing' in vaps/",
            id="unknown-policy",
        ),
        pytest.param(
            policy(actions="Deny, Warn"), "Deny and Warn may not be combined", id="deny-and-warn"
        ),
        pytest.param(
            policy().replace(
                "  policyName: replica-limit\n",
                "  policyName: replica-limit\n"
                "  matchResources:\n"
                "    objectSelector: {matchExpressions: [{key: a, operator: In}]}\n",
            ),
            "spec.matchResources.objectSelector: not a label selector Kubernetes accepts",
            id="selector-kubernetes-refuses",
        ),
        pytest.param(
            policy().replace("variables.replicas <= variables.limit", "variables.replicas <="),
            "policy.yaml:20: spec.validations[0].expression:",
            id="compile-error-located",
        ),
        pytest.param(
            policy().replace("variables.replicas < 1000", "authorizer.group('') != null"),
            "authorizer is not available outside the API server",
            id="authorizer",
        ),
    ],
)
def test_load_errors_name_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(BundleError) as caught:
        bundle_with(tmp_path, text)
    assert message in str(caught.value)


AUDITED = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas-audit}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
    - expression: "object.spec.replicas < 100"
  auditAnnotations:
    - key: replicas
      valueExpression: "'replicas: ' + string(object.spec.replicas)"
    - key: never
      valueExpression: "null"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: all}
spec: {policyName: replicas-audit, validationActions: [Deny]}
"""  # noqa: E501


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
def test_audit_annotations_are_written_whatever_the_outcome(tmp_path: Path, backend: str) -> None:
    bundle = bundle_with(tmp_path, AUDITED, backend)
    allowed = review(parse_review(deployment(3)), bundle)
    assert allowed.allowed and ("replicas-audit/replicas", "replicas: 3") in allowed.audit
    assert not [k for k, _ in allowed.audit if k.endswith("/never")]  # null: no annotation
    assert not allowed.violations  # an annotation is no objection: not a kind of violation
    assert all(type(a) is AuditAnnotation for a in allowed.audit)  # a field of its own type
    denied = review(parse_review(deployment(200)), bundle)
    assert not denied.allowed and ("replicas-audit/replicas", "replicas: 200") in denied.audit
    assert [v[3] for v in vap_violations(denied)] == [
        "failed expression: object.spec.replicas < 100"
    ]

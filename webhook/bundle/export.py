"""fedgate's CEL rules as ValidatingAdmissionPolicies for the Karmada API server.

A rule whose CEL reads only what the API server gives a ValidatingAdmissionPolicy
(``object``, ``oldObject``, ``request``, ``params``, ``namespaceObject``) runs in-process there,
even when the webhook is unreachable: it becomes a policy and a binding, both named after it.
Its params (the binding's, a plain mapping) are written into its expressions as a CEL
literal, since a policy's params come from an object of some kind; ``scope: tenant`` becomes a
match condition on the tenants' namespaces; the rule's action at the webhook point the binding's
``validationActions``, as Kubernetes spells them (Deny, Warn, Audit): the policy runs in the API
server in the webhook's place, so a rule staged there (``audit`` at the webhook, ``deny`` once
enforced) is only audited there too; its other points' actions stay with fedgate's shells.
Every other rule stays with the webhook, with the reason: the built-in ones are Python, and
``tenant``, ``clusters`` and ``cluster`` are fedgate's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webhook.bundle.model import Bundle
from webhook.bundle.rules import Match, Rule
from webhook.engine.cel.paths import STRING_LITERAL, read_paths

KUBERNETES_VARIABLES = frozenset({"object", "oldObject", "request", "params", "namespaceObject"})
ACTIONS = {"deny": "Deny", "warn": "Warn", "audit": "Audit"}
API_VERSION = "admissionregistration.k8s.io/v1"
RESOURCES = {  # kinds fedgate's bindings name, and the resources the API server calls them
    "Deployment": "deployments",
    "StatefulSet": "statefulsets",
    "DaemonSet": "daemonsets",
    "ReplicaSet": "replicasets",
    "Job": "jobs",
    "CronJob": "cronjobs",
    "Pod": "pods",
    "ReplicationController": "replicationcontrollers",
    "PropagationPolicy": "propagationpolicies",
    "ClusterPropagationPolicy": "clusterpropagationpolicies",
    "OverridePolicy": "overridepolicies",
    "ClusterOverridePolicy": "clusteroverridepolicies",
    "FederatedHPA": "federatedhpas",
    "CronFederatedHPA": "cronfederatedhpas",
    "HorizontalPodAutoscaler": "horizontalpodautoscalers",
    "ResourceBinding": "resourcebindings",
    "ClusterResourceBinding": "clusterresourcebindings",
    "Work": "works",
    "ConfigMap": "configmaps",
    "Secret": "secrets",
    "Namespace": "namespaces",
}


@dataclass(frozen=True)
class Placement:
    """Where one rule runs: ``vap`` (exported) or ``webhook``, and why."""

    rule: str
    where: str
    reason: str

    def as_json(self) -> dict[str, str]:
        return {"rule": self.rule, "where": self.where, "reason": self.reason}


@dataclass(frozen=True)
class Exported:
    """The policies and bindings (in rule order), and where every rule of the bundle runs."""

    objects: tuple[dict[str, Any], ...]
    placements: tuple[Placement, ...]


def export(bundle: Bundle) -> Exported:
    objects: list[dict[str, Any]] = []
    placements = []
    for rule in bundle.rules:
        why = _stays(rule)
        if why is not None:
            placements.append(Placement(rule.id, "webhook", why))
            continue
        assert isinstance(rule.match, Match)  # _stays keeps every other match
        objects += [_policy(rule, bundle), _binding(rule)]
        placements.append(
            Placement(rule.id, "vap", "reads only object, oldObject, request and params")
        )
    return Exported(tuple(objects), tuple(placements))


def _stays(rule: Rule) -> str | None:
    """Why the rule stays with the webhook, or None when it can be exported."""
    if rule.builtin is not None:
        return "built in (Python): ownership ledgers, tenancy and retain rules need the bundle"
    if not isinstance(rule.match, Match):
        return "imported from a ValidatingAdmissionPolicy already"
    reads = read_paths(_texts(rule))
    fedgate = sorted(set(reads) - KUBERNETES_VARIABLES)
    if fedgate:
        return f"reads fedgate's {', '.join(fedgate)}"
    if "params" in reads and _shadows_params(rule):
        return "uses params as a variable name, so its params cannot be written in"
    beyond = sorted(
        {m.group(0) for t in _texts(rule) for m in _BEYOND_KUBERNETES.finditer(_code(t))}
    )
    if beyond:
        named = ", ".join(re.sub(r"\s+", "", b) for b in beyond)
        return (
            f"uses {named}, which Kubernetes 1.34's CEL lacks: the API server would refuse "
            "the policy"
        )
    return None


def _texts(rule: Rule) -> list[str]:
    return [
        *rule.match_conditions,
        *(v.expression for v in rule.validations),
        *(v.message_expression or "" for v in rule.validations),
    ]


_PARAMS = re.compile(r"(?<![\w.])params\b")
_BEYOND_KUBERNETES = re.compile(r"(?<![\w.])(?:math|cel)\s*\.\s*\w+")
"""Namespaces fedgate's CEL has and Kubernetes 1.34's lacks (``math.*``, ``cel.bind``): the
API server refuses a policy using them as an undeclared reference."""
_MACRO_VARIABLE = re.compile(r"\.\s*\w+\s*\(\s*params\s*[,)]")


def _shadows_params(rule: Rule) -> bool:
    return any(_MACRO_VARIABLE.search(_code(text)) for text in _texts(rule))


def _code(text: str) -> str:
    return STRING_LITERAL.sub("''", text)


def with_params(expression: str, params: Mapping[str, Any]) -> str:
    """``expression`` with the variable ``params`` replaced by its value as a CEL literal
    (outside string literals)."""
    if not params:
        return expression
    literal = f"({cel_literal(dict(params))})"
    parts, last = [], 0
    for match in STRING_LITERAL.finditer(expression):
        parts.append(_PARAMS.sub(literal, expression[last : match.start()]))
        parts.append(match.group(0))
        last = match.end()
    parts.append(_PARAMS.sub(literal, expression[last:]))
    return "".join(parts)


def cel_literal(value: Any) -> str:
    """A JSON value as a CEL literal (strings JSON-quoted: CEL reads JSON's escapes). Where
    a list's items or a map's values differ in type, each is ``dyn(...)``: Kubernetes refuses
    mixed literals (``{'a': 1, 'b': [2]}``) at compile time."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_uniform(value)) + "]"
    if isinstance(value, dict):
        keys = [cel_literal(str(k)) for k in value]
        values = _uniform(list(value.values()))
        return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, values, strict=True)) + "}"
    raise TypeError(f"{type(value).__name__} is not JSON")


def _uniform(values: list[Any]) -> list[str]:
    texts = [cel_literal(v) for v in values]
    kinds = {"bool" if isinstance(v, bool) else type(v).__name__ for v in values}
    return texts if len(kinds) <= 1 else [f"dyn({text})" for text in texts]


def _policy(rule: Rule, bundle: Bundle) -> dict[str, Any]:
    match = rule.match
    assert isinstance(match, Match)
    conditions = [
        {"name": f"condition-{i}", "expression": with_params(text, rule.params)}
        for i, text in enumerate(rule.match_conditions)
    ]
    if match.scope == "tenant":
        namespaces = sorted(n for t in bundle.tenants.values() for n in t.namespaces)
        conditions.insert(
            0,
            {
                "name": "tenant-namespaces",
                "expression": f"request.namespace in {cel_literal(namespaces)}",
            },
        )
    spec: dict[str, Any] = {
        "failurePolicy": rule.failure_policy,
        "matchConstraints": _constraints(match),
        "validations": [_validation(rule, i) for i in range(len(rule.validations))],
    }
    if conditions:
        spec["matchConditions"] = conditions
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {
            "name": rule.id,
            "annotations": {
                "fedgate.dev/rule": rule.id,
                "fedgate.dev/description": rule.description,
            },
        },
        "spec": spec,
    }


def _validation(rule: Rule, index: int) -> dict[str, Any]:
    validation = rule.validations[index]
    out: dict[str, Any] = {
        "expression": with_params(validation.expression, rule.params),
        "message": validation.message,
    }
    if validation.message_expression:
        out["messageExpression"] = with_params(validation.message_expression, rule.params)
    if validation.reason:
        out["reason"] = validation.reason
    return out


def _constraints(match: Match) -> dict[str, Any]:
    groups: dict[str, set[str]] = {}
    for group, kind in sorted(match.kinds):
        resource = "*" if kind == "*" else RESOURCES.get(kind, _plural(kind))
        groups.setdefault(group, set()).add(resource)
    rules = []
    for group, resources in sorted(groups.items()):
        names = sorted(
            f"{r}/{sub}" if sub else r for r in resources for sub in sorted(match.sub_resources)
        )
        rules.append(
            {
                "apiGroups": [group],
                "apiVersions": ["*"],
                "operations": sorted(match.operations),
                "resources": names,
            }
        )
    constraints: dict[str, Any] = {"resourceRules": rules}
    if match.object_selector:
        constraints["objectSelector"] = dict(match.object_selector)
    return constraints


def _plural(kind: str) -> str:
    lower = kind.lower()
    if lower.endswith("y"):
        return lower[:-1] + "ies"
    if lower.endswith(("s", "x")):
        return lower + "es"
    return lower + "s"


def _binding(rule: Rule) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": rule.id, "annotations": {"fedgate.dev/rule": rule.id}},
        "spec": {"policyName": rule.id, "validationActions": [ACTIONS[rule.action_at("webhook")]]},
    }

"""Gatekeeper's CEL ConstraintTemplates and their Constraints, as the VAPs Gatekeeper makes.

A ConstraintTemplate whose ``code`` has a ``K8sNativeValidation`` engine becomes the
ValidatingAdmissionPolicy ``gatekeeper-<template>`` and each Constraint of its kind the
binding ``gatekeeper-<constraint>``, exactly as Gatekeeper generates them
(open-policy-agent/gatekeeper pkg/drivers/k8scel/transform: make_vap_objects.go,
cel_snippets.go): the Constraint is the params (``paramKind`` the constraint kind,
``paramRef`` its name, ``parameterNotFoundAction: Allow``), the variables ``anyObject`` and
``params`` come first, Gatekeeper's match conditions (kinds, namespaces, excluded namespaces,
name globs) after the template's own, and the constraint's ``enforcementAction`` (deny,
warn, dryrun) gives the binding's ``validationActions`` (Deny, Warn, Audit); a ``scoped`` one's
are its actions at Gatekeeper's VAP enforcement point (``vap.k8s.io`` or ``*``).
"""

from __future__ import annotations

from typing import Any

from webhook.base.yamlsource import Document

TEMPLATE_GROUP = "templates.gatekeeper.sh"
CONSTRAINT_GROUP = "constraints.gatekeeper.sh"
ENGINE = "K8sNativeValidation"
ACTIONS = {"deny": "Deny", "warn": "Warn", "dryrun": "Audit"}
VAP_POINT = "vap.k8s.io"
"""Gatekeeper's enforcement point for the ValidatingAdmissionPolicy it generates."""

_MATCH_KINDS = """
!has(params.spec) ? true: (
  !has(params.spec.match) ? true: (
    !has(params.spec.match.kinds) ? true : (
      params.spec.match.kinds.exists(groupskinds,
        (!has(groupskinds.kinds) || size(groupskinds.kinds) == 0 || "*" in groupskinds.kinds || request.kind.kind in groupskinds.kinds) &&
        (!has(groupskinds.apiGroups) || size(groupskinds.apiGroups) == 0 || "*" in groupskinds.apiGroups || request.kind.group in groupskinds.apiGroups)
      )
    )
  )
)
"""  # noqa: E501 - Gatekeeper's own text

_MATCH_NAME = """
!has(params.spec) ? true: (
  !has(params.spec.match) ? true: (
    !has(params.spec.match.name) ? true : (
      [object, oldObject].exists(obj,
        obj != null && (
          (has(obj.metadata.generateName) && obj.metadata.generateName != "" && params.spec.match.name.endsWith("*") && string(obj.metadata.generateName).matches("^" + string(params.spec.match.name).replace("*", ".*") + "$")) ||
          (has(obj.metadata.name) && string(obj.metadata.name).matches("^" + string(params.spec.match.name).replace("*", ".*") + "$"))
        )
      )
    )
  )
)
"""  # noqa: E501

_MATCH_NAMESPACES = """
!has(params.spec) ? true: (
  !has(params.spec.match) ? true: (
    !has(params.spec.match.%(field)s) ? true : (
      [object, oldObject].exists(obj,
        obj != null && (
          !has(obj.metadata.namespace) || obj.metadata.namespace == "" ? true : (
            %(negate)sparams.spec.match.%(field)s.exists(nsMatcher,
              (string(obj.metadata.namespace).matches("^" + string(nsMatcher).replace("*", ".*") + "$"))
            )
          )
        )
      )
    )
  )
)
"""  # noqa: E501

MATCH_CONDITIONS = (
    (
        "gatekeeper_internal_match_excluded_namespaces",
        _MATCH_NAMESPACES % {"field": "excludedNamespaces", "negate": "!"},
    ),
    (
        "gatekeeper_internal_match_namespaces",
        _MATCH_NAMESPACES % {"field": "namespaces", "negate": ""},
    ),
    ("gatekeeper_internal_match_name", _MATCH_NAME),
    ("gatekeeper_internal_match_kinds", _MATCH_KINDS),
)
VARIABLES = (
    (
        "anyObject",
        'has(request.operation) && request.operation == "DELETE" && object == null '
        "? oldObject : object",
    ),
    (
        "params",
        "!has(params.spec) ? null : !has(params.spec.parameters) ? null: params.spec.parameters",
    ),
)


def is_template(data: Any) -> bool:
    version = str(data.get("apiVersion", ""))
    return version.startswith(f"{TEMPLATE_GROUP}/") and data.get("kind") == "ConstraintTemplate"


def is_constraint(data: Any) -> bool:
    return str(data.get("apiVersion", "")).startswith(f"{CONSTRAINT_GROUP}/")


def template_policy(document: Document) -> Document | str:
    """The ValidatingAdmissionPolicy Gatekeeper makes of a template, as a document whose
    lines point back into the template; or why it cannot (no K8sNativeValidation code)."""
    data = document.data
    spec = data.get("spec") or {}
    kind = (((spec.get("crd") or {}).get("spec") or {}).get("names") or {}).get("kind")
    targets = spec.get("targets") or []
    for t, target in enumerate(targets if isinstance(targets, list) else []):
        code = target.get("code") if isinstance(target, dict) else None
        for c, entry in enumerate(code if isinstance(code, list) else []):
            if isinstance(entry, dict) and entry.get("engine") == ENGINE:
                source = entry.get("source") or {}
                at: tuple[str | int, ...] = ("spec", "targets", t, "code", c, "source")
                return _policy(document, str(kind), source, at)
    return f"ConstraintTemplate {data.get('metadata', {}).get('name')!r} has no {ENGINE} code"


def _policy(
    document: Document, kind: str, source: dict[str, Any], at: tuple[str | int, ...]
) -> Document:
    own_conditions = list(source.get("matchConditions") or [])
    own_variables = list(source.get("variables") or [])
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": f"gatekeeper-{document.data['metadata']['name']}"},
        "spec": {
            "paramKind": {"apiVersion": f"{CONSTRAINT_GROUP}/v1beta1", "kind": kind},
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["*"],
                        "apiVersions": ["*"],
                        "resources": ["*"],
                        "operations": ["CREATE", "UPDATE"],
                    }
                ]
            },
            "matchConditions": [
                *own_conditions,
                *({"name": n, "expression": e} for n, e in MATCH_CONDITIONS),
            ],
            "variables": [
                *({"name": n, "expression": e} for n, e in VARIABLES),
                *own_variables,
            ],
            "validations": list(source.get("validations") or []),
            "failurePolicy": source.get("failurePolicy", "Fail"),
        },
    }
    lines: dict[tuple[str | int, ...], int] = {(): document.line(at)}
    for section, offset in (("validations", 0), ("matchConditions", 0), ("variables", 2)):
        for index, item in enumerate(source.get(section) or []):
            for key in item if isinstance(item, dict) else ():
                lines[("spec", section, index + offset, key)] = document.line(
                    (*at, section, index, key)
                )
    return Document(document.file, policy, lines, document.index)


def _vap_actions(spec: Any) -> list[str]:
    """A scoped constraint's actions at Gatekeeper's VAP enforcement point: those of the
    ``scopedEnforcementActions`` entries naming ``vap.k8s.io`` or ``*``, in order, as
    Gatekeeper's ScopedActionForEP picks them for the binding it generates."""
    found = []
    entries = spec.get("scopedEnforcementActions") if isinstance(spec, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        points = entry.get("enforcementPoints") if isinstance(entry, dict) else None
        names = (
            {p.get("name") for p in points if isinstance(p, dict)}
            if isinstance(points, list)
            else set()
        )
        if names & {VAP_POINT, "*"}:
            action = str(entry.get("action"))
            found.append(ACTIONS.get(action, action))
    return list(dict.fromkeys(found))


def constraint_binding(document: Document) -> Document:
    """The ValidatingAdmissionPolicyBinding Gatekeeper makes of a constraint."""
    data = document.data
    name = str((data.get("metadata") or {}).get("name", ""))
    spec = data.get("spec") or {}
    action = str(spec.get("enforcementAction") or "deny")
    actions = _vap_actions(spec) if action == "scoped" else [ACTIONS.get(action, action)]
    match = spec.get("match") or {}
    resources = {
        key: match[selector]
        for key, selector in (
            ("objectSelector", "labelSelector"),
            ("namespaceSelector", "namespaceSelector"),
        )
        if isinstance(match, dict) and match.get(selector)
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": f"gatekeeper-{name}"},
        "spec": {
            "policyName": f"gatekeeper-{str(data.get('kind', '')).lower()}",
            "paramRef": {"name": name, "parameterNotFoundAction": "Allow"},
            "matchResources": resources,
            "validationActions": actions,
        },
    }
    lines: dict[tuple[str | int, ...], int] = {
        (): document.line(()),
        ("spec", "validationActions"): document.line(("spec", "enforcementAction")),
    }
    return Document(document.file, binding, lines, document.index)

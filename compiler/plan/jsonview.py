"""The plan as JSON: the view tools read (its contract is documented in docs/plan.md), beside
the text view (``text.py``), the markdown and the HTML. ``fedgate plan --output json`` prints it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from compiler.plan.changes import AppChange, PolicyChange, TemplateChange
from compiler.plan.core import Plan
from compiler.plan.tree import TemplateResult
from webhook.base.errors import Finding
from webhook.base.quantity import format_cpu, format_memory


def template_json(result: TemplateResult) -> dict[str, Any]:
    """One template in the JSON contract of ``plan --tree`` (documented in docs/plan.md)."""
    api_version, kind, namespace, name = result.manifest.identity
    plan_ = result.plan
    policy = None
    if plan_.policy is not None:
        policy = dict(zip(("kind", "namespace", "name"), plan_.policy, strict=True))
    return {
        "apiVersion": api_version,
        "kind": kind,
        "namespace": namespace,
        "name": name,
        "file": result.manifest.file,
        "line": result.manifest.line,
        "policy": policy,
        "placement": dict(plan_.placement),
        "placementAlternatives": [dict(plan_.alternative)] if plan_.alternative else [],
        "clusters": {c: m.object for c, m in sorted(plan_.copies.items()) if m.object is not None},
        "overrides": {
            c: list(m.overrides) for c, m in sorted(plan_.copies.items()) if m.object is not None
        },
        "appliedRules": {
            c: [{"policy": policy, "rule": rule} for policy, rule in m.rules]
            for c, m in sorted(plan_.copies.items())
            if m.object is not None
        },
        "violations": {c: [v.as_json() for v in vs] for c, vs in sorted(result.violations.items())},
        "notes": list(plan_.notes),
        "suspendedDispatching": list(plan_.suspended),
        "propagateDeps": plan_.propagate_deps,
    }


def finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "file": finding.file,
        "line": finding.line,
        "path": finding.path,
        "message": finding.message,
    }


def _bill_json(
    bill: Mapping[str, Mapping[str, Fraction]],
) -> dict[str, dict[str, str]]:
    """An app's ``bill`` or ``ceiling``: cluster -> resource -> amount."""
    return {c: {r: amount(r, v) for r, v in amounts.items()} for c, amounts in bill.items()}


def changes_json(
    apps: Sequence[AppChange],
    templates: Sequence[TemplateChange],
    policies: Sequence[PolicyChange],
    files: Mapping[str, str],
) -> dict[str, Any]:
    """What differs from git HEAD (added to the JSON of ``plan``; documented in docs/plan.md);
    ``files``: each changed file and how (``TreeChanges.files``)."""
    return {
        "apps": [
            {
                "namespace": a.namespace,
                "name": a.name,
                "action": a.action,
                "clusters": list(a.clusters),
                "files": dict(a.files),
                "before": (
                    {
                        "placement": dict(a.before.placement),
                        "bill": _bill_json(a.before.bill),
                        "ceiling": _bill_json(a.before.ceiling),
                        "clusters": dict(a.before.clusters),
                    }
                    if a.before is not None
                    else None
                ),
            }
            for a in apps
            if a.action != "none"
        ],
        "templates": [
            {
                **dict(zip(("apiVersion", "kind", "namespace", "name"), t.identity, strict=True)),
                "action": t.action,
                "clusters": list(t.clusters),
            }
            for t in templates
            if t.action != "none"
        ],
        "policies": [
            {
                "kind": p.kind,
                "namespace": p.namespace,
                "name": p.name,
                "action": p.action,
                "file": p.file,
            }
            for p in policies
        ],
        "files": dict(files),
    }


def as_json(
    result: Plan,
    diffs: Mapping[str, str],
    templates: Sequence[TemplateResult] = (),
    findings: Sequence[Finding] = (),
) -> dict[str, Any]:
    """The JSON for tools (documented in docs/plan.md)."""
    return {
        "apps": [
            {
                "namespace": a.namespace,
                "name": a.name,
                "tenant": a.tenant,
                "mode": a.mode,
                "owner": a.owner,
                "placement": dict(a.placement),
                "placementAlternatives": [dict(x) for x in a.alternatives],
                "placementAtMax": dict(a.at_max) if a.at_max is not None else None,
                "notes": list(a.notes),
                "bill": _bill_json(a.bill),
                "ceiling": _bill_json(a.ceiling),
                "clusters": dict(a.clusters),
                "violations": {c: [v.as_json() for v in vs] for c, vs in a.violations.items()},
                "overrides": {c: list(o) for c, o in a.overrides.items()},
                "ownership": {p: dict(ledger) for p, ledger in a.ownership.items()},
            }
            for a in result.apps
        ],
        "tenants": [
            {
                "tenant": t.tenant,
                "used": {r: amount(r, v) for r, v in t.used.items()},
                "quota": {r: amount(r, v) if v is not None else None for r, v in t.quota.items()},
                "left": {
                    r: amount(r, t.left(r)) if t.left(r) is not None else None for r in t.quota
                },
                "handWritten": {r: amount(r, v) for r, v in t.hand_written.items()},
                "ceiling": {r: amount(r, v) for r, v in t.ceiling.items()},
            }
            for t in result.tenants
        ],
        "diff": dict(diffs),
        "templates": [template_json(t) for t in templates],
        "errors": [finding_json(f) for f in findings],
    }


def amount(resource: str, value: Any) -> str:
    return str(format_cpu(value) if resource == "cpu" else format_memory(value))

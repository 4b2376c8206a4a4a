"""Compile runs the rule engine on every rendered object, as the webhook will see it, and on
every member's copy, as Karmada will build it.

Each object becomes the CREATE request Argo CD's first sync will send, from git's identity, and
goes through the same ``review``: a spec that compiles is one admission accepts. Then each
cluster's copy of the Deployment (replicas divided, the app's overrides applied, as ``plan``
shows it) is judged with the CEL variable ``cluster`` set: a rule that denies on any member's
copy fails the compile, naming the cluster and the override that produced the value. A
violation is reported at the app spec field it comes from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from compiler.plan.core import plan_app
from compiler.plan.members import MemberViolation
from compiler.render.pipeline import RenderedApp
from webhook.bundle.model import Bundle
from webhook.engine.decision import Violation
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.errors import Finding
from webhook.yamlsource import Path as FieldPath

SPEC_FIELDS: dict[str, FieldPath] = {
    "tenancy.namespace-writer": ("metadata", "namespace"),
    "tenancy.placement-scope": ("spec", "placement"),
    "tenancy.explicit-selectors": ("spec", "envFrom"),
    "tenancy.data-scope": ("spec", "envFrom"),
    "tenancy.propagate-deps": ("spec", "failover"),
    "tenancy.override-registry": ("spec", "overrides"),
    "retain.override-owned-field": ("spec", "overrides"),
    "retain.replicas-label": ("spec", "autoscaling"),
    "registry-allowed": ("spec", "image"),
    "image-tag": ("spec", "image"),
    "resource-requests": ("spec", "resources"),
    "stateful-purge": ("spec", "failover", "purge"),
    "max-replicas": ("spec", "replicas"),
}
"""Where in an app spec each rule's objection comes from (for the error's file and line)."""

_OVERRIDE_POINTER = re.compile(r"^/spec/overrideRules/(\d+)/overriders/(plaintext)/(\d+)")
_OVERRIDE_RULE = re.compile(r"^/spec/overrideRules/(\d+)")


@dataclass(frozen=True)
class Admission:
    """What admission would say of the rendered objects: denials, and warnings."""

    errors: tuple[Finding, ...]
    warnings: tuple[Finding, ...]


def spec_field(app: RenderedApp, violation: Violation) -> FieldPath:
    """The app spec field a violation comes from, as precisely as the pointer tells."""
    if violation.rule == "max-replicas" and app.app.autoscaling.owner != "git":
        return ("spec", "autoscaling", "maxReplicas")
    match = _OVERRIDE_POINTER.match(violation.pointer)
    if match:
        return ("spec", "overrides", int(match[1]), "plaintext", int(match[3]), "path")
    match = _OVERRIDE_RULE.match(violation.pointer)
    if match:
        return ("spec", "overrides", int(match[1]))
    return SPEC_FIELDS.get(violation.rule, ("spec",))


def _override_index(app: RenderedApp, member: MemberViolation) -> int | None:
    """The ``spec.overrides`` entry behind a violation: fedgate renders one OverridePolicy per
    app, one rule per entry, in order."""
    own = f"OverridePolicy {app.app.namespace}/{app.app.name}"
    return member.override_rule if member.override == own else None


def _member_findings(
    app: RenderedApp, bundle: Bundle, seen: set[tuple[str, str]]
) -> Iterator[tuple[bool, Finding]]:
    """(denies, finding) for each objection to a member's copy the template's own review did
    not already raise (or that an override caused)."""
    assert app.app.origin is not None
    deployment_path = next(p for p, o in app.files().items() if o["kind"] == "Deployment")
    for cluster, found in plan_app(app, bundle, point="check").violations.items():
        for member in found:
            violation = member.violation
            index = _override_index(app, member)
            if index is None and (violation.rule, violation.pointer) in seen:
                continue
            field = (
                ("spec", "overrides", index) if index is not None else spec_field(app, violation)
            )
            described = member.describe(cluster).removeprefix(f"[{violation.rule}] ")
            message = f"{described} (in {deployment_path}){violation.staged_note}"
            finding = app.app.origin.finding(field, message)
            yield violation.denies, replace(finding, rule=violation.rule)


def admit(apps: Iterable[RenderedApp], bundle: Bundle) -> Admission:
    errors: list[Finding] = []
    warnings: list[Finding] = []
    for app in apps:
        assert app.app.origin is not None
        seen: set[tuple[str, str]] = set()
        for path, obj in app.files().items():
            decision = review(sync_request(obj, None, bundle), bundle, point="check")
            for violation in decision.violations:
                seen.add((violation.rule, violation.pointer))
                finding = replace(
                    app.app.origin.finding(
                        spec_field(app, violation),
                        f"{violation.message} (in {path}){violation.staged_note}",
                    ),
                    rule=violation.rule,
                )
                (errors if violation.denies else warnings).append(finding)
        for denies, finding in _member_findings(app, bundle, seen):
            (errors if denies else warnings).append(finding)
    return Admission(tuple(errors), tuple(warnings))

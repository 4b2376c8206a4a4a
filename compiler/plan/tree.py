"""``plan --tree``: every resource template of a manifest tree, as Karmada would propagate it.

Pure: manifests and the bundle in, a TreePlan out. The Karmada policies of the tree
(PropagationPolicy, ClusterPropagationPolicy, OverridePolicy, ClusterOverridePolicy) decide
each template's placement and each member's copy (``webhook/karmada/propagation.py``); the
rules judge every copy (``members.py``). Karmada's own API objects (FederatedHPA, Work, ...)
are not templates and are left out, but a FederatedHPA's bounds set its target's replicas
first, as Karmada's FederatedHPA controller does before any metric is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from compiler.argocd.manifests import Manifest, ManifestSet, duplicates
from compiler.plan.exact import exact
from compiler.plan.members import MemberViolation, attribute, judge, override_failed
from compiler.plan.settle import needs_room
from webhook.bundle.model import Bundle
from webhook.engine.enforcement import Point
from webhook.errors import Finding
from webhook.karmada.detector import SKIPPED_GROUPS, Policies, group_of
from webhook.karmada.interpreter import InterpretError
from webhook.karmada.overriders import OverrideError
from webhook.karmada.propagation import TemplatePlan, propagate, trace
from webhook.karmada.validation import refusals


@dataclass(frozen=True)
class TemplateResult:
    """One template: where it came from, how Karmada propagates it, what the rules say."""

    manifest: Manifest
    plan: TemplatePlan
    violations: Mapping[str, tuple[MemberViolation, ...]] = field(default_factory=dict)

    @property
    def denied(self) -> bool:
        return any(v.denies for vs in self.violations.values() for v in vs)


@dataclass(frozen=True)
class TreePlan:
    """Every template of a tree (sorted by namespace, kind, name), and the manifests that
    could not be read."""

    templates: tuple[TemplateResult, ...]
    findings: tuple[Finding, ...] = ()
    warnings: tuple[Finding, ...] = ()
    """The Karmada policies Karmada's API would refuse (they do not change the verdict)."""

    @property
    def denied(self) -> bool:
        return bool(self.findings) or any(t.denied for t in self.templates)


def is_template(obj: Mapping[str, Any]) -> bool:
    """Not a Karmada policy, not one of Karmada's own API objects, not an event."""
    return group_of(str(obj.get("apiVersion", ""))) not in SKIPPED_GROUPS


def policies_of(objects: Iterable[Mapping[str, Any]]) -> Policies:
    return Policies.of(o for o in objects if Policies.is_policy(o))


def refused(manifests: Iterable[Manifest]) -> list[Finding]:
    """Each reason Karmada's API would refuse a policy of ``manifests``, located
    (``webhook/karmada/validation.py``)."""
    findings = []
    for manifest in manifests:
        if not Policies.is_policy(manifest.object):
            continue
        kind, name = manifest.identity[1], "/".join(p for p in manifest.identity[2:] if p)
        for path, why in refusals(manifest.object):
            message = (
                f"Karmada refuses {kind} {name} ({why}): Argo CD cannot create it; the plan "
                "shows what it would do were it stored, as Karmada's own functions answer"
            )
            findings.append(Finding(manifest.file, manifest.line, path, message))
    return findings


def member_violations(
    plan: TemplatePlan, policies: Policies, bundle: Bundle, point: Point = "plan"
) -> dict[str, tuple[MemberViolation, ...]]:
    """The rules on every copy, each objection traced to the override that caused it."""
    found: dict[str, tuple[MemberViolation, ...]] = {}
    for cluster, member in plan.copies.items():
        if member.object is None:
            found[cluster] = (override_failed(cluster, member.error or "unknown error"),)
            continue
        violations = judge(member.object, cluster, bundle, point=point)
        if not violations:
            continue
        try:
            base, steps = trace(plan, bundle.clusters[cluster], policies)
        except (OverrideError, InterpretError):  # pragma: no cover - propagate succeeded
            base, steps = member.object, []
        found[cluster] = attribute(violations, base, steps, cluster, bundle)
    return found


def plan_template(
    manifest: Manifest, policies: Policies, bundle: Bundle, *, point: Point = "plan"
) -> TemplateResult:
    """A template's copies and the rules' objections to them, with their actions at ``point``
    (``fedgate check`` judges at its own). Alone: a division by the clusters' room shows its
    upper bound (the room is counted over a whole tree: ``plan_templates``)."""
    plan = propagate(manifest.object, policies, bundle.clusters)
    return TemplateResult(manifest, plan, member_violations(plan, policies, bundle, point))


FEDERATED_HPA = ("autoscaling.karmada.io", "FederatedHPA")


def autoscaler_bounds(manifests: Iterable[Manifest]) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(namespace, kind, name) of each FederatedHPA's target -> (minReplicas, maxReplicas)."""
    found: dict[tuple[str, str, str], tuple[int, int]] = {}
    for manifest in manifests:
        obj = manifest.object
        if (group_of(str(obj.get("apiVersion", ""))), obj.get("kind")) != FEDERATED_HPA:
            continue
        spec = obj.get("spec")
        target = spec.get("scaleTargetRef") if isinstance(spec, Mapping) else None
        if not isinstance(target, Mapping) or not isinstance(spec, Mapping):
            continue
        low: Any = spec.get("minReplicas", 1)
        high: Any = spec.get("maxReplicas")
        if not (_count(low) and _count(high)):
            continue  # Karmada's API refuses it (maxReplicas is required)
        metadata = obj.get("metadata") or {}
        key = (str(metadata.get("namespace", "")), str(target.get("kind")), str(target.get("name")))
        found[key] = (low, high)
    return found


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def scaled(manifest: Manifest, bounds: Mapping[tuple[str, str, str], tuple[int, int]]) -> Manifest:
    """The template with the replicas Karmada's FederatedHPA controller gives it first: below
    minReplicas raised to it, above maxReplicas lowered to it (``federatedhpa_controller.go``,
    "Current number of replicas below Spec.MinReplicas"); 0 stays 0 (scaling disabled)."""
    _, kind, namespace, name = manifest.identity
    found = bounds.get((namespace, kind, name))
    spec = manifest.object.get("spec")
    if found is None or not isinstance(spec, Mapping):
        return manifest
    current = spec.get("replicas", 1)
    if not isinstance(current, int) or isinstance(current, bool) or current == 0:
        return manifest
    low, high = found
    wanted = high if current > high else low if current < low else current
    if wanted == current and "replicas" in spec:
        return manifest
    return replace(manifest, object={**manifest.object, "spec": {**spec, "replicas": wanted}})


def _order(manifest: Manifest) -> tuple[str, str, str, str, str]:
    api_version, kind, namespace, name = manifest.identity
    return namespace, kind, name, api_version, manifest.file


def plan_templates(
    manifests: Sequence[Manifest],
    policies: Policies,
    bundle: Bundle,
    context: Sequence[Manifest] = (),
) -> tuple[TemplateResult, ...]:
    """Every template among ``manifests``, judged with ``policies``; a FederatedHPA among them
    sets its target's replicas first. Those placed by the clusters' room are divided as
    Karmada's scheduler does where every candidate declares its allocatable (``exact.py``),
    after the templates of ``context`` (synced with them, not shown) take theirs."""
    bounds = autoscaler_bounds([*context, *manifests])
    templates = [scaled(m, bounds) for m in manifests if is_template(m.object)]
    planned = [(m, propagate(m.object, policies, bundle.clusters)) for m in templates]
    if needs_room(planned, policies.by_ref):
        others = [scaled(m, bounds) for m in context if is_template(m.object)]
        around = [
            (m, propagate(m.object, policies, bundle.clusters, members=False)) for m in others
        ]
        planned = exact(planned, policies, bundle, around)
    return tuple(
        TemplateResult(m, p, member_violations(p, policies, bundle))
        for m, p in sorted(planned, key=lambda item: _order(item[0]))
    )


def plan_tree(manifests: ManifestSet, bundle: Bundle) -> TreePlan:
    """Every template of the tree with every policy of the tree."""
    policies = policies_of(m.object for m in manifests.manifests)
    findings = [*manifests.findings, *duplicates(manifests.manifests)]
    templates = plan_templates(manifests.manifests, policies, bundle)
    return TreePlan(templates, tuple(findings), tuple(refused(manifests.manifests)))

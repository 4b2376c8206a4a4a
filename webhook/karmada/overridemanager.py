"""Which override policies reach one member's copy, in which order, and what they make of it.

Ported from karmada ``pkg/util/overridemanager/overridemanager.go`` at tag v1.18.0
(``ApplyOverridePolicies``, ``getOverridersFromOverridePolicies``):

1. every ClusterOverridePolicy first, then, for a namespaced object, every OverridePolicy of its
   namespace (matched against the object as the ClusterOverridePolicies left it: a label one
   of them adds can select it, and a namespace one of them writes is the namespace whose
   OverridePolicies apply);
2. within each group, the policies whose resourceSelectors match the object (no selectors, or
   an empty list, matches every object), sorted by implicit priority (match-all < label
   selector < name) and then by name;
3. of each policy, every rule whose ``targetCluster`` selects the cluster (none: every
   cluster); a policy without ``overrideRules`` uses its deprecated ``targetCluster`` and
   ``overriders`` as its one rule;
4. each rule's overriders in order (``overriders.apply_overriders``). The first failure stops
   the override for that cluster.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webhook.bundle.model import Cluster
from webhook.karmada.detector import meta_str
from webhook.karmada.overriders import Object, OverrideError, apply_overriders
from webhook.karmada.selector import ImplicitPriority, cluster_matches, selectors_priority

__all__ = [
    "AppliedOverrides",
    "OverrideError",
    "Step",
    "apply_overrides",
    "label",
    "ordered",
    "rules",
]

CLUSTER_KIND = "ClusterOverridePolicy"
NAMESPACED_KIND = "OverridePolicy"


def _spec(policy: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = policy.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def label(policy: Mapping[str, Any]) -> str:
    """How plan names a policy: ``OverridePolicy ns/name`` or ``ClusterOverridePolicy name``."""
    if policy.get("kind") == CLUSTER_KIND:
        return f"{CLUSTER_KIND} {meta_str(policy, 'name')}"
    return f"{NAMESPACED_KIND} {meta_str(policy, 'namespace')}/{meta_str(policy, 'name')}"


def implicit_priority(policy: Mapping[str, Any], obj: Mapping[str, Any]) -> ImplicitPriority:
    """MATCH_ALL for a policy without selectors, else its best selector's priority."""
    selectors = _spec(policy).get("resourceSelectors")
    if not selectors:
        return ImplicitPriority.MATCH_ALL
    return selectors_priority(obj, selectors if isinstance(selectors, list) else [])


def ordered(
    policies: Sequence[Mapping[str, Any]], obj: Mapping[str, Any]
) -> list[Mapping[str, Any]]:
    """The policies of one group (all cluster, or all namespaced) that match ``obj``, in
    Karmada's order."""
    ranked = ((implicit_priority(p, obj), meta_str(p, "name"), p) for p in policies)
    matching = [r for r in ranked if r[0] > ImplicitPriority.MISMATCH]
    return [p for _, _, p in sorted(matching, key=lambda m: (m[0], m[1]))]


def rules(policy: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """``overrideRules``, or the deprecated top-level targetCluster + overriders as one rule."""
    spec = _spec(policy)
    override_rules = spec.get("overrideRules")
    if override_rules and not isinstance(override_rules, list):
        raise OverrideError(f"{label(policy)}: spec.overrideRules must be a list")
    if override_rules:
        return [r if isinstance(r, Mapping) else {} for r in override_rules]
    return [{"targetCluster": spec.get("targetCluster"), "overriders": spec.get("overriders")}]


def overriders_at(spec: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Each rule's overriders of an override policy's ``spec``, with the JSON pointer they are
    at: ``/spec/overrideRules/<i>/overriders``, or, without ``overrideRules``, the deprecated
    ``/spec/overriders``, which Karmada v1.18 still applies then (``rules``)."""
    override_rules = spec.get("overrideRules")
    if isinstance(override_rules, list) and override_rules:
        return [
            (f"/spec/overrideRules/{i}/overriders", rule["overriders"])
            for i, rule in enumerate(override_rules)
            if isinstance(rule, Mapping) and isinstance(rule.get("overriders"), Mapping)
        ]
    overriders = spec.get("overriders")
    return [("/spec/overriders", overriders)] if isinstance(overriders, Mapping) else []


def _targets(rule: Mapping[str, Any], cluster: Cluster) -> bool:
    target = rule.get("targetCluster")
    return target is None or (isinstance(target, Mapping) and cluster_matches(cluster, target))


@dataclass(frozen=True)
class AppliedOverrides:
    """What one member receives: the object and the policies applied, in Karmada's order
    (each policy once, however many of its rules applied); ``rules``: each applied rule as
    (policy, index of the rule; None for the deprecated targetCluster + overriders form), in
    order: ``getOverridersFromOverridePolicies``' list."""

    object: Object
    applied: tuple[str, ...]
    rules: tuple[tuple[str, int | None], ...] = ()


@dataclass(frozen=True)
class Step:
    """One applied rule and the object after it (``apply_overrides(..., trace=[])``)."""

    policy: str
    rule: int
    object: Object


def apply_overrides(
    obj: Mapping[str, Any],
    cluster_policies: Sequence[Mapping[str, Any]],
    namespaced_policies: Sequence[Mapping[str, Any]],
    cluster: Cluster,
    *,
    owned: bool = False,
    trace: list[Step] | None = None,
    cluster_ordered: Sequence[Mapping[str, Any]] | None = None,
    lookup: Callable[[Mapping[str, Any]], Sequence[Mapping[str, Any]]] | None = None,
) -> AppliedOverrides:
    """``ApplyOverridePolicies`` for ``cluster``; raises OverrideError naming the policy.

    ``namespaced_policies`` are the OverridePolicies of the object's namespace (ignored for a
    cluster-scoped object), matched against the object as the ClusterOverridePolicies left it,
    as Karmada matches them. ``owned``: ``obj`` is the caller's own copy and may be changed.
    ``trace`` collects a copy of the object after each applied rule (to find which override
    produced a value). ``cluster_ordered``: ``ordered(cluster_policies, obj)`` when the caller
    already has it (it is the same for every cluster of one template). ``lookup``: the
    OverridePolicies that may match an object, asked again when the ClusterOverridePolicies
    changed the object's apiVersion, kind, name or namespace (``namespaced_policies`` were
    found for the object as it was)."""
    result: Object = obj if owned and isinstance(obj, dict) else copy.deepcopy(dict(obj))
    applied: list[tuple[str, int | None]] = []
    before = _identity(obj)
    first = ordered(cluster_policies, obj) if cluster_ordered is None else cluster_ordered
    result = _apply_group(result, first, cluster, applied, trace)
    # applyNamespacedOverrides lists the OverridePolicies of rawObj's namespace as the
    # ClusterOverridePolicies left it
    namespace = meta_str(result, "namespace") if isinstance(result, Mapping) else ""
    if namespace:
        candidates = namespaced_policies
        if lookup is not None and _identity(result) != before:
            candidates = lookup(result)
        own = [p for p in candidates if meta_str(p, "namespace") == namespace]
        result = _apply_group(result, ordered(own, result), cluster, applied, trace)
    names = tuple(dict.fromkeys(policy for policy, _ in applied))
    return AppliedOverrides(result, names, tuple(applied))


def _identity(obj: Any) -> tuple[str, ...]:
    if not isinstance(obj, Mapping):
        return ()
    names = (meta_str(obj, "namespace"), meta_str(obj, "name"))
    return (str(obj.get("apiVersion", "")), str(obj.get("kind", "")), *names)


def _apply_group(
    result: Object,
    group: Sequence[Mapping[str, Any]],
    cluster: Cluster,
    applied: list[tuple[str, int | None]],
    trace: list[Step] | None,
) -> Object:
    """Every rule of each policy of one group that targets ``cluster``, in order."""
    for policy in group:
        deprecated = not _spec(policy).get("overrideRules")
        for index, rule in enumerate(rules(policy)):
            if not _targets(rule, cluster):
                continue
            overriders = rule.get("overriders")
            try:
                result = apply_overriders(
                    result, overriders if isinstance(overriders, Mapping) else {}
                )
            except OverrideError as exc:
                raise OverrideError(f"{label(policy)} (rule {index}): {exc}") from None
            applied.append((label(policy), None if deprecated else index))
            if trace is not None:
                trace.append(Step(label(policy), index, copy.deepcopy(result)))
    return result

"""Which PropagationPolicy or ClusterPropagationPolicy claims a resource template.

Ported from karmada ``pkg/detector`` at tag v1.18.0 (``detector.go``: ``EventFilter``,
``Reconcile``, ``propagateResource``, ``LookForMatchedPolicy``, ``LookForMatchedClusterPolicy``;
``compare.go``: ``getHighestPriorityPropagationPolicy``; ``policy.go``: ``getAndApplyPolicy``)
and ``pkg/util/apigroup.go`` (the API groups Karmada never propagates):

1. Karmada's own API groups, events, leases, objects in ``karmada-system``,
   ``karmada-cluster``, ``karmada-es-*`` and the skipped namespaces (``kube-.*`` by default),
   and objects labelled ``resourcetemplate.karmada.io/claimed-by`` are not templates.
2. A template that already carries a policy's claim (annotations naming it and the
   permanent-id label) keeps that policy while it exists and its selectors still match
   (otherwise Karmada removes the stale claim and matches afresh).
3. Otherwise the PropagationPolicies of its namespace compete, and only if none matches, the
   ClusterPropagationPolicies: the highest ``priority`` wins (absent: 0), then the more precise
   selector (name > label selector > kind only), then the smaller name.

Preemption (``preemption: Always``) needs the ``PropagationPolicyPreemption`` feature gate,
off by default; fedgate models the default. Policies that match the same template are
reported: when they reach the API server in separate syncs, the first one to claim the
template keeps it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from webhook.karmada.selector import ImplicitPriority, selectors_priority

PP, CPP = "PropagationPolicy", "ClusterPropagationPolicy"
OP, COP = "OverridePolicy", "ClusterOverridePolicy"
POLICY_API = "policy.karmada.io/v1alpha1"
SKIPPED_GROUPS = frozenset(
    {
        "cluster.karmada.io",
        "policy.karmada.io",
        "work.karmada.io",
        "config.karmada.io",
        "networking.karmada.io",
        "autoscaling.karmada.io",
        "remedy.karmada.io",
        "apps.karmada.io",
        "events.k8s.io",
    }
)
"""``NewSkippedResourceConfig``: groups the detector never watches."""
SKIPPED_NAMESPACES = (re.compile(r"^kube-.*\Z"),)
"""``--skipped-propagating-namespaces`` at its default, compiled as Karmada does (^...$)."""
RESERVED_PREFIX = "karmada-es-"
RESERVED_NAMESPACES = ("karmada-system", "karmada-cluster")
CLAIMED_BY = "resourcetemplate.karmada.io/claimed-by"
PP_NAMESPACE = "propagationpolicy.karmada.io/namespace"
PP_NAME = "propagationpolicy.karmada.io/name"
PP_ID = "propagationpolicy.karmada.io/permanent-id"
CPP_NAME = "clusterpropagationpolicy.karmada.io/name"
CPP_ID = "clusterpropagationpolicy.karmada.io/permanent-id"


def metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    value = obj.get("metadata")
    return value if isinstance(value, Mapping) else {}


def meta_str(obj: Mapping[str, Any], key: str) -> str:
    value = metadata(obj).get(key, "")
    return value if isinstance(value, str) else ""


def _strings(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = metadata(obj).get(key)
    return value if isinstance(value, Mapping) else {}


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def reserved_namespace(namespace: str) -> bool:
    """``names.IsReservedNamespace``."""
    return namespace in RESERVED_NAMESPACES or namespace.startswith(RESERVED_PREFIX)


def skipped_namespace(namespace: str) -> bool:
    return any(pattern.match(namespace) for pattern in SKIPPED_NAMESPACES)


def not_a_template(obj: Mapping[str, Any]) -> str | None:
    """Why Karmada's detector ignores ``obj`` (None: it is a resource template)."""
    api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    namespace = meta_str(obj, "namespace")
    if group_of(api_version) in SKIPPED_GROUPS:
        return f"Karmada does not propagate {group_of(api_version)} objects"
    if (api_version, kind) == ("v1", "Event") or group_of(api_version) == "coordination.k8s.io":
        return f"Karmada does not propagate {kind} objects"
    if reserved_namespace(namespace):
        return f"{namespace} is reserved for Karmada: nothing in it is propagated"
    if skipped_namespace(namespace):
        return f"{namespace} is skipped by Karmada (--skipped-propagating-namespaces kube-.*)"
    if (namespace, kind, meta_str(obj, "name")) == (
        "kube-system",
        "ConfigMap",
        "extension-apiserver-authentication",
    ):
        return "the API server's own ConfigMap is never propagated"
    if _strings(obj, "labels").get(CLAIMED_BY):
        return f"claimed by {_strings(obj, 'labels')[CLAIMED_BY]} ({CLAIMED_BY}): no policy applies"
    return None


def explicit_priority(policy: Mapping[str, Any]) -> int:
    """``ExplicitPriority``: spec.priority, 0 when absent."""
    spec = policy.get("spec")
    value = spec.get("priority") if isinstance(spec, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def selectors(policy: Mapping[str, Any]) -> list[Any]:
    spec = policy.get("spec")
    found = spec.get("resourceSelectors") if isinstance(spec, Mapping) else None
    return found if isinstance(found, list) else []


@dataclass
class SelectorIndex:
    """Policies by what their selectors can match, so a template meets only the policies
    that may select it: a named selector under (scope, apiVersion, kind, name), any other under
    (scope, apiVersion, kind), and policies without selectors under (scope,). The scope is
    the policy's namespace for namespaced kinds, "" for cluster kinds."""

    named: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    general: dict[tuple[str, str, str], list[Mapping[str, Any]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    everything: dict[str, list[Mapping[str, Any]]] = field(
        default_factory=lambda: defaultdict(list)
    )

    def add(self, policy: Mapping[str, Any], scope: str, *, empty_matches_all: bool) -> None:
        found = selectors(policy)
        if not found:
            if empty_matches_all:
                self.everything[scope].append(policy)
            return
        for selector in found:
            if not isinstance(selector, Mapping):
                continue
            key = (scope, str(selector.get("apiVersion", "")), str(selector.get("kind", "")))
            if selector.get("name"):
                self.named[(*key, str(selector["name"]))].append(policy)
            else:
                self.general[key].append(policy)

    def candidates(self, obj: Mapping[str, Any], scope: str) -> list[Mapping[str, Any]]:
        """The policies of ``scope`` that may match ``obj``, each once, in the order added."""
        key = (scope, str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        found = [
            *self.everything.get(scope, ()),
            *self.named.get((*key, meta_str(obj, "name")), ()),
            *self.general.get(key, ()),
        ]
        unique: dict[int, Mapping[str, Any]] = {}
        for policy in found:
            unique.setdefault(id(policy), policy)
        return list(unique.values())


def policy_ref(policy: Mapping[str, Any]) -> tuple[str, str, str]:
    """(kind, namespace, name)."""
    return str(policy.get("kind")), meta_str(policy, "namespace"), meta_str(policy, "name")


@dataclass(frozen=True)
class Claim:
    """The policy that claims a template, and the others that also matched it."""

    policy: Mapping[str, Any] | None
    contenders: tuple[Mapping[str, Any], ...] = ()
    reason: str = ""


@dataclass
class Policies:
    """Every Karmada policy of a tree, indexed for matching (build once, query per template)."""

    propagation: SelectorIndex = field(default_factory=SelectorIndex)
    cluster_propagation: SelectorIndex = field(default_factory=SelectorIndex)
    override: SelectorIndex = field(default_factory=SelectorIndex)
    cluster_override: list[Mapping[str, Any]] = field(default_factory=list)
    by_ref: dict[tuple[str, str, str], Mapping[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, objects: Iterable[Mapping[str, Any]]) -> Policies:
        policies = cls()
        for obj in objects:
            policies.add(obj)
        return policies

    @staticmethod
    def is_policy(obj: Mapping[str, Any]) -> bool:
        return obj.get("apiVersion") == POLICY_API and obj.get("kind") in (PP, CPP, OP, COP)

    def add(self, policy: Mapping[str, Any]) -> None:
        kind, namespace, _ = policy_ref(policy)
        scope = "" if kind in (CPP, COP) else namespace
        self.by_ref[policy_ref(policy)] = policy
        if kind == PP:
            self.propagation.add(policy, scope, empty_matches_all=False)
        elif kind == CPP:
            self.cluster_propagation.add(policy, scope, empty_matches_all=False)
        elif kind == OP:
            self.override.add(policy, scope, empty_matches_all=True)
        elif kind == COP:
            self.cluster_override.append(policy)

    def override_policies(
        self, obj: Mapping[str, Any]
    ) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
        """(ClusterOverridePolicies, OverridePolicies of its namespace) that may match."""
        namespace = meta_str(obj, "namespace")
        namespaced = self.override.candidates(obj, namespace) if namespace else []
        return self.cluster_override, namespaced

    def namespaced_overrides(self, obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """The OverridePolicies of the object's namespace that may match it."""
        return self.override_policies(obj)[1]

    def claim(self, obj: Mapping[str, Any]) -> Claim:
        """The policy Karmada's detector applies to the template ``obj``."""
        claimed = self._claimed(obj)
        if claimed is not None:
            return claimed
        namespace = meta_str(obj, "namespace")
        if namespace:
            found = _best(obj, self.propagation.candidates(obj, namespace))
            if found.policy is not None:
                return found
        return _best(obj, self.cluster_propagation.candidates(obj, ""))

    def _claimed(self, obj: Mapping[str, Any]) -> Claim | None:
        """Steps 1 and 2 of ``propagateResource``: the claim the template already carries."""
        annotations, labels = _strings(obj, "annotations"), _strings(obj, "labels")
        pp = (annotations.get(PP_NAMESPACE), annotations.get(PP_NAME), labels.get(PP_ID))
        if all(pp):
            policy = self.by_ref.get((PP, str(pp[0]), str(pp[1])))
        elif annotations.get(CPP_NAME) and labels.get(CPP_ID):
            policy = self.by_ref.get((CPP, "", str(annotations[CPP_NAME])))
        else:
            return None
        if (
            policy is None
            or selectors_priority(obj, selectors(policy)) == ImplicitPriority.MISMATCH
        ):
            return None  # Karmada cleans the stale claim up, then matches afresh
        return Claim(policy, (), "the template's claim labels and annotations name it")


SELECTOR_WORDS = {
    ImplicitPriority.NAME: "name selector",
    ImplicitPriority.LABEL_SELECTOR: "label selector",
    ImplicitPriority.MATCH_ALL: "kind-only selector",
    ImplicitPriority.MISMATCH: "no match",
}


def _best(obj: Mapping[str, Any], policies: Sequence[Mapping[str, Any]]) -> Claim:
    """``getHighestPriorityPropagationPolicy``."""
    ranked = []
    for policy in policies:
        implicit = selectors_priority(obj, selectors(policy))
        if implicit > ImplicitPriority.MISMATCH:
            ranked.append(
                (-explicit_priority(policy), -int(implicit), meta_str(policy, "name"), policy)
            )
    if not ranked:
        return Claim(None)
    ranked.sort(key=lambda r: r[:3])
    winner = ranked[0]
    reason = f"priority {-winner[0]}, {SELECTOR_WORDS[ImplicitPriority(-winner[1])]}"
    return Claim(winner[3], tuple(r[3] for r in ranked[1:]), reason)

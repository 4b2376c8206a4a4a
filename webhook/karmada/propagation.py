"""What each member cluster receives of a resource template: the whole of Karmada's path.

For one template and the policies of a tree: the detector's claim (``detector.py``), the
replicas the interpreter reads (``interpreter.py``), the scheduler's placement
(``scheduler.py``), and per cluster the copy after ReviseReplica (and a Divided Job's share of
``completions``) and the override manager (``overridemanager.py``), as the binding controller
builds each Work (karmada v1.18.0 ``pkg/controllers/binding/common.go`` ``ensureWork``).
Namespaces take the namespace controller's path instead (``pkg/controllers/namespace``): every
cluster, ClusterOverridePolicies only.

Pure: values in, values out. ``fedgate plan`` and the webhook use it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from webhook.bundle.model import Cluster
from webhook.karmada import overridemanager
from webhook.karmada.detector import OP, Policies, meta_str, not_a_template, policy_ref
from webhook.karmada.division import webster
from webhook.karmada.interpreter import (
    InterpretError,
    Replicas,
    api_server_defaults,
    get_replicas,
    revise_completions,
    revise_replicas,
)
from webhook.karmada.overriders import OverrideError
from webhook.karmada.scheduler import Placement, schedule

SKIP_NAMESPACE_LABEL = "namespace.karmada.io/skip-auto-propagation"


@dataclass(frozen=True)
class MemberCopy:
    """What one cluster receives (``object``), or why Karmada fails to build it (``error``)."""

    object: dict[str, Any] | None
    overrides: tuple[str, ...] = ()
    error: str | None = None
    rules: tuple[tuple[str, int | None], ...] = ()
    """Each applied override rule: (policy, rule index; None: the deprecated form)."""


@dataclass(frozen=True)
class TemplatePlan:
    """One template as Karmada propagates it."""

    template: Mapping[str, Any]
    policy: tuple[str, str, str] | None
    """(kind, namespace, name) of the claiming policy; None when nothing propagates it."""
    placement: Mapping[str, int | None] = field(default_factory=dict)
    alternative: Mapping[str, int | None] | None = None
    copies: Mapping[str, MemberCopy] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    replicas: Replicas | None = None
    """What the interpreter read (None: a kind it does not count, or not propagated)."""
    completions: Mapping[str, int] | None = None
    suspended: tuple[str, ...] = ()
    """Clusters whose Work Karmada keeps from dispatching (the policy's ``spec.suspension``):
    the copy is built and judged, but the member does not receive it until resumed."""
    propagate_deps: bool = False
    """The policy's ``propagateDeps``, which the ResourceBinding carries."""


def suspended_clusters(spec: Mapping[str, Any], clusters: Iterable[str]) -> tuple[str, ...]:
    """``shouldSuspendDispatching`` (karmada v1.18.0 pkg/controllers/binding/common.go) for
    each of ``clusters``: ``suspension.dispatching: true`` suspends every one, else those that
    ``dispatchingOnClusters.clusterNames`` lists."""
    suspension = _mapping(spec.get("suspension"))
    if suspension.get("dispatching") is True:
        return tuple(clusters)
    on = _mapping(suspension.get("dispatchingOnClusters")).get("clusterNames")
    names = on if isinstance(on, list) else []
    return tuple(c for c in clusters if c in names)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _namespace_plan(
    obj: Mapping[str, Any],
    policies: Policies,
    clusters: Mapping[str, Cluster],
    *,
    members: bool = True,
) -> TemplatePlan | None:
    """The namespace controller: every Namespace outside the reserved, default and skipped
    ones goes to every cluster with the ClusterOverridePolicies applied."""
    if (obj.get("apiVersion"), obj.get("kind")) != ("v1", "Namespace"):
        return None
    name = meta_str(obj, "name")
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if name == "default" or str(labels.get(SKIP_NAMESPACE_LABEL, "")).lower() == "true":
        return TemplatePlan(obj, None, notes=("the namespace controller does not propagate it",))
    placement = dict.fromkeys(sorted(clusters), None)
    cluster_ordered = overridemanager.ordered(policies.override_policies(obj)[0], obj)
    copies = {
        c: _override(copy.deepcopy(dict(obj)), [], cluster_ordered, clusters[c], policies)
        for c in (sorted(clusters) if members else ())
    }
    note = "the namespace controller propagates every namespace to every cluster"
    return TemplatePlan(obj, None, placement, None, copies, (note,))


def _override(
    obj: dict[str, Any],
    namespaced: list[Mapping[str, Any]],
    cluster_ordered: list[Mapping[str, Any]],
    cluster: Cluster,
    policies: Policies,
) -> MemberCopy:
    """The override manager on ``obj``, a copy of the template this function may change;
    ``cluster_ordered``: the ClusterOverridePolicies that match it, in Karmada's order."""
    try:
        applied = overridemanager.apply_overrides(
            obj,
            cluster_ordered,
            namespaced,
            cluster,
            owned=True,
            cluster_ordered=cluster_ordered,
            lookup=policies.namespaced_overrides,
        )
    except OverrideError as exc:
        return MemberCopy(None, (), str(exc))
    return MemberCopy(applied.object, applied.applied, rules=applied.rules)


def _missing_dependents(policy: Mapping[str, Any], policies: Policies) -> list[str]:
    """``dependentOverrides`` not in the tree: Karmada waits for them, propagating nothing."""
    spec = policy.get("spec") or {}
    _, namespace, _ = policy_ref(policy)
    wanted = spec.get("dependentOverrides") if isinstance(spec, Mapping) else None
    missing = []
    for name in wanted if isinstance(wanted, list) else []:
        key = (OP, namespace, str(name)) if namespace else ("ClusterOverridePolicy", "", str(name))
        if key not in policies.by_ref:
            missing.append(str(name))
    return missing


def _completions(obj: Mapping[str, Any], placement: Placement) -> dict[str, int] | None:
    """A Divided Job's ``completions`` spread by each cluster's share (``divideReplicasByJob
    Completions``), ties to the smaller names."""
    spec = obj.get("spec")
    total = spec.get("completions") if isinstance(spec, Mapping) else None
    if not isinstance(total, int) or isinstance(total, bool):
        return None
    weights = {c: n for c, n in placement.clusters.items() if n}
    shares = webster(total, weights)
    return {c: shares.get(c, 0) for c in placement.clusters}


def _member_copies(
    obj: Mapping[str, Any],
    replicas: Replicas | None,
    placement: Placement,
    completions: Mapping[str, int] | None,
    *,
    policies: Policies,
    clusters: Mapping[str, Cluster],
) -> dict[str, MemberCopy]:
    """Each placed cluster's copy: replicas revised, then the override manager."""
    cluster_policies, namespaced = policies.override_policies(obj)
    cluster_ordered = overridemanager.ordered(cluster_policies, obj)
    copies = {}
    for name, count in placement.clusters.items():
        try:
            member = base_copy(obj, replicas, count, completions, name)
        except InterpretError as exc:
            copies[name] = MemberCopy(None, (), f"ReviseReplica failed: {exc}")
            continue
        copies[name] = _override(member, namespaced, cluster_ordered, clusters[name], policies)
    return copies


def propagate(
    obj: Mapping[str, Any],
    policies: Policies,
    clusters: Mapping[str, Cluster],
    *,
    members: bool = True,
    placed: Placement | None = None,
) -> TemplatePlan:
    """``obj`` as Karmada propagates it with ``policies`` over the member ``clusters``;
    without ``members``, the placement only (no member copies: what a caller that needs only
    where the replicas go skips). ``placed``: the scheduler's result as the caller knows it
    better (a division by the clusters' declared room over the whole tree), in place of
    ``schedule``'s."""
    reason = not_a_template(obj)
    if reason is not None:
        return TemplatePlan(obj, None, notes=(reason,))
    namespace_plan = _namespace_plan(obj, policies, clusters, members=members)
    if namespace_plan is not None:
        return namespace_plan
    claim = policies.claim(obj)
    if claim.policy is None:
        note = (
            "no PropagationPolicy or ClusterPropagationPolicy selects it: "
            "it stays in the control plane"
        )
        return TemplatePlan(obj, None, notes=(note,))
    policy = claim.policy
    ref = policy_ref(policy)
    notes = [f"claimed by {ref[0]} {'/'.join(p for p in ref[1:] if p)} ({claim.reason})"]
    notes += [
        f"also selected by {c.get('kind')} {'/'.join(p for p in policy_ref(c)[1:] if p)}, which "
        "loses here but keeps the template if it reaches the API server first"
        for c in claim.contenders
    ]
    missing = _missing_dependents(policy, policies)
    if missing:
        notes.append(f"waits for its dependentOverrides {', '.join(missing)}: nothing propagates")
        return TemplatePlan(obj, ref, notes=tuple(notes))
    obj, defaulted = api_server_defaults(obj)
    if defaulted:
        notes.append(defaulted)
    try:
        replicas = get_replicas(obj)
    except InterpretError as exc:
        notes.append(f"Karmada cannot read its replicas ({exc}): nothing propagates")
        return TemplatePlan(obj, ref, notes=tuple(notes))
    spec = _mapping(policy.get("spec"))
    placement_spec = _mapping(spec.get("placement"))
    placement = placed if placed is not None else schedule(placement_spec, replicas, clusters)
    notes += placement.notes
    strategy = placement_spec.get("replicaScheduling")
    divided = isinstance(strategy, Mapping) and (
        strategy.get("replicaSchedulingType") != "Duplicated"
    )
    completions = (
        _completions(obj, placement)
        if obj.get("kind") == "Job" and divided and replicas is not None and replicas.count > 0
        else None
    )
    copies = (
        _member_copies(obj, replicas, placement, completions, policies=policies, clusters=clusters)
        if members
        else {}
    )
    suspended = suspended_clusters(spec, placement.clusters)
    if suspended:
        notes.append(
            f"dispatching suspended on {', '.join(suspended)} (spec.suspension): the Work is "
            "written but not applied there until the policy resumes"
        )
    return TemplatePlan(
        obj,
        ref,
        placement.clusters,
        placement.alternative,
        copies,
        tuple(notes),
        replicas,
        completions,
        suspended,
        spec.get("propagateDeps") is True,
    )


def copies_anywhere(
    obj: Mapping[str, Any], policies: Policies, clusters: Mapping[str, Cluster]
) -> dict[str, MemberCopy]:
    """What each of ``clusters`` would receive of ``obj`` were it placed there: the template as
    the API server defaults it, its replicas as written, and the override policies. For a
    write that could act on a member later (an override for a cluster the template does not
    go to yet): judged as if it did."""
    template, _ = api_server_defaults(obj)
    cluster_policies, namespaced = policies.override_policies(template)
    cluster_ordered = overridemanager.ordered(cluster_policies, template)
    return {
        name: _override(
            copy.deepcopy(dict(template)), namespaced, cluster_ordered, cluster, policies
        )
        for name, cluster in sorted(clusters.items())
    }


def base_copy(
    obj: Mapping[str, Any],
    replicas: Replicas | None,
    count: int | None,
    completions: Mapping[str, int] | None,
    cluster: str,
) -> dict[str, Any]:
    """A member's copy before the overrides: replicas revised (and a Job's completions)."""
    member = copy.deepcopy(dict(obj))
    if replicas is not None and replicas.workload and count is not None:
        revise_replicas(member, count)
    if completions is not None:
        revise_completions(member, completions[cluster])
    return member


def trace(
    plan: TemplatePlan, cluster: Cluster, policies: Policies
) -> tuple[dict[str, Any], list[overridemanager.Step]]:
    """One member's copy before the overrides, and after each rule that applied: to find which
    override produced a value. Raises OverrideError or InterpretError as ``propagate`` met."""
    count = plan.placement.get(cluster.name)
    base = base_copy(plan.template, plan.replicas, count, plan.completions, cluster.name)
    cluster_policies, namespaced = policies.override_policies(plan.template)
    if plan.policy is None:  # the namespace controller: ClusterOverridePolicies only
        namespaced = []
    steps: list[overridemanager.Step] = []
    overridemanager.apply_overrides(
        base,
        cluster_policies,
        namespaced,
        cluster,
        trace=steps,
        lookup=policies.namespaced_overrides,
    )
    return base, steps

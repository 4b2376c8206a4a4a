"""``plan --fail``: what Karmada v1.18 does when member clusters fail, before they do.

Pure: templates, their policies, the bundle (clusters, their capacity and the control plane's
failover settings) and the failed clusters in; a FailoverPlan out. On the plan's clock, 0 is
the moment the failed clusters' ``Ready`` condition turns False and the taints land (the
cluster-status controller waits ``--cluster-failure-threshold`` of failed probes, made every
``--cluster-status-update-frequency``: 30-40 s after the failure with v1.18's defaults).

For every template placed on a failed cluster:

- whether and when its binding is evicted from it (``webhook/karmada/taints.py``): only with
  the Failover feature gate, ``--enable-taint-manager`` and ``--enable-no-execute-taint-
  eviction`` (v1.18's defaults: off, on, off), and only for a NoExecute taint a
  ClusterTaintPolicy puts on a cluster whose ``Ready`` is False, against the policy's
  ``placement.clusterTolerations`` (no defaults added since v1.15);
- when the taint manager's queue gets to it (``webhook/karmada/evictionqueue.py``);
- where its replicas go: the scheduler over the clusters left (``webhook/karmada/scheduler.py``;
  a failed cluster the binding still targets stays a candidate, as the TaintToleration filter
  lets a target through); Aggregated and dynamic weights by the room the clusters declare
  (``compiler/plan/bycapacity.py``, ``webhook/karmada/dynamic.py``); spread constraints by
  region and cluster chosen again among the clusters left (``compiler/plan/spreadgroups.py``,
  ``webhook/karmada/spread.py``);
- how the old copy goes (``spec.failover.cluster.purgeMode``, else ``--no-execute-taint-
  eviction-purge-mode``): Gracefully keeps it until the new copies are healthy or
  ``--graceful-eviction-timeout`` passes, Directly holds the new copies back until the old one
  is deleted (or that timeout drops the task). Either way Karmada cannot delete anything on a
  member that does not answer (the execution controller waits for it): during a partition the
  old copy runs on. ``spec.failover.application`` plays no part: it
  acts on a copy reported Unhealthy, and a failed cluster reports nothing.

Then each cluster left's load against its declared ``allocatable``, and the eviction storm.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from compiler.argocd.manifests import Manifest
from compiler.plan.bycapacity import Room, divide_lost
from compiler.plan.capacity import ClusterLoad, Move, amount
from compiler.plan.capacity import loads as capacity_loads
from compiler.plan.settle import settle
from compiler.plan.spreadgroups import active, regroup
from compiler.plan.tree import autoscaler_bounds, is_template, scaled
from webhook.bundle.model import Bundle, Cluster, ControlPlane
from webhook.engine.targets.stateful_purge import stateful
from webhook.karmada.detector import Policies
from webhook.karmada.evictionqueue import QueueSettings, Window, windows
from webhook.karmada.propagation import TemplatePlan, propagate
from webhook.karmada.scheduler import schedule
from webhook.karmada.taints import (
    NO_EXECUTE,
    Taint,
    failed_cluster_taints,
    matching_tolerations,
    need_eviction,
    purge_mode,
    tolerates,
)

TAINT_POLICY = ("policy.karmada.io/v1alpha1", "ClusterTaintPolicy")


@dataclass(frozen=True)
class Eviction:
    """One template on one failed cluster: what the taint manager does with it."""

    cluster: str
    replicas: int | None
    """What the cluster ran of it (None: not a workload, the whole object)."""
    evicted: bool
    reason: str
    due: float | None = None
    """Seconds after the taint when the eviction is due (its toleration runs out); None: never."""
    window: Window | None = None
    """When the queue takes it (seconds after the taint): the order among bindings due at the
    same moment is the informer cache's, so a span."""
    purge: str | None = None


@dataclass(frozen=True)
class Finding:
    """Something a reviewer must see: ``deny`` (the plan fails) or ``warn``."""

    rule: str
    action: str
    message: str
    template: tuple[str, str, str, str] | None = None
    cluster: str | None = None

    @property
    def denies(self) -> bool:
        return self.action == "deny"


@dataclass(frozen=True)
class TemplateFailover:
    """One template placed on a failed cluster."""

    manifest: Manifest
    tenant: str | None
    before: Mapping[str, int | None]
    after: Mapping[str, int | None]
    alternative: Mapping[str, int | None] | None
    evictions: tuple[Eviction, ...]
    stateful: bool
    by_capacity: bool
    """Divided by free capacity (Aggregated or dynamic weights): ``after`` is the most each
    cluster can get."""
    twice: tuple[str, ...] = ()
    """Each way two copies of it run at once, in one sentence."""
    notes: tuple[str, ...] = ()

    @property
    def identity(self) -> tuple[str, str, str, str]:
        return self.manifest.identity

    @property
    def unavailable(self) -> int:
        """Replicas lost while the failed clusters are down and nothing replaces them."""
        return sum(e.replicas or 0 for e in self.evictions if not e.evicted)


@dataclass(frozen=True)
class Queue:
    """One of the taint manager's queues in the storm."""

    name: str
    items: int
    settings: QueueSettings
    duration: float
    """Seconds from the taint until the queue takes its last item."""


@dataclass(frozen=True)
class FailoverPlan:
    """What happens when ``failed`` fail."""

    failed: tuple[str, ...]
    settings: ControlPlane
    taints: Mapping[str, tuple[Taint, ...]]
    templates: tuple[TemplateFailover, ...]
    loads: tuple[ClusterLoad, ...]
    queues: tuple[Queue, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()

    @property
    def denied(self) -> bool:
        return any(f.denies for f in self.findings)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def tree_taint_policies(manifests: Sequence[Manifest]) -> list[Mapping[str, Any]]:
    """The ClusterTaintPolicies of a tree, as ``karmada.yaml`` lists them (spec and name)."""
    found: list[Mapping[str, Any]] = []
    for m in manifests:
        if (m.object.get("apiVersion"), m.object.get("kind")) == TAINT_POLICY:
            name = _mapping(m.object.get("metadata")).get("name", "")
            found.append({"name": name, **_mapping(m.object.get("spec"))})
    return found


def off_switch(settings: ControlPlane) -> str | None:
    """Which of the control plane's settings keeps the taint manager from evicting, if any."""
    if not settings.failover_gate:
        return (
            "the Failover feature gate is off (v1.18's default): the taint manager and the "
            "ClusterTaintPolicy controller do not run"
        )
    if not settings.enable_taint_manager:
        return "--enable-taint-manager=false: the taint manager does not run"
    if not settings.enable_no_execute_taint_eviction:
        return (
            "--enable-no-execute-taint-eviction is false (v1.18's default): the taint manager "
            "ignores NoExecute taints"
        )
    return None


def _by_capacity(placement: Mapping[str, Any]) -> bool:
    strategy = _mapping(placement.get("replicaScheduling"))
    if strategy.get("replicaSchedulingType", "Divided") == "Duplicated" or not strategy:
        return False
    preference = _mapping(strategy.get("weightPreference"))
    return strategy.get("replicaDivisionPreference") == "Aggregated" or bool(
        preference.get("dynamicWeight")
    )


def _eviction(
    cluster: str,
    replicas: int | None,
    taints: Sequence[Taint],
    tolerations: Sequence[Mapping[str, Any]],
    *,
    failover: Any,
    settings: ControlPlane,
) -> Eviction:
    off = off_switch(settings)
    if off is not None:
        return Eviction(cluster, replicas, False, f"not evicted: {off}")
    no_execute = [t for t in taints if t.effect == NO_EXECUTE]
    if not no_execute:
        return Eviction(
            cluster,
            replicas,
            False,
            "not evicted: no ClusterTaintPolicy puts a NoExecute taint on it when Ready is "
            "False (the cluster controller's own taint is NoSchedule)",
        )
    now, wait = need_eviction(taints, tolerations, 0)
    purge = purge_mode(failover, settings.purge_mode)
    taint_list = ", ".join(t.describe() for t in no_execute)
    if now:
        covered, _ = matching_tolerations(no_execute, tolerations)
        reason = (
            f"evicted at once: it tolerates {taint_list} for 0 s"
            if covered
            else f"evicted at once: it does not tolerate {taint_list}"
        )
        return Eviction(cluster, replicas, True, reason, 0, purge=purge)
    if wait is None:
        return Eviction(
            cluster, replicas, False, f"not evicted: it tolerates {taint_list} without a time limit"
        )
    return Eviction(
        cluster,
        replicas,
        True,
        f"evicted after its tolerationSeconds: it tolerates {taint_list} for {wait:g} s",
        wait,
        purge=purge,
    )


def _available(
    plan: TemplatePlan,
    evicted: Collection[str],
    failed: Collection[str],
    *,
    taints: Mapping[str, Sequence[Taint]],
    tolerations: Sequence[Mapping[str, Any]],
    clusters: Mapping[str, Cluster],
) -> dict[str, Cluster]:
    """The clusters the scheduler may use after the evictions: not failed; or failed but still
    a target of the binding; or failed with every NoSchedule / NoExecute taint tolerated."""
    out = {}
    for name, cluster in clusters.items():
        if name in evicted:
            continue
        if name in failed and name not in plan.placement:
            blocking = [t for t in taints[name] if t.effect in ("NoSchedule", NO_EXECUTE)]
            if not all(any(tolerates(t_, t) for t_ in tolerations) for t in blocking):
                continue
        out[name] = cluster
    return out


def _twice(evictions: Sequence[Eviction], timeout: int) -> list[str]:
    """How the old copy and the new ones overlap, one sentence per evicted cluster (called
    when new copies start somewhere)."""
    lines = []
    for e in evictions:
        if not e.evicted:
            continue
        if e.purge in ("Directly", "Immediately"):
            # pkg/controllers/binding/binding_controller.go: syncBinding writes no Work while
            # checkDirectPurgeOrphanWorks finds one on a cluster of a Directly eviction task, and
            # the execution controller deletes no Work on a cluster that is not Ready; the task
            # goes only at --graceful-eviction-timeout (the new copies never report healthy).
            lines.append(
                f"{e.cluster}: Karmada holds the new copies back until the old copy is deleted "
                f"(purgeMode {e.purge}), which needs {e.cluster} to answer: nothing new starts "
                f"until it does or {timeout} s pass (--graceful-eviction-timeout); after that, "
                "during a partition the old copy runs on beside the new copies"
            )
        elif e.purge == "Never":
            lines.append(f"{e.cluster}: the old copy is never removed (purgeMode Never)")
        else:
            lines.append(
                f"{e.cluster}: Karmada keeps the old copy until the new copies are healthy or "
                f"{timeout} s pass (purgeMode {e.purge}, --graceful-eviction-timeout), and "
                f"deletes it only once {e.cluster} answers again"
            )
    return lines


def _follow(
    manifest: Manifest,
    plan: TemplatePlan,
    policies: Policies,
    bundle: Bundle,
    *,
    failed: Collection[str],
    taints: Mapping[str, Sequence[Taint]],
    room: Room | None = None,
    exact: bool = False,
    spread: bool = False,
) -> TemplateFailover | None:
    """``room``: the clusters' room before the failure; ``exact``: the template's division by
    capacity was made from it; ``spread``: its spread constraints were applied to it."""
    on_failed = [c for c in plan.placement if c in failed]
    if not on_failed or plan.policy is None:
        return None
    policy = policies.by_ref.get(plan.policy) or {}
    spec = _mapping(policy.get("spec"))
    placement = _mapping(spec.get("placement"))
    tolerations = [t for t in placement.get("clusterTolerations") or [] if isinstance(t, Mapping)]
    evictions = tuple(
        _eviction(
            c,
            plan.placement[c],
            taints[c],
            tolerations,
            failover=spec.get("failover"),
            settings=bundle.karmada,
        )
        for c in on_failed
    )
    evicted = {e.cluster for e in evictions if e.evicted}
    notes: list[str] = []
    by_capacity = _by_capacity(placement) and not exact
    alternative: Mapping[str, int | None] | None
    if evicted:
        available = _available(
            plan, evicted, failed, taints=taints, tolerations=tolerations, clusters=bundle.clusters
        )
        if spread and room is not None:
            grouped = regroup(plan, placement, available, evicted, room)
            after, alternative = dict(grouped.placement or {}), grouped.alternative
            notes += grouped.notes
            by_capacity = _by_capacity(placement) and not grouped.exact
        else:
            result = schedule(placement, plan.replicas, available)
            after, alternative = dict(result.clusters), result.alternative
            divided = (
                divide_lost(plan, placement, available, evicted, room)
                if exact and room is not None
                else None
            )
            if divided is not None:
                after, alternative = divided.after, divided.alternative
                notes += divided.notes
            else:
                by_capacity = _by_capacity(placement)
                notes += result.notes
            if active(placement):  # Karmada's scheduler could not place it before either
                notes.append("spread constraints may pick another group of clusters: not simulated")
    else:
        after, alternative = dict(plan.placement), plan.alternative
    is_stateful = stateful(plan.template)
    starts = [
        c for c in after if c not in plan.placement or (after[c] or 0) > (plan.placement[c] or 0)
    ]
    twice = _twice(evictions, bundle.karmada.graceful_eviction_timeout) if starts else []
    if evicted and after and not starts:
        notes.append("nothing new starts: the clusters left already run it")
    if evicted and not after:
        notes.append("no cluster left fits the placement: the binding is left with no cluster")
    namespace = manifest.identity[2]
    tenant = bundle.tenant_of_namespace(namespace) if namespace else None
    return TemplateFailover(
        manifest,
        tenant.name if tenant is not None else None,
        dict(plan.placement),
        after,
        alternative,
        evictions,
        is_stateful,
        by_capacity,
        tuple(twice),
        tuple(notes),
    )


def _moves(
    plans: Sequence[tuple[Manifest, TemplatePlan]],
    moved: Mapping[tuple[str, str, str, str], TemplateFailover],
) -> tuple[list[Move], list[str]]:
    """Every template's placement before and after, for the loads; and the templates left out
    (divided by free capacity and evicted: where their replicas go is not known)."""
    moves, skipped = [], []
    for manifest, plan in plans:
        follow = moved.get(manifest.identity)
        if follow is not None and follow.by_capacity and any(e.evicted for e in follow.evictions):
            skipped.append(_name(manifest))
            continue
        after = follow.after if follow is not None else plan.placement
        moves.append(Move(_name(manifest), plan.template, plan.placement, after))
    return moves, skipped


def _name(manifest: Manifest) -> str:
    _, kind, namespace, name = manifest.identity
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _storm(
    templates: Sequence[TemplateFailover], settings: ControlPlane
) -> tuple[list[Queue], list[TemplateFailover]]:
    """Each queue's items and pacing; the templates with their windows filled in."""
    queue = QueueSettings(
        settings.resource_eviction_rate,
        qps=settings.rate_limiter_qps,
        burst=settings.rate_limiter_bucket_size,
    )
    keys: dict[str, list[tuple[int, int]]] = {"ResourceBinding": [], "ClusterResourceBinding": []}
    for t_index, t in enumerate(templates):
        kind = "ResourceBinding" if t.identity[2] else "ClusterResourceBinding"
        for e_index, e in enumerate(t.evictions):
            if e.evicted:
                keys[kind].append((t_index, e_index))
    found: dict[tuple[int, int], Window] = {}
    queues = []
    for kind, items in keys.items():
        if not items:
            continue
        ready = [templates[t].evictions[e].due or 0.0 for t, e in items]
        spans = windows(ready, queue)
        found.update(zip(items, spans, strict=True))
        queues.append(Queue(kind, len(items), queue, max(s.latest for s in spans)))
    filled = []
    for t_index, t in enumerate(templates):
        evictions = tuple(
            replace(e, window=found.get((t_index, e_index)))
            for e_index, e in enumerate(t.evictions)
        )
        filled.append(replace(t, evictions=evictions))
    return queues, filled


def _findings(templates: Sequence[TemplateFailover], loads: Sequence[ClusterLoad]) -> list[Finding]:
    found = []
    for t in templates:
        if t.stateful and t.twice:
            direct = all(e.purge in ("Directly", "Immediately") for e in t.evictions if e.evicted)
            found.append(
                Finding(
                    "failover.split-brain",
                    "warn" if direct else "deny",
                    f"{_name(t.manifest)} is stateful and would run in two places: "
                    + "; ".join(t.twice)
                    + (
                        ""
                        if direct
                        else " (set spec.failover.cluster.purgeMode: Directly, and fence the "
                        "old copy: Karmada cannot reach a partitioned member)"
                    ),
                    t.identity,
                )
            )
        evicted = any(e.evicted for e in t.evictions)
        if evicted and not t.after:
            found.append(
                Finding(
                    "failover.nowhere",
                    "warn",
                    f"{_name(t.manifest)} is evicted and no cluster left fits its placement: it "
                    "runs nowhere until a failed cluster comes back",
                    t.identity,
                )
            )
    for load in loads:
        for resource in load.tight():
            cap = load.allocatable[resource]
            found.append(
                Finding(
                    "failover.headroom",
                    "warn",
                    f"{load.cluster} would have {amount(resource, cap - load.after[resource])} "
                    f"{resource} of its {amount(resource, cap)} free after the failover, under "
                    f"the {load.headroom}% its failoverHeadroom keeps; moved here: "
                    + (", ".join(sorted(load.added_by)) or "none"),
                    cluster=load.cluster,
                )
            )
        for resource in load.over():
            names = ", ".join(sorted(load.added_by)) or "none moved here"
            found.append(
                Finding(
                    "failover.capacity",
                    "deny",
                    f"{load.cluster} would need {amount(resource, load.after[resource])} "
                    f"{resource} after the failover, above its allocatable "
                    f"{amount(resource, load.allocatable[resource])}; moved here: {names}",
                    cluster=load.cluster,
                )
            )
    return found


def fail(
    manifests: Sequence[Manifest],
    policies: Policies,
    bundle: Bundle,
    failed: Sequence[str],
    taint_policies: Sequence[Mapping[str, Any]] = (),
) -> FailoverPlan:
    """What Karmada does with every template of ``manifests`` when ``failed`` fail (names the
    caller checked against the bundle)."""
    plans = placed(manifests, policies, bundle)
    return fail_planned(plans, policies, bundle, failed, taint_policies)


def placed(
    manifests: Sequence[Manifest], policies: Policies, bundle: Bundle
) -> list[tuple[Manifest, TemplatePlan]]:
    """Every template of ``manifests`` with where Karmada places it while every cluster runs
    (a FederatedHPA sets its target's replicas first)."""
    bounds = autoscaler_bounds(manifests)
    return [
        (s, propagate(s.object, policies, bundle.clusters, members=False))
        for s in (scaled(m, bounds) for m in manifests if is_template(m.object))
    ]


def fail_planned(
    plans: Sequence[tuple[Manifest, TemplatePlan]],
    policies: Policies,
    bundle: Bundle,
    failed: Sequence[str],
    taint_policies: Sequence[Mapping[str, Any]] = (),
) -> FailoverPlan:
    """``fail`` over templates already placed (``placed``): one placement serves many
    failures."""
    settings = bundle.karmada
    settled = settle(plans, policies.by_ref, bundle.clusters)
    plans = settled.plans
    every_policy = (*settings.taint_policies, *taint_policies)
    taints = {c: tuple(failed_cluster_taints(bundle.clusters[c], every_policy, 0)) for c in failed}
    failed_set = set(failed)
    followed = [
        _follow(
            m,
            p,
            policies,
            bundle,
            failed=failed_set,
            taints=taints,
            room=settled.room,
            exact=m.identity in settled.exact,
            spread=m.identity in settled.spread,
        )
        for m, p in plans
    ]
    templates = [t for t in followed if t is not None]
    queues, templates = _storm(templates, settings)
    moved = {t.identity: t for t in templates}
    moves, skipped = _moves(plans, moved)
    left = [c for c in bundle.clusters if c not in failed_set]
    loads = capacity_loads(moves, bundle.clusters, left)
    notes = []
    if skipped:
        notes.append(
            "divided by free capacity (Aggregated or dynamic weights), not counted in the "
            f"clusters' loads: {', '.join(skipped)}"
        )
    off = off_switch(settings)
    if off is not None:
        notes.append(f"nothing is evicted: {off}")
    return FailoverPlan(
        tuple(failed),
        settings,
        taints,
        tuple(templates),
        tuple(loads),
        tuple(queues),
        tuple(_findings(templates, loads)),
        tuple(notes),
    )

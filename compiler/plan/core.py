"""The plan of each app: where its replicas land, what each cluster receives, what it costs.

Pure: rendered apps and the bundle in, a Plan out. Placement is Karmada v1.18's arithmetic
(``webhook/karmada/division.py``): Duplicated gives every candidate the full count; Divided
with static weights is Webster with the template UID's tie-break, so a tie shows both
outcomes. Each member's Deployment gets every override policy of the synced tree that
reaches it (fedgate's and hand-written ones, as Karmada's override manager orders them), and
the rules judge each copy (``members.py``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from compiler.plan.members import MemberViolation, attribute, judge, override_failed
from compiler.render.pipeline import RenderedApp
from compiler.spec.model import AppSpec
from webhook.bundle.index import Key, TreeIndex, key_of
from webhook.bundle.model import Bundle, Cluster
from webhook.engine.enforcement import Point
from webhook.engine.quota import billed, git_bill, member_pods, per_pod
from webhook.engine.workloads import pod_spec
from webhook.engine.workloads import replicas as pods_at_once
from webhook.karmada.detector import Policies, meta_str, policy_ref
from webhook.karmada.division import Division, divide
from webhook.karmada.overridemanager import Step, apply_overrides
from webhook.karmada.overriders import OverrideError
from webhook.karmada.propagation import TemplatePlan

RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class AppPlan:
    """One app in the plan: its owner, mode and where its replicas land."""

    namespace: str
    name: str
    tenant: str
    mode: str
    owner: str
    placement: Mapping[str, int]
    """Replicas per cluster (ties to the smaller name; an autoscaled app at minReplicas)."""
    alternatives: tuple[Mapping[str, int], ...] = ()
    """Other outcomes a tie leaves to the template's UID (the larger names win when odd)."""
    at_max: Mapping[str, int] | None = None
    notes: tuple[str, ...] = ()
    clusters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The Deployment each member cluster receives (replicas revised, overrides applied)."""
    violations: Mapping[str, tuple[MemberViolation, ...]] = field(default_factory=dict)
    overrides: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The override policies applied to each cluster's copy, in Karmada's order."""
    bill: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    """Requested cpu (cores) and memory (bytes) per cluster, as ``tenancy.quota`` bills it
    (``quota.billed``): the pods the members run at least."""
    ceiling: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    """Requested cpu and memory per cluster at the most replicas the app may grow to (its
    autoscalers' maximum, ``at_max``; its placement when Git owns the replicas): the bill's
    upper side, shown beside it."""
    ownership: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class TenantBill:
    """One tenant's whole bill against its quota: its apps and the hand-written workloads of
    the synced tree in its namespaces."""

    tenant: str
    used: Mapping[str, Fraction]
    quota: Mapping[str, Fraction | None]
    hand_written: Mapping[str, Fraction] = field(default_factory=dict)
    """The part of ``used`` the hand-written workloads request (empty: none)."""
    workloads: Mapping[Key, Mapping[str, Fraction]] = field(default_factory=dict)
    """Each hand-written workload's part of ``used`` (``quota.billed``), by its key."""
    ceiling: Mapping[str, Fraction] = field(default_factory=dict)
    """What its apps and hand-written workloads request at the most replicas they may grow to
    (``AppPlan.ceiling``, ``workload_ceiling``): not the quota's measure, shown beside it."""
    workload_ceilings: Mapping[Key, Mapping[str, Fraction]] = field(default_factory=dict)
    """Each hand-written workload's part of ``ceiling``, by its key."""

    def left(self, resource: str) -> Fraction | None:
        limit = self.quota.get(resource)
        return None if limit is None else limit - self.used.get(resource, Fraction(0))


@dataclass(frozen=True)
class Plan:
    """Every app's placement and every tenant's bill."""

    apps: tuple[AppPlan, ...]
    tenants: tuple[TenantBill, ...]


def _weights(app: AppSpec, candidates: Sequence[str]) -> dict[str, int]:
    return dict(app.placement.weights) if app.placement.weights else dict.fromkeys(candidates, 1)


def _division(app: AppSpec, candidates: Sequence[str], total: int) -> Division:
    if app.placement.replicas == "Duplicated":
        return Division(dict.fromkeys(candidates, total) if total else {})
    return divide(total, _weights(app, candidates))


def placement(
    app: AppSpec, candidates: Sequence[str]
) -> tuple[Division, Mapping[str, int] | None, list[str]]:
    """(division, at max, notes); the bill is the quota rule's (``_bill``)."""
    scaling, notes = app.autoscaling, []
    if scaling.owner == "git":
        division = _division(app, candidates, app.replicas or 0)
        at_max = None
    elif scaling.owner == "federated-hpa":
        division = _division(app, candidates, scaling.min_replicas)
        at_max = _division(app, candidates, scaling.max_replicas or 0).replicas
        notes.append(
            f"the FederatedHPA moves the total between {scaling.min_replicas} and "
            f"{scaling.max_replicas}; shown at both ends"
        )
    else:
        division = _division(app, candidates, 1)
        at_max = dict.fromkeys(candidates, scaling.max_replicas or 0)
        notes.append(
            f"member HPAs scale each cluster between {scaling.min_replicas} and "
            f"{scaling.max_replicas} on its own; Karmada retains their count "
            "(shown: the first rollout of the template's 1 replica)"
        )
    if division.alternative is not None:
        notes.append(
            "a tie: Karmada breaks it by the template UID's hash (unknown until the "
            "API server creates it), so either outcome can happen"
        )
    return division, at_max, notes


def _bill(
    app: AppSpec, deployment: Mapping[str, Any], candidates: Sequence[str], billing: Bundle
) -> dict[str, dict[str, Fraction]]:
    """The app's bill per cluster, as ``tenancy.quota`` bills it (``quota.member_pods`` times
    ``quota.per_pod``, with ``billing.index`` the synced tree): a Duplicated placement's pods
    per cluster; a count the rule counts once (Divided) divided as the app divides it."""
    if pod_spec(deployment) is None:
        return {}
    pods = member_pods(deployment, billing, billing.index)
    return _requests(
        deployment, dict(pods.clusters) or _division(app, candidates, pods.count).replicas
    )


def _requests(
    deployment: Mapping[str, Any], replicas: Mapping[str, int]
) -> dict[str, dict[str, Fraction]]:
    """Requested cpu and memory per cluster (a pod as ``quota.per_pod`` counts it) with
    ``replicas`` in each."""
    spec = pod_spec(deployment)
    if spec is None:
        return {}
    pod = per_pod(spec)
    return {
        cluster: {r: pod[r] * count for r in RESOURCES}
        for cluster, count in sorted(replicas.items())
        if count
    }


def _at_least(
    most: Mapping[str, Mapping[str, Fraction]], bill: Mapping[str, Mapping[str, Fraction]]
) -> dict[str, dict[str, Fraction]]:
    """The ceiling per cluster, never below the bill (an autoscaler from the synced tree may
    keep more than the app's own maximum)."""
    empty: Mapping[str, Fraction] = {}
    return {
        cluster: {
            r: max(
                most.get(cluster, empty).get(r, Fraction(0)),
                bill.get(cluster, empty).get(r, Fraction(0)),
            )
            for r in RESOURCES
        }
        for cluster in sorted({*most, *bill})
    }


def billing_bundle(bundle: Bundle, objects: Sequence[Mapping[str, Any]]) -> Bundle:
    """``bundle`` with ``objects`` as its synced tree, as the webhook's index holds it, for
    the quota rule's bill (a fresh memo: ``replace`` does not copy it)."""
    unique = {key_of(o): o for o in objects}  # a policy both rendered and in ``policies``
    return replace(bundle, index=TreeIndex.of(unique.values()))


def _member(
    deployment: Mapping[str, Any],
    count: int,
    policies: Policies,
    cluster: Cluster,
    bundle: Bundle,
    *,
    point: Point,
) -> tuple[dict[str, Any] | None, tuple[str, ...], tuple[MemberViolation, ...]]:
    """(the copy, the policies applied, the rules' objections) for one cluster."""
    revised = copy.deepcopy(dict(deployment))
    revised["spec"]["replicas"] = count  # Karmada's ReviseReplica, before overrides
    cluster_policies, namespaced = policies.override_policies(revised)
    try:
        applied = apply_overrides(
            revised,
            cluster_policies,
            namespaced,
            cluster,
            owned=True,
            lookup=policies.namespaced_overrides,
        )
    except OverrideError as exc:
        return None, (), (override_failed(cluster.name, str(exc)),)
    violations = judge(applied.object, cluster.name, bundle, point=point)
    if not violations:
        return applied.object, applied.applied, ()
    base = copy.deepcopy(dict(deployment))
    base["spec"]["replicas"] = count
    steps: list[Step] = []
    apply_overrides(
        copy.deepcopy(base),
        cluster_policies,
        namespaced,
        cluster,
        trace=steps,
        lookup=policies.namespaced_overrides,
    )
    found = attribute(violations, base, steps, cluster.name, bundle)
    return applied.object, applied.applied, found


def _claim_note(rendered: RenderedApp, deployment: Mapping[str, Any], policies: Policies) -> str:
    """A note when Karmada would give the Deployment to another policy than the app's own."""
    claim = policies.claim(deployment)
    own = ("PropagationPolicy", rendered.app.namespace, rendered.app.name)
    if claim.policy is None or policy_ref(claim.policy) == own:
        return ""
    kind, namespace, name = policy_ref(claim.policy)
    return (
        f"Karmada gives this Deployment to {kind} {'/'.join(p for p in (namespace, name) if p)} "
        f"({claim.reason}), not to the app's own PropagationPolicy: its placement is not the one "
        "shown here"
    )


def plan_app(
    rendered: RenderedApp,
    bundle: Bundle,
    policies: Policies | None = None,
    *,
    point: Point = "plan",
    billing: Bundle | None = None,
) -> AppPlan:
    """One app's plan; ``policies`` are every Karmada policy of the synced tree (default: the
    app's own); the rules judge each copy with their actions at ``point`` (compile's are
    check's); ``billing``: the bundle with the synced tree as its index, for the bill
    (default: the app's own objects)."""
    app = rendered.app
    if billing is None:
        billing = billing_bundle(bundle, rendered.objects)
    if policies is None:
        policies = Policies.of(o for o in rendered.objects if Policies.is_policy(o))
    division, at_max, notes = placement(app, rendered.candidates)
    deployment = next(o for o in rendered.objects if o["kind"] == "Deployment")
    note = _claim_note(rendered, deployment, policies)
    if note:
        notes.append(note)
    bill = _bill(app, deployment, rendered.candidates, billing)
    clusters: dict[str, Mapping[str, Any]] = {}
    violations: dict[str, tuple[MemberViolation, ...]] = {}
    overrides: dict[str, tuple[str, ...]] = {}
    for cluster, count in sorted(division.replicas.items()):
        member = bundle.clusters[cluster]
        obj, applied, found = _member(deployment, count, policies, member, bundle, point=point)
        if obj is not None:
            clusters[cluster] = obj
            overrides[cluster] = applied
        if found:
            violations[cluster] = found
    return AppPlan(
        namespace=app.namespace,
        name=app.name,
        tenant=app.tenant,
        mode=app.placement.replicas,
        owner=app.autoscaling.owner,
        placement=dict(division.replicas),
        alternatives=(dict(division.alternative),) if division.alternative else (),
        at_max=at_max,
        notes=tuple(notes),
        clusters=clusters,
        violations=violations,
        overrides=overrides,
        bill=bill,
        ceiling=_at_least(
            _requests(deployment, at_max if at_max is not None else division.replicas), bill
        ),
        ownership={
            path: dict(ledger)
            for (path, _), ledger in zip(rendered.files().items(), rendered.ledgers, strict=True)
        },
    )


def workload_bill(template: TemplatePlan) -> dict[str, Fraction]:
    """What a hand-written workload requests over every cluster: a pod as ``tenancy.quota``
    bills it (``quota.per_pod``, as the scheduler counts it) times the pods of each cluster
    of its placement (Duplicated: the total in each; Divided: each cluster's share), the
    pods it runs at once (quota's count: 1 for a Pod or DaemonSet) in a cluster where the
    interpreter counts none. Nothing propagates it: counted once, as check's rule counts it
    (it bills Git's templates whatever claims them). Empty for a kind without pods."""
    spec = pod_spec(template.template)
    if spec is None:
        return {}
    pod, own = per_pod(spec), pods_at_once(template.template)
    pods = sum((own if n is None else n for n in template.placement.values()), 0)
    count = pods if template.placement else own
    return {r: pod.get(r, Fraction(0)) * count for r in RESOURCES}


def workload_ceiling(
    template: TemplatePlan, bill: Mapping[str, Fraction] | None = None
) -> dict[str, Fraction]:
    """A hand-written workload's ceiling: ``workload_bill`` (the replicas it is placed with; an
    autoscaler's maximum is not read for it), never below its ``bill`` (the quota rule's)."""
    found = workload_bill(template)
    if bill is None:
        return found
    return {r: max(found.get(r, Fraction(0)), bill.get(r, Fraction(0))) for r in RESOURCES}


def _sum(bills: Iterable[Mapping[str, Fraction]]) -> dict[str, Fraction]:
    listed = list(bills)
    return {r: sum((b.get(r, Fraction(0)) for b in listed), Fraction(0)) for r in RESOURCES}


def plan(
    rendered: Sequence[RenderedApp],
    bundle: Bundle,
    policies: Policies | None = None,
    templates: Sequence[TemplatePlan] = (),
) -> Plan:
    """Every app's plan and every tenant's bill; ``policies``: those of the synced tree;
    ``templates``: its hand-written templates as Karmada propagates them (each workload in a
    tenant's namespaces is on that tenant's bill)."""
    objects = [
        *(o for r in rendered for o in r.objects),
        *(t.template for t in templates),
        *(policies.by_ref.values() if policies is not None else ()),
    ]
    billing = billing_bundle(bundle, objects)
    assert billing.index is not None
    apps = tuple(
        plan_app(r, bundle, policies, billing=billing)
        for r in sorted(rendered, key=lambda r: r.app.key)
    )
    hand_written: dict[str, dict[Key, Mapping[str, Fraction]]] = {}
    grown: dict[str, dict[Key, Mapping[str, Fraction]]] = {}
    for template in templates:
        tenant = bundle.tenant_of_namespace(meta_str(template.template, "namespace"))
        bill = billed(template.template, billing, billing.index) if tenant is not None else {}
        if tenant is not None and bill:
            hand_written.setdefault(tenant.name, {})[key_of(template.template)] = bill
            grown.setdefault(tenant.name, {})[key_of(template.template)] = workload_ceiling(
                template, bill
            )
    tenants = []
    for name in sorted({a.tenant for a in apps} | set(hand_written)):
        mine = hand_written.get(name, {})
        written = _sum(mine.values())
        tenant = bundle.tenants[name]
        used, _ = git_bill(billing.index, tenant, billing)  # the quota rule's own sum
        quota = tenant.quota
        limits = {"cpu": quota.cpu, "memory": quota.memory}
        ceilings = grown.get(name, {})
        ceiling = _sum(
            [*(b for a in apps if a.tenant == name for b in a.ceiling.values()), *ceilings.values()]
        )
        tenants.append(
            TenantBill(name, used, limits, written if mine else {}, mine, ceiling, ceilings)
        )
    return Plan(apps, tuple(tenants))

"""The plan of each app: where its replicas land, what each cluster receives, what it costs.

Pure: rendered apps and the bundle in, a Plan out. Placement is Karmada v1.18's arithmetic
(``compiler/division.py``): Duplicated gives every candidate the full count; Divided with
static weights is Webster with the template UID's tie-break, so a tie shows both outcomes.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from compiler.division import Division, divide
from compiler.plan.overriders import OverrideError, apply_overrides
from compiler.render.pipeline import RenderedApp
from compiler.spec.model import AppSpec
from webhook.bundle.model import Bundle
from webhook.engine.decision import Violation
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.quantity import parse_quantity

RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class AppPlan:
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
    violations: Mapping[str, tuple[Violation, ...]] = field(default_factory=dict)
    bill: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    """Requested cpu (cores) and memory (bytes) per cluster, at the most replicas it can run."""
    ownership: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class TenantBill:
    tenant: str
    used: Mapping[str, Fraction]
    quota: Mapping[str, Fraction | None]

    def left(self, resource: str) -> Fraction | None:
        limit = self.quota.get(resource)
        return None if limit is None else limit - self.used.get(resource, Fraction(0))


@dataclass(frozen=True)
class Plan:
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
) -> tuple[Division, Mapping[str, int] | None, Mapping[str, int], list[str]]:
    """(division, at max, billed replicas per cluster, notes)."""
    scaling, notes = app.autoscaling, []
    if scaling.owner == "git":
        division = _division(app, candidates, app.replicas or 0)
        billed: Mapping[str, int] = division.replicas
        at_max = None
    elif scaling.owner == "federated-hpa":
        division = _division(app, candidates, scaling.min_replicas)
        at_max = _division(app, candidates, scaling.max_replicas or 0).replicas
        billed = at_max
        notes.append(
            f"the FederatedHPA moves the total between {scaling.min_replicas} and "
            f"{scaling.max_replicas}; shown at both ends"
        )
    else:
        division = _division(app, candidates, 1)
        at_max = dict.fromkeys(candidates, scaling.max_replicas or 0)
        billed = at_max
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
    return division, at_max, billed, notes


def _bill(app: AppSpec, billed: Mapping[str, int]) -> dict[str, dict[str, Fraction]]:
    requests = {
        r: parse_quantity(app.resources.requests[r])
        for r in RESOURCES
        if r in app.resources.requests
    }
    return {
        cluster: {r: amount * count for r, amount in requests.items()}
        for cluster, count in sorted(billed.items())
        if count
    }


def plan_app(rendered: RenderedApp, bundle: Bundle) -> AppPlan:
    app = rendered.app
    division, at_max, billed, notes = placement(app, rendered.candidates)
    deployment = next(o for o in rendered.objects if o["kind"] == "Deployment")
    policies = [
        o for o in rendered.objects if o["kind"] in ("OverridePolicy", "ClusterOverridePolicy")
    ]
    clusters: dict[str, Mapping[str, Any]] = {}
    violations: dict[str, tuple[Violation, ...]] = {}
    for cluster, count in sorted(division.replicas.items()):
        revised = copy.deepcopy(deployment)
        revised["spec"]["replicas"] = count  # Karmada's ReviseReplica, before overrides
        try:
            effective = apply_overrides(revised, policies, bundle.clusters[cluster])
        except OverrideError as exc:
            notes.append(f"{cluster}: Karmada would fail to apply the overrides: {exc}")
            continue
        clusters[cluster] = effective
        decision = review(sync_request(effective, None, bundle), bundle, cluster=cluster)
        if decision.violations:
            violations[cluster] = decision.violations
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
        bill=_bill(app, billed),
        ownership={
            path: dict(ledger)
            for (path, _), ledger in zip(rendered.files().items(), rendered.ledgers, strict=True)
        },
    )


def plan(rendered: Sequence[RenderedApp], bundle: Bundle) -> Plan:
    apps = tuple(plan_app(r, bundle) for r in sorted(rendered, key=lambda r: r.app.key))
    tenants = []
    for name in sorted({a.tenant for a in apps}):
        used = {
            r: sum(
                (b.get(r, Fraction(0)) for a in apps if a.tenant == name for b in a.bill.values()),
                Fraction(0),
            )
            for r in RESOURCES
        }
        quota = bundle.tenants[name].quota
        tenants.append(TenantBill(name, used, {"cpu": quota.cpu, "memory": quota.memory}))
    return Plan(apps, tuple(tenants))

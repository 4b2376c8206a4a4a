"""Spread constraints (by region, by cluster) in the failover plan: which clusters Karmada's
scheduler picks before the failure and after it (``webhook/karmada/spread.py``).

Pure. The clusters' room is the declared one (``compiler/plan/bycapacity.py``); where a
candidate declares none, every candidate is taken to have room for the whole count (what
Karmada's scheduler assumes when no estimator answers). Before the failure no cluster is
preferred (a first schedule); after it, the clusters the binding keeps score 100
(ClusterLocality) and count the replicas they have as available, so Karmada stays in the
groups it uses when they still fit, and moves to another group when they do not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from compiler.plan.bycapacity import Room, request, room_note, strategy
from webhook.bundle.model import Cluster
from webhook.karmada.dynamic import scale_up_listed
from webhook.karmada.propagation import TemplatePlan
from webhook.karmada.scheduler import candidates
from webhook.karmada.spread import Detail, duplicated, ignored, select

LOCALITY = 100
"""ClusterLocality's score of a cluster the binding targets."""


def active(placement: Mapping[str, Any]) -> bool:
    """Spread constraints that Karmada's scheduler applies to this placement."""
    return bool(placement.get("spreadConstraints")) and not ignored(placement)


@dataclass(frozen=True)
class Grouped:
    """The clusters picked and the replicas each gets (None placement: the scheduler fails)."""

    placement: dict[str, int | None] | None
    alternative: Mapping[str, int | None] | None
    notes: tuple[str, ...]
    exact: bool
    """False: divided by capacity that a candidate does not declare (the most each can get)."""
    guessed: bool = False
    """The clusters were picked with room a candidate does not declare (each candidate taken
    to hold the whole count): live, their real room decides."""


def group(
    plan: TemplatePlan,
    placement: Mapping[str, Any],
    clusters: Mapping[str, Cluster],
    room: Room | None,
    kept: Mapping[str, int | None] | None = None,
) -> Grouped:
    """Where the scheduler puts the template among ``clusters`` (the candidates left), the
    binding keeping ``kept`` (None: a first schedule)."""
    names, _ = candidates(placement, clusters)
    count = plan.replicas.count if plan.replicas is not None else 0
    one = request(plan.template)
    free = room.replicas(names, one) if room is not None else None
    kept = {c: n for c, n in (kept or {}).items() if c in names}
    details = [
        Detail(
            c,
            str(clusters[c].field("region") or ""),
            LOCALITY if c in kept else 0,
            (free[c] if free is not None else count) + (kept.get(c) or 0),
        )
        for c in names
    ]
    guessed = free is None
    chosen = select(placement, details, count)
    if chosen.error is not None:
        return Grouped(None, None, (f"Karmada's scheduler fails: {chosen.error}",), True, guessed)
    picked = ", ".join(chosen.clusters)
    notes = [f"spread constraints: the scheduler picks {picked or 'no cluster'}"]
    workload = plan.replicas is not None and plan.replicas.workload
    if duplicated(placement) or not workload:
        value = count if workload else None
        return Grouped({c: value for c in chosen.clusters}, None, tuple(notes), True, guessed)
    kind = strategy(placement)
    if kind is None:  # spread is ignored for static weights: not reached
        return Grouped(dict(plan.placement), plan.alternative and dict(plan.alternative), (), True)
    if free is None:
        notes.append("divided by capacity some clusters do not declare: the most each can get")
        return Grouped({c: count for c in chosen.clusters}, None, tuple(notes), False, True)
    # the clusters in the order the selection gives them, as dynamicScaleUp lists them
    result = scale_up_listed(
        kind,
        count,
        [(c, free[c]) for c in chosen.clusters],
        {c: n for c, n in kept.items() if c in chosen.clusters and n},
    )
    if result.replicas is None:
        notes.append(
            f"the clusters picked have room for {result.available} replicas: Karmada's "
            "scheduler fails (not enough available replicas)"
        )
        return Grouped(None, None, tuple(notes), True)
    notes.append(room_note(kind, free, chosen.clusters))
    alternative: dict[str, int | None] | None = None
    if result.alternative is not None:
        alternative = dict(result.alternative)
    return Grouped(dict(result.replicas), alternative, tuple(notes), True)


def regroup(
    plan: TemplatePlan,
    placement: Mapping[str, Any],
    available: Mapping[str, Cluster],
    evicted: Collection[str],
    room: Room | None,
) -> Grouped:
    """After the evictions: the scheduler picks again among the clusters left; when it fails,
    the binding keeps what it has on them."""
    kept = {c: n for c, n in plan.placement.items() if c not in evicted and c in available}
    found = group(plan, placement, available, room, kept)
    if found.placement is None:
        return Grouped(
            dict(kept),
            None,
            (*found.notes, "the binding keeps only what it has on the clusters left"),
            found.exact,
        )
    return found

"""Aggregated and dynamic-weight divisions from the clusters' declared ``allocatable``
(``policies/clusters.yaml``), as Karmada v1.18's scheduler makes them with its general
estimator (``webhook/karmada/dynamic.py``).

Pure. The model: each cluster's room is its declared allocatable minus what Git's workloads
request there. The templates divided by capacity are scheduled in the tree's order, each
against the room the ones before it left (the ones with a fixed division first); a failover
divides each evicted template's lost replicas against the room left before the failure (the
bindings the queue takes first take some of it: their order is not fixed). A template with a
candidate that declares no allocatable keeps the upper bound (each cluster with the whole
count), as Karmada's estimator has nothing to count there.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from compiler.plan.capacity import declared, pod_request
from webhook.bundle.model import Cluster
from webhook.karmada.dynamic import AGGREGATED, DYNAMIC_WEIGHT, available_replicas, scale_up
from webhook.karmada.propagation import TemplatePlan
from webhook.karmada.scheduler import candidates


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def strategy(placement: Mapping[str, Any]) -> str | None:
    """``Aggregated``, ``DynamicWeight``, or None (a division capacity plays no part in)."""
    scheduling = _mapping(placement.get("replicaScheduling"))
    if not scheduling or scheduling.get("replicaSchedulingType", "Divided") != "Divided":
        return None
    if scheduling.get("replicaDivisionPreference") == "Aggregated":
        return AGGREGATED
    if _mapping(scheduling.get("weightPreference")).get("dynamicWeight"):
        return DYNAMIC_WEIGHT
    return None


def request(template: Mapping[str, Any]) -> dict[str, Fraction]:
    """One replica's request (a template without a pod spec asks for a pod slot only)."""
    return pod_request(template) or {"pods": Fraction(1)}


@dataclass
class Room:
    """Each cluster's free resources (only the clusters that declare allocatable)."""

    free: dict[str, dict[str, Fraction]]

    @classmethod
    def of(cls, clusters: Mapping[str, Cluster]) -> Room:
        return cls({n: declared(c) for n, c in clusters.items() if declared(c)})

    def replicas(
        self, clusters: Iterable[str], one: Mapping[str, Fraction]
    ) -> dict[str, int] | None:
        """How many replicas of ``one`` each cluster has room for (None: one of them declares
        no allocatable)."""
        names = list(clusters)
        if not names or any(c not in self.free for c in names):
            return None
        return {c: available_replicas(self.free[c], one) for c in names}

    def take(self, placement: Mapping[str, int | None], one: Mapping[str, Fraction]) -> None:
        for cluster, count in placement.items():
            left = self.free.get(cluster)
            if left is None or not count:
                continue
            for resource, amount in one.items():
                if resource in left:
                    left[resource] -= amount * count


def room_note(
    kind: str, free: Mapping[str, int], among: Iterable[str] | None = None, *, left: bool = False
) -> str:
    """Says a division by capacity was made from the declared room, and how much there was on
    each cluster of ``among`` (default: every one of ``free``); ``left``: after a failure."""
    rooms = ", ".join(f"{c} {free[c]}" for c in sorted(free if among is None else among))
    return (
        f"divided {kind} by the room the clusters{' left' if left else ''} declare (allocatable "
        f"minus what the tree requests there): {rooms} replicas"
    )


@dataclass(frozen=True)
class Divided:
    """Where an evicted template's replicas go, divided by the room left, and why."""

    after: dict[str, int | None]
    alternative: dict[str, int | None] | None
    notes: tuple[str, ...]


def divide_lost(
    plan: TemplatePlan,
    placement: Mapping[str, Any],
    available: Mapping[str, Cluster],
    evicted: Collection[str],
    room: Room,
) -> Divided | None:
    """The lost replicas of a template divided by capacity, over the room the clusters left
    declare (``dynamicScaleUp``); None when one of them declares no allocatable."""
    kind = strategy(placement)
    names, _ = candidates(placement, available)
    one = request(plan.template)
    free = room.replicas(names, one)
    if kind is None or plan.replicas is None or free is None:
        return None
    kept = {c: n for c, n in plan.placement.items() if c not in evicted and c in names and n}
    result = scale_up(kind, plan.replicas.count, free, kept)
    why = room_note(kind, free, left=True)
    if result.replicas is None:
        missing = plan.replicas.count - sum(kept.values())
        return Divided(
            dict(kept),
            None,
            (
                why,
                f"the clusters left have room for {result.available} of the {missing} "
                "replicas lost: Karmada's scheduler fails (not enough available replicas) and "
                "the binding keeps only what it has",
            ),
        )
    alternative: dict[str, int | None] | None = None
    if result.alternative is not None:
        alternative = dict(result.alternative)
    return Divided(dict(result.replicas), alternative, (why,))

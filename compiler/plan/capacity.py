"""What the workloads request of each cluster, before and after a change of placement, against
the cluster's declared ``allocatable`` (``policies/clusters.yaml``).

Pure. A pod's request is the scheduler's (``webhook/engine/quota.py`` ``per_pod``: containers,
sidecars, init containers, pod-level requests, overhead), read from the template; a template
without a pod spec requests nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from webhook.base.quantity import format_cpu, format_memory
from webhook.bundle.model import Cluster
from webhook.engine.quota import per_pod
from webhook.engine.workloads import pod_spec

RESOURCES = ("cpu", "memory", "pods")


@dataclass(frozen=True)
class Move:
    """One template's replicas per cluster before and after."""

    name: str
    """``Kind namespace/name``, as findings name it."""
    template: Mapping[str, Any]
    before: Mapping[str, int | None]
    after: Mapping[str, int | None]


@dataclass(frozen=True)
class ClusterLoad:
    """A cluster: what its workloads request before and after, against its capacity."""

    cluster: str
    before: Mapping[str, Fraction]
    after: Mapping[str, Fraction]
    allocatable: Mapping[str, Fraction]
    """The declared resources only (cpu in cores, memory in bytes, pods)."""
    added_by: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    """Per template, what the change adds here."""
    headroom: int | None = None
    """Percent of the allocatable to keep free (the cluster's ``failoverHeadroom``)."""

    def over(self) -> list[str]:
        """The resources the change takes above the declared capacity."""
        return [r for r, cap in self.allocatable.items() if self.after.get(r, Fraction(0)) > cap]

    def tight(self) -> list[str]:
        """The resources the change takes into the headroom, not above the capacity."""
        if not self.headroom:
            return []
        over = self.over()
        return [
            r
            for r, cap in self.allocatable.items()
            if r not in over
            and self.after.get(r, Fraction(0)) > cap * (100 - self.headroom) / 100
            and self.after.get(r, Fraction(0)) > self.before.get(r, Fraction(0))
        ]


def pod_request(obj: Mapping[str, Any]) -> dict[str, Fraction] | None:
    """What one pod of the template requests (cpu, memory, and one pod); None: no pods."""
    spec = pod_spec(obj)
    if spec is None:
        return None
    bill = per_pod(spec)
    return {"cpu": bill["cpu"], "memory": bill["memory"], "pods": Fraction(1)}


def _add(total: dict[str, Fraction], request: Mapping[str, Fraction], count: int) -> None:
    for resource, amount in request.items():
        total[resource] = total.get(resource, Fraction(0)) + amount * count


def declared(cluster: Cluster) -> dict[str, Fraction]:
    """The cluster's declared allocatable, resource by resource."""
    found = cluster.allocatable
    if found is None:
        return {}
    values = (("cpu", found.cpu), ("memory", found.memory), ("pods", found.pods))
    return {resource: Fraction(v) for resource, v in values if v is not None}


def loads(
    moves: Sequence[Move], clusters: Mapping[str, Cluster], shown: Sequence[str]
) -> list[ClusterLoad]:
    """Each of the ``shown`` clusters' load before and after the moves."""
    before: dict[str, dict[str, Fraction]] = {c: {} for c in shown}
    after: dict[str, dict[str, Fraction]] = {c: {} for c in shown}
    added: dict[str, dict[str, dict[str, Fraction]]] = {c: {} for c in shown}
    for move in moves:
        request = pod_request(move.template)
        if request is None:
            continue
        for cluster in shown:
            old, new = move.before.get(cluster) or 0, move.after.get(cluster) or 0
            _add(before[cluster], request, old)
            _add(after[cluster], request, new)
            if new > old:
                extra: dict[str, Fraction] = {}
                _add(extra, request, new - old)
                added[cluster][move.name] = extra
    return [
        ClusterLoad(
            c, before[c], after[c], declared(clusters[c]), added[c], clusters[c].failover_headroom
        )
        for c in shown
    ]


def amount(resource: str, value: Fraction) -> str:
    """``1600m`` cpu, ``2Gi`` memory, ``14`` pods: as findings and the JSON write them."""
    if resource == "cpu":
        return format_cpu(value)
    if resource == "memory":
        return format_memory(value)
    return str(int(value))

"""How Karmada v1.18 divides replicas by the clusters' free capacity: ``Aggregated`` and
``Weighted`` with ``dynamicWeight: AvailableReplicas``.

From karmada v1.18.2 ``pkg/scheduler/core``: ``assignment.go`` (``assignByDynamicStrategy``,
``resortAvailableClusters``), ``division_algorithm.go`` (``dynamicScaleUp``,
``dynamicDivideReplicas``), ``spreadconstraint/group_clusters.go`` (``generateClustersInfo``:
the candidates' order) and ``pkg/estimator/client/general.go`` (the general estimator's
cluster-summary path: ``getMaximumReplicasBasedOnClusterSummary``, ``getAllowedPodNumber``).

- Each candidate's available replicas: the fewest, over the pod's requested resources and
  pods, of ``(allocatable - requested there) / request``, rounded down.
- The candidates in the scheduler's order: the clusters the binding already targets first
  (the ClusterLocality score), then by available replicas plus those the binding has there,
  then by name; then sorted again by available replicas, largest first (Go's ``sort.Sort``
  keeps the order of equals up to 12 clusters, by insertion; above, pdqsort may not: not
  simulated).
- Scaling up (a first schedule, or replicas an evicted cluster lost): the replicas missing
  are divided by Webster over the available replicas as weights (the UID breaks ties: both
  outcomes), and added to what the binding keeps. Aggregated first puts the clusters the
  binding already uses in front and keeps only as many clusters as it takes to hold the
  missing replicas. Fewer available replicas than missing: the scheduler fails and the
  binding keeps what it has.
- Scaling down (fewer replicas than the binding has on the candidates): Webster again over
  what each candidate has as its weight (Aggregated: only as many of them, most first, as
  hold the replicas), as if a first schedule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from webhook.karmada.division import Division, divide, larger_names_first, webster

AGGREGATED = "Aggregated"
DYNAMIC_WEIGHT = "DynamicWeight"


def available_replicas(free: Mapping[str, Fraction], request: Mapping[str, Fraction]) -> int:
    """``maxAvailableReplicas`` of the general estimator's summary path: ``free`` per resource
    (allocatable minus what is requested there; pods included), ``request`` of one pod."""
    counts = []
    for resource, amount in request.items():
        if amount <= 0:
            continue
        left = free.get(resource)
        if left is None:
            continue  # not declared: the estimator has nothing to divide it by
        counts.append(max(0, math.floor(left / amount)))
    return min(counts) if counts else 0


def int32(value: int) -> int:
    """``value`` as Go's int32 arithmetic leaves it: Karmada sums replicas in int32, and a sum
    past its range wraps (candidates with room for about 2**31 replicas in all)."""
    return (value + 2**31) % 2**32 - 2**31


@dataclass(frozen=True)
class Dynamic:
    """The division: replicas per cluster, the other outcome of a UID tie (None: none), or
    None replicas when the scheduler fails for want of room."""

    replicas: Mapping[str, int] | None
    alternative: Mapping[str, int] | None = None
    available: int = 0
    """How many replicas the candidates have room for, in all."""


def order(available: Mapping[str, int], scheduled: Mapping[str, int]) -> list[tuple[str, int]]:
    """The candidates as ``dynamicScaleUp`` lists them: ``generateClustersInfo``'s order, then
    sorted by available replicas, largest first."""
    ranked = sorted(
        available,
        key=lambda c: (c not in scheduled, -(available[c] + scheduled.get(c, 0)), c),
    )
    listed = [(c, available[c]) for c in ranked]
    return sorted(listed, key=lambda item: -item[1])  # Python's sort keeps equals in order


def scale_up(
    strategy: str,
    replicas: int,
    available: Mapping[str, int],
    scheduled: Mapping[str, int] | None = None,
) -> Dynamic:
    """Divide ``replicas`` over candidates with room for ``available`` replicas each, the
    binding keeping ``scheduled`` (on candidates) already."""
    kept = {c: n for c, n in (scheduled or {}).items() if c in available and n > 0}
    return scale_up_listed(strategy, replicas, order(available, kept), kept)


def scale_up_listed(
    strategy: str,
    replicas: int,
    listed: Sequence[tuple[str, int]],
    kept: Mapping[str, int],
    uid: str | None = None,
) -> Dynamic:
    """``dynamicScaleUp`` over candidates in the scheduler's order (``listed``: each with the
    replicas it has room for) the binding keeping ``kept`` on them; ``uid``: the template UID
    that breaks Webster's ties (None: unknown, both outcomes)."""
    missing = int32(replicas - int32(sum(kept.values())))
    room = int32(sum(count for _, count in listed))
    if missing <= 0:
        return Dynamic(dict(kept), None, room)
    if room < missing:
        return Dynamic(None, None, room)
    ranked = sorted(listed, key=lambda item: -item[1])  # Python's sort keeps equals in order
    return _divided(strategy, missing, ranked, kept, uid=uid, room=room)


def scale_down(
    strategy: str, replicas: int, scheduled: Sequence[tuple[str, int]], uid: str | None = None
) -> Dynamic:
    """``dynamicScaleDown``: fewer ``replicas`` than the binding has on the candidates
    (``scheduled``, in ``spec.clusters`` order): divided again with what each has as its
    weight, as if a first schedule."""
    ranked = sorted(scheduled, key=lambda item: -item[1])
    room = int32(sum(count for _, count in ranked))
    return _divided(strategy, replicas, ranked, {}, uid=uid, room=room)


def _divided(
    strategy: str,
    missing: int,
    ranked: Sequence[tuple[str, int]],
    kept: Mapping[str, int],
    *,
    uid: str | None,
    room: int,
) -> Dynamic:
    """``dynamicDivideReplicas``: Webster over ``ranked`` (Aggregated: the clusters the binding
    uses first, then only as many as hold ``missing``), added to ``kept``."""
    listed = list(ranked)
    if strategy == AGGREGATED:
        listed = [i for i in listed if i[0] in kept] + [i for i in listed if i[0] not in kept]
        total = 0
        for index, (_, count) in enumerate(listed):
            total = int32(total + count)
            if total >= missing:
                listed = listed[: index + 1]
                break
    weights = dict(listed)
    if uid is None:
        division = divide(missing, weights)
    else:
        larger = larger_names_first(uid)
        division = Division(webster(missing, weights, larger_names_first=larger))

    def merged(added: Mapping[str, int]) -> dict[str, int]:
        out = dict(kept)
        for cluster, count in added.items():
            out[cluster] = out.get(cluster, 0) + count
        return {c: out[c] for c in sorted(out) if out[c] > 0}

    alternative = merged(division.alternative) if division.alternative is not None else None
    return Dynamic(merged(division.replicas), alternative, room)

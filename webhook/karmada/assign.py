"""Karmada v1.18's scheduler after filtering and scoring: which of the candidates it picks and
how many replicas each gets, the whole step in one function.

From karmada v1.18.2 ``pkg/scheduler/core``: ``common.go`` (``SelectClusters``,
``AssignReplicas``), ``assignment.go`` (``newAssignState``, ``assignByDuplicatedStrategy``,
``assignByStaticWeightStrategy``, ``assignByDynamicStrategy``: the Steady mode, as no
reschedule is triggered), ``division_algorithm.go`` and ``spreadconstraint``; composed of
``spread.py`` (the selection), ``division.py`` (Webster) and ``dynamic.py`` (by available
replicas). The tests hold it to Karmada's own code (``tests/oracles/karmada``).

Not here: the filter and score plugins (the candidates come filtered, each with its score),
the estimators (each candidate comes with the replicas it has room for), overflow affinities
and multi-component workloads. Go's ``sort.Sort`` keeps the order of equal available
replicas only up to 12 candidates (insertion sort); above, its pdqsort may not, which is not
simulated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webhook.bundle.model import Cluster
from webhook.karmada.division import larger_names_first, webster
from webhook.karmada.dynamic import AGGREGATED, DYNAMIC_WEIGHT, scale_down, scale_up_listed
from webhook.karmada.scheduler import static_weights
from webhook.karmada.spread import Detail, duplicated, select

UNBOUNDED = 2**31 - 1
"""The estimators' answer for a cluster they cannot bound (Go's MaxInt32)."""


@dataclass(frozen=True)
class Candidate:
    """A cluster the filters left, as the scheduler scores and estimates it."""

    cluster: Cluster
    score: int
    available: int
    """Replicas it has room for (the estimators' answer), not counting the binding's own."""


@dataclass(frozen=True)
class Assigned:
    """Replicas per cluster picked (None: not a workload, every cluster picked gets it
    whole), or why the scheduler fails."""

    clusters: Mapping[str, int | None]
    error: str | None = None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def strategy(placement: Mapping[str, Any]) -> str:
    """``newAssignState``'s strategy type: Duplicated, Aggregated, DynamicWeight or
    StaticWeight."""
    if duplicated(placement):
        return "Duplicated"
    scheduling = _mapping(placement.get("replicaScheduling"))
    if scheduling.get("replicaDivisionPreference") == AGGREGATED:
        return AGGREGATED
    if _mapping(scheduling.get("weightPreference")).get("dynamicWeight"):
        return DYNAMIC_WEIGHT
    return "StaticWeight"


def assign(
    placement: Mapping[str, Any],
    candidates: Sequence[Candidate],
    replicas: int,
    previous: Sequence[tuple[str, int]] = (),
    uid: str = "",
    *,
    requirements: bool = False,
) -> Assigned:
    """``SelectClusters`` then ``AssignReplicas`` for a binding with ``replicas`` under
    ``placement`` (as stored: defaults applied), its last result ``previous`` (``spec.clusters``)
    and its template's ``uid`` (empty: ties to smaller names); ``requirements``: its pods
    request resources, which makes 0 replicas a workload still."""

    def room(candidate: Candidate) -> int:  # calAvailableReplicas
        if replicas == 0:  # not estimated
            return UNBOUNDED
        return replicas if candidate.available == UNBOUNDED else candidate.available

    def assigned_at(name: str) -> int:
        return next((n for c, n in previous if c == name), 0)

    details = [
        Detail(
            c.cluster.name, c.cluster.region or "", c.score, room(c) + assigned_at(c.cluster.name)
        )
        for c in candidates
    ]
    chosen = select(placement, details, replicas)
    if chosen.error is not None:
        return Assigned({}, chosen.error)
    if not chosen.clusters:
        return Assigned({}, "no clusters available to schedule")
    if replicas <= 0 and not requirements:  # not a workload: every cluster picked, no division
        return Assigned(dict.fromkeys(chosen.clusters, None))
    kind = strategy(placement)
    if kind == "Duplicated":
        # removeZeroReplicasCluster: a workload of 0 replicas goes nowhere
        return Assigned(dict.fromkeys(chosen.clusters, replicas) if replicas > 0 else {})
    by_name = {c.cluster.name: c for c in candidates}
    if kind == "StaticWeight":
        preference = _mapping(_mapping(placement.get("replicaScheduling")).get("weightPreference"))
        clusters = {name: by_name[name].cluster for name in chosen.clusters}
        weights = static_weights(preference, list(chosen.clusters), clusters)
        seats = webster(replicas, weights, larger_names_first=larger_names_first(uid))
        return Assigned(dict(seats))
    picked = set(chosen.clusters)
    scheduled = [(c, n) for c, n in previous if c in picked]
    have = sum(n for _, n in scheduled)
    if have > replicas:
        result = scale_down(kind, replicas, scheduled, uid)
    elif have < replicas:
        listed = [(name, room(by_name[name])) for name in chosen.clusters]
        kept = {c: n for c, n in scheduled if n > 0}
        result = scale_up_listed(kind, replicas, listed, kept, uid)
    else:
        return Assigned({c: n for c, n in sorted(scheduled) if n > 0})
    if result.replicas is None:
        return Assigned(
            {}, f"the clusters have room for {result.available} replicas, not {replicas}"
        )
    return Assigned(dict(result.replicas))

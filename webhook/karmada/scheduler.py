"""Where the scheduler places a template, and how many replicas each cluster gets.

From karmada v1.18.0 ``pkg/scheduler`` (``core/generic_scheduler.go``, ``core/common.go``
``AssignReplicas``, ``core/assignment.go``, ``core/division_algorithm.go``, ``core/util.go``)
and ``reference/karmada-v1.18/division.md``:

- candidates: the clusters ``placement.clusterAffinity`` selects (every cluster without one);
  with ``clusterAffinities``, the first term that selects any cluster; a ``spreadConstraints``
  entry by ``region``, ``zone`` or ``provider`` drops clusters without that field;
- a template that is not a workload (no replicas, no requirements) goes to every candidate,
  with no replica count;
- Duplicated (``replicaScheduling`` absent or ``Duplicated``): every candidate gets the count;
- Divided + Weighted without ``dynamicWeight``: Webster over the static weights (a cluster's
  weight is the largest of the ``staticWeightList`` entries selecting it; unmatched clusters
  get none; no entry matching any candidate, or no ``weightPreference``: equal weights), with
  the template UID's tie-break, unknown before the API server creates it: both outcomes;
- Divided with ``dynamicWeight`` or ``Aggregated`` depends on each cluster's free capacity:
  here each candidate is shown with the whole count (the most it can get) and the note says
  so; ``fedgate plan`` divides them exactly over the whole tree where every candidate declares
  its allocatable (``compiler/plan/settle.py``, with ``dynamic.py``'s port); so is a division
  by weight after spread constraints pick the clusters (a ``weightPreference`` without a
  ``staticWeightList``: Karmada does not ignore the constraints then);
- clusters left with 0 replicas receive nothing.

Not simulated here: capacity and the spread-constraint selection (they need the whole tree:
``fedgate plan`` makes them from the room the clusters declare, ``spread.py`` and
``dynamic.py``), taints and tolerations, cluster eviction (``plan --fail``), and the affinity
term a binding already observes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webhook.bundle.model import Cluster
from webhook.karmada.division import divide
from webhook.karmada.interpreter import Replicas
from webhook.karmada.selector import cluster_matches
from webhook.karmada.spread import ignored

SPREAD_BOUND = (
    "spread constraints pick the clusters by their room before the weights divide the replicas "
    "among them (a weightPreference without a staticWeightList keeps the constraints), which "
    "fedgate counts over the whole tree only (fedgate plan): each cluster is shown with the "
    "whole count, the most it can get"
)

SPREAD_FIELDS = ("region", "zone", "provider")


@dataclass(frozen=True)
class Placement:
    """The scheduling result: replicas per cluster (None: not a workload, copied whole)."""

    clusters: Mapping[str, int | None]
    alternative: Mapping[str, int | None] | None = None
    """The other outcome of a tie the template's UID breaks."""
    notes: tuple[str, ...] = ()


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _selected(affinity: Any, clusters: Mapping[str, Cluster]) -> list[str]:
    if affinity is None:
        return sorted(clusters)
    if not isinstance(affinity, Mapping):
        return []
    return sorted(name for name, c in clusters.items() if cluster_matches(c, affinity))


def candidates(
    placement: Mapping[str, Any], clusters: Mapping[str, Cluster]
) -> tuple[list[str], list[str]]:
    """(candidate cluster names, notes)."""
    notes: list[str] = []
    terms = placement.get("clusterAffinities")
    if isinstance(terms, list) and terms:
        chosen: list[str] = []
        for term in terms:
            chosen = _selected(term, clusters)
            if chosen:
                name = _mapping(term).get("affinityName", "")
                if term is not terms[0]:
                    notes.append(
                        f"clusterAffinities: the earlier terms select no cluster; {name} does"
                    )
                break
    else:
        chosen = _selected(placement.get("clusterAffinity"), clusters)
    constraints = placement.get("spreadConstraints")
    for constraint in constraints if isinstance(constraints, list) else []:
        field = _mapping(constraint).get("spreadByField")
        if field in SPREAD_FIELDS:
            chosen = [c for c in chosen if clusters[c].field(str(field))]
    return chosen, notes


def static_weights(
    preference: Mapping[str, Any], names: list[str], clusters: Mapping[str, Cluster]
) -> dict[str, int]:
    """``getStaticWeightInfoList``: the largest matching entry per candidate; none at all
    matching (or weights whose int64 sum wraps to 0) means equal weights."""
    weights = dict.fromkeys(names, 0)
    entries = preference.get("staticWeightList")
    for item in entries if isinstance(entries, list) else []:
        entry = _mapping(item)
        weight, target = entry.get("weight"), entry.get("targetCluster")
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int)
            or not isinstance(target, Mapping)
        ):
            continue
        for name in names:
            if cluster_matches(clusters[name], target):
                weights[name] = max(weights[name], weight)
    # Karmada sums the weights in int64: a sum that wraps to 0 reads as no weight at all
    total = (sum(weights.values()) + 2**63) % 2**64 - 2**63
    return weights if total != 0 else dict.fromkeys(names, 1)


def schedule(
    placement: Mapping[str, Any], replicas: Replicas | None, clusters: Mapping[str, Cluster]
) -> Placement:
    """Replicas per cluster for a template with these replicas under this placement."""
    names, notes = candidates(placement, clusters)
    if not names:
        return Placement({}, None, (*notes, "no cluster fits the placement"))
    if replicas is None or not replicas.workload:
        return Placement(dict.fromkeys(names, None), None, tuple(notes))
    strategy = placement.get("replicaScheduling")
    if strategy is None or _mapping(strategy).get("replicaSchedulingType") == "Duplicated":
        return Placement(_nonzero(dict.fromkeys(names, replicas.count)), None, tuple(notes))
    strategy = _mapping(strategy)
    preference = strategy.get("weightPreference")
    dynamic = isinstance(preference, Mapping) and preference.get("dynamicWeight")
    if strategy.get("replicaDivisionPreference") == "Aggregated" or dynamic:
        kind = "Aggregated" if not dynamic else "dynamicWeight"
        notes.append(bound_note(kind, [c for c in names if clusters[c].allocatable is None]))
        return Placement(_nonzero(dict.fromkeys(names, replicas.count)), None, tuple(notes))
    if placement.get("spreadConstraints") and not ignored(placement):
        notes.append(SPREAD_BOUND)
        return Placement(_nonzero(dict.fromkeys(names, replicas.count)), None, tuple(notes))
    if isinstance(preference, Mapping):
        weights = static_weights(preference, names, clusters)
    else:
        weights = dict.fromkeys(names, 1)
    division = divide(replicas.count, weights)
    if division.alternative is not None:
        notes.append(
            "a tie: Karmada breaks it by the template UID's hash (unknown until the API server "
            "creates it), so either outcome can happen"
        )
    alternative = dict(division.alternative) if division.alternative is not None else None
    return Placement(dict(division.replicas), alternative, tuple(notes))


def bound_note(kind: str, undeclared: list[str]) -> str:
    """Why a division by free capacity is shown as its upper bound: some candidates declare no
    allocatable, or the division was not made over the whole tree (only ``plan`` makes it)."""
    why = (
        f"which fedgate counts only when every candidate declares its allocatable "
        f"(clusters.yaml) and {', '.join(undeclared)} "
        f"{'does' if len(undeclared) == 1 else 'do'} not"
        if undeclared
        else "which fedgate counts over the whole tree only (fedgate plan)"
    )
    return (
        f"replicas are divided by each cluster's free capacity ({kind}), {why}: each cluster "
        "is shown with the whole count, the most it can get"
    )


def _nonzero(replicas: dict[str, int]) -> dict[str, int | None]:
    """``removeZeroReplicasCluster``."""
    return {name: count for name, count in replicas.items() if count > 0}

"""Which clusters Karmada v1.18's scheduler picks under ``spreadConstraints``: groups by region,
then clusters.

From karmada v1.18.2 ``pkg/scheduler/core/spreadconstraint``: ``select_clusters.go``
(``SelectBestClusters``, ``shouldIgnoreSpreadConstraint``), ``select_clusters_by_region.go``,
``select_clusters_by_cluster.go``, ``select_groups.go`` (the DFS over groups and the choice of
a path), ``group_clusters.go`` (``calcGroupScore``, ``calcGroupScoreForDuplicate``, the
clusters' order).

- Static weights (Divided, Weighted without ``dynamicWeight``) ignore spread constraints.
- With a ``region`` constraint: each region's clusters, scored; the regions chosen by the DFS
  (fewest, then best score, within minGroups..maxGroups, enough clusters for the cluster
  constraint's minGroups), the best cluster of each chosen region, then the best of the rest
  by available replicas up to the cluster constraint's maxGroups.
- With only a ``cluster`` constraint: the first maxGroups clusters (Duplicated), or those with
  enough available replicas among them (Divided).
- A ``zone`` or ``provider`` constraint without a region one: Karmada's scheduler fails ("just
  support cluster and region spread constraint").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

WEIGHT_UNIT = 1000


@dataclass(frozen=True)
class Detail:
    """One candidate cluster as the scheduler scores it."""

    name: str
    region: str
    score: int
    """ClusterLocality: 100 for a cluster the binding targets, else 0."""
    available: int
    """Replicas it has room for, plus those the binding has there."""


@dataclass
class Group:
    name: str
    value: int
    weight: int


@dataclass
class _Path:
    id: int
    groups: list[Group] = field(default_factory=list)
    weight: int = 0
    value: int = 0


def _ordered(groups: Sequence[Group]) -> list[Group]:
    return sorted(groups, key=lambda g: (-g.weight, g.name))


def select_groups(
    groups: Sequence[Group], minimum: int, maximum: int, target: int
) -> list[Group] | None:
    """``selectGroups``: the best feasible path of groups (None: none)."""
    if not groups:
        return None
    ordered = sorted(groups, key=lambda g: (g.value, -g.weight, g.name))
    paths: list[_Path] = []
    current: list[Group] = []

    def dfs(total: int, begin: int) -> None:
        if total >= target and minimum <= len(current) <= maximum:
            chosen = _ordered(current)
            paths.append(
                _Path(
                    len(paths) + 1,
                    chosen,
                    sum(g.weight for g in chosen),
                    sum(g.value for g in chosen),
                )
            )
            return
        if len(current) >= maximum:
            return
        for index in range(begin, len(ordered)):
            current.append(ordered[index])
            dfs(total + ordered[index].value, index + 1)
            if len(ordered) == minimum:
                break
            current.pop()

    dfs(0, 0)
    if not paths:
        return None
    if len(paths) == 1:
        return paths[0].groups
    ranked = sorted(paths, key=lambda p: (-p.weight, -p.value, p.id))
    final = ranked[0]
    for path in ranked[1:]:
        shorter = len(path.groups) < len(final.groups)
        if shorter and all(final.groups[i].name == g.name for i, g in enumerate(path.groups)):
            final = path
    return final.groups


def _constraint(placement: Mapping[str, Any], by: str) -> Mapping[str, Any] | None:
    for item in placement.get("spreadConstraints") or ():
        if isinstance(item, Mapping) and item.get("spreadByField") == by:
            return item
    return None


def _groups(constraint: Mapping[str, Any] | None) -> tuple[int, int]:
    """(minGroups, maxGroups): Karmada's webhook defaults minGroups to 1 and leaves maxGroups
    at 0; a constraint that is not there reads as zeros (Go's zero value)."""
    if constraint is None:
        return 0, 0
    low, high = constraint.get("minGroups"), constraint.get("maxGroups")
    return (low if isinstance(low, int) and low else 1), (high if isinstance(high, int) else 0)


def ignored(placement: Mapping[str, Any]) -> bool:
    """``shouldIgnoreSpreadConstraint``, or no constraint at all."""
    if not placement.get("spreadConstraints"):
        return True
    strategy = placement.get("replicaScheduling")
    if not isinstance(strategy, Mapping):
        return False
    preference = strategy.get("weightPreference")
    return (
        strategy.get("replicaSchedulingType", "Divided") == "Divided"
        and strategy.get("replicaDivisionPreference", "Weighted") == "Weighted"
        and (
            not isinstance(preference, Mapping)
            or (bool(preference.get("staticWeightList")) and not preference.get("dynamicWeight"))
        )
    )


def duplicated(placement: Mapping[str, Any]) -> bool:
    strategy = placement.get("replicaScheduling")
    return (
        not isinstance(strategy, Mapping) or strategy.get("replicaSchedulingType") == "Duplicated"
    )


def order(details: Sequence[Detail]) -> list[Detail]:
    """``sortClusters``: score, then available replicas, largest first, then name."""
    return sorted(details, key=lambda d: (-d.score, -d.available, d.name))


def group_score(
    clusters: Sequence[Detail], replicas: int, placement: Mapping[str, Any], minimum: int
) -> int:
    """``calcGroupScore`` (``calcGroupScoreForDuplicate`` for Duplicated)."""
    if duplicated(placement):
        valid = [c for c in clusters if c.available >= replicas]
        if not valid:
            return 0
        return len(valid) * WEIGHT_UNIT + sum(c.score for c in valid) // len(valid)
    target = math.ceil(replicas / max(minimum, 1))
    cluster_minimum = max(_groups(_constraint(placement, "cluster"))[0], minimum)
    total = score = counted = 0
    for cluster in clusters:
        total += cluster.available
        score += cluster.score
        counted += 1
        if counted >= cluster_minimum and total >= target:
            break
    if total < target:
        return total * WEIGHT_UNIT + score // len(clusters)
    return target * WEIGHT_UNIT + score // counted


@dataclass(frozen=True)
class Selection:
    clusters: tuple[str, ...]
    error: str | None = None


def select(placement: Mapping[str, Any], details: Sequence[Detail], replicas: int) -> Selection:
    """``SelectBestClusters``: the clusters chosen among ``details`` (every one when the
    constraints are ignored)."""
    ranked = order(details)
    if ignored(placement):
        return Selection(tuple(d.name for d in ranked))
    region = _constraint(placement, "region")
    cluster = _constraint(placement, "cluster")
    if region is not None:
        return _by_region(placement, ranked, replicas, region, cluster)
    if cluster is not None:
        return _by_cluster(ranked, cluster, None if duplicated(placement) else replicas)
    return Selection((), "Karmada's scheduler supports only cluster and region spread constraints")


def _by_region(
    placement: Mapping[str, Any],
    ranked: Sequence[Detail],
    replicas: int,
    region: Mapping[str, Any],
    cluster: Mapping[str, Any] | None,
) -> Selection:
    members: dict[str, list[Detail]] = {}
    for d in ranked:
        if d.region:
            members.setdefault(d.region, []).append(d)
    low = _groups(region)[0]
    regions = {
        name: (group_score(found, replicas, placement, low), found)
        for name, found in members.items()
    }
    return by_region(regions, _groups(region), _groups(cluster))


def by_region(
    regions: Mapping[str, tuple[int, Sequence[Detail]]],
    region: tuple[int, int],
    cluster: tuple[int, int],
) -> Selection:
    """``selectBestClustersByRegion``: ``regions`` by name, each with its score and its
    clusters in the scheduler's order; (minGroups, maxGroups) of each constraint."""
    low, high = region
    if len(regions) < low:
        return Selection((), "the number of feasible regions is less than the region minGroups")
    cluster_low, cluster_high = cluster
    groups = [Group(name, len(found), score) for name, (score, found) in regions.items()]
    chosen = select_groups(groups, low, high, cluster_low)
    if not chosen:
        return Selection((), "the number of clusters is less than the cluster minGroups")
    selected = [regions[g.name][1][0] for g in chosen]
    rest = [d for g in chosen for d in regions[g.name][1][1:]]
    need = min(len(rest) + len(selected), cluster_high) - len(selected)
    if need > 0:
        selected += order(rest)[:need]
    return Selection(tuple(d.name for d in selected))


def _by_cluster(
    ranked: Sequence[Detail], cluster: Mapping[str, Any], replicas: int | None
) -> Selection:
    low, high = _groups(cluster)
    if len(ranked) < low:
        return Selection((), "the number of feasible clusters is less than the cluster minGroups")
    need = min(len(ranked), high)
    chosen = list(ranked[:need])
    if replicas is None:
        return Selection(tuple(d.name for d in chosen))
    rest = list(ranked[need:])
    index = len(chosen) - 1
    while sum(d.available for d in chosen) < replicas and index >= 0:
        best, most = None, chosen[index].available
        for i, d in enumerate(rest):
            if d.available > most:
                best, most = i, d.available
        if best is not None:
            chosen[index], rest[best] = rest[best], chosen[index]
        index -= 1
    if not chosen or sum(d.available for d in chosen) < replicas:
        # none to select (maxGroups 0) fails as too little room does
        return Selection((), f"not enough room when selecting {need} clusters")
    return Selection(tuple(d.name for d in chosen))

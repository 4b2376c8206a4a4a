"""Which member clusters a Karmada ClusterAffinity can select, resolved against the inventory.

The matching is Karmada's ``ClusterMatches`` as ``webhook/karmada/selector.py`` ports it (the
one port the scheduler simulation uses too, held to Karmada's tables): ``exclude`` always wins,
then labelSelector AND fieldSelector (provider, region, and every zone of a cluster that spans
several) AND clusterNames, each unset criterion matching everything; a selector Kubernetes
would refuse to build selects nothing. No affinity at all means every cluster. Used by the
compiler, bundle loading and the tenancy rules, so a placement is judged on the clusters
Karmada would select.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from webhook.bundle.model import Cluster
from webhook.karmada.selector import cluster_matches


def candidate_clusters(
    affinity: Mapping[str, Any] | None, clusters: Mapping[str, Cluster]
) -> tuple[str, ...]:
    """Names of the inventory clusters ``affinity`` can select, sorted; None selects all.

    Raises ValueError on an affinity of the wrong shape (Karmada's schema would not admit it):
    a placement fedgate cannot read is refused, never read as selecting nothing."""
    if affinity is None:
        return tuple(sorted(clusters))
    problem = _shape_problem(affinity)
    if problem is not None:
        raise ValueError(f"clusterAffinity: {problem}")
    return tuple(sorted(name for name, c in clusters.items() if cluster_matches(c, affinity)))


def _shape_problem(affinity: Mapping[str, Any]) -> str | None:
    for key in ("clusterNames", "exclude"):
        names = affinity.get(key)
        if names is not None and not (
            isinstance(names, list) and all(isinstance(n, str) for n in names)
        ):
            return f"{key} must be a list of cluster names"
    for key in ("labelSelector", "fieldSelector"):
        selector = affinity.get(key)
        if selector is not None and not isinstance(selector, Mapping):
            return f"{key} must be an object"
    return None


def unknown_cluster_names(affinity: Mapping[str, Any], clusters: Iterable[str]) -> tuple[str, ...]:
    """Names in ``clusterNames`` or ``exclude`` that the inventory does not know."""
    known = set(clusters)
    named = [*(affinity.get("clusterNames") or ()), *(affinity.get("exclude") or ())]
    return tuple(sorted({n for n in named if isinstance(n, str) and n not in known}))

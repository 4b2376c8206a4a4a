"""Which member clusters a Karmada ClusterAffinity can select, resolved against the inventory.

Mirrors ``ClusterMatches`` in karmada ``pkg/util/selector.go`` (v1.18): ``exclude`` always wins,
then labelSelector AND fieldSelector AND clusterNames, each unset criterion matching everything.
No affinity at all means every cluster. Used by the compiler, ``plan`` and the tenancy rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from webhook.bundle.model import Cluster


def label_selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """metav1.LabelSelector semantics; an empty selector matches everything."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    return all(
        _requirement_matches(expr, labels.get(expr.get("key", "")))
        for expr in selector.get("matchExpressions") or ()
    )


def _requirement_matches(expression: Mapping[str, Any], value: str | None) -> bool:
    operator = expression.get("operator")
    values = expression.get("values") or ()
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    return False  # an unknown operator selects nothing (Karmada fails the selector)


def cluster_matches(cluster: Cluster, affinity: Mapping[str, Any]) -> bool:
    """Whether ``affinity`` (a ClusterAffinity object) selects ``cluster``."""
    if cluster.name in (affinity.get("exclude") or ()):
        return False
    selector = affinity.get("labelSelector")
    if selector is not None and not label_selector_matches(selector, cluster.labels):
        return False
    fields = affinity.get("fieldSelector")
    if fields is not None and not all(
        _requirement_matches(expr, cluster.field(expr.get("key", "")))
        for expr in fields.get("matchExpressions") or ()
    ):
        return False
    names = affinity.get("clusterNames") or ()
    return not names or cluster.name in names


def candidate_clusters(
    affinity: Mapping[str, Any] | None, clusters: Mapping[str, Cluster]
) -> tuple[str, ...]:
    """Names of the inventory clusters ``affinity`` can select, sorted; None selects all."""
    if affinity is None:
        return tuple(sorted(clusters))
    return tuple(sorted(name for name, c in clusters.items() if cluster_matches(c, affinity)))


def unknown_cluster_names(affinity: Mapping[str, Any], clusters: Iterable[str]) -> tuple[str, ...]:
    """Names in ``clusterNames`` or ``exclude`` that the inventory does not know."""
    known = set(clusters)
    named = [*(affinity.get("clusterNames") or ()), *(affinity.get("exclude") or ())]
    return tuple(sorted({n for n in named if isinstance(n, str) and n not in known}))

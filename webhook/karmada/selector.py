"""Which objects a ResourceSelector picks, and which clusters a ClusterAffinity selects.

Ported from karmada ``pkg/util/selector.go`` at tag v1.18.0 (``ResourceSelectorPriority``,
``ResourceMatchSelectorsPriority``, ``ClusterMatches``, ``extractClusterFields``,
``matchZones``), on Kubernetes' label selector rules (``webhook/base/labels.py``; for field
selectors Karmada's lifted ``NodeSelectorRequirementsAsSelector``): a selector Kubernetes would
refuse to build (a bad key or value, ``In`` without values, an unknown operator) matches
nothing, as in Karmada. The one port of cluster matching: the compiler, ``plan``, the
scheduler's simulation and the tenancy rule all ask :func:`cluster_matches` /
:func:`candidate_clusters`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import IntEnum
from typing import Any

from webhook.base.labels import (
    InvalidSelector,
    label_selector,
    labels_match,
    requirement,
    requirement_holds,
)
from webhook.bundle.model import Cluster


class ImplicitPriority(IntEnum):
    """How precisely a selector names an object (``util.ImplicitPriority``)."""

    MISMATCH = 0
    MATCH_ALL = 1
    LABEL_SELECTOR = 2
    NAME = 3


def requires_a_label(selector: Mapping[str, Any]) -> bool:
    """Whether the ResourceSelector matches only objects that carry some label (a matchLabels
    entry, an ``In`` or an ``Exists`` requirement): False when an object without labels meets
    it (no labelSelector, an empty one, only ``NotIn`` and ``DoesNotExist``). An invalid
    selector matches nothing, so it requires what no object has."""
    labels = selector.get("labelSelector")
    if labels is None:
        return False
    try:
        requirements = label_selector(labels)
    except InvalidSelector:
        return True
    return not all(requirement_holds(r, {}) for r in requirements)


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if type(metadata) is dict else {}  # parsed manifests: plain dicts


def selector_priority(obj: Mapping[str, Any], selector: Mapping[str, Any]) -> ImplicitPriority:
    """``ResourceSelectorPriority``: how ``selector`` matches the object ``obj``."""
    metadata = _metadata(obj)
    namespace = selector.get("namespace") or ""
    if (
        obj.get("apiVersion") != selector.get("apiVersion")
        or obj.get("kind") != selector.get("kind")
        or (namespace and metadata.get("namespace", "") != namespace)
    ):
        return ImplicitPriority.MISMATCH
    if selector.get("name"):
        matched = selector["name"] == metadata.get("name")
        return ImplicitPriority.NAME if matched else ImplicitPriority.MISMATCH
    if selector.get("labelSelector") is None:
        return ImplicitPriority.MATCH_ALL
    labels = metadata.get("labels")
    if labels_match(selector["labelSelector"], labels if isinstance(labels, Mapping) else {}):
        return ImplicitPriority.LABEL_SELECTOR
    return ImplicitPriority.MISMATCH


def selectors_priority(obj: Mapping[str, Any], selectors: Sequence[Any]) -> ImplicitPriority:
    """``ResourceMatchSelectorsPriority``: the best of the selectors (MISMATCH if none)."""
    best = ImplicitPriority.MISMATCH
    for selector in selectors:
        if type(selector) is dict:  # parsed manifests: plain dicts
            best = max(best, selector_priority(obj, selector))
    return best


def _zones_match(expression: Mapping[str, Any], zones: Sequence[str]) -> bool:
    """``matchZones``."""
    operator, values = expression.get("operator"), expression.get("values") or []
    if operator == "In":
        return any(zone in values for zone in zones)
    if operator == "NotIn":
        return not any(zone in values for zone in zones)
    if operator == "Exists":
        return bool(zones)
    if operator == "DoesNotExist":
        return not zones
    return False


def cluster_fields(cluster: Cluster) -> dict[str, str]:
    """``extractClusterFields``: the provider and region a fieldSelector reads, when set (zones
    are matched apart, by ``matchZones``)."""
    return {k: v for k, v in (("provider", cluster.provider), ("region", cluster.region)) if v}


def _fields_match(field_selector: Any, cluster: Cluster) -> bool:
    if not isinstance(field_selector, Mapping):
        return False
    expressions = field_selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        return False
    fields = cluster_fields(cluster)
    zones = cluster.all_zones
    for expression in expressions:
        if not isinstance(expression, Mapping):
            return False
        if expression.get("key") == "zone":
            if not _zones_match(expression, zones):
                return False
            continue
        try:
            built = requirement(
                expression.get("key"),
                expression.get("operator"),
                expression.get("values"),
                numeric=True,
            )
        except InvalidSelector:
            return False
        if not requirement_holds(built, fields):
            return False
    return True


def cluster_matches(cluster: Cluster, affinity: Mapping[str, Any]) -> bool:
    """``ClusterMatches``: exclude wins, then labelSelector AND fieldSelector AND clusterNames."""
    exclude = affinity.get("exclude") or []
    if isinstance(exclude, list) and cluster.name in exclude:
        return False
    if affinity.get("labelSelector") is not None and not labels_match(
        affinity["labelSelector"], cluster.labels
    ):
        return False
    if affinity.get("fieldSelector") is not None and not _fields_match(
        affinity["fieldSelector"], cluster
    ):
        return False
    names = affinity.get("clusterNames") or []
    return not names or (isinstance(names, list) and cluster.name in names)


def candidate_clusters(
    affinity: Mapping[str, Any] | None, clusters: Mapping[str, Cluster]
) -> tuple[str, ...]:
    """Names of the inventory clusters ``affinity`` can select, sorted; None selects all.

    An affinity by names alone (no label or field selector, the usual placement) is read
    without a call per cluster: what ``cluster_matches`` would answer, by ``names_only``."""
    if affinity is None:
        return tuple(sorted(clusters))
    if affinity.get("labelSelector") is None and affinity.get("fieldSelector") is None:
        return names_only(affinity, clusters)
    return scan_clusters(affinity, clusters)


def scan_clusters(affinity: Mapping[str, Any], clusters: Mapping[str, Cluster]) -> tuple[str, ...]:
    """``candidate_clusters`` the slow way: ``cluster_matches`` on every cluster."""
    return tuple(sorted(name for name, c in clusters.items() if cluster_matches(c, affinity)))


def names_only(affinity: Mapping[str, Any], clusters: Mapping[str, Cluster]) -> tuple[str, ...]:
    """``scan_clusters`` of an affinity with no labelSelector and no fieldSelector: exclude
    wins (when a list), then clusterNames (any cluster when empty, none when not a list)."""
    exclude = affinity.get("exclude") or []
    excluded = exclude if isinstance(exclude, list) else ()
    names = affinity.get("clusterNames") or []
    if not names:
        return tuple(sorted(n for n, c in clusters.items() if c.name not in excluded))
    if not isinstance(names, list):
        return ()
    return tuple(
        sorted(n for n, c in clusters.items() if c.name in names and c.name not in excluded)
    )


def unknown_cluster_names(affinity: Mapping[str, Any], clusters: Iterable[str]) -> tuple[str, ...]:
    """Names in ``clusterNames`` or ``exclude`` that the inventory does not know."""
    known = clusters if isinstance(clusters, dict | frozenset | set) else set(clusters)
    named = [*(affinity.get("clusterNames") or ()), *(affinity.get("exclude") or ())]
    return tuple(sorted({n for n in named if isinstance(n, str) and n not in known}))

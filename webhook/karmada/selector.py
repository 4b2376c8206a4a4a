"""Which objects a ResourceSelector picks, and which clusters a ClusterAffinity selects.

Ported from karmada ``pkg/util/selector.go`` at tag v1.18.0 (``ResourceSelectorPriority``,
``ResourceMatchSelectorsPriority``, ``ClusterMatches``, ``extractClusterFields``,
``matchZones``), with the Kubernetes
label selector rules it relies on (``metav1.LabelSelectorAsSelector`` and
``labels.NewRequirement``; for field selectors Karmada's lifted
``NodeSelectorRequirementsAsSelector``): a selector Kubernetes would refuse to build (a bad
key or value, ``In`` without values, an unknown operator) matches nothing, as in Karmada.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any

from webhook.bundle.model import Cluster


class ImplicitPriority(IntEnum):
    """How precisely a selector names an object (``util.ImplicitPriority``)."""

    MISMATCH = 0
    MATCH_ALL = 1
    LABEL_SELECTOR = 2
    NAME = 3


_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z", re.ASCII)
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_INTEGER = re.compile(r"^[+-]?[0-9]+\Z", re.ASCII)
_INT64 = 1 << 63


class InvalidSelector(ValueError):
    """A selector Kubernetes' label library refuses to build."""


def _qualified_name(key: Any) -> bool:
    """``validation.IsQualifiedName``: ``[prefix/]name``."""
    if not isinstance(key, str):
        return False
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        return False
    return 0 < len(name) <= 63 and bool(_NAME.match(name))


def _label_value(value: Any) -> bool:
    """``validation.IsValidLabelValue``."""
    return isinstance(value, str) and (
        value == "" or (len(value) <= 63 and bool(_NAME.match(value)))
    )


def _integer(value: str) -> int | None:
    if not _INTEGER.match(value):
        return None
    number = int(value)
    return number if -_INT64 <= number < _INT64 else None


def _requirement(
    key: Any, operator: Any, values: Any, *, numeric: bool
) -> tuple[str, str, tuple[str, ...]]:
    """``labels.NewRequirement``: validated (key, operator, values)."""
    if not _qualified_name(key):
        raise InvalidSelector(f"invalid label key {key!r}")
    if values is None:
        values = []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InvalidSelector(f"values of {key} must be a list of strings")
    allowed = ("In", "NotIn", "Exists", "DoesNotExist") + (("Gt", "Lt") if numeric else ())
    if operator not in allowed:
        raise InvalidSelector(f"{operator!r} is not a valid label selector operator")
    if operator in ("In", "NotIn") and not values:
        raise InvalidSelector(f"{operator} of {key} needs at least one value")
    if operator in ("Exists", "DoesNotExist") and values:
        raise InvalidSelector(f"{operator} of {key} takes no values")
    if operator in ("Gt", "Lt") and (len(values) != 1 or _integer(values[0]) is None):
        raise InvalidSelector(f"{operator} of {key} needs one integer value")
    if not all(_label_value(v) for v in values):  # every operator's values, Gt and Lt too
        raise InvalidSelector(f"invalid label value in {values!r}")
    return key, operator, tuple(values)


def _requirement_holds(
    requirement: tuple[str, str, tuple[str, ...]], labels: Mapping[str, str]
) -> bool:
    key, operator, values = requirement
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    number = _integer(labels.get(key, "")) if present else None
    bound = _integer(values[0])
    if number is None or bound is None:
        return False
    return number > bound if operator == "Gt" else number < bound


def label_selector(selector: Mapping[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """``metav1.LabelSelectorAsSelector``: the requirements; raises InvalidSelector."""
    if not isinstance(selector, Mapping):
        raise InvalidSelector("a label selector must be an object")
    requirements = []
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        raise InvalidSelector("matchLabels must be an object")
    for key, value in match_labels.items():
        if not _label_value(value):
            raise InvalidSelector(f"invalid label value {value!r}")
        requirements.append(_requirement(key, "In", [value], numeric=False))
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise InvalidSelector("matchExpressions must be a list")
    for expression in expressions:
        if not isinstance(expression, Mapping):
            raise InvalidSelector("a matchExpressions item must be an object")
        requirements.append(
            _requirement(
                expression.get("key"),
                expression.get("operator"),
                expression.get("values"),
                numeric=False,
            )
        )
    return requirements


def labels_match(selector: Mapping[str, Any], labels: Mapping[str, Any]) -> bool:
    """Whether a metav1.LabelSelector selects ``labels``; an invalid selector selects nothing."""
    try:
        requirements = label_selector(selector)
    except InvalidSelector:
        return False
    plain = {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}
    return all(_requirement_holds(r, plain) for r in requirements)


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
    return not all(_requirement_holds(r, {}) for r in requirements)


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
            requirement = _requirement(
                expression.get("key"),
                expression.get("operator"),
                expression.get("values"),
                numeric=True,
            )
        except InvalidSelector:
            return False
        if not _requirement_holds(requirement, fields):
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

"""Apply OverridePolicies to an object for one member cluster, as Karmada v1.18 does.

Order (api-facts section 2): ClusterOverridePolicies before OverridePolicies; within each,
ascending match strength (no selector < label selector < name), then policy name; within a
rule: image, command, args, labels, annotations, field, plaintext overriders. Every rule whose
targetCluster selects the cluster applies. Only the kinds Karmada knows have containers: the
image overrider without a predicate touches ``containers`` (never ``initContainers``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import jsonpointer

from compiler.plan.imageref import override_image
from webhook.bundle.model import Cluster
from webhook.engine.affinity import cluster_matches, label_selector_matches

POD_TEMPLATE_KINDS = ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job")


class OverrideError(ValueError):
    """An override that Karmada would fail to apply (the Work would report it)."""


def _containers(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    if obj.get("kind") == "Pod":
        spec = obj.get("spec") or {}
    elif obj.get("kind") in POD_TEMPLATE_KINDS:
        spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    else:
        return []
    containers = spec.get("containers")
    return containers if isinstance(containers, list) else []


def _selects(selector: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    metadata = obj.get("metadata") or {}
    if selector.get("apiVersion") != obj.get("apiVersion") or selector.get("kind") != obj.get(
        "kind"
    ):
        return False
    if selector.get("namespace") and selector["namespace"] != metadata.get("namespace"):
        return False
    if selector.get("name"):
        return bool(selector["name"] == metadata.get("name"))
    labels = selector.get("labelSelector")
    return labels is None or label_selector_matches(labels, metadata.get("labels") or {})


def _strength(policy: Mapping[str, Any], obj: Mapping[str, Any]) -> int:
    """Karmada's implicit priority of the best selector that matches: 0 none, 1 label, 2 name."""
    selectors = (policy.get("spec") or {}).get("resourceSelectors") or []
    if not selectors:
        return 0
    return max(
        (2 if s.get("name") else 1 if s.get("labelSelector") else 0)
        for s in selectors
        if _selects(s, obj)
    )


def applies(policy: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    selectors = (policy.get("spec") or {}).get("resourceSelectors") or []
    namespaced = policy.get("kind") == "OverridePolicy"
    if namespaced and (policy.get("metadata") or {}).get("namespace") != (
        obj.get("metadata") or {}
    ).get("namespace"):
        return False
    return not selectors or any(_selects(s, obj) for s in selectors)


def ordered(
    policies: Sequence[Mapping[str, Any]], obj: Mapping[str, Any]
) -> list[Mapping[str, Any]]:
    """The policies that apply to ``obj``, in the order Karmada applies them."""
    matching = [p for p in policies if applies(p, obj)]
    return sorted(
        matching,
        key=lambda p: (
            p.get("kind") != "ClusterOverridePolicy",
            _strength(p, obj),
            p["metadata"]["name"],
        ),
    )


def apply_overrides(
    obj: Mapping[str, Any], policies: Sequence[Mapping[str, Any]], cluster: Cluster
) -> dict[str, Any]:
    """A copy of ``obj`` as ``cluster`` receives it from these policies."""
    result = copy.deepcopy(dict(obj))
    for policy in ordered(policies, obj):
        for rule in (policy.get("spec") or {}).get("overrideRules") or []:
            target = rule.get("targetCluster")
            if target is None or cluster_matches(cluster, target):
                result = apply_overriders(result, rule.get("overriders") or {})
    return result


def apply_overriders(obj: dict[str, Any], overriders: Mapping[str, Any]) -> dict[str, Any]:
    for item in overriders.get("imageOverrider") or []:
        _image(obj, item)
    for field in ("command", "args"):
        for item in overriders.get(f"{field}Overrider") or []:
            _command_args(obj, field, item)
    for field in ("labels", "annotations"):
        for item in overriders.get(f"{field}Overrider") or []:
            _metadata_map(obj, field, item)
    if overriders.get("fieldOverrider"):
        raise OverrideError("fieldOverrider is not simulated by fedgate plan")
    for item in overriders.get("plaintext") or []:
        obj = _plaintext(obj, item)
    return obj


def _image(obj: dict[str, Any], item: Mapping[str, Any]) -> None:
    component, operator = str(item.get("component", "")), str(item.get("operator", ""))
    value = str(item.get("value") or "")
    predicate = item.get("predicate")
    if predicate:
        path = predicate["path"]
        current = jsonpointer.resolve_pointer(obj, path)
        jsonpointer.set_pointer(obj, path, override_image(current, component, operator, value))
        return
    for container in _containers(obj):
        if isinstance(container.get("image"), str):
            container["image"] = override_image(container["image"], component, operator, value)


def _command_args(obj: dict[str, Any], field: str, item: Mapping[str, Any]) -> None:
    values = [str(v) for v in item.get("value") or []]
    for container in _containers(obj):
        if container.get("name") != item.get("containerName"):
            continue
        current = [str(v) for v in container.get(field) or []]
        if item.get("operator") == "add":
            container[field] = current + values
        elif item.get("operator") == "remove":
            container[field] = [v for v in current if v not in values]


def _metadata_map(obj: dict[str, Any], field: str, item: Mapping[str, Any]) -> None:
    metadata = obj.setdefault("metadata", {})
    operator = item.get("operator")
    for key, value in (item.get("value") or {}).items():
        existing = metadata.get(field)
        if operator in ("remove", "replace") and (not existing or key not in existing):
            continue  # Karmada skips keys that do not exist
        target = metadata.setdefault(field, {})
        if operator == "remove":
            del target[key]
        else:
            target[key] = value


def _plaintext(obj: dict[str, Any], item: Mapping[str, Any]) -> dict[str, Any]:
    """One RFC 6902 operation (add, remove, replace) on the whole object."""
    path, operator = item["path"], item["operator"]
    try:
        pointer = jsonpointer.JsonPointer(path)
        parent, last = pointer.to_last(obj)
        key = str(last)
        if operator == "remove":
            del parent[int(key) if isinstance(parent, list) else key]
        elif operator == "replace":
            pointer.resolve(obj)  # must exist
            parent[int(key) if isinstance(parent, list) else key] = copy.deepcopy(item["value"])
        elif isinstance(parent, list):
            parent.insert(len(parent) if key == "-" else int(key), copy.deepcopy(item["value"]))
        else:
            parent[key] = copy.deepcopy(item["value"])
    except (KeyError, IndexError, TypeError, ValueError, jsonpointer.JsonPointerException) as exc:
        raise OverrideError(f"plaintext {operator} {path}: {exc}") from None
    return obj

"""Where each workload kind keeps its pod template and its replica count (the Kubernetes API).

The CEL rules find the pod spec by kind in their own text (``policies/rules/*``); the built-in
rules that need it in Python (quota, stateful-purge.targets) read it here. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.base.values import is_mapping

POD_SPEC_AT: Mapping[str, tuple[str, ...]] = {
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Pod": ("spec",),
}
"""The kinds that run a pod template, and where it sits."""
REPLICAS_AT: Mapping[str, tuple[str, ...]] = {
    "Deployment": ("spec", "replicas"),
    "StatefulSet": ("spec", "replicas"),
    "ReplicaSet": ("spec", "replicas"),
    "ReplicationController": ("spec", "replicas"),
    "Job": ("spec", "parallelism"),
    "CronJob": ("spec", "jobTemplate", "spec", "parallelism"),
}
"""How many pods run at once, where the kind says (each defaults to 1; a Pod is one, a
DaemonSet at least one)."""
WORKLOAD_KINDS = frozenset(
    {
        *(("apps", k) for k in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("", "Pod"),
        ("", "ReplicationController"),
    }
)


def _at(obj: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = obj
    for name in path:
        value = value.get(name) if is_mapping(value) else None
    return value


def pod_spec(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The pod spec of a workload, None for other kinds or when it has none."""
    path = POD_SPEC_AT.get(str(obj.get("kind")))
    found = _at(obj, path) if path else None
    return found if is_mapping(found) else None


COMPLETIONS_AT: Mapping[str, tuple[str, ...]] = {
    "Job": ("spec", "completions"),
    "CronJob": ("spec", "jobTemplate", "spec", "completions"),
}
"""A Job runs at most its completions at once: Kubernetes' job controller starts
min(parallelism, completions left) pods (manageJob's wantActive)."""


def replicas(obj: Mapping[str, Any]) -> int:
    """Pods the workload runs at once, at least (1 when the field is absent or not a count);
    a Job's parallelism no more than its completions."""
    kind = str(obj.get("kind"))
    path = REPLICAS_AT.get(kind)
    value = _at(obj, path) if path else None
    count = value if type(value) is int and value >= 0 else 1
    completions_path = COMPLETIONS_AT.get(kind)
    completions = _at(obj, completions_path) if completions_path else None
    if type(completions) is int and 0 <= completions < count:
        return completions
    return count


def containers(spec: Mapping[str, Any], field: str = "containers") -> list[Mapping[str, Any]]:
    found = spec.get(field)
    return [c for c in found if is_mapping(c)] if isinstance(found, list) else []

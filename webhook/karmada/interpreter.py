"""What Karmada's default resource interpreter knows of replicas.

Ported from karmada ``pkg/resourceinterpreter/default/native/replica.go`` and
``revisereplica.go`` at tag v1.18.0, with ``helper.GenerateReplicaRequirements`` and
``helper.ApplyReplica`` (``pkg/util/helper``):

- replicas are read from ``apps/v1`` Deployment, ReplicaSet and StatefulSet (``spec.replicas``,
  absent = 0), ``batch/v1`` Job (``spec.parallelism``, at most ``spec.completions``) and ``v1``
  Pod (always 1); every other kind is copied whole to each cluster;
- the replica *requirements* exist when the pod template requests resources (requests, or
  limits standing in for them) or constrains nodes (nodeSelector, tolerations, required node
  affinity): with them a template of 0 replicas is still a workload (it is divided, to nothing);
- a member's count is written back (ReviseReplica) for Deployment, ReplicaSet, StatefulSet
  (``spec.replicas``) and Job (``spec.parallelism``), and only when the template has that
  field: a Deployment without ``spec.replicas`` keeps none. Pods are never revised.

A field of the wrong type fails Karmada's typed conversion: ``InterpretError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webhook.base.quantity import QuantityError, parse_quantity

REPLICA_FIELDS: Mapping[tuple[str, str], str] = {
    ("apps/v1", "Deployment"): "replicas",
    ("apps/v1", "ReplicaSet"): "replicas",
    ("apps/v1", "StatefulSet"): "replicas",
    ("batch/v1", "Job"): "parallelism",
}
"""The kinds ReviseReplica knows, and the field it writes."""
POD = ("v1", "Pod")
INT32 = (-(2**31), 2**31 - 1)


class InterpretError(ValueError):
    """The interpreter cannot read the object (Karmada cannot build its binding)."""


@dataclass(frozen=True)
class Replicas:
    """What the binding carries: the template's replica count and whether it has
    requirements (``replicaRequirements`` non-nil)."""

    count: int
    requirements: bool

    @property
    def workload(self) -> bool:
        """``ResourceBindingSpec.IsWorkload``: replicas are assigned (and revised)."""
        return self.count > 0 or self.requirements


def _kind(obj: Mapping[str, Any]) -> tuple[str, str]:
    return str(obj.get("apiVersion", "")), str(obj.get("kind", ""))


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InterpretError(f"{where} is not an object")
    return value


def _int32(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InterpretError(f"{where} is not an integer")
    if not INT32[0] <= value <= INT32[1]:
        raise InterpretError(f"{where} does not fit in int32")
    return value


def _positive_quantity(value: Any) -> bool:
    """A quantity that counts (zero does not); a malformed one fails the conversion."""
    try:
        return parse_quantity(value) > 0
    except QuantityError:
        raise InterpretError(f"quantity {value!r} is not valid") from None


def _requirements(pod_spec: Mapping[str, Any]) -> bool:
    """``GenerateReplicaRequirements(...) != nil``."""
    if pod_spec.get("nodeSelector") is not None or pod_spec.get("tolerations"):
        return True
    affinity = _mapping(pod_spec.get("affinity"), "affinity")
    node = _mapping(affinity.get("nodeAffinity"), "nodeAffinity")
    if node.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        return True
    for group in ("containers", "initContainers"):
        containers = pod_spec.get(group) or []
        if not isinstance(containers, list):
            raise InterpretError(f"{group} is not a list")
        for container in containers:
            resources = _mapping(_mapping(container, group).get("resources"), "resources")
            for part in ("requests", "limits"):
                amounts = _mapping(resources.get(part), part)
                if any(_positive_quantity(v) for v in amounts.values()):
                    return True
    overhead = _mapping(pod_spec.get("overhead"), "overhead")
    return any(_positive_quantity(v) for v in overhead.values())


def get_replicas(obj: Mapping[str, Any]) -> Replicas | None:
    """The binding's replicas and requirements; None for kinds the interpreter does not count."""
    kind = _kind(obj)
    spec = _mapping(obj.get("spec"), "spec")
    if kind == POD:
        return Replicas(1, _requirements(spec))
    field = REPLICA_FIELDS.get(kind)
    if field is None:
        return None
    template = _mapping(spec.get("template"), "spec.template")
    requirements = _requirements(_mapping(template.get("spec"), "spec.template.spec"))
    count = _int32(spec.get(field), f"spec.{field}") or 0
    if kind == ("batch/v1", "Job"):
        completions = _int32(spec.get("completions"), "spec.completions")
        if completions is not None and count > completions:
            count = completions
    return Replicas(count, requirements)


def api_server_defaults(obj: Mapping[str, Any]) -> tuple[Mapping[str, Any], str | None]:
    """The template as the Karmada API server stores it, as far as replicas go: a kube-apiserver
    defaults an absent ``spec.replicas`` of Deployment, ReplicaSet and StatefulSet to 1, and a
    Job's ``parallelism`` to 1 (``completions`` too when both are absent). Returns the object
    (a new one only when changed) and a note saying what was defaulted."""
    kind = _kind(obj)
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return obj, None
    added: dict[str, int] = {}
    if kind in REPLICA_FIELDS and kind != ("batch/v1", "Job") and "replicas" not in spec:
        added["replicas"] = 1
    elif kind == ("batch/v1", "Job") and "parallelism" not in spec:
        added["parallelism"] = 1
        if "completions" not in spec:
            added["completions"] = 1
    if not added:
        return obj, None
    defaulted = {**obj, "spec": {**spec, **added}}
    fields = " and ".join(f"spec.{f}" for f in added)
    return defaulted, f"{fields} absent: the API server stores 1, which Karmada divides"


def revise_replicas(obj: dict[str, Any], count: int) -> dict[str, Any]:
    """``ReviseReplica`` in place: the member's count, only where the template has the field."""
    field = REPLICA_FIELDS.get(_kind(obj))
    spec = obj.get("spec")
    if field is not None and isinstance(spec, dict) and field in spec:
        if isinstance(spec[field], bool) or not isinstance(spec[field], int):
            raise InterpretError(f"spec.{field} is not an integer")
        spec[field] = count
    return obj


def revise_completions(obj: dict[str, Any], count: int) -> dict[str, Any]:
    """``applyJobCompletions`` in place: a Divided Job's share of ``spec.completions``."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and "completions" in spec:
        spec["completions"] = count
    return obj

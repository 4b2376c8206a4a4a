"""Requests the API server never sends: refused before any rule reads them.

A rule matches a request by its kind, operation, subresource and namespace, and reads the
object and the old object. A request the API server would not send (an UPDATE without the old
object, CONNECT, a subresource fedgate does not know, ``apps/deployment`` in place of
``apps/Deployment``, a namespace that is not the object's) could slip past the rules that
should see it, so it is denied for every writer, with the reason. These are properties of the
request alone; what fedgate knows of kinds is the table below and the kinds the bundle's rules
name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.base.values import is_mapping
from webhook.bundle.model import Bundle
from webhook.engine.request import AdmissionRequest

SUBRESOURCES = ("", "status", "scale", "ephemeralcontainers")
"""The subresources fedgate judges: the object itself, its status, a workload's scaling and a
Pod's ephemeral containers (``kubectl debug``: code run in a Pod that is already there)."""

NAMESPACED = frozenset(
    {
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("apps", "ReplicaSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("", "Pod"),
        ("", "ReplicationController"),
        ("autoscaling", "Scale"),
        ("autoscaling", "HorizontalPodAutoscaler"),
        ("policy.karmada.io", "PropagationPolicy"),
        ("policy.karmada.io", "OverridePolicy"),
        ("autoscaling.karmada.io", "FederatedHPA"),
        ("autoscaling.karmada.io", "CronFederatedHPA"),
        ("work.karmada.io", "ResourceBinding"),
        ("work.karmada.io", "Work"),
        ("", "ConfigMap"),
        ("", "Secret"),
        ("", "PersistentVolumeClaim"),
    }
)
"""Kinds fedgate judges that live in a namespace (the request must name it)."""

CLUSTER_SCOPED = frozenset(
    {
        ("policy.karmada.io", "ClusterPropagationPolicy"),
        ("policy.karmada.io", "ClusterOverridePolicy"),
        ("work.karmada.io", "ClusterResourceBinding"),
        ("", "Namespace"),
    }
)
"""Kinds fedgate judges that live outside namespaces (the request must name none)."""


def problems(request: AdmissionRequest, bundle: Bundle) -> list[str]:
    """Why the API server would never send ``request`` (empty when it would): what
    ``every_problem`` says, in its order, with the part that depends on the request's shape
    alone (operation, subresource, kind, which objects it carries) worked out once per bundle
    for each shape, and the rest read here."""
    kind = request.kind
    shape = (
        request.operation,
        request.sub_resource,
        kind.group,
        kind.kind,
        request.object is None,
        request.old_object is None,
    )
    found = list(
        bundle.memo("request-shape", shape, lambda: tuple(_shape_problems(request, bundle)))
    )
    found += _object_kind_problems(request)
    found += _namespace_problems(request)
    return found


def every_problem(request: AdmissionRequest, bundle: Bundle) -> Iterator[str]:
    """``problems`` the slow way, each time: the reference its shortcut is tested against."""
    yield from _shape_problems(request, bundle)
    yield from _object_kind_problems(request)
    yield from _namespace_problems(request)


def _shape_problems(request: AdmissionRequest, bundle: Bundle) -> Iterator[str]:
    """What depends only on the request's shape (the key ``problems`` keeps them under)."""
    operation = request.operation
    if operation == "CONNECT":
        yield "CONNECT is not judged: fedgate is registered for CREATE, UPDATE and DELETE"
    if operation in ("CREATE", "UPDATE") and request.object is None:
        yield f"a {operation} request carries the object written, and this one has none"
    if operation in ("UPDATE", "DELETE") and request.old_object is None:
        yield f"a {operation} request carries the object as it was, and this one has none"
    if request.sub_resource not in SUBRESOURCES:
        yield (
            f"subresource {request.sub_resource!r} is not one fedgate judges "
            f"({', '.join(repr(s) for s in SUBRESOURCES)})"
        )
    group, kind = request.kind.group, request.kind.kind
    if group != group.lower():
        yield f"API group {group!r} is not lowercase, as every API group is"
    known = bundle.memo("known-kinds", "", lambda: _known_kinds(bundle))
    spelled = known.get((group.lower(), kind.lower()))
    if spelled is not None and spelled != (group, kind):
        yield (
            f"kind {_show(group, kind)} is not how the API server spells "
            f"{_show(*spelled)}: kinds are matched exactly"
        )


def _object_kind_problems(request: AdmissionRequest) -> Iterator[str]:
    kind = request.kind.kind
    for name, obj in (("object", request.object), ("oldObject", request.old_object)):
        if obj is None:
            continue
        written_kind, api_version = obj.get("kind"), obj.get("apiVersion")
        if written_kind is not None and written_kind != kind:
            yield f"request.{name} is a {written_kind!r}, not the {kind!r} the request names"
        if api_version is not None and api_version != request.kind.api_version:
            yield (
                f"request.{name} has apiVersion {api_version!r}, not the "
                f"{request.kind.api_version!r} the request names"
            )


def known_kind_names(bundle: Bundle) -> frozenset[str]:
    """The kind names fedgate knows (for bounded metric labels)."""
    return frozenset(kind for _, kind in _known_kinds(bundle).values())


def _known_kinds(bundle: Bundle) -> dict[tuple[str, str], tuple[str, str]]:
    """(group, kind) in lower case -> as the API server spells it, for every kind fedgate
    knows: the tables above and the kinds the bundle's rules match."""
    named = {k for r in bundle.rules for k in r.match.kinds if "*" not in k}
    return {(g.lower(), k.lower()): (g, k) for g, k in (*NAMESPACED, *CLUSTER_SCOPED, *named)}


def _namespace_problems(request: AdmissionRequest) -> Iterator[str]:
    namespace = request.namespace
    key = (request.kind.group, request.kind.kind)
    if key in NAMESPACED and not namespace:
        yield f"{request.kind.kind} lives in a namespace, and the request names none"
    if key in CLUSTER_SCOPED and namespace:
        yield f"{request.kind.kind} is cluster-wide, and the request names namespace {namespace}"
    for name, obj in (("object", request.object), ("oldObject", request.old_object)):
        written = _metadata_namespace(obj)
        if written and written != namespace:
            yield (
                f"request.{name} is in namespace {written!r}, and the request names "
                f"{namespace or 'none'!r}"
            )


def _metadata_namespace(obj: Mapping[str, Any] | None) -> str:
    metadata = (obj or {}).get("metadata")
    value = metadata.get("namespace") if is_mapping(metadata) else None
    return value if isinstance(value, str) else ""


def _show(group: str, kind: str) -> str:
    return f"{group}/{kind}" if group else kind

"""What each of kube-controller-manager's controllers writes on the Karmada API server.

Built-in rule: ``ownership.system-controller``. The ``system`` writer of ``writers.yaml`` is the
Karmada control plane's kube-controller-manager. Every Karmada installer runs it with
``--use-service-account-credentials`` and the controllers ``namespace``, ``garbagecollector``,
``serviceaccount-token``, ``ttl-after-finished``, ``bootstrapsigner``, ``tokencleaner``,
``csrcleaner``, ``csrsigning`` and ``clusterrole-aggregation``. Of the kinds the webhook sees,
three of them write, and only on the deletion path (Kubernetes v1.31):

- the namespace controller (``system:serviceaccount:kube-system:namespace-controller``) deletes
  every namespaced object of a namespace being deleted (pkg/controller/namespace/deletion:
  deleteAllContentForGroupVersionResource, a DeleteCollection that is one DELETE per object);
  nothing cluster-scoped, and nothing but DELETE;
- the garbage collector (``...:generic-garbage-collector``) deletes dependents, objects with
  ``metadata.ownerReferences`` (pkg/controller/garbagecollector/garbagecollector.go
  attemptToDeleteItem: an object without owners is left alone); it removes owner references
  from dependents (orphaning, dangling owners) or sets their ``blockOwnerDeletion`` to false
  (unblockOwnerReferences); and it removes its finalizers ``orphan`` and
  ``foregroundDeletion`` from an owner being deleted. Nothing else of the object changes;
- the ttl-after-finished controller (``...:ttl-after-finished-controller``) deletes a Job with
  ``spec.ttlSecondsAfterFinished`` that has finished (a ``Complete`` or ``Failed`` condition
  ``True``: pkg/controller/ttlafterfinished, which deletes with the resourceVersion it checked,
  so the object the webhook sees is the one it judged finished).

Without per-controller credentials they are all ``system:kube-controller-manager``, whose writes
are these together. Such a write is the controller's job, never judged by what the object
contains (a namespace whose deletion hangs on a webhook never goes). Any other write by a
``system`` user (a Deployment's image, a Pod created, a cluster-wide policy deleted by the
namespace controller) is judged as any writer's is, and this rule denies it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from webhook.base.values import same_json
from webhook.bundle.rules import Rule
from webhook.engine.context import Review
from webhook.engine.decision import Violation
from webhook.engine.ownfields import SERVER_METADATA
from webhook.engine.request import AdmissionRequest

SYSTEM = "system"
"""The writer of ``writers.yaml`` that is the control plane's kube-controller-manager."""
SERVICE_ACCOUNT = "system:serviceaccount:kube-system:"
KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager"
GC_FINALIZERS = ("orphan", "foregroundDeletion")
"""metav1.FinalizerOrphanDependents and FinalizerDeleteDependents: the API server adds them to
an owner deleted with propagationPolicy Orphan or Foreground; the garbage collector removes
them once the dependents are orphaned or gone."""
FINISHED = ("Complete", "Failed")


@dataclass(frozen=True)
class Lane:
    """One write a controller makes: its name (tests and docs), what it is, and the test."""

    name: str
    what: str
    admits: Callable[[AdmissionRequest], bool]


def _namespaced_delete(request: AdmissionRequest) -> bool:
    return request.operation == "DELETE" and bool(request.namespace)


def _dependent_delete(request: AdmissionRequest) -> bool:
    return request.operation == "DELETE" and bool(_list(request.old_object, "ownerReferences"))


def _finished_job_delete(request: AdmissionRequest) -> bool:
    if request.operation != "DELETE" or (request.kind.group, request.kind.kind) != ("batch", "Job"):
        return False
    old = request.old_object or {}
    spec, status = old.get("spec"), old.get("status")
    ttl = spec.get("ttlSecondsAfterFinished") if isinstance(spec, Mapping) else None
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
        return False
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    return isinstance(conditions, list) and any(
        isinstance(c, Mapping) and c.get("type") in FINISHED and c.get("status") == "True"
        for c in conditions
    )


def _gc_metadata_update(request: AdmissionRequest) -> bool:
    """Owner references removed or unblocked, GC finalizers removed; nothing else changed."""
    old, new = request.old_object, request.object
    if request.operation != "UPDATE" or request.sub_resource or old is None or new is None:
        return False
    before, after = _list(old, "ownerReferences"), _list(new, "ownerReferences")
    finalizers_before, finalizers_after = _list(old, "finalizers"), _list(new, "finalizers")
    if None in (before, after, finalizers_before, finalizers_after):
        return False
    assert before is not None and after is not None
    assert finalizers_before is not None and finalizers_after is not None
    return (
        _references_kept(before, after)
        and _gc_finalizers_removed(finalizers_before, finalizers_after)
        and same_json(_rest(old), _rest(new))
    )


def _references_kept(before: list[Any], after: list[Any]) -> bool:
    """``after`` is ``before`` with references taken out, in order, any ``blockOwnerDeletion``
    turned off."""
    remaining = iter(before)
    return all(
        isinstance(kept, Mapping)
        and any(
            isinstance(ref, Mapping)
            and same_json(_without_block(ref), _without_block(kept))
            and (kept.get("blockOwnerDeletion") in (None, False) or same_json(ref, kept))
            for ref in remaining
        )
        for kept in after
    )


def _without_block(ref: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ref.items() if k != "blockOwnerDeletion"}


def _gc_finalizers_removed(before: list[Any], after: list[Any]) -> bool:
    remaining = iter(before)
    for kept in after:
        for entry in remaining:
            if same_json(entry, kept):
                break
            if entry not in GC_FINALIZERS:
                return False
        else:
            return False
    return all(entry in GC_FINALIZERS for entry in remaining)


def _list(obj: Mapping[str, Any] | None, key: str) -> list[Any] | None:
    """``metadata.<key>`` as a list (absent: empty); None when it is no list."""
    metadata = obj.get("metadata") if isinstance(obj, Mapping) else None
    value = metadata.get(key) if isinstance(metadata, Mapping) else None
    if value is None:
        return []
    return value if isinstance(value, list) else None


def _rest(obj: Mapping[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata")
    rest = dict(obj)
    if isinstance(metadata, Mapping):
        rest["metadata"] = {
            k: v
            for k, v in metadata.items()
            if k not in SERVER_METADATA and k not in ("ownerReferences", "finalizers")
        }
    return rest


NAMESPACE_CONTENT = Lane(
    "namespace-deleted",
    "deletes the namespaced objects of a namespace being deleted",
    _namespaced_delete,
)
DEPENDENT_DELETED = Lane(
    "garbage-collected",
    "deletes objects whose owners are gone (ownerReferences)",
    _dependent_delete,
)
ORPHANED = Lane(
    "orphaned",
    "removes or unblocks owner references and removes its orphan and foregroundDeletion finalizers",
    _gc_metadata_update,
)
TTL = Lane(
    "ttl-after-finished",
    "deletes finished Jobs with spec.ttlSecondsAfterFinished",
    _finished_job_delete,
)
CONTROLLERS: dict[str, tuple[Lane, ...]] = {
    "namespace-controller": (NAMESPACE_CONTENT,),
    "generic-garbage-collector": (DEPENDENT_DELETED, ORPHANED),
    "ttl-after-finished-controller": (TTL,),
}
"""Each controller's service account (in kube-system) and the writes that are its job, of the
kinds the webhook sees; kube-controller-manager's other controllers write none of them."""


def controller(username: str) -> str | None:
    """The controller a ``system`` user is: its service account's name, ``None`` for
    kube-controller-manager's own user (every controller)."""
    if username.startswith(SERVICE_ACCOUNT):
        return username[len(SERVICE_ACCOUNT) :]
    return None


def lanes(username: str) -> tuple[Lane, ...]:
    """The writes that are this user's job: one controller's, or, for
    ``system:kube-controller-manager``, every controller's; none for another user."""
    if username == KUBE_CONTROLLER_MANAGER:
        return tuple(lane for own in CONTROLLERS.values() for lane in own)
    name = controller(username)
    return CONTROLLERS.get(name, ()) if name is not None else ()


def in_lane(request: AdmissionRequest, username: str) -> bool:
    """Whether this write is the job of the kube-controller-manager controller making it."""
    return any(lane.admits(request) for lane in lanes(username))


def check_system_controller(review: Review, rule: Rule) -> Iterator[Violation]:
    identity = review.identity
    if identity.writer != SYSTEM or in_lane(review.request, identity.username):
        return
    request = review.request
    what = request.kind.kind + (f"/{request.sub_resource}" if request.sub_resource else "")
    where = f" in {request.namespace}" if request.namespace else " (cluster-wide)"
    own = lanes(identity.username)
    if not own:
        known = ", ".join(CONTROLLERS)
        subject = (
            f"{identity.username} is no controller of kube-controller-manager's that writes "
            f"what fedgate judges ({known}), so it writes nothing here"
        )
    elif identity.username == KUBE_CONTROLLER_MANAGER:
        subject = "kube-controller-manager's controllers: " + "; ".join(lane.what for lane in own)
    else:
        subject = f"kube-controller-manager's {controller(identity.username)} " + "; ".join(
            lane.what for lane in own
        )
    yield review.violation(
        rule,
        f"{subject}; {identity.describe()} may not {request.operation.lower()} this {what}{where}",
        owner=SYSTEM,
    )

"""Writes that change only what their writer owns, judged on those fields alone.

The control plane writes on objects it did not author: Karmada's detector claims a template
(and releases it) with labels and annotations, Karmada's controllers add and remove their
finalizers, any controller removes its finalizer from an object being deleted. Such a write
carries the whole object, but changes nothing of what the object contains; judging the
contents again (the image of a template break-glass created, the placement of a policy that is
going away) would deny the controller a write that is its job, and the object would never be
claimed or never go (a policy stuck Terminating hangs its namespace's deletion).

So an UPDATE whose only changes are

- Karmada's fields, written by a Karmada user: the claim labels and annotations
  (``KARMADA_CLAIM_LABELS``, ``KARMADA_CLAIM_ANNOTATIONS``), finalizers named ``karmada.io/...``,
  and ``/status`` through the status subresource; or
- finalizers removed from an object under deletion (``metadata.deletionTimestamp`` set),
  by anyone

meets only the rules about who writes (``WRITER_RULES`` in ``builtins.py``): whether this
writer may change those fields, in this namespace, as this component. Every other change, even
one field beside them, is a write of that field, and every rule judges it. So does a DELETE by
a Karmada user (its controllers delete bindings and Works they derived): what the object held
is no reason to keep it (the control plane's kube-controller-manager is never judged at all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.base.ledger import KARMADA_CLAIM_FIELDS
from webhook.base.values import same_json
from webhook.engine.identity import KARMADA, Identity
from webhook.engine.request import AdmissionRequest


def _claim_keys(where: str) -> tuple[str, ...]:
    prefix = f"/metadata/{where}/"
    return tuple(
        p[len(prefix) :].replace("~1", "/").replace("~0", "~")
        for p in KARMADA_CLAIM_FIELDS
        if p.startswith(prefix)
    )


KARMADA_CLAIM_LABELS = _claim_keys("labels")
KARMADA_CLAIM_ANNOTATIONS = _claim_keys("annotations")
"""What Karmada's detector writes on a template it claims, and removes when it lets it go
(Karmada v1.18 pkg/detector/claim.go): the keys of ``webhook.base.ledger.KARMADA_CLAIM_FIELDS``."""
KARMADA_FINALIZER_PREFIX = "karmada.io/"
"""Karmada's controllers' finalizers (pkg/util/constants.go: karmada.io/propagation-policy-
controller, karmada.io/binding-controller, ...)."""
SERVER_METADATA = (
    "resourceVersion",
    "managedFields",
    "generation",
    "creationTimestamp",
    "uid",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)
"""What the API server maintains (``ownership.UNOWNED``): no writer's change."""


def own_fields_only(request: AdmissionRequest, identity: Identity) -> bool:
    """Whether this write changes only fields its writer owns, or is Karmada's DELETE (module
    docstring): judged by the rules about who writes alone."""
    if request.operation == "DELETE":
        return identity.writer == KARMADA
    old, new = request.old_object, request.object
    if request.operation != "UPDATE" or old is None or new is None:
        return False
    karmada = identity.writer == KARMADA
    status = karmada and request.sub_resource == "status"
    if (
        karmada
        and not _outside_metadata_changed(old, new, status)
        and same_json(_rest(old, True, status), _rest(new, True, status))
    ):
        return True
    return _finalizers_removed_in_deletion(old, new)


def only_label_changed(old: Mapping[str, Any], new: Mapping[str, Any], key: str) -> bool:
    """Whether ``new`` is ``old`` but for label ``key`` (added, changed or removed) and what
    the API server maintains."""
    return same_json(_without_label(old, key), _without_label(new, key))


def _without_label(obj: Mapping[str, Any], key: str) -> Any:
    rest = _rest(obj, False, False)
    metadata = rest.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    if isinstance(metadata, dict) and isinstance(labels, Mapping):
        kept = {k: v for k, v in labels.items() if k != key}
        metadata["labels"] = kept
        if not kept:
            del metadata["labels"]
    return rest


def _outside_metadata_changed(old: Mapping[str, Any], new: Mapping[str, Any], status: bool) -> bool:
    """Whether a field beside ``metadata`` (and ``status``, for a status write) differs in
    Python's ``==``: then ``_rest`` differs too, and neither copy needs building (a Karmada
    controller's spec write, a FederatedHPA's replicas, is most of what reaches this)."""
    return any(
        old.get(key) != new.get(key)
        for key in (*old, *new)
        if key != "metadata" and not (status and key == "status")
    )


def _finalizers_removed_in_deletion(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    metadata = old.get("metadata")
    if not isinstance(metadata, Mapping) or not metadata.get("deletionTimestamp"):
        return False
    before, after = _finalizers(old), _finalizers(new)
    if before is None or after is None or not _removed_only(before, after):
        return False
    return same_json(_rest(old, False, False), _rest(new, False, False))


def _removed_only(before: list[Any], after: list[Any]) -> bool:
    """``after`` is ``before`` with some entries taken out, the rest in their order."""
    remaining = iter(before)
    return all(any(same_json(kept, entry) for entry in remaining) for kept in after)


def _finalizers(obj: Mapping[str, Any]) -> list[Any] | None:
    metadata = obj.get("metadata")
    value = metadata.get("finalizers") if isinstance(metadata, Mapping) else None
    if value is None:
        return []
    return value if isinstance(value, list) else None


def _rest(obj: Mapping[str, Any], karmada: bool, status: bool) -> Any:
    """``obj`` without what the write may change: the API server's metadata, the finalizers
    (those of Karmada for a Karmada write, all of them under deletion), Karmada's claims for a
    Karmada write and ``/status`` for its status write; empty maps and lists left behind
    dropped (Karmada's cleanup leaves none, so its write omits them)."""
    rest = {k: v for k, v in obj.items() if not (status and k == "status")}
    metadata = obj.get("metadata")
    if not isinstance(metadata, Mapping):
        return rest
    kept: dict[str, Any] = {
        k: v for k, v in metadata.items() if k not in SERVER_METADATA and k != "finalizers"
    }
    finalizers = metadata.get("finalizers")
    if not isinstance(finalizers, list):
        if finalizers is not None:
            kept["finalizers"] = finalizers  # not a list: compared as it is
    elif karmada:
        others = [f for f in finalizers if not str(f).startswith(KARMADA_FINALIZER_PREFIX)]
        if others:
            kept["finalizers"] = others
    if karmada:
        for key, claims in (
            ("labels", KARMADA_CLAIM_LABELS),
            ("annotations", KARMADA_CLAIM_ANNOTATIONS),
        ):
            value = kept.get(key)
            if isinstance(value, Mapping):
                value = {k: v for k, v in value.items() if k not in claims}
                kept[key] = value
    for key in ("labels", "annotations"):
        if key in kept and kept[key] in ({}, None):
            del kept[key]
    rest["metadata"] = kept
    return rest

"""``own_fields_only`` (the gate that judges a write of its writer's own fields on those fields
alone) against a slow oracle: the pointers the write changes (``ownership.changed_pointers``,
the field-owner rule's own reading), each one Karmada's claim, a Karmada finalizer, the API
server's metadata or, through the status subresource, ``/status``. The gate may say False where
the oracle says True (the write is then judged whole), never True where a change lies outside.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.base.ledger import KARMADA_CLAIM_FIELDS
from webhook.engine.identity import Identity
from webhook.engine.ownership import UNOWNED, changed_pointers
from webhook.engine.ownfields import (
    KARMADA_CLAIM_ANNOTATIONS,
    KARMADA_CLAIM_LABELS,
    own_fields_only,
)
from webhook.engine.request import parse_review

KARMADA = Identity(
    "karmada", "system:karmada:karmada-controller-manager", None, "controller-manager"
)
TENANT = Identity("tenant", "alice@example.com", "team-a")
FINALIZERS = ("karmada.io/binding-controller", "karmada.io/propagation-policy-controller", "x.io/y")
OTHER_LABELS = ("app", "fedgate.dev/tenant", "resourcetemplate.karmada.io/retain-replicas")

scalars = st.sampled_from(["a", "b", "", 0, 1, True, None])
metadata = st.fixed_dictionaries(
    {},
    optional={
        "labels": st.dictionaries(
            st.sampled_from(KARMADA_CLAIM_LABELS + OTHER_LABELS), st.sampled_from(["1", "2"])
        ),
        "annotations": st.dictionaries(
            st.sampled_from((*KARMADA_CLAIM_ANNOTATIONS, "note", "fedgate.dev/ownership")),
            st.sampled_from(["p", "q"]),
        ),
        "finalizers": st.lists(st.sampled_from(FINALIZERS), max_size=3, unique=True),
        "resourceVersion": st.sampled_from(["1", "2"]),
        "deletionTimestamp": st.sampled_from(["2026-12-02T06:00:00Z"]),
        "ownerReferences": st.lists(st.fixed_dictionaries({"uid": scalars}), max_size=1),
    },
)
objects = st.fixed_dictionaries(
    {"metadata": metadata},
    optional={
        "spec": st.dictionaries(st.sampled_from(["replicas", "image"]), scalars, max_size=2),
        "status": st.dictionaries(st.sampled_from(["ready"]), scalars, max_size=1),
    },
)


def _request(old: Any, new: Any, sub: str) -> Any:
    body = {
        "uid": "u",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "name": "x",
        "namespace": "platform-demo",
        "operation": "UPDATE",
        "userInfo": {"username": "u"},
        "object": {"apiVersion": "apps/v1", "kind": "Deployment", **new},
        "oldObject": {"apiVersion": "apps/v1", "kind": "Deployment", **old},
    }
    if sub:
        body["subResource"] = sub
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": body}
    return parse_review(review, require_uid=False)


def _karmada_oracle(old: Any, new: Any, status: bool) -> bool:
    """Every changed pointer is Karmada's, the server's, or ``/status`` through status."""

    def finalizers_not_karmadas(obj: Any) -> list[Any]:
        found = obj.get("metadata", {}).get("finalizers") or []
        return [f for f in found if not f.startswith("karmada.io/")]

    def claims_only(obj: Any, where: str, keys: tuple[str, ...]) -> bool:
        return all(k in keys for k in (obj.get("metadata", {}).get(where) or {}))

    for pointer in changed_pointers(old, new):
        if pointer in KARMADA_CLAIM_FIELDS or pointer in UNOWNED:
            continue
        if status and (pointer == "/status" or pointer.startswith("/status/")):
            continue
        finalizer = pointer == "/metadata/finalizers" or pointer.startswith("/metadata/finalizers/")
        if finalizer and finalizers_not_karmadas(old) == finalizers_not_karmadas(new):
            continue
        if pointer == "/metadata/labels" and all(
            claims_only(o, "labels", KARMADA_CLAIM_LABELS) for o in (old, new)
        ):
            continue  # the whole map added or removed, claims alone in it
        if pointer == "/metadata/annotations" and all(
            claims_only(o, "annotations", KARMADA_CLAIM_ANNOTATIONS) for o in (old, new)
        ):
            continue
        return False
    return True


EDITS = (
    ("labels", KARMADA_CLAIM_LABELS[0]),
    ("labels", KARMADA_CLAIM_LABELS[1]),
    ("labels", "app"),
    ("annotations", KARMADA_CLAIM_ANNOTATIONS[0]),
    ("annotations", "note"),
    ("finalizers", FINALIZERS[0]),
    ("finalizers", FINALIZERS[2]),
    ("spec", "replicas"),
    ("status", "ready"),
    ("resourceVersion", ""),
    ("ownerReferences", ""),
)


def _edit(obj: Any, where: str, key: str) -> None:
    """Toggle one field of ``obj`` (set it when absent, remove it when present)."""
    meta = obj["metadata"]
    if where in ("labels", "annotations"):
        found = meta.setdefault(where, {})
        found.pop(key) if key in found else found.__setitem__(key, "v")
        if not found:
            del meta[where]
    elif where == "finalizers":
        found = meta.setdefault("finalizers", [])
        found.remove(key) if key in found else found.append(key)
    elif where in ("spec", "status"):
        found = obj.setdefault(where, {})
        found.pop(key) if key in found else found.__setitem__(key, 7)
    elif where == "resourceVersion":
        meta["resourceVersion"] = str(meta.get("resourceVersion", "0")) + "1"
    else:
        meta["ownerReferences"] = [] if meta.get("ownerReferences") else [{"uid": "1"}]


@settings(max_examples=500, deadline=None)
@given(
    old=objects,
    edits=st.lists(st.sampled_from(EDITS), min_size=1, max_size=4),
    status=st.booleans(),
)
def test_own_fields_exactly_where_every_change_is_karmadas(
    old: Any, edits: list[tuple[str, str]], status: bool
) -> None:
    """For a Karmada write outside deletion, the gate and the oracle agree both ways."""
    old["metadata"].pop("deletionTimestamp", None)
    new = copy.deepcopy(old)
    for where, key in edits:
        _edit(new, where, key)
    request = _request(old, new, "status" if status else "")
    assert own_fields_only(request, KARMADA) == _karmada_oracle(old, new, status)


@settings(max_examples=300, deadline=None)
@given(old=objects, new=objects, status=st.booleans())
def test_never_own_fields_where_a_change_lies_outside(old: Any, new: Any, status: bool) -> None:
    request = _request(old, new, "status" if status else "")
    if own_fields_only(request, KARMADA) and not old.get("metadata", {}).get("deletionTimestamp"):
        assert _karmada_oracle(old, new, status)


@settings(max_examples=400, deadline=None)
@given(old=objects, status=st.booleans(), data=st.data())
def test_karmadas_own_edits_alone_are_own_fields(old: Any, status: bool, data: Any) -> None:
    """Karmada's edits (claims set or removed, its finalizers, status through status) on any
    object: always a write of its own fields alone."""
    new = copy.deepcopy(old)
    meta = new["metadata"]
    for key in data.draw(st.lists(st.sampled_from(KARMADA_CLAIM_LABELS), max_size=2)):
        labels = meta.setdefault("labels", {})
        labels.pop(key) if key in labels else labels.__setitem__(key, "id")
    for key in data.draw(st.lists(st.sampled_from(KARMADA_CLAIM_ANNOTATIONS), max_size=2)):
        notes = meta.setdefault("annotations", {})
        notes.pop(key) if key in notes else notes.__setitem__(key, "name")
    for key in ("labels", "annotations"):
        if meta.get(key) == {} and data.draw(st.booleans()):
            del meta[key]  # Go's omitempty: Karmada's cleanup leaves no empty map
    finalizers = meta.get("finalizers") or []
    karmadas = [f for f in finalizers if f.startswith("karmada.io/")]
    others = [f for f in finalizers if not f.startswith("karmada.io/")]
    kept = data.draw(st.lists(st.sampled_from(FINALIZERS[:2]), max_size=2, unique=True))
    meta["finalizers"] = others + kept if data.draw(st.booleans()) else kept + others
    if not meta["finalizers"] and not karmadas and "finalizers" not in old["metadata"]:
        del meta["finalizers"]
    if status:
        new["status"] = {"ready": data.draw(scalars)}
    assert own_fields_only(_request(old, new, "status" if status else ""), KARMADA)


@settings(max_examples=300, deadline=None)
@given(old=objects, data=st.data())
def test_finalizers_removed_under_deletion_are_anyones(old: Any, data: Any) -> None:
    old = copy.deepcopy(old)
    old["metadata"]["deletionTimestamp"] = "2026-12-02T06:00:00Z"
    before = old["metadata"].get("finalizers") or []
    new = copy.deepcopy(old)
    new["metadata"]["finalizers"] = [f for f in before if data.draw(st.booleans())]
    assert own_fields_only(_request(old, new, ""), TENANT)
    spoiled = copy.deepcopy(new)
    spoiled.setdefault("spec", {})["image"] = "docker.io/evil:latest"
    if spoiled.get("spec") != old.get("spec"):
        assert not own_fields_only(_request(old, spoiled, ""), TENANT)
        assert not own_fields_only(_request(old, spoiled, ""), KARMADA)


def test_a_finalizer_added_under_deletion_is_not_a_removal() -> None:
    old = {"metadata": {"deletionTimestamp": "t", "finalizers": ["x.io/y"]}}
    new = {"metadata": {"deletionTimestamp": "t", "finalizers": ["x.io/y", "x.io/z"]}}
    assert not own_fields_only(_request(old, new, ""), TENANT)


def test_a_tenants_claim_is_no_own_field() -> None:
    """Karmada's claim fields are Karmada's: a tenant setting one writes the object."""
    old: dict[str, Any] = {"metadata": {}}
    new = {"metadata": {"labels": {KARMADA_CLAIM_LABELS[0]: "forged"}}}
    assert not own_fields_only(_request(old, new, ""), TENANT)
    assert own_fields_only(_request(old, new, ""), KARMADA)

"""The AdmissionRequest a write from git will become, built without an API server.

``fedgate compile`` and ``fedgate check`` review every rendered object as the request Argo
CD's sync will send (CREATE, or UPDATE with the committed version as oldObject, from the git
writer's identity), so a change that passes before the commit passes at admission.

The objects are reviewed as the API server will hold them (``as_stored``): a key whose value
is null is dropped, as decoding a built-in kind drops it, as a CRD's structural schema prunes
a non-nullable field, and as ``kubectl apply`` removes a field set to null. YAML's ``key:``
with no value is such a null: written in git, it is never in the request admission sees.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from webhook.bundle.model import Bundle
from webhook.engine.request import AdmissionRequest, parse_request


def writer_user(bundle: Bundle, writer: str) -> dict[str, Any]:
    """A ``userInfo`` the bundle maps to ``writer`` (its first username, prefix or group)."""
    found = bundle.writer(writer)
    if found is None:
        return {"username": f"fedgate:{writer}", "groups": []}
    if found.usernames:
        username = sorted(found.usernames)[0]
    elif found.username_prefixes:
        username = found.username_prefixes[0] + "fedgate"
    else:
        username = f"fedgate:{writer}"
    groups = sorted(found.groups)
    if username.startswith("system:serviceaccount:"):
        namespace = username.split(":")[2]
        groups = [
            *groups,
            "system:serviceaccounts",
            f"system:serviceaccounts:{namespace}",
            "system:authenticated",
        ]
    return {"username": username, "groups": groups}


def as_stored(value: Any) -> Any:
    """``value`` without the map entries whose value is null, at any depth (a list's null
    items stay: the API server keeps or refuses them by the field's type)."""
    if isinstance(value, Mapping):
        return {key: as_stored(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [as_stored(item) for item in value]
    return value


def plural(kind: str) -> str:
    """The resource name of a kind, as the API server names it (Deployment -> deployments)."""
    lower = kind.lower()
    if lower.endswith("y"):
        return lower[:-1] + "ies"
    return lower + ("es" if lower.endswith("s") else "s")


def sync_request(
    new: Mapping[str, Any] | None,
    old: Mapping[str, Any] | None,
    bundle: Bundle,
    *,
    writer: str = "git",
    user: Mapping[str, Any] | None = None,
) -> AdmissionRequest:
    """The request of writing ``new`` over ``old`` (CREATE when old is None, DELETE when new is)
    as ``writer`` of the bundle (or as ``user``, a userInfo)."""
    new = None if new is None else as_stored(new)
    old = None if old is None else as_stored(old)
    sample = new if new is not None else old
    assert sample is not None, "a write needs an object"
    group, _, version = str(sample.get("apiVersion", "")).rpartition("/")
    metadata = sample.get("metadata") or {}
    operation = "CREATE" if old is None else "DELETE" if new is None else "UPDATE"
    request = {
        "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, json.dumps([new, old], sort_keys=True))),
        "kind": {"group": group, "version": version, "kind": sample.get("kind", "")},
        "resource": {
            "group": group,
            "version": version,
            "resource": plural(str(sample.get("kind", ""))),
        },
        "name": metadata.get("name", ""),
        "namespace": metadata.get("namespace", ""),
        "operation": operation,
        "userInfo": dict(user) if user is not None else writer_user(bundle, writer),
        "object": new,
        "oldObject": old,
        "dryRun": False,
    }
    return parse_request(request)

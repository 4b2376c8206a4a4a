"""The AdmissionRequest a write from git will become, built without an API server.

``fedgate compile`` and ``fedgate check`` review every rendered object as the request Argo
CD's sync will send (CREATE, or UPDATE with the committed version as oldObject, from the git
writer's identity), so a change that passes before the commit passes at admission.
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

"""Shipped example requests, turned in the ways a review shortcut's key could miss: another
operation, subresource, writer or namespace, more or fewer replicas, a label or a status
written. Shared by the shortcut and rule-loop differential tests."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from tests.conftest import EXAMPLES

EXAMPLE_REQUESTS = sorted((EXAMPLES / "requests").glob("*.json"))
USERS = [
    {"username": "system:serviceaccount:kube-system:argocd-manager", "groups": []},
    {"username": "system:karmada:karmada-controller-manager", "groups": []},
    {"username": "alice@example.com", "groups": ["team-a"]},
    {"username": "bob@example.com", "groups": ["team-b"]},
    {"username": "oncall@example.com", "groups": ["break-glass"]},
    {"username": "system:serviceaccount:kube-system:namespace-controller", "groups": []},
]


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A shipped example, turned in the ways a shortcut's key could miss."""
    document = json.loads(draw(st.sampled_from(EXAMPLE_REQUESTS)).read_text())
    request = document["request"]
    obj = request.get("object") or request.get("oldObject")
    operation = draw(st.sampled_from(["CREATE", "UPDATE", "DELETE", request["operation"]]))
    if draw(st.booleans()):
        request["userInfo"] = dict(draw(st.sampled_from(USERS)))
    request["subResource"] = draw(st.sampled_from([None, "status", request.get("subResource")]))
    if request["subResource"] is None:
        del request["subResource"]
    if draw(st.booleans()):
        namespace = draw(st.sampled_from(["team-a", "team-b", "platform-demo", "kube-system"]))
        request["namespace"] = namespace
        if isinstance(obj.get("metadata"), dict):
            obj["metadata"]["namespace"] = namespace
    new = copy.deepcopy(obj)
    spec = new.get("spec")
    if isinstance(spec, dict) and "replicas" in spec:
        spec["replicas"] = draw(st.sampled_from([0, 1, 2, 5, 40, 400]))
    if draw(st.booleans()):
        new.setdefault("metadata", {}).setdefault("labels", {})["shortcut"] = "x"
    if draw(st.booleans()):
        new["status"] = {"replicas": draw(st.integers(0, 3))}
    request["operation"] = operation
    request["object"] = None if operation == "DELETE" else new
    request["oldObject"] = None if operation == "CREATE" else obj
    return document

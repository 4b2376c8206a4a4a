"""The review's per-bundle shortcuts against the full review: the same Decision, whatever comes.

What ``review()`` works out once per bundle and reuses across requests: the rules a request's
kind, operation, subresource and scope meet (the kind index and the "applicable-rules" memo),
who a user is (the "identity" memo), and what the rules keep per bundle (the quota's fit and
Git's bill, the policies that can claim a namespace's templates, the pods the members run).
The full review is the same request on a copy of the bundle with no kind index and no memo (a
``replace`` copies neither), so every rule is visited and every value computed for this request
alone; the shortcut review runs on the session's bundle, whose memos every earlier request
(here and in the other tests) has filled, as a worker's are. The requests are the shipped
examples turned: another operation, subresource, writer or namespace, more or fewer replicas,
a label or a status written, so keys that differ in one part meet the same tables; and
OverridePolicies (``test_targets_property``'s), new ones and Git's own ``demo-http`` rewritten,
whose targets' copies without them are kept per bundle (``baseline.py``).
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES
from tests.webhook.engine.test_targets_property import ALICE, GIT, override_policies
from webhook.bundle.model import Bundle
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request

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


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=requests())
def test_the_shortcuts_decide_as_the_full_review(bundle: Bundle, document: dict[str, Any]) -> None:
    full_bundle = replace(bundle, _rules_by_kind={})  # every rule visited, no memo
    assert not full_bundle._memo
    shortcut = review(parse_review(copy.deepcopy(document)), bundle)
    full = review(parse_review(copy.deepcopy(document)), full_bundle)
    assert shortcut == full


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=override_policies(), user=st.sampled_from([ALICE, GIT]), update=st.booleans())
def test_an_override_is_judged_as_by_the_full_review(
    bundle: Bundle, policy: dict[str, Any], user: dict[str, Any], update: bool
) -> None:
    """Its targets' copies without it come from the bundle's memo, filled by earlier policies
    (another name, or Git's own policy of that name being rewritten)."""
    assert bundle.index is not None
    full_bundle = replace(bundle, _rules_by_kind={})
    old = copy.deepcopy(policy) if update else None
    if old is not None:
        old["spec"]["overrideRules"] = []

    def write(judged: Bundle) -> Any:
        request = sync_request(copy.deepcopy(policy), copy.deepcopy(old), judged, user=user)
        return review(request, judged)

    assert write(bundle) == write(full_bundle)

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
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.webhook.engine.test_targets_property import ALICE, GIT, override_policies
from tests.webhook.engine.turned import requests
from webhook.bundle.model import Bundle
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request


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

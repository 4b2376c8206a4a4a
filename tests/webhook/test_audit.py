"""The audit line names the clusters a propagation policy can select, shared with the review."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from webhook.audit import audit_record
from webhook.bundle.model import Bundle
from webhook.engine.request import UserInfo, parse_review
from webhook.engine.review import review
from webhook.engine.tenancy import candidates

REQUESTS = Path(__file__).resolve().parents[2] / "examples" / "requests"


def _request(name: str) -> Any:
    return parse_review(orjson.loads((REQUESTS / name).read_bytes()), require_uid=False)


@pytest.mark.parametrize(
    "name",
    [
        "propagationpolicy-create-allowed.json",
        "propagationpolicy-team-a-on-cluster-c-denied.json",
        "clusterpropagationpolicy-by-platform-allowed.json",
    ],
)
def test_the_review_works_out_the_clusters_the_audit_line_names(bundle: Bundle, name: str) -> None:
    request = _request(name)
    decision = review(request, bundle)
    assert decision.targets is not None
    record = audit_record(request, decision, 0.001)
    placement = list(candidates(request.object["spec"], bundle))
    assert record["clusters"] == list(decision.targets) == placement


def test_a_deleted_policy_is_audited_with_its_old_placement(bundle: Bundle) -> None:
    created = _request("propagationpolicy-create-allowed.json")
    deleted = replace(created, operation="DELETE", object=None, old_object=created.object)
    decision = review(deleted, bundle)
    assert decision.targets == review(created, bundle).targets
    assert audit_record(deleted, decision, 0.001)["clusters"] == list(decision.targets)


def test_kinds_that_do_not_place_have_no_clusters(bundle: Bundle) -> None:
    request = _request("deployment-replicas-by-federatedhpa-allowed.json")
    decision = review(request, bundle)
    assert decision.targets is None
    assert audit_record(request, decision, 0.001)["clusters"] is None


def test_the_control_planes_own_writes_are_audited_with_their_clusters(bundle: Bundle) -> None:
    created = _request("propagationpolicy-create-allowed.json")
    collector = replace(
        created,
        operation="DELETE",
        object=None,
        old_object=created.object,
        user=UserInfo("system:serviceaccount:kube-system:generic-garbage-collector"),
    )
    decision = review(collector, bundle)
    assert decision.allowed and decision.targets == review(created, bundle).targets

"""Parsing AdmissionReviews: real payloads parse; bad requests are RequestErrors, never crashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from webhook.bundle.model import Bundle
from webhook.engine.request import parse_request, parse_review
from webhook.engine.review import review
from webhook.errors import RequestError


def _v1_reviews(reference: Path) -> list[Path]:
    folder = reference / "admission" / "reviews"
    return [
        p
        for p in sorted(folder.iterdir())
        if p.suffix in (".json", ".yaml")
        and "v1beta1" not in p.read_text()
        and "truncated" not in p.name
    ]


def _load(path: Path) -> Any:
    return (
        json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())
    )


def test_real_v1_reviews_parse_and_get_a_decision(reference: Path, bundle: Bundle) -> None:
    reviewed = 0
    for path in _v1_reviews(reference):
        document = _load(path)
        if document["request"].get("operation") not in ("CREATE", "UPDATE", "DELETE"):
            with pytest.raises(RequestError, match="operation"):
                parse_review(document)
            continue
        request = parse_review(document)
        assert request.uid == document["request"]["uid"]
        review(request, bundle)  # any decision, but a decision
        reviewed += 1
    assert reviewed >= 5


def test_real_bare_requests_parse(reference: Path, bundle: Bundle) -> None:
    for path in sorted((reference / "admission" / "requests-only").glob("*.json")):
        request = parse_request(json.loads(path.read_text()))
        assert request.operation in ("CREATE", "UPDATE", "DELETE")
        if request.operation == "DELETE":
            assert request.object is None and request.old_object is not None
        review(request, bundle)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param([], "must be an object", id="not-an-object"),
        pytest.param(
            {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1beta1", "request": {}},
            "apiVersion must be admission.k8s.io/v1",
            id="v1beta1",
        ),
        pytest.param(
            {"kind": "Pod", "apiVersion": "admission.k8s.io/v1"}, "kind must be", id="wrong-kind"
        ),
        pytest.param(
            {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1"},
            "request must be an object",
            id="no-request",
        ),
        pytest.param(
            {
                "kind": "AdmissionReview",
                "apiVersion": "admission.k8s.io/v1",
                "request": {"kind": {"kind": "Pod"}, "operation": "CREATE"},
            },
            "request.uid is required",
            id="no-uid",
        ),
        pytest.param(
            {
                "kind": "AdmissionReview",
                "apiVersion": "admission.k8s.io/v1",
                "request": {
                    "uid": "1",
                    "kind": {"kind": "Pod"},
                    "operation": "CREATE",
                    "userInfo": {"groups": "admins"},
                },
            },
            "groups must be a list",
            id="bad-groups",
        ),
        pytest.param(
            {
                "kind": "AdmissionReview",
                "apiVersion": "admission.k8s.io/v1",
                "request": {
                    "uid": "1",
                    "kind": {"kind": "Pod"},
                    "operation": "CREATE",
                    "object": "x",
                },
            },
            "request.object must be an object",
            id="bad-object",
        ),
    ],
)
def test_bad_requests(document: Any, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        parse_review(document)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
request_fields = st.fixed_dictionaries(
    {
        "uid": st.text(min_size=1, max_size=5),
        "operation": st.sampled_from(["CREATE", "UPDATE", "DELETE"]),
        "kind": st.fixed_dictionaries(
            {
                "group": st.sampled_from(["", "apps", "policy.karmada.io"]),
                "version": st.just("v1"),
                "kind": st.sampled_from(
                    ["Deployment", "PropagationPolicy", "OverridePolicy", "Scale"]
                ),
            }
        ),
    },
    optional={
        "namespace": st.sampled_from(["platform-demo", "payments", "x"]),
        "userInfo": st.fixed_dictionaries(
            {"username": st.text(max_size=8)},
            optional={
                "groups": st.lists(
                    st.sampled_from(["team-a", "platform-admins", "fedgate:break-glass"])
                )
            },
        ),
        "object": st.dictionaries(
            st.sampled_from(["metadata", "spec", "kind"]), json_values, max_size=3
        ),
        "oldObject": st.dictionaries(
            st.sampled_from(["metadata", "spec"]), json_values, max_size=2
        ),
        "subResource": st.sampled_from(["", "status", "scale"]),
    },
)


@given(request_fields)
def test_review_never_crashes_on_odd_objects(bundle: Bundle, fields: dict[str, Any]) -> None:
    request = parse_request(fields)
    decision = review(request, bundle)
    assert all(v.status in ("fail", "warn", "error") for v in decision.violations)
    crashed = [v for v in decision.violations if "the rule failed on this object" in v.message]
    assert not crashed, crashed  # odd objects are judged, not crashed on

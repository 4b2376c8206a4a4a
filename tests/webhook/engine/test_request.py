"""Parsing AdmissionReviews: real payloads parse; bad requests are RequestErrors, never crashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.base.errors import RequestError
from webhook.bundle.model import Bundle
from webhook.engine.request import (
    _parse_field_by_field,
    _well_formed,
    parse_request,
    parse_review,
)
from webhook.engine.review import review


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


@settings(deadline=None)  # the first review needing cel-python loads it (~0.5 s): not a crash
@given(request_fields)
def test_review_never_crashes_on_odd_objects(bundle: Bundle, fields: dict[str, Any]) -> None:
    request = parse_request(fields)
    decision = review(request, bundle)
    assert all(v.status in ("fail", "warn", "error") for v in decision.violations)
    crashed = [v for v in decision.violations if "the rule failed on this object" in v.message]
    assert not crashed, crashed  # odd objects are judged, not crashed on


ODD_VALUES = st.sampled_from([None, "", 0, 1, True, False, [], {}, ["x"], {"a": 1}, 1.5, ("g",)])
WELL_FORMED = {
    "uid": "705ab4f5",
    "operation": "UPDATE",
    "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
    "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
    "userInfo": {"username": "alice", "uid": "1", "groups": ["team-a", "system:authenticated"]},
    "namespace": "team-a",
    "name": "web",
    "subResource": "status",
    "object": {"spec": {"replicas": 2}},
    "oldObject": {"spec": {"replicas": 1}},
    "dryRun": False,
}
PLACES = [
    *[(key,) for key in WELL_FORMED],
    *[(outer, key) for outer in ("kind", "resource", "userInfo") for key in WELL_FORMED[outer]],
    ("userInfo", "groups", 0),
]


@st.composite
def odd_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A well-formed request with up to three places dropped or given an odd value."""
    request = json.loads(json.dumps(WELL_FORMED))
    for place in draw(st.lists(st.sampled_from(PLACES), max_size=3, unique=True)):
        *path, last = place
        container = request
        for step in path:
            container = container.get(step) if isinstance(container, dict) else None
        if isinstance(container, dict) and last in container:
            if draw(st.booleans()):
                del container[last]
            else:
                container[last] = draw(ODD_VALUES)
        elif isinstance(container, list) and isinstance(last, int) and last < len(container):
            container[last] = draw(ODD_VALUES)
    return request


@settings(max_examples=1500)
@given(odd_requests(), st.booleans())
def test_the_one_pass_parse_answers_as_the_field_by_field_one(
    request: dict[str, Any], require_uid: bool
) -> None:
    """Wherever the one-pass parse answers, the field-by-field parse gives an equal request
    (every field, of the same types); wherever that one refuses, the one-pass parse left it."""
    quick = _well_formed(request, require_uid)
    try:
        careful = _parse_field_by_field(request, require_uid)
    except RequestError:
        assert quick is None
        return
    if quick is not None:
        assert quick == careful
        assert [type(getattr(quick, f)) for f in quick.__slots__] == [
            type(getattr(careful, f)) for f in careful.__slots__
        ]
        assert quick.raw is careful.raw is request


def test_the_one_pass_parse_takes_the_example_requests(reference: Path) -> None:
    """It is the path real requests take: every v1 review in the reference parses in one pass."""
    taken = 0
    for path in _v1_reviews(reference):
        request = _load(path)["request"]
        if request.get("operation") in ("CREATE", "UPDATE", "DELETE"):
            assert _well_formed(request, require_uid=True) is not None, path.name
            taken += 1
    assert taken >= 5

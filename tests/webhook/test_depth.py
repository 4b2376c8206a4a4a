"""The nesting limit on object and oldObject, exact at the boundary; the old object of an
UPDATE is walked only where it differs from the new one, with the same answer."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.base.errors import RequestError
from webhook.engine.request import parse_review
from webhook.shell.app import _check_depth

LIMIT = 4


def nested(levels: int) -> Any:
    """A value with ``levels`` levels of containers (dicts and lists alternating)."""
    value: Any = "leaf"
    for level in range(levels):
        value = {"a": value} if level % 2 == 0 else [value]
    return value


def admission(new: Any, old: Any = None) -> Any:
    request = {
        "uid": "u",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "operation": "UPDATE" if old is not None else "CREATE",
        "userInfo": {"username": "alice"},
        "object": new,
        "oldObject": old,
    }
    return parse_review(
        {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
    )


@pytest.mark.parametrize(
    ("new", "old", "too_deep"),
    [
        pytest.param({"x": nested(LIMIT - 1)}, None, None, id="at-the-limit"),
        pytest.param({"x": nested(LIMIT)}, None, "object", id="one-beyond"),
        pytest.param({"x": [1, "a", None]}, {"x": nested(LIMIT)}, "oldObject", id="old-only"),
        pytest.param(
            {"x": nested(LIMIT - 1), "n": 1},
            {"x": nested(LIMIT - 1), "n": 2},
            None,
            id="old-equal-where-deep",
        ),
        pytest.param(
            {"x": {"y": 1}},
            {"x": {"y": nested(LIMIT - 1)}},
            "oldObject",
            id="old-differs-deep-below",
        ),
        pytest.param(
            {"l": [1, {"a": 1}]},
            {"l": [1, {"a": nested(LIMIT - 2)}, {"b": nested(LIMIT)}]},
            "oldObject",
            id="old-longer-list",
        ),
    ],
)
def test_depth(new: Any, old: Any, too_deep: str | None) -> None:
    request = admission(new, old)
    if too_deep is None:
        _check_depth(request, LIMIT)
    else:
        with pytest.raises(RequestError, match=rf"request\.{too_deep} nests deeper than {LIMIT}"):
            _check_depth(request, LIMIT)


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.integers(0, 2) | st.sampled_from(["a", "b"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner),
    max_leaves=16,
)


@given(
    st.dictionaries(st.sampled_from("xy"), values), st.dictionaries(st.sampled_from("xy"), values)
)
def test_same_answer_as_measuring_both_whole(new: dict[str, Any], old: dict[str, Any]) -> None:
    expected = "object" if depth(new) > LIMIT else "oldObject" if depth(old) > LIMIT else None
    try:
        _check_depth(admission(new, old), LIMIT)
        found = None
    except RequestError as exc:
        found = str(exc).split()[0].removeprefix("request.")
    assert found == expected

"""The nesting limit on object and oldObject, exact at the boundary; the old object of an
UPDATE is walked only where it differs from the new one, with the same answer."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from webhook.base.errors import RequestError
from webhook.engine.request import parse_review
from webhook.shell.app import _check_depth, check_body_depth

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


def text(value: Any, escapes: list[bool]) -> str:
    """``value`` as JSON text whose strings spell some characters (brackets and quotes above
    all) as ``\\uXXXX`` escapes, with a space here and there: what a writer controls."""
    spell = escapes[len(escapes) // 2] if escapes else False
    if isinstance(value, dict):
        items = (f"{text(k, escapes[1:])} : {text(v, escapes[2:])}" for k, v in value.items())
        return "{" + ",".join(items) + (" }" if spell else "}")
    if isinstance(value, list):
        return "[ " + ", ".join(text(v, escapes[1:]) for v in value) + "]"
    if isinstance(value, str):
        if spell:
            return '"' + "".join(f"\\u{ord(c):04x}" for c in value) + '"'
        return orjson.dumps(value).decode()
    return orjson.dumps(value).decode()


strings = st.text(alphabet='{}[]"\\ab\u00e9\u5b5b', max_size=6)
deep_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.integers(-2, 2) | strings,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(strings, inner, max_size=3),
    max_leaves=24,
)


def refusal(check: Any) -> str | None:
    try:
        check()
    except RequestError as exc:
        return str(exc)
    return None


@given(
    deep_values,
    st.none() | deep_values,
    st.lists(st.booleans(), max_size=8),
    st.integers(-3, 3),
    st.none() | st.integers(1, 6),
)
def test_the_bracket_count_skips_only_walks_that_cannot_refuse(
    new: Any, old: Any, escapes: list[bool], offset: int, fixed: int | None
) -> None:
    """The shortcut of ``check_body_depth`` answers as the walk on texts a writer controls:
    brackets inside strings (literal or escaped), deep and wide values, limits around the
    body's own bracket count (where the shortcut decides); a text it lets through unwalked
    holds no object the walk would refuse."""
    request = {
        "uid": "u",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "operation": "UPDATE",
        "object": {"x": new},
        "oldObject": None if old is None else {"x": old},
    }
    body = text({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}, [])
    body = body[:-1] + ', "request": ' + text(request, escapes) + "}"
    raw = body.encode()
    document = orjson.loads(raw)
    assert document["request"]["object"] == {"x": new}
    brackets = raw.count(b"{") + raw.count(b"[")
    limit = fixed or max(brackets + offset, 1)  # a small one refuses, near the count decides
    parsed = parse_review(document)
    walked = refusal(lambda: _check_depth(parsed, limit))
    assert refusal(lambda: check_body_depth(raw, parsed, limit)) == walked
    event("refused" if walked is not None else "walk skipped" if brackets <= limit else "walked")
    if walked is not None:
        assert brackets > limit


def _config_map_review(value: object) -> bytes:
    """An AdmissionReview body creating a ConfigMap whose field ``x`` is ``value``."""
    return orjson.dumps(
        {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "u",
                "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
                "operation": "CREATE",
                "object": {"x": value},
            },
        }
    )


def test_the_walk_runs_where_the_brackets_are_over_the_limit() -> None:
    deep = _config_map_review(nested(LIMIT))
    admitted = _config_map_review("{[" * LIMIT)
    with pytest.raises(RequestError, match=rf"request\.object nests deeper than {LIMIT}"):
        check_body_depth(deep, parse_review(orjson.loads(deep)), LIMIT)
    check_body_depth(admitted, parse_review(orjson.loads(admitted)), LIMIT)  # walked: fits

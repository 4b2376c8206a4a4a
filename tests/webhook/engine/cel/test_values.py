"""What CEL is handed: unrepresentable values found exactly, nulls kept as Kubernetes keeps them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.engine.cel.paths import read_paths
from webhook.engine.cel.values import mended, problems, suspect


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param({"a": "x\x00y"}, [("object.a", "holds U+0000")], id="nul-in-string"),
        pytest.param({"a\x00": 1}, [("object", "has a key holding U+0000")], id="nul-in-key"),
        pytest.param({"n": 2**63}, [("object.n", "9223372036854775808 is outside")], id="2^63"),
        pytest.param({"n": -(2**63) - 1}, [("object.n", "is outside")], id="below-int64"),
        pytest.param({"l": [1, 2**64]}, [("object.l[1]", "is outside")], id="in-a-list"),
        pytest.param({"a-b": {"c": "\x00"}}, [("object['a-b'].c", "holds")], id="odd-key"),
        pytest.param({1: "x"}, [("object", "has the key 1, which is not a string")], id="int-key"),
        pytest.param({"d": b"x"}, [("object.d", "a bytes is not a JSON value")], id="bytes"),
        pytest.param({"n": 2**63 - 1, "s": "ok", "f": 1e308, "z": None}, [], id="all-fine"),
        pytest.param({"z": None, "l": [None, {"y": None}]}, [], id="nulls-are-fine"),
    ],
)
def test_problems(value: dict[Any, Any], expected: list[tuple[str, str]]) -> None:
    found = list(problems(value, "object"))
    assert [where for where, _ in found] == [where for where, _ in expected]
    assert all(text in why for (_, why), (_, text) in zip(found, expected, strict=True))
    assert suspect(value) or not expected  # a filter: it may suspect more than it finds


def test_problems_only_in_what_the_rules_read() -> None:
    tree = read_paths(["object.spec.containers.all(c, c.image != '')"])["object"]
    value = {"spec": {"containers": [{"image": "ok", "name": "\x00"}], "x": 2**70}}
    assert list(problems(value, "object", tree)) == []
    value["spec"]["containers"][0]["image"] = "a\x00"
    assert [w for w, _ in problems(value, "object", tree)] == ["object.spec.containers[0].image"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(
            {"a": {"d": None, "s": "x\x00"}}, {"a": {"d": None, "s": "x\ufffd"}}, id="nul"
        ),
        pytest.param({"l": [None, {"x": None, "n": 2**64}]}, {"l": [None, {"x": None, "n": 0}]}),
        pytest.param({"a\x00": None}, {"a\ufffd": None}, id="key"),
        pytest.param({"a": None}, {"a": None}, id="a-null-stays"),
    ],
)
def test_mended_keeps_nulls(value: dict[str, Any], expected: dict[str, Any]) -> None:
    """A ValidatingAdmissionPolicy's CEL sees the object as sent, a null entry included."""
    assert mended(value) == expected


def test_mended_only_where_read_and_shares_the_rest() -> None:
    tree = read_paths(["has(object.spec.a)"])["object"]
    untouched = {"x": "\x00"}
    value = {"spec": {"a": "\x00", "b": None}, "metadata": untouched}
    cleaned = mended(value, tree)
    assert cleaned == {"spec": {"a": "\ufffd", "b": None}, "metadata": {"x": "\x00"}}
    assert cleaned["metadata"] is untouched and mended(untouched, {}) is untouched


json_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=4)
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_the_filter_misses_nothing(value: Any) -> None:
    """``suspect`` False is certain: no problem to find, nothing to mend."""
    if not suspect(value):
        assert list(problems(value, "v")) == []
        assert mended(value) is value

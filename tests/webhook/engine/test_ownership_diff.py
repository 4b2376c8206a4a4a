"""The changed-pointer diff against jsonpatch, the reference it replaces for speed."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.engine.ownership import changed_pointers, pointers_in

leaves = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "b", "x/y", "~"])
values: st.SearchStrategy[Any] = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c/d", "e~f"]), inner, max_size=3)
    ),
    max_leaves=12,
)


def _list_level(path: str) -> str:
    """Up to the first list index: where jsonpatch removes index 1, a by-index diff may name
    index 2 of the same list instead; both say the list changed."""
    parts = path.split("/")
    cut = next((i for i, part in enumerate(parts) if part.isdigit()), len(parts))
    return "/".join(parts[:cut])


def _covered(path: str, ours: list[str]) -> bool:
    path = _list_level(path)
    return any(
        path == p or path.startswith(p + "/") or p.startswith(path + "/")
        for p in map(_list_level, ours)
    )


@given(
    st.dictionaries(st.sampled_from(["metadata", "spec"]), values, max_size=2),
    st.dictionaries(st.sampled_from(["metadata", "spec"]), values, max_size=2),
)
def test_every_path_jsonpatch_changes_is_reported(old: dict[str, Any], new: dict[str, Any]) -> None:
    ours = changed_pointers(old, new)
    reference = jsonpatch.make_patch(old, new).patch
    assert bool(ours) == bool(reference) or (old == new) == (not ours)
    for operation in reference:
        for key in ("path", "from"):
            if key in operation:
                assert _covered(operation[key], ours), (operation, ours)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param({"a": 1}, {"a": 1}, [], id="same"),
        pytest.param({"a": 1}, {"a": 2}, ["/a"], id="replace"),
        pytest.param(
            {"a": 1, "b": 1}, {"a": True, "b": 2}, ["/a", "/b"], id="bool-is-not-int-where-compared"
        ),
        pytest.param({"a": 1}, {"a": True}, ["/a"], id="true-is-not-1"),
        pytest.param({"l": [False, None]}, {"l": [0, None]}, ["/l/0"], id="false-is-not-0"),
        pytest.param({"a": 1}, {"a": 1.0}, ["/a"], id="1-is-not-1.0"),
        pytest.param({"a": {"x": 1, "y": 2}}, {"a": {"y": 2, "x": 1}}, [], id="member-order"),
        pytest.param({"a": {"b/c": 1}}, {"a": {}}, ["/a/b~1c"], id="escaped-remove"),
        pytest.param({"l": [1, 2]}, {"l": [1, 2, 3]}, ["/l/2"], id="append"),
        pytest.param({"l": [1]}, {"l": {"0": 1}}, ["/l"], id="type-change"),
        pytest.param({"l": [1, 2, 3]}, {"l": [1]}, ["/l/1", "/l/2"], id="shrink"),
        pytest.param({"a": {"x": 1}, "b": 2}, {"b": 2, "c": {}}, ["/a", "/c"], id="add-and-remove"),
        pytest.param(
            {"spec": {"a": [{"b": 1}]}}, {"spec": {"a": [{"b": 2}]}}, ["/spec/a/0/b"], id="deep"
        ),
    ],
)
def test_diff_table(old: Any, new: Any, expected: list[str]) -> None:
    assert changed_pointers(old, new) == expected


TOP = st.sampled_from(["metadata", "spec", "status", "status~x", "statuses"])
"""Top-level keys: the status, and names a prefix test on "/status" would confuse with it."""


@given(
    st.dictionaries(TOP, values, max_size=4) | values,
    st.dictionaries(TOP, values, max_size=4) | values,
    st.booleans(),
)
def test_one_part_of_the_walk_names_what_the_whole_walk_names_there(
    old: Any, new: Any, status: bool
) -> None:
    """The status subresource's shortcut: walking /status alone (or all but it) names the same
    pointers, in the same order, as the whole walk filtered to that part."""
    whole = changed_pointers(old, new)
    expected = [p for p in whole if (p == "/status" or p.startswith("/status/")) == status]
    assert pointers_in(old, new, status=status) == expected

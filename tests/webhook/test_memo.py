"""The byte-bounded memo table: computed once while it fits, never past its budget."""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.base.memo import (
    ENTRY_OVERHEAD,
    OBJECT_BYTES,
    REFERENCE_BYTES,
    VALUE_FACTOR,
    Memo,
    cost,
)
from webhook.base.values import json_key


def test_cost_counts_the_text_of_a_key_and_each_of_its_objects() -> None:
    assert cost("abc") == ENTRY_OVERHEAD + VALUE_FACTOR * (OBJECT_BYTES + 3)
    assert cost(("ab", ("c", "de"), True)) == ENTRY_OVERHEAD + VALUE_FACTOR * (
        OBJECT_BYTES * 5 + 2 + 3 + 2 * REFERENCE_BYTES
    )


def held_bytes(key: Any) -> int:
    """What CPython holds for ``key`` and the reference to it, every member counted at each
    place it appears (at least what the key takes, shared members counted again)."""
    if isinstance(key, tuple):
        return sys.getsizeof(key) + 8 + sum(held_bytes(part) for part in key)
    if isinstance(key, str | bytes | int) and not isinstance(key, bool):
        return sys.getsizeof(key) + 8
    return 8  # None, booleans and types: one shared object each


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats()
    | st.sampled_from(["", "a", "\u00e9", "\U0001f600", "\u00e9" * 3]),
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.sampled_from(["", "k", "values", "\u00e9"]), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, max_size=4))
def test_the_cost_of_a_key_bounds_what_it_holds(values: list[Any]) -> None:
    """A table's bound holds the keys it keeps: a key of empty strings, empty lists or numbers
    costs at least what CPython holds for it (a memo of selectors once kept 160 KB for a
    charge of 600 bytes)."""
    key = ("fields", *map(json_key, values))
    assert cost(key) - ENTRY_OVERHEAD >= held_bytes(key)


def test_a_key_of_many_empty_strings_costs_what_it_holds() -> None:
    expression = {"key": "k", "operator": "NotIn", "values": [""] * 20_000}
    key = json_key({"matchExpressions": [expression]})
    assert cost(key) - ENTRY_OVERHEAD >= held_bytes(key) >= 20_000 * 8


def test_a_hit_is_not_computed_again() -> None:
    memo: Memo[str, int] = Memo(budget=10_000, max_entry=1_000)
    calls: list[str] = []

    def compute(key: str) -> int:
        calls.append(key)
        return len(key)

    assert [memo.get(k, lambda k=k: compute(k)) for k in ("a", "bb", "a")] == [1, 2, 1]  # type: ignore[misc]
    assert calls == ["a", "bb"]


def test_an_entry_above_the_limit_is_computed_and_not_kept() -> None:
    memo: Memo[str, int] = Memo(budget=100_000, max_entry=1_000)
    assert memo.get("x" * 500, lambda: 7) == 7
    assert len(memo) == 0 and memo.used == 0


@given(st.lists(st.text(max_size=300), max_size=200))
def test_the_budget_always_holds(keys: list[str]) -> None:
    memo: Memo[str, str] = Memo(budget=4_000, max_entry=2_000)
    for key in keys:
        assert memo.get(key, lambda key=key: key.upper()) == key.upper()  # type: ignore[misc]
        assert memo.used <= 4_000
        assert memo.used == sum(cost(k) for k in memo._values)

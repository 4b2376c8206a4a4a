"""Go's ``sort.Slice`` port: it sorts (a permutation in order), and up to 12 items it is Go's
insertion sort, stable (where Go leaves equal items past 12 is held to the API server in
``tests/oracles/test_cel_sortby_oracle.py``)."""

from __future__ import annotations

import operator

from hypothesis import given
from hypothesis import strategies as st

from webhook.engine.cel.gosort import sort_slice


@given(st.lists(st.integers(-5, 5), max_size=400))
def test_sorts_a_permutation(keys: list[int]) -> None:
    order = list(range(len(keys)))
    sort_slice(order, lambda i, j: keys[i] < keys[j])
    assert sorted(order) == list(range(len(keys)))
    assert [keys[i] for i in order] == sorted(keys)


@given(st.lists(st.integers(0, 2), max_size=12))
def test_up_to_twelve_items_is_stable(keys: list[int]) -> None:
    order = list(range(len(keys)))
    sort_slice(order, lambda i, j: keys[i] < keys[j])
    assert order == sorted(range(len(keys)), key=keys.__getitem__)


def test_reversed_input_is_sorted_by_its_reversal() -> None:
    items = list(range(100, 0, -1))
    sort_slice(items, operator.lt)
    assert items == list(range(1, 101))

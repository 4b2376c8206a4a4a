"""The byte-bounded memo table: computed once while it fits, never past its budget."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from webhook.base.memo import ENTRY_OVERHEAD, VALUE_FACTOR, Memo, cost


def test_cost_counts_the_text_of_a_key() -> None:
    assert cost("abc") == ENTRY_OVERHEAD + VALUE_FACTOR * 3
    assert cost(("ab", ("c", "de"), True)) == ENTRY_OVERHEAD + VALUE_FACTOR * (2 + 3 + 8)


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

"""Webster division against Karmada's own cases (webstermethod_test.go) and division.md."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.karmada.division import (
    _counted,
    _sequential,
    divide,
    fnv1a32,
    larger_names_first,
    webster,
)

WIKIPEDIA = {"PartyA": 100000, "PartyB": 80000, "PartyC": 30000, "PartyD": 20000}


def test_ties_go_to_fewer_seats_as_the_schedulers_uid_tie_breaker_does() -> None:
    """Round 6 of the Sainte-Lague example ties A (100000/5) with D (20000/1). Karmada's
    webstermethod_test.go, which passes no tie-breaker, gives it to A; the scheduler passes
    tieBreakerByUID (division.md section 4: fewer seats first), which gives it to D."""
    assert webster(5, WIKIPEDIA) == {"PartyA": 2, "PartyB": 2, "PartyC": 1}
    assert webster(6, WIKIPEDIA) == {"PartyA": 2, "PartyB": 2, "PartyC": 1, "PartyD": 1}
    assert webster(8, WIKIPEDIA) == {"PartyA": 3, "PartyB": 3, "PartyC": 1, "PartyD": 1}


@pytest.mark.parametrize(
    ("total", "weights", "expected"),
    [
        pytest.param(
            6,
            {"cluster-a": 2, "cluster-b": 1},
            {"cluster-a": 4, "cluster-b": 2},
            id="design-6-at-2-to-1",
        ),
        pytest.param(
            4,
            {"Alpha": 1200, "Beta": 900, "Gamma": 400},
            {"Alpha": 2, "Beta": 1, "Gamma": 1},
            id="karmada-example",
        ),
        pytest.param(2, {"a": 1, "b": 3}, {"a": 1, "b": 1}, id="1-3-favours-small"),
        pytest.param(3, {"a": 5, "b": 3, "c": 2}, {"a": 1, "b": 1, "c": 1}, id="5-3-2"),
        pytest.param(7, {"a": 1, "b": 2, "c": 6}, {"a": 1, "b": 2, "c": 4}, id="not-hamilton"),
        pytest.param(1, {"a": 2, "b": 1}, {"a": 1}, id="zero-seat-dropped"),
        pytest.param(0, {"a": 1, "b": 1}, {}, id="no-replicas"),
        pytest.param(5, {"a": 1, "b": 0}, {"a": 5}, id="zero-weight-left-out"),
        pytest.param(
            5,
            {"member1": 1, "member2": 1, "member3": 1},
            {"member1": 2, "member2": 2, "member3": 1},
            id="equal-weights-even-uid",
        ),
        pytest.param(3, {"x": 10**12, "y": 1}, {"x": 3}, id="large-weights"),
        pytest.param(1, {"a": 2**53, "b": 2**53 + 1}, {"a": 1}, id="float64-tie-past-2-to-the-53"),
        pytest.param(1, {"a": 2**62, "b": 2**62 + 1}, {"a": 1}, id="float64-tie-of-huge-weights"),
    ],
)
def test_division_table(total: int, weights: dict[str, int], expected: dict[str, int]) -> None:
    assert webster(total, weights) == expected


def test_odd_uid_gives_extras_to_the_last_names() -> None:
    weights = {"member1": 1, "member2": 1, "member3": 1}
    assert webster(5, weights, larger_names_first=True) == {
        "member1": 1,
        "member2": 2,
        "member3": 2,
    }


def test_uid_parity_matches_division_md() -> None:
    assert fnv1a32(b"4858ca61-3ff8-4095-8267-f3d059d8074c") == 0xF20AF388
    assert fnv1a32(b"d43fdeeb-d750-4e2b-bee3-64eb94534f4c") == 0x955149A3
    assert not larger_names_first("4858ca61-3ff8-4095-8267-f3d059d8074c")
    assert larger_names_first("d43fdeeb-d750-4e2b-bee3-64eb94534f4c")
    assert not larger_names_first("")


def test_divide_reports_the_other_outcome_only_on_a_tie() -> None:
    assert divide(6, {"a": 2, "b": 1}).alternative is None
    tied = divide(3, {"a": 1, "b": 1})
    assert (tied.replicas, tied.alternative) == ({"a": 2, "b": 1}, {"a": 1, "b": 2})


weights_strategy = st.dictionaries(
    st.sampled_from(["cluster-a", "cluster-b", "cluster-c", "cluster-d"]),
    st.integers(min_value=1, max_value=50),
    min_size=1,
)


@given(weights_strategy, st.integers(min_value=0, max_value=60), st.booleans())
def test_house_monotone(weights: dict[str, int], total: int, odd: bool) -> None:
    before = webster(total, weights, larger_names_first=odd)
    after = webster(total + 1, weights, larger_names_first=odd)
    assert sum(after.values()) == total + 1
    assert all(after.get(c, 0) >= n for c, n in before.items())


@given(
    weights=st.dictionaries(
        st.sampled_from(["a", "b", "c", "d", "e"]),
        st.one_of(
            st.integers(1, 1000), st.integers(2**53 - 4, 2**53 + 4), st.integers(2**62, 2**63 - 1)
        ),
        min_size=1,
    ),
    total=st.integers(0, 3000),
    odd=st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_counting_seats_agrees_with_handing_them_out(
    weights: dict[str, int], total: int, odd: bool
) -> None:
    """The direct count (used above SEQUENTIAL_LIMIT replicas) against Karmada's loop."""
    order = sorted(weights, reverse=odd)
    rank = {name: i for i, name in enumerate(order)}
    assert _counted(total, weights, rank) == _sequential(total, weights, rank)


def test_a_huge_count_is_divided_without_a_loop_per_replica() -> None:
    """A template may ask for 2^31 - 1 replicas: the count must not take a loop per seat."""
    seats = webster(2**31 - 1, {"a": 3, "b": 7, "c": 1})
    assert sum(seats.values()) == 2**31 - 1
    assert seats == {"a": 585677358, "b": 1366580503, "c": 195225786}

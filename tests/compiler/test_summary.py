"""AppSummary's JSON round trip (the compile cache) and its fraction reader."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from compiler.compile.summary import read_fraction


@given(st.fractions())
def test_read_fraction_reads_what_str_writes(value: Fraction) -> None:
    assert read_fraction(str(value)) == value


@given(
    st.one_of(
        st.text(alphabet="0123456789/-+_. eE", max_size=12),
        st.from_regex(r"\A-?\d{1,30}(/\d{1,30})?\Z"),
    )
)
def test_read_fraction_agrees_with_fraction_wherever_fraction_reads_it(text: str) -> None:
    try:
        expected = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return
    assert read_fraction(text) == expected

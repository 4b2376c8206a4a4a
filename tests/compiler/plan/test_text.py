"""The text of fedgate plan: quantities for people, the summary line, before -> after."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.plan.changes import Summary
from compiler.plan.columns import WIDTH, columns
from compiler.plan.core import TenantBill
from compiler.plan.text import (
    BOLD,
    GREEN,
    RED,
    RESET,
    Line,
    _counts,
    _decimals,
    cores,
    finish,
    memory,
    summary_line,
    tenant_line,
)
from webhook.base.quantity import parse_quantity

GI = 2**30


@pytest.mark.parametrize(
    ("quantity", "shown"),
    [
        pytest.param("7900m", "7.9", id="millicores-as-cores"),
        pytest.param("20", "20", id="whole-cores"),
        pytest.param("250m", "0.25", id="quarter"),
        pytest.param("1m", "0.001", id="one-millicore"),
        pytest.param("100u", "<0.001", id="below-a-millicore"),
        pytest.param("500u", "<0.001", id="half-a-millicore-rounds-to-none"),
        pytest.param("1500u", "0.002", id="half-to-even"),
        pytest.param("0", "0", id="zero"),
        pytest.param("12345678m", "12345.678", id="large"),
    ],
)
def test_cores(quantity: str, shown: str) -> None:
    assert cores(parse_quantity(quantity)) == shown


@pytest.mark.parametrize(
    ("quantity", "shown"),
    [
        pytest.param("15872Mi", "15.5Gi", id="a-fraction-of-a-gibibyte"),
        pytest.param("80Gi", "80Gi", id="whole-gibibytes"),
        pytest.param("512Mi", "512Mi", id="below-a-gibibyte"),
        pytest.param("1G", "953.67Mi", id="decimal-gigabyte"),
        pytest.param("9472Mi", "9.25Gi", id="two-decimals"),
        pytest.param("2Ti", "2Ti", id="tebibytes"),
        pytest.param("100", "100", id="bytes"),
        pytest.param("0", "0", id="zero"),
    ],
)
def test_memory(quantity: str, shown: str) -> None:
    assert memory(parse_quantity(quantity)) == shown


@given(
    value=st.one_of(
        st.fractions(max_denominator=10**6),
        st.fractions(min_value=-(10**30), max_value=10**30, max_denominator=2**40),
        st.integers(-(10**40), 10**40).map(Fraction),
    ),
    places=st.integers(0, 4),
)
def test_decimals_agree_with_fraction_rounding(value: Fraction, places: int) -> None:
    """The integer rounding behind cores() and memory() against Python's own round() of the
    exact Fraction (half to even)."""
    text = _decimals(value.numerator, value.denominator, places)
    assert Fraction(text) == Fraction(round(value * 10**places), 10**places)
    assert text == text.rstrip("0") or "." not in text


def test_the_tenant_line_reads_used_of_quota_per_resource() -> None:
    bill = TenantBill(
        "team-b",
        {"cpu": Fraction(79, 10), "memory": parse_quantity("15872Mi")},
        {"cpu": Fraction(20), "memory": Fraction(80 * GI)},
    )
    assert tenant_line(bill, None).text == "tenant team-b: cpu 7.9 of 20, memory 15.5Gi of 80Gi"
    before = {"cpu": Fraction(77, 10), "memory": parse_quantity("15872Mi")}
    assert tenant_line(bill, before).text == (
        "tenant team-b: cpu 7.7 -> 7.9 of 20, memory 15.5Gi of 80Gi"
    )
    over = TenantBill("t", {"cpu": Fraction(21)}, {"cpu": Fraction(20), "memory": None})
    line = tenant_line(over, None)
    assert line.text == "tenant t: cpu 21 of 20 OVER QUOTA, memory 0 (no quota)"
    assert line.style == "deny"


@pytest.mark.parametrize(
    ("after", "before", "shown"),
    [
        pytest.param({"a": 2, "b": 2}, None, "a 2, b 2", id="one-side"),
        pytest.param({"a": 3, "b": 2}, {"a": 2, "b": 2}, "a 2 -> 3, b 2", id="one-changes"),
        pytest.param({"a": 2}, {"a": 2, "b": 1}, "a 2, b 1 -> 0", id="a-cluster-lost"),
        pytest.param({"a": 2, "c": 1}, {"a": 2}, "a 2, c 0 -> 1", id="a-cluster-gained"),
        pytest.param({"a": None}, {"a": None}, "a", id="copied-whole"),
        pytest.param({"a": None, "b": None}, {"a": None}, "a, b (added)", id="whole-gained"),
        pytest.param({}, {"a": None}, "a (removed)", id="whole-lost"),
        pytest.param({}, None, "no cluster", id="nowhere"),
    ],
)
def test_placement_before_and_after(
    after: dict[str, int | None], before: dict[str, int | None] | None, shown: str
) -> None:
    assert _counts(after, before) == shown


def summary(**kwargs: object) -> Summary:
    fields: dict[str, object] = {
        "apps": {},
        "templates": {},
        "clusters": (),
        "denies": 0,
        "warnings": 0,
    }
    fields.update(kwargs)
    return Summary(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("counts", "text"),
    [
        pytest.param(
            {
                "apps": {"add": 1, "change": 2, "none": 5},
                "clusters": ("cluster-a", "cluster-b"),
                "denies": 1,
            },
            "Plan: 1 app to add, 2 to change, 0 to remove; clusters affected: cluster-a, "
            "cluster-b; 1 deny.",
            id="names-that-fit",
        ),
        pytest.param(
            {"apps": {"none": 7}},
            "Plan: 0 apps to add, 0 to change, 0 to remove; no cluster affected; 0 denies.",
            id="no-changes",
        ),
        pytest.param(
            {
                "apps": {"remove": 1},
                "templates": {"add": 1},
                "clusters": ("cluster-a",),
                "denies": 2,
                "warnings": 1,
                "policies": 1,
                "files": 2,
                "invalid": 1,
            },
            "Plan: apps +0 ~0 -1; templates 1; clusters 1; 2 denies, 1 warning, 1 invalid.",
            id="everything-counted-to-fit",
        ),
        pytest.param(
            {
                "apps": {"remove": 1},
                "templates": {"add": 1},
                "clusters": ("cluster-a",),
                "policies": 1,
            },
            "Plan: 0 apps to add, 0 to change, 1 to remove; 1 template changed; 1 cluster "
            "affected; 0 denies.",
            id="templates-in-one-count-policies-left-to-the-lines-above",
        ),
        pytest.param(
            {"apps": {"change": 1}, "clusters": tuple(f"member-{i:02d}" for i in range(40))},
            "Plan: 0 apps to add, 1 to change, 0 to remove; 40 clusters affected; 0 denies.",
            id="many-clusters-counted",
        ),
    ],
)
def test_the_summary_line(counts: dict[str, object], text: str) -> None:
    line = summary_line(summary(**counts))
    assert line.text == text
    assert columns(line.text) <= WIDTH


def test_the_summary_is_one_line_for_large_counts() -> None:
    big = summary(
        apps={"add": 1000, "change": 2000, "remove": 300},
        templates={"add": 400, "change": 500, "remove": 600},
        clusters=tuple(f"c{i}" for i in range(100)),
        denies=1234,
        warnings=5678,
        policies=70,
        files=80,
    )
    assert len(finish([summary_line(big)], color=False)) == 1


def test_colour_is_added_after_fitting_and_only_when_wanted() -> None:
    lines = [Line("+ a/b  (tenant t)", "add"), Line("    deny   [r] x " * 10, "deny", 11)]
    plain = finish(lines, color=False)
    assert all("\x1b" not in line for line in plain)
    coloured = finish(lines, color=True)
    assert coloured[0] == f"{GREEN}+ a/b  (tenant t){RESET}"
    assert all(line.startswith(BOLD + RED) and line.endswith(RESET) for line in coloured[1:])
    assert [line.removeprefix(BOLD + RED).removesuffix(RESET) for line in coloured[1:]] == plain[1:]

from __future__ import annotations

from fractions import Fraction

import pytest

from webhook.base.quantity import QuantityError, format_cpu, format_memory, parse_quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param("250m", Fraction(1, 4), id="millicores"),
        pytest.param("1", Fraction(1), id="whole"),
        pytest.param("1.5", Fraction(3, 2), id="decimal"),
        pytest.param("512Mi", Fraction(512 * 2**20), id="mebibytes"),
        pytest.param("2Gi", Fraction(2 * 2**30), id="gibibytes"),
        pytest.param("1k", Fraction(1000), id="kilo"),
        pytest.param("1e3", Fraction(1000), id="exponent"),
        pytest.param("100n", Fraction(1, 10**7), id="nano"),
        pytest.param(".5", Fraction(1, 2), id="leading-dot"),
        pytest.param(2, Fraction(2), id="int"),
    ],
)
def test_parse(text: str | int, value: Fraction) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1Kb", "1.2.3", "m", "--1", "1e999"])
def test_rejects(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


def test_format() -> None:
    assert format_cpu(Fraction(3, 2)) == "1500m"
    assert format_cpu(Fraction(20)) == "20"
    assert format_memory(Fraction(40 * 2**30)) == "40Gi"
    assert format_memory(Fraction(1536 * 2**20)) == "1536Mi"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param(".", Fraction(0), id="a-point"),
        pytest.param("-", Fraction(0), id="a-sign"),
        pytest.param("Ki", Fraction(0), id="a-suffix"),
        pytest.param("+.m", Fraction(0), id="sign-point-suffix"),
        pytest.param(".e3", Fraction(0), id="point-exponent"),
        pytest.param("1.", Fraction(1), id="trailing-point"),
        pytest.param("-.5Ki", Fraction(-512), id="binary-fraction"),
    ],
)
def test_parse_as_kubernetes(text: str, value: Fraction) -> None:
    """resource.ParseQuantity's texts (CEL's quantity()): an empty number is zero."""
    assert parse_quantity(text, as_kubernetes=True) == value


@pytest.mark.parametrize("text", ["", " 1", "1 ", "..", "+-1", "1x", "1e"])
def test_rejects_as_kubernetes(text: str) -> None:
    """Kubernetes trims nothing; the empty text is not a quantity."""
    with pytest.raises(QuantityError):
        parse_quantity(text, as_kubernetes=True)

"""How Kubernetes holds a Quantity (``quantitylib``): each form as apimachinery's
``ParseQuantity``, ``Add``, ``Sub`` and ``AsInt64`` leave it (answers checked against the API
server: tests/oracles/test_cel_quantity_oracle.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.base.quantity import QuantityError, parse_quantity
from webhook.engine.cel import quantitylib
from webhook.engine.cel.quantitylib import INT64_MAX, INT64_MIN, Form

PARSED = [
    ("0", Form(False, 0, 0)),
    ("1", Form(False, 1, 0)),
    ("1000m", Form(False, 1000, -3)),  # a negative scale: not an int64 in AsInt64
    ("1.0", Form(False, 10, -1)),
    ("1.5Gi", Form(True, 1610612736 * 10**9, -9)),  # a binary suffix with a fraction: big
    ("1Ki", Form(False, 1024, 0)),
    ("50k", Form(False, 50, 3)),
    ("9223372036854775807", Form(True, INT64_MAX * 10**9, -9)),  # 19 digits: big
    ("0.1n", Form(True, 1, -9)),  # rounded up to a nano
    ("-0.01n", Form(True, -1, -9)),
    ("10Ei", Form(True, INT64_MAX, 0)),  # a binary one capped at the largest int64
    ("+.m", Form(False, 0, -3)),
    ("-", Form(False, 0, 0)),
]


def test_a_big_binary_suffix_without_digits_is_refused() -> None:
    """``Ei`` has no digits for inf.Dec to read (``Ki`` takes the int64 path): ErrNumeric."""
    for text in ("Ei", "Pi", "-Ei", ".Ei"):
        with pytest.raises(quantitylib.FormError):
            quantitylib.parse(text)
    assert quantitylib.parse("0Ei") == Form(True, 0, 0)  # digits, still the big path


@pytest.mark.parametrize(("text", "form"), PARSED)
def test_parse_keeps_kubernetes_form(text: str, form: Form) -> None:
    assert quantitylib.parse(text) == form


ARITHMETIC = [
    (Form(False, 0, 0), Form(True, 1, 0), "sub", Form(True, -1, 0)),
    (Form(False, 1, 3), Form(False, 5, 0), "add", Form(False, 1005, 0)),
    (Form(False, INT64_MAX, 0), Form(False, 1, 0), "add", Form(True, INT64_MAX + 1, 0)),
    (Form(False, 1, 0), Form(False, INT64_MIN, 0), "sub", Form(False, INT64_MIN + 1, 0)),  # Go
    (Form(False, 5, 0), Form(False, 0, -3), "add", Form(False, 5, 0)),  # 0 keeps the power
    (Form(False, 0, 0), Form(False, 5, -3), "add", Form(False, 5, -3)),
]


@pytest.mark.parametrize(("a", "b", "operation", "result"), ARITHMETIC)
def test_add_and_sub_keep_kubernetes_form(a: Form, b: Form, operation: str, result: Form) -> None:
    assert getattr(quantitylib, operation)(a, b) == result


@pytest.mark.parametrize(
    ("form", "value"),
    [
        (Form(False, 5, 3), 5000),
        (Form(False, 1000, -3), None),
        (Form(True, 1, 0), None),
        (Form(False, 10, 18), None),  # past int64
        (Form(False, INT64_MIN, 0), INT64_MIN),
    ],
)
def test_as_int64(form: Form, value: int | None) -> None:
    assert quantitylib.as_int64(form) == value


def test_approximate_float_multiplies_by_go_s_pow10() -> None:
    assert quantitylib.approximate_float(quantitylib.parse("0.3")) == 0.30000000000000004
    assert quantitylib.pow10(-33) == 1e-32 / 10  # Go's tables, not 1e-33 rounded once
    assert quantitylib.pow10(309) == float("inf")
    assert quantitylib.pow10(-324) == 0.0


TEXT = st.from_regex(
    r"[+-]?0{0,2}[0-9]{0,22}(\.[0-9]{0,12})?([numkMGTPE]|[KMGTPE]i|[eE][+-]?[0-9]{1,2})?",
    fullmatch=True,
)


@given(TEXT)
def test_the_form_holds_the_value_kubernetes_keeps(text: str) -> None:
    """Where the text is a quantity, the form's value is the exact one but for the nano
    rounding and the binary cap: never smaller in magnitude, at most a nano more."""
    try:
        exact = parse_quantity(text, as_kubernetes=True)
        form = quantitylib.parse(text)
    except (QuantityError, quantitylib.FormError):
        return  # FormError: a big binary suffix without digits ('Ei'), refused by Kubernetes
    if form.big and form.power == 0 and abs(form.digits) == INT64_MAX < abs(exact):
        return  # capped
    assert abs(form.value) >= abs(exact)
    assert abs(form.value) - abs(exact) < Fraction(1, 10**9)


@given(
    big=st.booleans(),
    digits=st.integers(-(10**30), 10**30),
    power=st.integers(-40, 40),
    other=st.integers(-40, 40),
)
def test_a_forms_value_is_made_once_and_is_its_digits_times_a_power_of_ten(
    big: bool, digits: int, power: int, other: int
) -> None:
    """``Form.value`` is kept on the Form after its first reading (a parsed text's Form is
    shared): every reading is digits x 10^power, and the kept value takes no part in a Form's
    equality or hash."""
    form = Form(big, digits, power)
    expected = Fraction(digits) * Fraction(10) ** power
    assert form.value == expected
    assert form.value is form.value and form.value == expected
    fresh = Form(big, digits, power)
    assert fresh == form and hash(fresh) == hash(form)
    assert (Form(big, digits, other) == form) == (other == power)

"""The library functions fedgate adds to CEL give the same values on both backends."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.engine.cel import Backend, CelCompileError, CelEvalError, library
from webhook.engine.cel.engines import BACKENDS, make_backend

CASES = [
    # Go's FindAllString: an empty match abutting the preceding match is skipped
    ("'a.b-c_d'.findAll('(a|b)*')", ["a", "b", "", "", "", ""]),
    ("'baaab'.findAll('a*')", ["", "aaa", ""]),
    # Kubernetes' strings library: code-point offsets, -1 when absent
    ("'registry:5000/team/app:1.2'.lastIndexOf(':')", 22),
    ("'registry:5000/team/app:1.2'.lastIndexOf('/')", 18),
    ("'team/app'.lastIndexOf(':')", -1),
    ("'abc'.lastIndexOf('')", 3),
    ("'abc'.indexOf('')", 0),
    ("'a:b:c'.indexOf(':')", 1),
    ("'é:b'.indexOf(':')", 1),
    ("'abc'.indexOf('x')", -1),
    # Kubernetes' quantity library, a quantity being its value as a double
    ("quantity('100m') == quantity('0.1')", True),
    ("quantity('1Gi').asApproximateFloat() == 1073741824.0", True),
    ("quantity('1').add(quantity('500m')).compareTo(quantity('1.5'))", 0),
    ("quantity('1').sub(2).sign()", -1),
    ("quantity('500Mi').isLessThan(quantity('1Gi'))", True),
    ("quantity('2').compareTo(quantity('1500m'))", 1),
    ("quantity('1k').asInteger()", 1000),
    ("quantity('1.5').isInteger()", False),
    ("isQuantity('12Mi')", True),
    ("isQuantity('12 apples')", False),
    ("quantity('9999999999999999999999999999999999999G').isInteger()", False),  # as Kubernetes
    ("quantity('1500m').isInteger()", False),
    ("quantity('1k').isInteger()", True),  # 1000m is not (a negative scale): the oracle's
    # quantity-is-an-integer-by-its-form, on cel-python; cel-expr answers by the value
    # CEL's own semantics, which cel-python departed from
    ("string(true)", "true"),
    ("dyn(true) == 1", False),
    ("[dyn(true)] == [1]", False),
    ("dyn(1) == 1.0", True),
    ("dyn(1) < 1.5", True),
    ("dyn(true) in [1]", False),
    # cel-go's sets extension and lists library compare an integer with a double as float64
    ("sets.contains(dyn([-9.223372036854776e18]), [-9223372036854775807])", True),
    ("sets.intersects(dyn([9007199254740993]), dyn([9007199254740992.0]))", True),
    ("sets.equivalent(dyn([1]), dyn([1.5]))", False),
    ("dyn([9007199254740993]).indexOf(9007199254740992.0)", 0),
    # Kubernetes' sum(), min() and max() by the list's static type: an empty sum is its zero,
    # a uint stays one
    ("type([1.5].filter(x, x > 2.0).sum()) == double", True),
    ("type([1u].filter(x, x > 2u).sum()) == uint", True),
    ("[duration('1s')].filter(x, false).sum() == duration('0s')", True),
    ("[duration('1s'), duration('2m')].sum() == duration('121s')", True),
    ("[duration('1s'), duration('2m')].max() == duration('2m')", True),
    ("type(dyn([1.5]).filter(x, x > 2.0).sum()) == int", True),
    ("type([7u, 0u].min()) == uint", True),
    ("type([7u, 0u].sort()[0]) == uint", True),
]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    return make_backend(request.param)


@pytest.mark.parametrize(("expression", "expected"), CASES, ids=[c[0] for c in CASES])
def test_value(backend: Backend, expression: str, expected: object) -> None:
    value = backend.evaluate(backend.compile(expression), backend.activation({}))
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    "expression",
    [
        "quantity('12 apples')",
        "quantity('1.5').asInteger()",
        "quantity('1e30').asInteger()",
        "dyn(true) <= 50",  # cel-python compared a bool as an int
        "dyn('text').all(c, c == 't')",  # cel-python ranged over the characters
        "dyn(1).exists(c, true)",
    ],
)
def test_errors(backend: Backend, expression: str) -> None:
    with pytest.raises(CelEvalError):
        backend.evaluate(backend.compile(expression), backend.activation({}))


def test_an_optional_as_a_whole_result_is_an_evaluation_error() -> None:
    backend = make_backend("cel-expr")  # cel-python has no optionals
    with pytest.raises(CelEvalError, match="not a value a rule can return"):
        backend.evaluate(backend.compile("optional.of(1)"), backend.activation({}))


@pytest.mark.parametrize(
    "expression",
    [
        "quantity('1') < quantity('2')",  # Kubernetes' Quantity has no <: use compareTo
        "quantity('1') + quantity('2')",
        "quantity('1Gi') == 1073741824.0",
    ],
)
def test_what_kubernetes_refuses_to_compile(backend: Backend, expression: str) -> None:
    with pytest.raises(CelCompileError):
        backend.compile(expression)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("5 < 10.0", True),  # Kubernetes enables cross-type numeric comparisons
        ("10.0 >= 5", True),
        ("1u < 2.5", True),
        ("dyn(3) <= 2.5", False),
    ],
)
def test_cross_type_numeric_ordering_compiles(
    backend: Backend, expression: str, expected: bool
) -> None:
    assert backend.evaluate(backend.compile(expression), backend.activation({})) is expected


@pytest.mark.parametrize(
    "expression",
    [
        "[1, 'a']",
        "{'a': 1, 'b': 'x'}",
        "[1, 2.0]",
        "['a' + 'b', 1]",
        "1 == 1.0",
        "[[1], [2.0]]",  # list(int) beside list(double), which Kubernetes refuses
        "{'a': [1], 'b': ['x']}",
        "[{'a': 1}, {'b': 2.0}]",
        "{'a': [].size(), 'b': 's'}",  # an empty list's size is an int all the same
        "[[], 's']",
    ],
)
def test_mixed_literals_do_not_compile_as_in_kubernetes(backend: Backend, expression: str) -> None:
    with pytest.raises(CelCompileError):
        backend.compile(expression)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("'%d %s'.format([1, 'abc'])", "1 abc"),
        ("'%s'.format([[1, 'abc']]).size() > 0", True),
        ("'%s %s'.format([{'a': 1}, ['x', 2.0]]).size() > 0", True),
    ],
)
def test_format_arguments_may_mix_types_as_in_kubernetes(expression: str, expected: object) -> None:
    """cel-go exempts format()'s arguments from the homogeneous-literal check."""
    backend = make_backend("cel-expr")
    assert backend.evaluate(backend.compile(expression), backend.activation({})) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "[dyn(1), 'a'].size() == 2",
        "[object.x, 1].size() == 2",
        "[[1], [dyn(2.0)]].size() == 2",
        "[[1], []].size() == 2",
        # what is made of an empty list keeps its unresolved element type (cel-cpp's checker
        # bound it to bool or int: a fresh seed, 148065515, of the CEL oracle)
        "{'a': [].sortBy(x, string(x)).max(), 'b': 's'}.size() == 2",
        "[[].sortBy(x, x).max(), 's'].size() == 2",
        "[[].sort(), ['s']].size() == 2",
    ],
)
def test_dyn_goes_with_anything(backend: Backend, expression: str) -> None:
    backend.compile(expression)


@settings(max_examples=500, deadline=None)
@given(
    st.fractions(max_denominator=10**9) | st.integers(-(2**70), 2**70).map(Fraction),
    st.fractions(max_denominator=10**9) | st.integers(-(2**70), 2**70).map(Fraction),
)
def test_quantity_comparisons_are_exact(a: Fraction, b: Fraction) -> None:
    """The doubles decide only where they differ; near-equal exact values still compare."""
    one, other = library.Quantity(a), library.Quantity(b)
    assert library.compare_to(one, other) == (a > b) - (a < b)
    near = library.Quantity(a + Fraction(1, 10**30))
    assert library.compare_to(near, one) == 1 and library.is_greater_than(near, one)


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(["", "m", "k", "Ki", "Mi", "n", "u", "M", "e3", "E"]),
    st.sampled_from(["", "m", "k", "Ki", "Mi", "n", "u", "M", "e3", "E"]),
    st.integers(-(10**20), 10**20),
    st.integers(-(10**20), 10**20),
)
def test_quantities_of_one_power_compare_by_their_digits_as_by_their_values(
    one: str, other: str, a: int, b: int
) -> None:
    """compareTo of two int64 forms at one power of ten compares their digits (the fast
    path), as their exact values compare; big forms and other powers compare the values."""
    first, second = library.quantity(f"{a}{one}"), library.quantity(f"{b}{other}")
    exact = (first.value > second.value) - (first.value < second.value)
    assert library.compare_to(first, second) == exact
    assert library.is_less_than(first, second) == (exact < 0)

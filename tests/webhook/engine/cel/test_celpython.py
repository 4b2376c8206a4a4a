"""cel-python held to CEL where celpy answered wrongly without an error: it now answers as
Kubernetes does (the values below are Kubernetes 1.34's, from the CEL oracle), or refuses the
construct when the bundle loads, naming it."""

from __future__ import annotations

import pytest

from webhook.engine.cel import CelCompileError, CelEvalError
from webhook.engine.cel.backend import Backend
from webhook.engine.cel.engines import make_backend

OBJECT = {"s": "a😀", "n": 1, "d": 1.0, "b": True, "l": [1, 2]}


@pytest.fixture(scope="module")
def backend() -> Backend:
    return make_backend("cel-python")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        pytest.param("type(object.s) == string", True, id="type-of-a-string-is-string"),
        pytest.param("type('x') == string", True, id="type-of-a-literal-is-string"),
        pytest.param("['x'].filter(x, type(x) == string)", ["x"], id="in-a-macro"),
        pytest.param("type(1) == int && type(1u) == uint", True, id="int-and-uint-types"),
        pytest.param("type(1.0) == double && type(true) == bool", True, id="double-and-bool"),
        pytest.param("type(int) == type", True, id="a-type-name-is-a-type"),
        pytest.param("object.n && false", False, id="false-decides-over-a-number"),
        pytest.param("true || object.n", True, id="true-decides-over-a-number"),
        pytest.param("object.l[1]", 2, id="list-index"),
        pytest.param("string(1)", "1", id="string-conversion-still-a-function"),
        pytest.param("bool('T') && !bool('0')", True, id="bool-of-the-strings-strconv-reads"),
        pytest.param(
            "dyn(9223372036854775807) < 9223372036854775808.0", False, id="int-as-float64"
        ),
        pytest.param("int(dyn(-9223372036854774784.0))", -9223372036854774784, id="int-in-range"),
        pytest.param("{'a': [1, 2], 'b': [3]}.size()", 2, id="constant-nested-literals"),
        pytest.param("has(dyn('text').field)", False, id="has-of-a-field-of-a-string"),
        pytest.param("has(object.n.a) ? 1 : 2", 2, id="has-of-a-field-of-a-number-decides"),
        pytest.param("object.l[5] && has(object.b.a)", False, id="has-false-over-an-error"),
        pytest.param(
            "string(1e6) + string(1.0) + string(-0.0)", "1e+061-0", id="string-of-doubles"
        ),
        pytest.param(
            "string(0.00001234) + ' ' + string(0.0001234)", "1.234e-05 0.0001234", id="small"
        ),
        pytest.param(
            "string(1234567.0) + ' ' + string(123456.5)", "1.234567e+06 123456.5", id="big"
        ),
        pytest.param(
            "string(double('inf')) + string(double('NaN'))", "+InfNaN", id="string-of-inf"
        ),
        pytest.param("3.14 / -0.0 < 0.0 && 0.0 / -0.0 != 0.0 / -0.0", True, id="ieee-division"),
        pytest.param("('ab' + 'c').contains('bc')", True, id="a-sum-of-strings-is-a-string"),
        pytest.param("([1] + [2]).exists(x, x == 2)", True, id="a-sum-of-lists-is-a-list"),
    ],
)
def test_answers_as_kubernetes(backend: Backend, expression: str, expected: object) -> None:
    activation = backend.activation({"object": OBJECT})
    assert backend.evaluate(backend.compile(expression), activation) == expected


@pytest.mark.parametrize(
    "expression",
    [
        pytest.param("object.s[0]", id="index-of-a-string"),
        pytest.param("object.n && true", id="a-number-in-and"),
        pytest.param("false || object.n", id="a-number-in-or"),
        pytest.param("0u % object.n", id="uint-and-int"),
        pytest.param("object.d + object.n", id="double-and-int"),
        pytest.param("bool(object.d)", id="bool-of-a-double"),
        pytest.param("int(object.b)", id="int-of-a-bool"),
        pytest.param("uint(object.b)", id="uint-of-a-bool"),
        pytest.param("double(object.b)", id="double-of-a-bool"),
        pytest.param("object.l[2]", id="index-past-the-end"),
        pytest.param("bool('-1')", id="bool-of-a-string-strconv-does-not-read"),
        pytest.param("int(dyn(-9223372036854775808.0))", id="int-of-minus-2-to-the-63"),
        pytest.param("double('NaN') < 1.0", id="nan-ordered"),
        pytest.param("1 >= -0.0 * double('inf')", id="nan-from-arithmetic-ordered"),
        pytest.param("has(object.l.a)", id="has-of-a-field-of-a-list"),
        pytest.param("type(-1 * 'ab'.lastIndexOf('abc', 7)) == int", id="error-through-arithmetic"),
        pytest.param("int(dyn(9223372036854775807.0))", id="int-of-2-to-the-63"),
        pytest.param("uint(dyn(-0.5))", id="uint-of-a-negative-double"),
        pytest.param("{'a': object.missing}.size()", id="map-literal-of-an-error"),
    ],
)
def test_fails_where_kubernetes_fails(backend: Backend, expression: str) -> None:
    with pytest.raises(CelEvalError):
        backend.evaluate(backend.compile(expression), backend.activation({"object": OBJECT}))


@pytest.mark.parametrize(
    ("expression", "construct"),
    [
        (r"'x\?y'", "the escapes"),
        (r"'\X4A'", "the escapes"),
        (r"'a\`'", "the escapes"),
        ("'''a\nb'''", "a line break inside a triple-quoted literal"),
        ("br'ß'", "a raw or triple-quoted bytes literal with a non-ASCII character"),
        ("{'a': 1, 'a': 2}", "a map literal with a repeated key"),
    ],
)
def test_refuses_at_load_what_it_would_answer_wrongly(
    backend: Backend, expression: str, construct: str
) -> None:
    with pytest.raises(CelCompileError, match=f"cel-python cannot run .*{construct}"):
        backend.compile(expression)


@pytest.mark.parametrize("expression", [r"'\n\t\\\'\"'", r"r'\d'", "'''plain'''", "b'ß'"])
def test_keeps_the_escapes_it_reads_rightly(backend: Backend, expression: str) -> None:
    backend.compile(expression)


def test_two_long_lists_compared_again_answer_as_the_first_time() -> None:
    """The equality of the last two long lists is remembered: compared again they give the
    same answer (a NaN in both keeps them unequal), and other lists are compared anew."""
    from celpy import celtypes  # noqa: PLC0415 - celpy's values, as the evaluator holds them

    from webhook.engine.cel.celpython import cel_equal  # noqa: PLC0415

    ints = celtypes.ListType([celtypes.IntType(i) for i in range(100)])
    same = celtypes.ListType([celtypes.IntType(i) for i in range(100)])
    other = celtypes.ListType([celtypes.IntType(i) for i in range(99)] + [celtypes.IntType(0)])
    nans = celtypes.ListType([celtypes.DoubleType(float("nan"))] * 100)
    answers = [
        cel_equal(a, b)
        for a, b in [(ints, same), (ints, same), (ints, other), (ints, other), (nans, nans)]
    ]
    assert answers == [True, True, False, False, False]
    assert cel_equal(nans, nans) is False


@pytest.mark.parametrize(
    ("value", "kind"),
    [(5, "IntType"), (-(2**63), "IntType"), (2**63 - 1, "IntType"), (True, "BoolType")],
)
def test_json_numbers_become_celpys_own(value: object, kind: str) -> None:
    """A JSON int within int64 becomes celpy's IntType of the same value (a bool its bool)."""
    from webhook.engine.cel.celpython import _to_cel  # noqa: PLC0415

    made = _to_cel(value)
    assert (type(made).__name__, made) == (kind, value)


def test_a_json_number_past_int64_is_refused_as_celpy_refuses_it() -> None:
    from webhook.engine.cel.celpython import _to_cel  # noqa: PLC0415

    with pytest.raises(ValueError, match="overflow"):
        _to_cel(2**63)

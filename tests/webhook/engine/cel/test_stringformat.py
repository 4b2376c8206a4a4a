"""cel-go's legacy ``format()`` (Kubernetes 1.34's strings extension, version 2), each answer
as the API server gave it (tests/oracles/test_cel_format_oracle.py holds generated ones)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.engine.cel import make_backend
from webhook.engine.cel.backend import CelEvalError
from webhook.engine.cel.stringformat import (
    Duration,
    FormatError,
    Timestamp,
    TypeName,
    duration_of,
    format_string,
    go_g,
    go_quote,
    timestamp_of,
)

CASES = [
    ("%e", [3.14], "3.140000\u00d710⁰⁰"),  # x/text's scientific notation
    ("%.2e", [3.14], "3.140000\u00d710⁰⁰"),  # cel-go writes %2e: a width, not a precision
    ("%.14e", [1.0], " 1.000000\u00d710⁰⁰"),
    ("%e", [-1234.5], "-1.234500\u00d710⁰³"),
    ("%e", [1e-300], "1.000000\u00d710⁻³⁰⁰"),
    ("%e", [-0.0], "0.000000\u00d710⁰⁰"),
    ("%e", [9.9999995], "9.999999\u00d710⁰⁰"),  # half to even on the exact binary value
    ("%e", [float("inf")], "     ∞"),  # the width of 6 pads the specials
    ("%e", ["-Infinity"], "    -∞"),
    ("%e", [float("nan")], "   NaN"),
    ("%f", [1234567.5], "1,234,567.500000"),
    ("%f", [-0.0], "0.000000"),  # x/text's sign is x < 0
    ("%f", [-1e-7], "-0.000000"),
    ("%.0f", [-0.4], "-0"),
    ("%.0f", [0.5], "0"),
    ("%.3f", [999.9996], "1,000.000"),
    ("%.300f", [1.0], "1." + "0" * 44),  # at least uint8(300) = 44 digits
    ("%.256f", [1.0], "1"),
    ("%.300f", [1.1], "1.100000000000000088817841970012523233890533447265625"),
    ("%f", [float("-inf")], "-∞"),
    ("%f", ["NaN"], "NaN"),
    ("%s", [1e6], "1e+06"),  # Go's %g
    ("%s", [123456.0], "123456"),
    ("%s", [1234567.0], "1.234567e+06"),
    ("%s", [1e-5], "1e-05"),
    ("%s", [0.0001], "0.0001"),
    ("%s", [-0.0], "-0"),
    ("%s", [float("inf")], "+Inf"),
    ("%s", [None], "null"),
    ("%s", [TypeName("null_type")], "null_type"),
    ("%s %s", [True, b"\xc3\xa9"], "true é"),
    (
        "%s",
        [[1.5, "a\n\u00e9\u200b\x01", b"\xc3\xa9", None, TypeName("int"), [], {}]],
        '[1.500000, "a\\né\\u200b\\x01", b"é", null, int, [], {}]',
    ),
    ("%s", [{2: "a", "b": 2, True: 3.0}], '{"b":2, 2:"a", true:3.000000}'),
    (
        "%s",
        [[float("nan"), float("inf"), -0.0, 1e21]],
        '["NaN", "+Inf", -0.000000, 1000000000000000000000.000000]',
    ),
    ("%s", [Timestamp(1672531200, 500_000_000)], "2023-01-01T00:00:00.5Z"),
    ("%s", [[Timestamp(-62135596800, 0)]], '[timestamp("0001-01-01T00:00:00Z")]'),
    ("%s", [Duration(-360_000_000_000_000_001)], "-360000000s"),  # a float64 of seconds
    ("%s", [[Duration(1)]], '[duration("0.000000001s")]'),
    ("%d %d", [-3, 18446744073709551615], "-3 18446744073709551615"),
    ("%x %X %x", ["héllo", b"\xff\x01", -26], "68c3a96c6c6f FF01 -1a"),
    ("%b %b %o", [-5, True, -8], "-101 1 -10"),
    ("%.2s %.3d", ["abc", 1], "abc 1"),  # a precision is read and ignored
    ("a%%b%s", ["é"], "a%bé"),
]


@pytest.mark.parametrize(("text", "args", "expected"), CASES)
def test_format_as_kubernetes(text: str, args: list[object], expected: str) -> None:
    assert format_string(text, args) == expected


ERRORS = [
    ("%s %s", [1], "index 1 out of range"),
    ("%", [1], "unexpected end of string"),
    ("%d", [True], "decimal clause can only be used on integers, was given bool"),
    ("%d", [1.0], "was given double"),
    ("%f", ["1.0"], "fixed-point clause can only be used on doubles"),
    ("%5s", ["a"], 'unrecognized formatting clause "5"'),
    ("%.s", ["a"], "error while converting precision to integer"),
    ("%.5", [1.0], "could not find end of precision specifier"),
    ("%s", [b"\xff"], "invalid UTF-8"),
    ("%s", [[b"\xff"]], "invalid UTF-8"),
    ("%s", [{1.5: 1}], "no formatting function for map key of type double"),
    ("%.32768f", [1.0], "not supported by fedgate"),  # int16 wraps: fails closed
    ("%.1001e", [1.0], "not supported by fedgate"),
]


@pytest.mark.parametrize(("text", "args", "message"), ERRORS)
def test_format_fails_where_kubernetes_fails(text: str, args: list[object], message: str) -> None:
    with pytest.raises(FormatError, match=message.replace("(", r"\(").replace(".", r"\.")):
        format_string(text, args)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2023-01-01T00:00:00.500Z", Timestamp(1672531200, 500_000_000)),
        ("0001-01-01T00:00:00Z", Timestamp(-62135596800, 0)),
    ],
)
def test_a_timestamp_is_read_from_its_text(text: str, expected: Timestamp) -> None:
    assert timestamp_of(text) == expected


def test_a_duration_is_read_from_its_text() -> None:
    assert duration_of("-360000000.000000001s") == Duration(-360_000_000_000_000_001)
    assert duration_of("0s") == Duration(0)
    # cel-go's Seconds() of -2975007us, a float64: its text is what format() writes (seed
    # 4274881534 of the format oracle, where the text was refused)
    assert duration_of("-2.9750069999999997s") == Duration(-2_975_007_000, "-2.9750069999999997s")


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_go_g_reads_back_as_the_double(x: float) -> None:
    assert float(go_g(x)) == x


@given(st.text())
def test_go_quote_reads_back(text: str) -> None:
    shown = go_quote(text)
    assert shown[0] == shown[-1] == '"'
    assert "\n" not in shown


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("'%e'.format([3.14])", "3.140000\u00d710⁰⁰"),
        (
            "'%s|%s'.format([timestamp('2023-01-01T00:00:00.123456789Z'),"
            " duration('1.000000001s')])",
            "2023-01-01T00:00:00.123456789Z|1.000000001s",  # the nanoseconds kept
        ),
        (
            "'%s'.format([[type(1u), type([1]), google.protobuf.Timestamp]])",
            "[uint, list, google.protobuf.Timestamp]",
        ),
        ("'%s'.format(['x'.format([]) == 'x'])", "true"),  # nested calls, each rewritten
        # Seconds() as a float64, as Kubernetes writes it (a fresh seed of the format oracle)
        ("'%s'.format(dyn([dyn(duration('-2975007us'))]))", "-2.9750069999999997s"),
    ],
)
def test_cel_expr_runs_cel_go_s_formatter(expression: str, expected: str) -> None:
    engine = make_backend("cel-expr")
    assert engine.evaluate(engine.compile(expression), engine.activation({})) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "'%s'.format([[timestamp(0)]])",  # nested: its nanoseconds are not known
        "'%s'.format([{1: 'a', true: 'b'}])",  # Python's dict merged the two keys
        "'%s'.format([[{1: 'a'}]])",  # nested, keys not strings: cannot be checked
    ],
)
def test_cel_expr_fails_closed_where_it_cannot_be_exact(expression: str) -> None:
    engine = make_backend("cel-expr")
    with pytest.raises(CelEvalError, match="fedgate"):
        engine.evaluate(engine.compile(expression), engine.activation({}))


def test_the_internal_names_cannot_be_written_by_a_rule() -> None:
    engine = make_backend("cel-expr")
    for name in ("fedgateFormat", "fedgateFormatArgs", "fedgateFormatArg"):
        with pytest.raises(Exception, match="undeclared reference"):
            engine.compile(f"'%s'.{name}([1])" if name == "fedgateFormat" else f"{name} == 1")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("'%e'.format([3.14])", "3.140000\u00d710⁰⁰"),
        ("'%s|%f'.format([[1, 'a', type(1u), null], 1234.5])", '[1, "a", uint, null]|1,234.500000'),
        ("'%s'.format([timestamp('2023-01-01T00:00:00.5Z')])", "2023-01-01T00:00:00.5Z"),
        ("'%s'.format([type(null)])", "null_type"),
    ],
)
def test_cel_python_runs_the_same_formatter(expression: str, expected: str) -> None:
    engine = make_backend("cel-python")
    assert engine.evaluate(engine.compile(expression), engine.activation({})) == expected

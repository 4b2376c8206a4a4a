"""The source rewrites for cel-expr: only real calls change, never a literal or a comment."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.engine.cel.backend import CelEvalError
from webhook.engine.cel.celexpr import CelExprBackend
from webhook.engine.cel.engines import make_backend
from webhook.engine.cel.rewrite import INT_PROBE, rewrite, typed_call_sites, uses_internal_name

STRING = (
    "[{x}].map(fedgateString, type(fedgateString) in [double, google.protobuf.Duration, "
    "google.protobuf.Timestamp] ? fedgateGoString(dyn(fedgateString), string(fedgateString))"
    " : string(fedgateString))[0]"
)
"""What ``string(x)`` becomes: cel-go's spelling of a double, a duration and a timestamp."""

CASES = [
    ("cel.bind(a, 1, cel.bind(b, 2, a + b))", "[ 1].map(a,  [ 2].map(b,  a + b)[0])[0]"),
    ("x.cel.bind(a, 1, a) + bind(a, 1, a)", "x.cel.bind(a, 1, a) + bind(a, 1, a)"),
    ("x.validate(y)", "x.fedgateFormatValidate(y)[?0]"),
    ("format.named('a')", "format.fedgateFormatNamed('a')[?0]"),
    ("format . named ('a')", "format . fedgateFormatNamed ('a')[?0]"),
    ("l.exists_one(i, v, v)", "l.existsOne(i, v, v)"),
    ("l.exists_one(v, v)", "l.exists_one(v, v)"),  # the one-variable macro stays
    (
        "l.transformMap(i, v, f(v))",
        "l.transformList(i, v, [dyn(i), dyn( f(v))]).fedgateMapOfPairs()",
    ),
    ("l.transformMapEntry(i, v, {v: i})", "l.transformList(i, v, {v: i}).fedgateMergeEntries()"),
    ("validate(x) + named('a')", "validate(x) + named('a')"),  # not the member / namespaced call
    ("'x.validate(y)' // z.validate(w)", "'x.validate(y)' // z.validate(w)"),
    ("l.transformMap(i)", "l.transformMap(i)"),  # wrong arity: the compiler words it
    ("s.substring(1, 3)", "s.fedgateSubstring(1, 3)"),  # cel-go's, not cel-cpp's
    ("substring(s, 1) + 'x.substring(1)'", "substring(s, 1) + 'x.substring(1)'"),
    ("ofNonZeroValue(x) + x.ofNonZeroValue(y)", "ofNonZeroValue(x) + x.ofNonZeroValue(y)"),
    (
        "s.format([t])",
        "s.fedgateFormat([[t]].map(fedgateFormatArgs, [fedgateFormatArgs, "
        "fedgateFormatArgs.map(fedgateFormatArg, type(fedgateFormatArg) == "
        "google.protobuf.Timestamp || type(fedgateFormatArg) == google.protobuf.Duration ? "
        f"{STRING.format(x='dyn(fedgateFormatArg)')} : type(fedgateFormatArg) == map ? "
        f"{STRING.format(x='size(dyn(fedgateFormatArg))')} : '')])[0])",
    ),
    ("format('%s', [1]) + s.format(a, b)", "format('%s', [1]) + s.format(a, b)"),
    (
        "optional . ofNonZeroValue(o.t)",
        "[o.t].map(fedgateNonZero, type(fedgateNonZero) == google.protobuf.Timestamp ? "
        "(dyn(fedgateNonZero) == timestamp('0001-01-01T00:00:00Z') ? optional.none() : "
        "optional.of(fedgateNonZero)) : optional.ofNonZeroValue(fedgateNonZero))[0]",
    ),
    ("d.getMilliseconds()", "d.fedgateGetMilliseconds()"),  # a duration's is the total
    ("t.getMilliseconds('+01:00')", "t.getMilliseconds('+01:00')"),  # a timestamp's only
    ("s.split(',', 2)", "s.fedgateSplit(',', 2)"),  # Go's strings.SplitN
    ("split(s, ',') + x.string(1)", "split(s, ',') + x.string(1)"),  # not the functions
    (
        "string(x.y)",
        STRING.format(x="x.y"),
    ),
    ("timestamp(s) == now", "timestamp(s) == now"),  # nothing shows its offset
    ("lists.range(n) + x.range(n)", "lists.range(fedgateRangeCount(n)) + x.range(n)"),
    ("l.flatten(d) + l.flatten()", "l.flatten(fedgateFlattenDepth(d)) + l.flatten()"),
    ("int(2.5) + int('7') + uint(b)", "int(2.5) + int('7') + uint(b)"),  # no bool there
    (
        "int(o.b)",
        "[o.b].map(fedgateInt, type(fedgateInt) == bool ? fedgateIntOfBool() : int(fedgateInt))[0]",
    ),
    (  # a literal in UTC, or a number, has no offset to lose
        "string(1) + timestamp('2023-01-01T00:00:00.5Z') + timestamp(7)",
        STRING.format(x="1") + " + timestamp('2023-01-01T00:00:00.5Z') + timestamp(7)",
    ),
    (
        "format(timestamp('2023-01-01T00:00:00+01:00'))",
        "format(timestamp(fedgateUtcOffset('2023-01-01T00:00:00+01:00')))",
    ),
    (
        "format(timestamp(s))",
        "format([s].map(fedgateTimestamp, type(fedgateTimestamp) == string ? "
        "timestamp(fedgateUtcOffset(dyn(fedgateTimestamp))) : timestamp(fedgateTimestamp))[0])",
    ),
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_rewrite(expression: str, expected: str) -> None:
    assert rewrite(expression) == expected


TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30
) | st.sampled_from([".validate(", "format.named(", ".transformMap(", "//", "'''", '"', "\\"])


@pytest.mark.parametrize(
    ("expression", "expected"),
    [  # cel-go's answers (cel-cpp's: 0, -500, [''], ['inf', '-1.500s', '...00.500Z'])
        ("duration('1s').getMilliseconds()", 1000),
        ("duration('-1.5s').getMilliseconds()", -1500),
        ("timestamp('1969-12-31T23:59:59.9999999Z').getMilliseconds()", 999),
        ("''.split('')", []),
        (
            "[string(double('-inf')), string(duration('-1.5s')), "
            "string(timestamp('2023-06-15T12:30:00.500Z')), string(2.5), string(3)]",
            ["-Inf", "-1.5s", "2023-06-15T12:30:00.5Z", "2.5", "3"],
        ),
    ],
)
def test_cel_cpp_standard_functions_answer_as_cel_go(expression: str, expected: object) -> None:
    engine = make_backend("cel-expr")
    assert engine.evaluate(engine.compile(expression), engine.activation({})) == expected


def test_string_of_a_timestamp_parsed_with_an_offset_fails_closed() -> None:
    """cel-go writes the offset it parsed; cel-expr's timestamps are UTC only: the parse
    fails where the expression can show the timestamp as a string, and only there."""
    engine = make_backend("cel-expr")
    shown = engine.compile("string(timestamp(object.t))")
    with pytest.raises(CelEvalError, match="fedgate keeps timestamps in UTC"):
        engine.evaluate(shown, engine.activation({"object": {"t": "2023-06-15T12:30:00+05:30"}}))
    utc = engine.activation({"object": {"t": "2023-06-15T12:30:00Z"}})
    assert engine.evaluate(shown, utc) == "2023-06-15T12:30:00Z"
    compared = engine.compile("timestamp('2023-06-15T12:30:00+05:30') == timestamp(object.t)")
    at_seven = engine.activation({"object": {"t": "2023-06-15T07:00:00Z"}})
    assert engine.evaluate(compared, at_seven) is True


def test_substring_reaches_the_end_of_a_string() -> None:
    """cel-cpp's substring refused an end at the size when the start was not 0."""
    engine = make_backend("cel-expr")
    program = engine.compile("['abc'.substring(1, 3), 'a😀b'.substring(1, 3)]")
    assert engine.evaluate(program, engine.activation({})) == ["bc", "😀b"]


@pytest.mark.parametrize(
    ("argument", "present"),
    [
        ("timestamp(0)", True),  # Go's zero time is year 1's first instant, not the epoch
        ("timestamp('0001-01-01T00:00:00Z')", False),
        ("timestamp('0001-01-01T00:00:00.000000001Z')", True),
        ("duration('0s')", False),
        ("0", False),
        ("''", False),
        ("[]", False),
        ("null", False),
        ("object.n", False),
        ("object.t", True),
        ("optional.ofNonZeroValue(timestamp(0)).hasValue()", True),  # nested, rewritten twice
    ],
)
def test_of_non_zero_value_takes_go_s_zero_time(argument: str, present: bool) -> None:
    engine = make_backend("cel-expr")
    program = engine.compile(f"optional.ofNonZeroValue({argument}).hasValue()")
    activation = engine.activation({"object": {"n": 0, "t": "2011-08-18T00:00:00Z"}})
    assert engine.evaluate(program, activation) is present


def test_the_bound_variable_cannot_be_written_by_a_rule() -> None:
    assert uses_internal_name("cel.bind(fedgateNonZero, 1, fedgateNonZero > 0)") == (
        "fedgateNonZero"
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=3))
def test_literals_reach_the_engine_unchanged(texts: list[str]) -> None:
    """Whatever a string literal holds, the rewritten expression still has it: the map made
    by transformMap gives back each literal as written."""
    engine = make_backend("cel-expr")
    literals = ", ".join(json.dumps(text, ensure_ascii=False) for text in texts)
    expression = f"[{literals}].transformMap(i, v, v) // .validate( {literals}"
    value = engine.evaluate(engine.compile(expression), engine.activation({}))
    assert value == dict(enumerate(texts))


def test_internal_names_are_found_outside_literals_only() -> None:
    assert uses_internal_name("x.fedgateMapOfPairs()") == "fedgateMapOfPairs"
    assert uses_internal_name("'fedgateMapOfPairs' == x") is None


def test_typed_calls_are_found_outside_literals_last_first() -> None:
    expression = "[1.5].sum() + x.min( ) + 'a.sum()'.size() + y.max(1) // z.max()"
    assert typed_call_sites(expression) == [(16, 19, "min"), (6, 9, "sum")]
    assert uses_internal_name("[1.5].fedgateSumOfDouble()") == "fedgateSumOfDouble"
    assert uses_internal_name(f"[1].{INT_PROBE}()") == INT_PROBE


@pytest.mark.parametrize(
    ("expression", "typed"),
    [
        ("[1.5].filter(x, x > 2.0).sum()", "[1.5].filter(x, x > 2.0).fedgateSumOfDouble()"),
        ("[7u].max() == 7u", "[7u].fedgateMaxOfUint() == 7u"),
        ("[[7u]].map(l, l.min())", "[[7u]].map(l, l.fedgateMinOfUint())"),
        ("[duration('1s')].sum()", "[duration('1s')].fedgateSumOfDuration()"),
        ("[1, 2].sum() + [1.5].max()", "[1, 2].sum() + [1.5].max()"),  # int; double answers
        ("object.l.sum() + dyn([1.5]).sum()", "object.l.sum() + dyn([1.5]).sum()"),  # dyn
        ("[1.5].sum(", "[1.5].sum("),  # not a call: the compiler says why
    ],
)
def test_the_checker_tells_a_list_s_static_type(expression: str, typed: str) -> None:
    assert CelExprBackend().typed(expression) == typed

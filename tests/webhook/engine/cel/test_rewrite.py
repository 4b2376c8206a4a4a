"""The source rewrites for cel-expr: only real calls change, never a literal or a comment."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.engine.cel.engines import make_backend
from webhook.engine.cel.rewrite import rewrite, uses_internal_name

CASES = [
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
        "s.fedgateFormat(cel.bind(fedgateFormatArgs, [t], [fedgateFormatArgs, "
        "fedgateFormatArgs.map(fedgateFormatArg, type(fedgateFormatArg) == "
        "google.protobuf.Timestamp || type(fedgateFormatArg) == google.protobuf.Duration ? "
        "string(dyn(fedgateFormatArg)) : type(fedgateFormatArg) == map ? "
        "string(size(dyn(fedgateFormatArg))) : '')]))",
    ),
    ("format('%s', [1]) + s.format(a, b)", "format('%s', [1]) + s.format(a, b)"),
    (
        "optional . ofNonZeroValue(o.t)",
        "cel.bind(fedgateNonZero, o.t, type(fedgateNonZero) == google.protobuf.Timestamp ? "
        "(dyn(fedgateNonZero) == timestamp('0001-01-01T00:00:00Z') ? optional.none() : "
        "optional.of(fedgateNonZero)) : optional.ofNonZeroValue(fedgateNonZero))",
    ),
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_rewrite(expression: str, expected: str) -> None:
    assert rewrite(expression) == expected


TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30
) | st.sampled_from([".validate(", "format.named(", ".transformMap(", "//", "'''", '"', "\\"])


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

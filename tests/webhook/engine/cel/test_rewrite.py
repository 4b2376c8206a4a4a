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
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_rewrite(expression: str, expected: str) -> None:
    assert rewrite(expression) == expected


TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30
) | st.sampled_from([".validate(", "format.named(", ".transformMap(", "//", "'''", '"', "\\"])


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

"""Which conversions ``typeparam`` wraps, and what each then takes (the oracle's answers are
``tests/oracles/test_typeparam_oracle.py``'s and the named regressions')."""

from __future__ import annotations

import pytest

from webhook.engine.cel import typeparam

CASES = [
    # (expression, [(conversion, what it takes; None: nothing, closed)])
    ("string(object.l.reverse()[0])", [("string", "string")]),
    ("string(object.l[0])", []),
    ("string(object.l.sort()[0])", []),  # sort() of a dyn is a dyn
    ("string(object.l.distinct().sort()[0])", [("string", "int")]),  # sort() binds T to int
    ("string(object.l.reverse().filter(x, true)[0])", [("string", "string")]),
    ("object.l.reverse().map(x, int(x))", [("int", "int")]),
    ("string(object.l.filter(x, true).reverse()[0])", []),  # filter of a dyn: list(dyn)
    ("string(dyn(object.l.reverse()[0]))", []),
    ("string(lists.range(3).reverse()[0])", []),
    ("string(object.l.reverse()[?0].value())", [("string", "string")]),
    ("string(object.l.first().value())", [("string", "string")]),
    ("string(true ? object.l.reverse()[0] : 1)", [("string", None)]),
    ("string(-object.l.reverse()[0])", [("string", None)]),
    ("string(object.l.reverse()[0] + 'b')", []),  # T bound to string, the result a string
    ("string(object.spec.replicas) + string(object.l.distinct().size())", []),
    ("object.l.reverse().max()", [("max", "int")]),
    ("object.l.max()", []),
    ("'string(x.reverse()[0])'", []),  # a literal
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_what_is_wrapped(expression: str, expected: list[tuple[str, str | None]]) -> None:
    assert [(w.conversion, w.accepts) for w in typeparam.wraps(expression)] == expected


def test_a_wrapped_conversion_keeps_the_rest_of_the_expression() -> None:
    text = "string(object.l.reverse()[0]) + string(object.x)"
    checked = typeparam.checked(text)
    assert checked.endswith(" + string(object.x)")
    assert checked.startswith(f"string([object.l.reverse()[0]].map({typeparam.BOUND}, ")


def test_an_expression_the_parser_cannot_read_is_left_alone() -> None:
    assert typeparam.checked("string(object.l.reverse()[0]") == "string(object.l.reverse()[0]"

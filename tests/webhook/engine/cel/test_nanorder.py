"""cel-go's ordering of a NaN on cel-expr: an error where an operand may be a NaN, and the
orderings that cannot meet one left as cel-cpp runs them."""

from __future__ import annotations

import pytest

from webhook.engine.cel import CelEvalError
from webhook.engine.cel.engines import make_backend
from webhook.engine.cel.nanorder import checked


@pytest.mark.parametrize(
    "expression",
    [
        "object.spec.replicas <= 5",
        "size(object.x) < 10 && object.m['a'] >= -1.5",
        "params.limit > object.spec.replicas",
        "x.size() < 3 || 'a' < 'b' || timestamp(object.t) < timestamp(0)",
        "'a < b' == object.s",  # a literal is not an ordering
        # a comprehension's variable bound to the request's data, or to a list of strings
        "object.spec.rules.all(r, ['a', 'b'].all(f, !(f in r) || r[f] <= 3))",
        "object.l.all(x, x.items.exists(y, y.n > 0.5))",
        "object.l.filter(r, r.a > 1).map(r, r.b > 2)",  # a filter holds the request's items
    ],
)
def test_an_ordering_that_cannot_meet_a_nan_is_left_alone(expression: str) -> None:
    assert checked(expression) == expression


@pytest.mark.parametrize(
    "expression",
    [
        "double('NaN') < 1.0",
        "1 <= double(object.s)",
        "object.a * 1.5 >= 2.0",
        "object.l.map(y, y * 2.0).all(x, x > 0.5)",  # bound to computed values: may be a NaN
        "object.l.all(x, x > 1) && [0.0 / 0.0].all(x, x > 1)",  # x is bound to both
        "object.l.map(y, y / 0.0).filter(r, r > 1.0)",  # a filter of computed values
        # not a plain list (a parenthesis): read in linear time, 2^40 ways to split the digits
        "[1234567890123456789012345678901234567890, (1)].exists(x, x > 0.5)",
        "variables.ratio > 0.5",  # another expression's value may be a NaN
        "object.l.min() < 1.0",
        "(object.a * 2.0 <= true)",  # a bool literal keeps its place
    ],
)
def test_an_ordering_that_may_meet_a_nan_is_checked(expression: str) -> None:
    rewritten = checked(expression)
    assert "fedgateUnordered()" in rewritten
    assert checked(rewritten) == rewritten  # once: its own ordering is not checked again


@pytest.mark.parametrize(
    ("expression", "variables", "expected"),
    [
        ("double(object.s) < 1.0", {"object": {"s": "NaN"}}, None),
        ("object.l.exists(x, x * 0.0 > 1.0)", {"object": {"l": [1.5, 1e308]}}, False),
        ("[object.a * 1e308].exists(x, x - x >= 0.0)", {"object": {"a": 10.0}}, None),
        ("[object.a * 1e308, 1.0].exists(x, x - x >= 0.0)", {"object": {"a": 10.0}}, True),
        ("object.a / 2.0 > 1.0 && object.b < 3", {"object": {"a": 3.0, "b": 2}}, True),
    ],
)
def test_nan_cannot_be_ordered_on_cel_expr(
    expression: str, variables: dict[str, object], expected: bool | None
) -> None:
    engine = make_backend("cel-expr")
    program = engine.compile(expression)
    if expected is None:
        with pytest.raises(CelEvalError, match="NaN values cannot be ordered"):
            engine.evaluate(program, engine.activation(variables))
    else:
        assert engine.evaluate(program, engine.activation(variables)) is expected

"""The default backend's pinning: an expression that makes a uint, a duration or a timestamp
and takes ``min()``, ``max()`` or ``sum()`` runs on cel-python, which keeps what cel-expr's
Python crossing loses (a uint's type, nanoseconds, a timestamp's offset)."""

from __future__ import annotations

import pytest

from webhook.engine.cel.backend import CelCompileError
from webhook.engine.cel.engines import make_backend
from webhook.engine.cel.routed import RoutedBackend, changes_a_quantity_in_place, pinned

ROUTED = RoutedBackend()


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("dyn([7u, 0u]).min()", True),
        ("[uint(object.a)].max() > 3u", True),
        ("dyn([0x10u]).sum()", True),
        ("[duration('1ns'), duration('2ns')].sum() == duration('3ns')", True),
        ("[timestamp(object.t)].max()", True),
        ("quantity(object.q).isInteger()", True),
        ("quantity('1k').asApproximateFloat() > 0.0", True),
        ("object.isIntegerish == 1", False),
        ("object.items.max() > 3", False),  # no uint anywhere
        ("[7u, 0u].sort()[0] == 0u", False),  # sort() is cel-cpp's own: it keeps the uint
        ("'7u'.size() > 0 && [1].min() == 1", False),  # a literal's text is not a uint
        ("object.u7u.min() == 1", False),  # a field named like a literal
        ("object.x // 7u\n.min()", False),  # a comment's text is not code
        ("[quantity('1.5Gi')].all(q, q.add(quantity('1')).compareTo(q) == 0)", True),
        ("object.l.map(s, quantity(s)).exists(q, q.isLessThan(quantity('2Gi')))", True),
        ("quantity(object.q).isLessThan(quantity('2Gi'))", False),  # fresh values, read once
        ("object.l.all(s, quantity(s).isLessThan(quantity('2Gi')))", False),  # fresh
        (
            "object.l.all(s, quantity(s).add(quantity(s)).sub(1).compareTo(quantity('1')) < 0)",
            False,
        ),
        (
            "object.l.map(s, quantity(s)).all(q, quantity('1').add(q).isLessThan(q))",
            False,
        ),  # q only read
        ("[quantity('1')].all(q, (q).add(1).compareTo(q) == 0)", True),
        ("[[quantity('1')]].all(l, l[0].compareTo(quantity('1Gi')) < 0)", True),
        ("object.l.all(x, x.add(1) > 0)", False),  # no Quantity is made
    ],
)
def test_pinned_only_where_a_uint_meets_a_python_lists_function(
    expression: str, expected: bool
) -> None:
    assert pinned(expression) is expected


@pytest.mark.parametrize(
    "expression",
    [
        "type(dyn([7u, 0u]).min()) == uint",
        "type(dyn([7u, 0u]).max()) == uint",
        "type(dyn([1u, 2u]).sum()) == uint",
        "dyn([uint(object.a), 2u]).max() == 5u",
        "[duration('1ns'), duration('2ns')].sum() == duration('3ns')",
        "[duration('1ns'), duration('2ns')].min() == duration('1ns')",
        "string([timestamp('2023-06-15T12:30:00+05:30')].max()) == '2023-06-15T12:30:00+05:30'",
        "dyn([duration('1s')]).sum() == duration('1s')",
        "!quantity('1000m').isInteger() && quantity('1k').isInteger()",
        "!quantity('0').sub(quantity('1Ei')).isInteger()",
        "[quantity('1')].all(q, q.compareTo(quantity('1.5Gi')) < 0 && !q.isInteger())",
    ],
)
def test_a_uint_duration_or_timestamp_from_a_lists_function_is_exact(expression: str) -> None:
    program = ROUTED.compile(expression)
    assert program.pinned
    assert ROUTED.evaluate(program, ROUTED.activation({"object": {"a": 5}})) is True


def test_a_pinned_expression_cel_python_cannot_run_is_refused_naming_why() -> None:
    refusal = r"only cel-python answers exactly.*cel-python cannot run .*optional"
    with pytest.raises(CelCompileError, match=refusal):
        ROUTED.compile("dyn([7u]).min() == optional.of(7u).value()")


def test_an_unpinned_expression_stays_on_cel_expr_within_its_bound() -> None:
    program = ROUTED.compile("object.items.max() > 3")
    activation = ROUTED.activation({"object": {"items": [1, 5]}})
    assert not program.pinned
    assert ROUTED.route(program, activation) is not None
    assert ROUTED.evaluate(program, activation) is True


@pytest.mark.parametrize("name", ["cel-expr", "cel-python"])
@pytest.mark.parametrize(
    "expression",
    [
        "[quantity('1.5Gi')].all(q, q.add(quantity('1')).compareTo(q) == 0)",
        "[quantity('0.5')].map(q, q.sub(1).add(q).compareTo(q)) == [-1]",
        "{'a': quantity('0.5')}.all(k, {'a': quantity('0.5')}[k].add(1).isInteger())",
    ],
)
def test_a_quantity_a_variable_holds_changed_in_place_is_refused(
    name: str, expression: str
) -> None:
    """cel-go's add() writes into a Quantity held as inf.Dec, in an order only its evaluation
    decides: both engines refuse the expression when it compiles, naming why."""
    with pytest.raises(CelCompileError, match=r"add\(\) or sub\(\) of a Quantity a variable"):
        make_backend(name).compile(expression)


def test_a_fresh_quantity_added_to_is_not_refused() -> None:
    assert not changes_a_quantity_in_place("[1].all(x, quantity('1').add(x).isInteger())")
    assert not changes_a_quantity_in_place("quantity(object.a).add(quantity('1')).isInteger()")

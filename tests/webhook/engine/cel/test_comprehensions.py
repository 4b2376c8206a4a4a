"""cel-python runs cel-go's two-variable comprehensions (``all``, ``exists``, ``existsOne`` /
``exists_one`` with two variables, ``transformList``, ``transformMap``, ``transformMapEntry``)
and map literals with computed keys and values, with the value or the failure and the cost
the API server gives (each row answered by the ``cel/`` oracle, k8s.io/apiserver v0.34.3 with
cel-go v0.26.0; ``tests/oracles/`` compares generated ones on every run)."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.engine.cel.backend import CelEvalError
from webhook.engine.cel.celpython import COST_EXCEEDED, CelPythonBackend
from webhook.engine.cel.engines import make_backend

VARIABLES = {
    "object": {"a": {"b": 1}, "l": [1, 2, 3], "s": "hello world" * 10, "m": {"k": 1}},
}
ENGINE = CelPythonBackend()
FAILS = CelEvalError


@pytest.mark.parametrize(
    ("expression", "value", "kubernetes"),
    [
        ("object.l.exists_one(x, x > 1)", False, 14),
        ("object.l.exists_one(x, x > 2)", True, 12),
        ("object.l.existsOne(i, x, i == x)", False, 13),
        ("object.l.all(i, x, i < x)", True, 21),
        ("object.l.exists(i, x, i == 2)", True, 21),
        ("object.m.all(k, v, k == 'k' && v == 1)", True, 10),
        ("object.l.all(i, v, v)", FAILS, 15),
        ("object.l.existsOne(i, v, v)", FAILS, 7),
        ("object.l.existsOne(i, x, x / (x - 2) > 0)", FAILS, 21),
        ("object.l.transformList(i, x, i * x)", [0, 2, 6], 48),
        ("object.l.transformList(i, x, x > 1, [i])", [[1], [2]], 55),
        ("object.l.transformList(i, x, x / (x - 2))", FAILS, 51),
        ("object.l.transformList(i, x, x / (x - 2) > 0, x)", FAILS, 31),
        ("object.m.transformMap(k, v, v + 1)", {"k": 2}, 8),
        ("object.l.transformMap(i, x, i > 0, x)", {1: 2, 2: 3}, 17),
        ("object.l.transformMap(i, x, x).size()", 3, 16),
        ("object.l.transformMapEntry(i, x, {string(x): i})", {"1": 0, "2": 1, "3": 2}, 108),
        ("object.l.transformMapEntry(i, x, {'k': i})", FAILS, 102),
        ("object.l.transformMapEntry(i, x, x)", FAILS, 12),
        ("{object.s: 1, object.a.b: 2}", {"hello world" * 10: 1, 1: 2}, 35),
        ("{object.s: 1, object.s: 2}", {"hello world" * 10: 2}, 34),
    ],
)
def test_value_and_cost_are_kubernetes(expression: str, value: Any, kubernetes: int) -> None:
    answer, cost = ENGINE.measure(ENGINE.compile(expression), ENGINE.activation(VARIABLES))
    if value is FAILS:
        assert isinstance(answer, CelEvalError)
    else:
        assert answer == value
    assert cost == kubernetes


SORTABLE = {
    "object": {
        "l": [3, 1, 2, 1],
        "s": ["b", "a", "c"],
        "o": [{"n": "x", "k": 2}, {"n": "y", "k": 1}],
        "mix": [1, 1.5],
        "tie": [i % 3 for i in range(20)],
    }
}


@pytest.mark.parametrize(
    ("expression", "value", "kubernetes"),
    [
        ("object.l.sortBy(x, x)", [1, 1, 2, 3], 58),
        ("object.s.sortBy(x, x)", ["a", "b", "c"], 45),
        ("object.o.sortBy(e, e.k).map(e, e.n)", ["y", "x"], 63),
        ("object.l.sortBy(x, x % 2)", [2, 3, 1, 1], 104),
        ("[3, 1, 2].sortBy(x, x)", [1, 2, 3], 71),
        ("[].sortBy(x, x)", [], 14),
        ("object.mix.sortBy(x, x)", FAILS, 32),
        ("object.missing.sortBy(x, x)", FAILS, 5),
        ("[1.5, double('NaN'), 0.5, 0.2].sortBy(x, x)[3]", 0.5, None),
    ],
)
def test_sort_by_is_kubernetes(expression: str, value: Any, kubernetes: int | None) -> None:
    """Values, failures and costs the API server gives; the NaN one is Go's insertion sort's
    order (cel-go folds the literal: its cost is fedgate's higher)."""
    answer, cost = ENGINE.measure(ENGINE.compile(expression), ENGINE.activation(SORTABLE))
    if value is FAILS:
        assert isinstance(answer, CelEvalError)
    else:
        assert answer == value
    assert kubernetes is None or cost == kubernetes


@pytest.mark.parametrize(
    ("items", "step", "spread", "kubernetes", "cost"),
    [
        (20, 1, 3, [9, 18, 15, 3, 12, 0, 6, 10, 7, 4, 13, 16, 1, 19, 8, 5, 11, 14, 2, 17], 567),
        (
            60,
            7,
            5,
            [
                *(40, 25, 55, 30, 20, 5, 0, 10, 15, 45, 35, 50, 58, 13, 38, 8, 48, 33, 18, 43),
                *(53, 3, 28, 23, 31, 36, 26, 1, 56, 51, 21, 6, 46, 11, 41, 16, 49, 24, 14, 39),
                *(59, 34, 54, 4, 44, 9, 29, 19, 47, 7, 37, 32, 52, 17, 42, 2, 22, 57, 27, 12),
            ],
            1687,
        ),
    ],
)
def test_sort_by_leaves_equal_keys_where_gos_sort_leaves_them(
    items: int, step: int, spread: int, kubernetes: list[int], cost: int
) -> None:
    """Past 12 items Go's pdqsort (not stable) decides where items of equal keys go: the
    order the API server answers (``gosort.py`` makes Go's comparisons and swaps)."""
    variables = {"object": {"o": [{"i": i, "k": i * step % spread} for i in range(items)]}}
    program = ENGINE.compile("object.o.sortBy(e, e.k).map(e, e.i)")
    assert ENGINE.measure(program, ENGINE.activation(variables)) == (kubernetes, cost)


def test_a_fold_stops_at_the_per_call_limit() -> None:
    """A long ``transformList`` is charged item by item (a search of a 10,000-character
    string, 1,000 an item), and stopped past Kubernetes' limit, within 1,001 items."""
    many = {"object": {"l": list(range(2_000)), "s": "x" * 10_000}}
    program = ENGINE.compile("object.l.transformList(i, x, object.s.contains('y')).size() > 0")
    answer, cost = ENGINE.measure(program, ENGINE.activation(many))
    assert isinstance(answer, CelEvalError)
    assert "cost limit exceeded" in str(answer)
    assert 1_000_000 < cost < 1_002_000


@pytest.mark.parametrize(("items", "stopped"), [(90, False), (110, True)])
def test_the_default_backend_stops_a_fold_where_the_api_server_stops(
    items: int, stopped: bool
) -> None:
    """Where the bound does not fit, the default backend hands the fold to cel-python, which
    counts it (each item searches a 100,000-character string: 10,000)."""
    variables = {"object": {"l": list(range(items)), "s": "x" * 100_000, "t": "y" * 10}}
    engine = make_backend()
    program = engine.compile("object.l.existsOne(i, x, object.s.contains(object.t))")
    try:
        answer = engine.evaluate(program, engine.activation(variables))
    except CelEvalError as exc:
        answer = exc
    assert (isinstance(answer, CelEvalError) and COST_EXCEEDED in str(answer)) is stopped
    if not stopped:
        assert answer is False

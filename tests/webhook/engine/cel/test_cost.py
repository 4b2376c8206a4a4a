"""cel-python counts Kubernetes' CEL cost as it evaluates: a table of costs the API server
answered (the ``cel/`` oracle's ``cost``, k8s.io/apiserver v0.34.3), held without Go, and the
per-call limit stopping an evaluation (``tests/oracles/test_cel_cost_oracle.py`` compares
generated expressions with the oracle itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webhook.engine.custom_rules import DEPLOYMENT, MATCH, bundle_with
from webhook.engine.cel.backend import CelEvalError
from webhook.engine.cel.celpython import COST_EXCEEDED, CelPythonBackend
from webhook.engine.cel.cost import OUT_OF_BUDGET, PER_CALL_LIMIT, call_cost, macro_cost
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request

VARIABLES = {
    "object": {"a": {"b": 1}, "l": [1, 2, 3], "s": "hello world" * 10, "m": {"k": 1}},
}
ENGINE = CelPythonBackend()


@pytest.mark.parametrize(
    ("expression", "kubernetes"),
    [
        ("true", 0),
        ("object", 1),
        ("object.a.b", 3),
        ("object.l[0]", 3),
        ("[1, 2]", 0),
        ("[object.a]", 12),
        ("1 + 2", 1),
        ("object.a == object.a", 5),
        ("object.l.all(x, x > 0)", 18),
        ("object.l.all(x, x < 2)", 15),
        ("object.l.exists(x, x > 0)", 12),
        ("object.l.exists(x, x > 2)", 21),
        ("object.l.exists_one(x, x > 0)", 16),
        ("object.l.map(x, x)", 42),
        ("object.l.filter(x, x > 1)", 35),
        ("object.l.map(x, x > 1, x)", 35),
        ("object.l.map(x, 1)", 9),
        ("object.l.all(x, type(x) == int)", 21),
        ("object.l.transformList(i, x, x > 1, [1])", 13),
        ('object.s.contains("a")', 13),
        ('object.s.matches("a")', 14),
        ("object.s.startsWith('a')", 13),
        ("object.s.lowerAscii()", 13),
        ("has(object.a.b)", 2),
        ("object.a.b > 0 && true", 4),
        ("-object.a.b", 4),
        ("object.m.k", 3),
    ],
)
def test_the_cost_is_kubernetes(expression: str, kubernetes: int) -> None:
    _, cost = ENGINE.measure(ENGINE.compile(expression), ENGINE.activation(VARIABLES))
    assert cost == kubernetes


@pytest.mark.parametrize(
    ("expression", "kubernetes", "ours"),
    [
        pytest.param("object.s + object.s", 5, 26, id="unresolved-dyn-overload-charged-by-size"),
        pytest.param("1 in object.l", 3, 5, id="in-a-dyn-list-charged-by-size"),
        pytest.param('int("1")', 0, 1, id="a-folded-conversion-charged"),
    ],
)
def test_where_fedgate_counts_more_it_stops_earlier(
    expression: str, kubernetes: int, ours: int
) -> None:
    _, cost = ENGINE.measure(ENGINE.compile(expression), ENGINE.activation(VARIABLES))
    assert cost == ours > kubernetes


def test_past_the_per_call_limit_the_evaluation_fails_with_cel_gos_message() -> None:
    huge = {"object": {"l": list(range(200)), "s": "x" * 100_000, "t": "y" * 10}}
    program = ENGINE.compile("object.l.all(x, !object.s.contains(object.t))")
    value, cost = ENGINE.measure(program, ENGINE.activation(huge))
    assert isinstance(value, CelEvalError) and COST_EXCEEDED in str(value)
    assert PER_CALL_LIMIT < cost < PER_CALL_LIMIT + 20_000  # stopped at the call that passed it
    with pytest.raises(CelEvalError, match="cost limit exceeded"):
        ENGINE.evaluate(program, ENGINE.activation(huge))


@pytest.mark.parametrize(
    ("function", "args", "cost"),
    [
        ("_==_", ["a" * 95, "b" * 200], 10),
        ("contains", ["a" * 100, "b" * 20], 20),
        ("matches", ["a" * 99, "abcd"], 10),
        ("sets.equivalent", [[1, 2], [1, 2, 3]], 13),
        ("sort", [["b", "a"]], 19),
        ("lists.range", [3], 14),
        ("check", [], 350_000),
        ("_&&_", [True, False], 0),
        ("size", [[1, 2, 3]], 1),
    ],
)
def test_call_costs(function: str, args: list[object], cost: int) -> None:
    result = [0, 1, 2] if function == "lists.range" else None
    assert call_cost(function, args, result) == cost


def test_a_comprehension_stopped_early_charges_one_more_loop_condition() -> None:
    assert macro_cost("all", 2, 2, early=True) == 2 * 3 + 2 + 1
    assert macro_cost("all", 3, 3) == 3 * 3 + 1


@pytest.mark.parametrize("backend", ["cel-python", "cel-expr"])
def test_a_rules_validations_share_kubernetes_policy_budget(tmp_path: Path, backend: str) -> None:
    """Eleven validations of about 960,000 each (32 regular expression searches of 100,000
    characters): each within the per-call limit, the eleventh past the policy's 10,000,000,
    as the API server's validator counts them. (``matches``: no Python proof answers first.)
    On cel-expr the first ten run within their bounds, counted exactly before the eleventh."""
    search = "object.spec.l.all(x, !object.spec.s.matches(object.spec.t))"
    rule = "validations:\n" + "".join(
        f"  - expression: {search} || {i} < 0\n    message: v{i}\n" for i in range(11)
    )
    bundle = bundle_with(tmp_path, rule, f"action: deny\n{MATCH}", backend)
    spec = {**DEPLOYMENT["spec"], "l": list(range(32)), "s": "x" * 100_000, "t": "y" * 10}
    decision = review(sync_request({**DEPLOYMENT, "spec": spec}, None, bundle), bundle)
    assert [v.message for v in decision.violations if v.rule == "custom"] == [
        f"validations[10] could not be evaluated: {OUT_OF_BUDGET}"
    ]
    assert not decision.allowed

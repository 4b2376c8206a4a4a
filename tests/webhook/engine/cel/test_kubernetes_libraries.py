"""Kubernetes' CEL libraries on both backends, from their own tables.

Sources (the examples in each function's documentation, and the test tables):
- kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/library/lists.go (2293553) and
  regex.go (a604ef4): the documented examples;
- google/cel-go ext/sets_test.go (14f6746a): the cases with homogeneous list literals (the
  others mix int, uint and double in one literal, which Kubernetes refuses to compile).
"""

from __future__ import annotations

import pytest

from webhook.engine.cel import Backend, CelEvalError
from webhook.engine.cel.backend import BACKENDS, make_backend

# (expression, value) from lists.go
LISTS = [
    ("[1, 2, 3].isSorted()", True),
    ("['a', 'b', 'b', 'c'].isSorted()", True),
    ("[2.0, 1.0].isSorted()", False),
    ("[1].isSorted()", True),
    ("[].isSorted()", True),
    ("[1, 3].sum()", 4),
    ("[1.0, 3.0].sum()", 4.0),
    ("[].sum()", 0),
    ("[1, 3].min()", 1),
    ("[1, 3].max()", 3),
    ("[1].min()", 1),
    ("([0] + []).min()", 0),
    ("['b', 'a', 'c'].max()", "c"),
]
# from regex.go
REGEX = [
    ("'abc 123'.find('[0-9]+')", "123"),
    ("'abc 123'.find('xyz')", ""),
    ("'123 abc 456'.findAll('[0-9]+')", ["123", "456"]),
    ("'123 abc 456'.findAll('[0-9]+', 1)", ["123"]),
    ("'123 abc 456'.findAll('xyz')", []),
]
# from cel-go ext/sets_test.go
SETS = [
    ("sets.contains([], [])", True),
    ("sets.contains([1], [])", True),
    ("sets.contains([1], [1])", True),
    ("sets.contains([1], [1, 1])", True),
    ("sets.contains([1, 1], [1])", True),
    ("sets.contains([2, 1], [1])", True),
    ("sets.contains([1, 2, 3, 4], [2, 3])", True),
    ("!sets.contains([1], [2])", True),
    ("!sets.contains([1], [1, 2])", True),
    ("sets.equivalent([], [])", True),
    ("sets.equivalent([1], [1])", True),
    ("sets.equivalent([1], [1, 1])", True),
    ("sets.equivalent([1, 1], [1])", True),
    ("!sets.equivalent([2, 1], [1])", True),
    ("!sets.equivalent([1], [1, 2])", True),
    ("sets.intersects([1], [1])", True),
    ("sets.intersects([1], [1, 1])", True),
    ("sets.intersects([1, 1], [1])", True),
    ("sets.intersects([2, 1], [1])", True),
    ("sets.intersects([1], [1, 2])", True),
    ("!sets.intersects([], [])", True),
    ("!sets.intersects([1], [])", True),
    ("!sets.intersects([1], [2])", True),
]
ERRORS = ["[].min()", "[].max()", "'abc'.find('[')"]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    return make_backend(request.param)


@pytest.mark.parametrize(("expression", "expected"), LISTS + REGEX + SETS, ids=str)
def test_value(backend: Backend, expression: str, expected: object) -> None:
    value = backend.evaluate(backend.compile(expression), backend.activation({}))
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("expression", ERRORS)
def test_error(backend: Backend, expression: str) -> None:
    with pytest.raises(CelEvalError):
        backend.evaluate(backend.compile(expression), backend.activation({}))


def test_on_data_as_a_rule_reads_it(backend: Backend) -> None:
    """Lists from the object are dyn to the type checker: the same functions apply."""
    variables = {"object": {"ports": [80, 443], "names": ["b", "a"]}}
    activation = backend.activation(variables)
    for expression, expected in [
        ("object.ports.isSorted() && object.ports.max() == 443", True),
        ("object.names.min()", "a"),
        ("sets.contains(object.ports, [443])", True),
    ]:
        assert backend.evaluate(backend.compile(expression), activation) == expected

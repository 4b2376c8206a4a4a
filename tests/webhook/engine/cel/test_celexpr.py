"""cel-expr (cel-expr-python) held where the binding itself is wrong."""

from __future__ import annotations

import sys

import pytest

from webhook.engine.cel.engines import make_backend


@pytest.mark.parametrize(
    "expression", ["null", "[null, 1]", "{'a': [null], 'b': null}", "dyn([[null], null])"]
)
def test_a_null_in_a_result_keeps_none_s_references(expression: str) -> None:
    """cel-expr-python's plain_value() takes a reference from None for each null it hands
    out; unbalanced, 5,000 evaluations take 5,000 or more (the interpreter aborts when None
    runs out), balanced they take none (a few may move while caches warm up)."""
    backend = make_backend("cel-expr")
    program = backend.compile(expression)
    activation = backend.activation({"object": {}})
    for _ in range(50):  # warm-up: caches that hold None settle
        backend.evaluate(program, activation)
    before = sys.getrefcount(None)
    for _ in range(5000):
        backend.evaluate(program, activation)
    assert sys.getrefcount(None) - before > -100

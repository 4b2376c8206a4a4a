"""What the cost-bound tests share: both engines, cel-python's count, an evaluation's outcome
and an expression's bounds."""

from __future__ import annotations

from typing import Any

from webhook.engine.cel import bound, cost
from webhook.engine.cel.backend import CelCompileError, CelEvalError
from webhook.engine.cel.celpython import COST_EXCEEDED, CelPythonBackend
from webhook.engine.cel.routed import RoutedBackend

PYTHON = CelPythonBackend()
ROUTED = RoutedBackend()


def counted(expression: str, variables: dict[str, Any]) -> tuple[Any, int] | None:
    """cel-python's value (or error) and count; None where it refuses the expression."""
    try:
        program = PYTHON.compile(expression)
    except CelCompileError:
        return None
    return PYTHON.measure(program, PYTHON.activation(variables))


def outcome(engine: Any, expression: str, variables: dict[str, Any]) -> tuple[str, Any]:
    """What an evaluation came to: a value, an error (its class), or out of budget (its
    message, the API server's)."""
    program = engine.compile(expression)
    try:
        return "value", engine.evaluate(program, engine.activation(variables))
    except CelEvalError as exc:
        text = str(exc)
        if COST_EXCEEDED in text or cost.OUT_OF_BUDGET in text:
            return "budget", text
        if "iteration budget" in text.lower() or "budget exceeded" in text.lower():
            return "iterations", None
        return "error", None


def bounds(expression: str, variables: dict[str, Any]) -> tuple[bound.Bound | None, ...]:
    found = bound.plan(expression)
    assert found is not None, expression
    sizes = bound.Sizes(variables)
    assert sizes.total is not None
    return found.exact(sizes), found.static(sizes.total)

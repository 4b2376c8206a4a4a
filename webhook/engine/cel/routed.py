"""The default backend: cel-expr where the API server would finish the evaluation, cel-python
(which counts Kubernetes' cost and stops where the API server stops) where it might not.

cel-cpp cannot count cost nor be stopped from Python: an expression plus a hostile object ran
seconds there, where the API server stops it at its cost limit. Before each evaluation the
expression's cost is bounded on the activation's sizes (``bound.py``). Within Kubernetes'
per-call limit and what is left of the policy's budget (and the iteration budget), cel-expr
evaluates: its cost cannot pass either, so its answer is the API server's. Otherwise cel-python
evaluates, counting as it goes: it answers the same where the evaluation finishes, and fails
with the API server's message where it does not (``operation cancelled: actual cost limit
exceeded``; ``validation failed due to running out of cost budget``).

A cel-expr evaluation inside a policy's budget spends its bound, which may be more than its
cost; before an evaluation that would not fit, the bounds spent so far are replaced by their
exact counts (``cost.settle``: each such evaluation counted again on cel-python), so the budget
runs out where the API server's does, not earlier.

An expression cel-python refuses (optionals, ``format``, two-variable comprehensions...) and
whose bound does not fit is evaluated on cel-expr as before: its cost is not bounded
(docs/cel.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.base import forksafe
from webhook.engine.cel import bound, cost
from webhook.engine.cel.backend import CelCompileError, CelEvalError
from webhook.engine.cel.celexpr import CelExprBackend

_UNSET: Any = object()


class RoutedProgram:
    """cel-expr's program, with the expression's bound plan and cel-python's program, each
    made on first use (most expressions never need cel-python's)."""

    __slots__ = ("_plan", "expression", "program", "python")

    def __init__(self, expression: str, program: Any) -> None:
        self.expression, self.program = expression, program
        self._plan: Any = _UNSET
        self.python: Any = _UNSET

    def plan(self) -> bound.Plan | None:
        if self._plan is _UNSET:
            self._plan = bound.plan(self.expression)
        found: bound.Plan | None = self._plan
        return found


class RoutedActivation:
    """One request's variables: cel-expr's activation, their sizes and cel-python's activation
    (the last two made on first use)."""

    __slots__ = ("_sizes", "expr", "python", "variables")

    def __init__(self, variables: Mapping[str, Any], expr: Any) -> None:
        self.variables, self.expr = variables, expr
        self._sizes: bound.Sizes | None = None
        self.python: Any = None

    @property
    def sizes(self) -> bound.Sizes:
        if self._sizes is None:
            self._sizes = bound.Sizes(self.variables)
        return self._sizes


class RoutedBackend:
    """cel-expr, or cel-python where cel-expr's cost could pass Kubernetes' (see the module)."""

    name = "cel-expr"

    def __init__(self) -> None:
        self.expr = CelExprBackend()
        self._python: Any = None
        self._lock = forksafe.lock()
        self._compiling = forksafe.lock()  # cel-python's programs are made as they are needed

    @property
    def homogeneous(self) -> set[str]:
        """cel-expr's memo of expressions with homogeneous literals (``CelExprBackend``)."""
        return self.expr.homogeneous

    def compile(self, expression: str) -> RoutedProgram:
        return RoutedProgram(expression, self.expr.compile(expression))

    def activation(self, variables: Mapping[str, Any]) -> RoutedActivation:
        return RoutedActivation(variables, self.expr.activation(variables))

    def route(self, program: RoutedProgram, activation: RoutedActivation) -> bound.Bound | None:
        """The bound under which cel-expr may evaluate, or None: cel-python's to evaluate."""
        left = cost.remaining()
        within = cost.PER_CALL_LIMIT if left is None else min(cost.PER_CALL_LIMIT, left)
        plan = program.plan()
        found = plan.bound(activation.sizes, max(within, 0)) if plan is not None else None
        if bound.fits(found, within):
            return found
        if cost.settle():  # the bounds spent so far, counted exactly: maybe it fits now
            left = cost.remaining()
            assert left is not None
            within = min(cost.PER_CALL_LIMIT, left)
            if bound.fits(found, within):
                return found
        return None

    def evaluate(self, program: RoutedProgram, activation: RoutedActivation) -> Any:
        found = self.route(program, activation)
        if found is None:
            python = self._python_program(program)
            if python is not None:
                engine = self.cel_python()
                if activation.python is None:
                    activation.python = engine.activation(activation.variables)
                return engine.evaluate(python, activation.python)
        else:
            cost.reserve(found.cost, lambda: self._count(program, activation, found.cost))
        return self.expr.evaluate(program.program, activation.expr)

    def evaluate_bounded(self, program: RoutedProgram, activation: RoutedActivation) -> Any:
        """``evaluate`` on cel-expr only: where the bound does not fit, an evaluation error
        at once (a fast path that the full evaluation follows, as the all-pass conjunction,
        should not pay cel-python's count twice)."""
        found = self.route(program, activation)
        if found is None:
            raise CelEvalError("the cost bound may pass Kubernetes' limit: not evaluated here")
        cost.reserve(found.cost, lambda: self._count(program, activation, found.cost))
        return self.expr.evaluate(program.program, activation.expr)

    def cel_python(self) -> Any:
        """The cel-python backend, made on first use."""
        with self._lock:
            if self._python is None:
                from webhook.engine.cel.celpython import CelPythonBackend  # noqa: PLC0415

                self._python = CelPythonBackend()
            return self._python

    def _python_program(self, program: RoutedProgram) -> Any:
        if program.python is _UNSET:
            engine = self.cel_python()
            with self._compiling:  # an engine compiles on one thread at a time
                if program.python is _UNSET:
                    try:
                        program.python = engine.compile(program.expression)
                    except CelCompileError:
                        program.python = None  # cel-python cannot run it: cel-expr, unbounded
        return program.python

    def _count(self, program: RoutedProgram, activation: RoutedActivation, spent: int) -> int:
        """The evaluation's count (cel-python's), or its bound where cel-python cannot run
        the expression."""
        python = self._python_program(program)
        if python is None:
            return spent
        engine = self.cel_python()
        if activation.python is None:
            activation.python = engine.activation(activation.variables)
        _, counted = engine.measure(python, activation.python)
        return int(counted)

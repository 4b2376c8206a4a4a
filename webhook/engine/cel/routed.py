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

An expression cel-python refuses (optionals, ``format``...) and
whose cost bound does not fit is not evaluated: it fails closed with an error naming the
construct (``unbounded``), which the rule's failurePolicy decides as it decides the API
server's out-of-budget error. Where only the iteration bound passes, cel-expr evaluates: its
own iteration budget stops it. When a bundle loads, ``fails_closed_above`` tells from which
request size an expression would fail so (``webhook/engine/celruntime.py`` warns).

Two kinds of expression always run on cel-python (``pinned``):

- one that makes a uint (a ``7u`` literal, ``uint()``), a duration or a timestamp
  (``duration()``, ``timestamp()``) and calls ``min()``, ``max()`` or ``sum()``, which cel-expr
  runs in Python. cel-expr hands them a ``list(dyn)``'s uints as plain ints, so one comes back
  typed an int (``type(dyn([7u, 0u]).min()) == uint`` is false there, true in cel-go), and
  durations and timestamps as Python's microsecond values (``[duration('1ns'),
  duration('2ns')].sum()`` was 0s) without the offset a timestamp was written with. Request
  data never holds a uint, a duration or a timestamp (JSON has strings and numbers), so only a
  rule's own literals and conversions make one;
- one that asks a Quantity for its form (``isInteger()``, ``asInteger()``,
  ``asApproximateFloat()``): Kubernetes answers from how the Quantity is held (``1000m`` is not
  an integer, ``1k`` is), which cel-python keeps (``quantitylib``) and cel-expr cannot (its
  Quantity is a message equal to another by value);
- one that makes a Quantity (``quantity()``), binds values to a variable (a comprehension,
  ``cel.bind``) and calls ``compareTo``, ``isLessThan`` or ``isGreaterThan`` on one a variable
  holds: cel-go hands Kubernetes' library a pointer, which ``compareTo`` turns to the big form,
  as cel-python's Quantity does; a fresh ``quantity(x).isLessThan(...)`` runs on cel-expr.
  ``add`` and ``sub`` of a big one write the sum into it, in an order only cel-go's evaluation
  decides: an expression calling them on a Quantity a variable holds is refused on both engines
  (``changes_a_quantity_in_place``).

cel-python carries all of these exactly. Where it cannot run such an expression, the expression
is refused when it compiles, naming why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from webhook.base import forksafe
from webhook.engine.cel import bound, cost
from webhook.engine.cel.backend import CelCompileError, CelEvalError
from webhook.engine.cel.celexpr import CelExprBackend
from webhook.engine.cel.rewrite import blanked
from webhook.engine.cel.sharing import (
    CHANGED_IN_PLACE,
    QUANTITY,
    QUANTITY_CHANGED,
    READ_AGAIN,
    changes_a_quantity_in_place,
    fresh_receiver,
)

_UNSET: Any = object()

_EXACT_ON_CEL_PYTHON = re.compile(
    r"(?<![\w.])(?:\d+|0[xX][0-9a-fA-F]+)[uU]\b|(?<![\w.])(?:uint|duration|timestamp)\s*\("
)
_ELEMENT_FROM_PYTHON = re.compile(r"\.\s*(?:min|max|sum)\s*\(")
_QUANTITY_FORM = re.compile(r"\.\s*(?:isInteger|asInteger|asApproximateFloat)\s*\(")


def pinned(expression: str) -> bool:
    """Whether ``expression`` runs on cel-python only (see the module): it makes a uint, a
    duration or a timestamp and hands a list to a lists function cel-expr runs in Python, it
    reads a Quantity's form, or a variable holds a Quantity that add or compareTo may change."""
    masked = blanked(expression)
    if _QUANTITY_FORM.search(masked):
        return True
    if QUANTITY.search(masked) and READ_AGAIN.search(masked):
        changed = QUANTITY_CHANGED.finditer(masked)
        if any(not fresh_receiver(masked, found.start()) for found in changed):
            return True  # a Quantity a variable may hold, which add or compareTo may change
    return bool(_EXACT_ON_CEL_PYTHON.search(masked) and _ELEMENT_FROM_PYTHON.search(masked))


LARGEST_REQUEST = 3 * 1024 * 1024
"""The largest request body the API server accepts (3 MiB): the bound a bundle is checked at."""
_KIB = 1024


def _refused(expression: str) -> tuple[str, ...]:
    from webhook.engine.cel.refusal import refused  # noqa: PLC0415 - cel-python's parser

    return tuple(refused(expression))


def _kib(size: int) -> str:
    return f"{size / _KIB / 1024:g} MiB" if size >= _KIB * 1024 else f"{-(-size // _KIB)} KiB"


def _static_fits(plan: bound.Plan, total: int) -> bool:
    found = plan.static(total)
    return found is not None and found.cost <= cost.PER_CALL_LIMIT


def unbounded(expression: str, found: bound.Bound | None, within: int) -> str:
    """The error of an evaluation neither bounded within Kubernetes' budget nor countable."""
    from webhook.engine.cel.refusal import refused  # noqa: PLC0415 - cel-python's parser

    constructs = ", ".join(refused(expression)) or "it"
    reach = "cannot be bounded" if found is None else f"may reach {found.cost:,}"
    return (
        f"the cost of this expression {reach} on this request, past what Kubernetes allows "
        f"it ({within:,}), and cel-python, which would count it, cannot run {constructs}: "
        "not evaluated (fails closed, as the API server's out-of-budget error)"
    )


class RoutedProgram:
    """cel-expr's program, with the expression's bound plan and cel-python's program, each
    made on first use (most expressions never need cel-python's)."""

    __slots__ = ("_plan", "expression", "pinned", "program", "python")

    def __init__(self, expression: str, program: Any, *, pinned: bool = False) -> None:
        self.expression, self.program, self.pinned = expression, program, pinned
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
        program = RoutedProgram(expression, self.expr.compile(expression))
        if changes_a_quantity_in_place(expression):
            raise CelCompileError(CHANGED_IN_PLACE)
        if pinned(expression):
            program.pinned = True
            if self._python_program(program) is None:
                raise CelCompileError(
                    "this expression asks what only cel-python answers exactly (a Quantity's "
                    "form or one a variable holds, or min(), max() or sum() of a list holding a "
                    "uint, a duration or a timestamp it makes); cel-python cannot run "
                    f"{', '.join(_refused(expression)) or 'it'}: refused"
                )
        return program

    def activation(self, variables: Mapping[str, Any]) -> RoutedActivation:
        return RoutedActivation(variables, self.expr.activation(variables))

    def route(self, program: RoutedProgram, activation: RoutedActivation) -> bound.Bound | None:
        """The bound under which cel-expr may evaluate, or None: cel-python's to evaluate."""
        if program.pinned:
            return None
        found, within = self._bound(program, activation)
        return found if bound.fits(found, within) else None

    def _bound(
        self, program: RoutedProgram, activation: RoutedActivation
    ) -> tuple[bound.Bound | None, int]:
        """The evaluation's bound (None: unbounded) and the cost it must stay within."""
        left = cost.remaining()
        within = cost.PER_CALL_LIMIT if left is None else min(cost.PER_CALL_LIMIT, left)
        plan = program.plan()
        found = plan.bound(activation.sizes, max(within, 0)) if plan is not None else None
        if not bound.fits(found, within) and cost.settle():
            left = cost.remaining()  # the bounds spent so far, counted exactly: maybe it fits
            assert left is not None
            within = min(cost.PER_CALL_LIMIT, left)
        return found, max(within, 0)

    def evaluate(self, program: RoutedProgram, activation: RoutedActivation) -> Any:
        found, within = self._bound(program, activation)
        if program.pinned or not bound.fits(found, within):
            python = self._python_program(program)
            if python is not None:
                engine = self.cel_python()
                if activation.python is None:
                    activation.python = engine.activation(activation.variables)
                return engine.evaluate(python, activation.python)
            if found is None or found.cost > within:  # neither bounded nor counted: closed
                raise CelEvalError(unbounded(program.expression, found, within))
        assert found is not None  # within its cost: cel-expr's iteration budget stops it
        cost.reserve(found.cost, lambda: self._count(program, activation, found.cost))
        return self.expr.evaluate(program.program, activation.expr)

    def load_warning(self, expression: str) -> str | None:
        """What a bundle's author is told of ``expression`` when the bundle loads: above which
        request size the default backend may refuse to evaluate it (None: never)."""
        found = self.fails_closed_above(expression)
        if found is None:
            return None
        size, constructs = found
        named = ", ".join(constructs)
        if size is None:
            reach = "the cost of this expression cannot be bounded on any request"
        else:
            above = f"larger than {_kib(size)}" if size else "of any size"
            reach = (
                f"the cost bound of this expression passes Kubernetes' per-call limit "
                f"({cost.PER_CALL_LIMIT:,}) on requests {above} (of the "
                f"{_kib(LARGEST_REQUEST)} the API server accepts) whose values are that large"
            )
        return (
            f"{reach}, and cel-python, which would count it, cannot run {named}: there the "
            "rule fails closed (its failurePolicy decides, as for the API server's "
            f"out-of-budget error); written without {named}, it is counted instead"
        )

    def fails_closed_above(self, expression: str) -> tuple[int | None, tuple[str, ...]] | None:
        """The largest JSON size of an activation (a multiple of 1 KiB below
        ``LARGEST_REQUEST``, 0: none) whose static bound is within the per-call limit, with the
        constructs cel-python refuses in ``expression``: above that size ``evaluate`` may fail
        closed (the exact bound of a request's own values may still fit); None as the size:
        on any request, the walk not following the expression. None: it never does."""
        from webhook.engine.cel.refusal import might_refuse, refused  # noqa: PLC0415

        if not might_refuse(expression):  # most expressions: nothing parsed
            return None
        plan = bound.plan(expression)
        if plan is not None and _static_fits(plan, LARGEST_REQUEST):
            return None
        constructs = refused(expression)
        if not constructs:
            return None
        if plan is None or plan.static(LARGEST_REQUEST) is None:
            return None, constructs
        if not _static_fits(plan, 1):
            return 0, constructs
        low, high = 1, LARGEST_REQUEST // _KIB  # fits at low KiB, not at high KiB
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if _static_fits(plan, middle * _KIB) else (low, middle)
        return low * _KIB, constructs

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

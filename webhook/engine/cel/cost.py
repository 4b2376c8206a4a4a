"""Kubernetes' runtime cost of a CEL evaluation, as the API server counts it.

The API server stops one expression's evaluation once its cost passes ``PER_CALL_LIMIT`` and a
ValidatingAdmissionPolicy's validations once their summed cost passes ``RUNTIME_COST_BUDGET``
(k8s.io/apiserver pkg/apis/cel/config.go; pkg/admission/plugin/cel/activation.go). The cost is
cel-go's (interpreter/runtimecost.go): 1 for each variable read, field selection and index, 0
for a literal and for ``&&``, ``||`` and ``?:``, 10 for a list built at run time and 30 for a
map, and for each function call its ``call_cost``: Kubernetes' own (pkg/cel/library/cost.go
``CallCost``) where it has one, else cel-go's default (size-proportional for string equality,
``contains``, ``matches``, ``startsWith``... and ``in`` on a list; 1 otherwise). A
comprehension costs what cel-go's expansion of the macro evaluates (``MACRO_STEP``).

Pure, on plain sizes: ``celpython.py`` counts as it evaluates. Where fedgate's type knowledge
differs from cel-go's (every variable is dyn, so cel-go may leave an overload unresolved and
charge 1 where fedgate charges by size) fedgate charges the larger: it may stop earlier than
Kubernetes, never later (docs/cel.md lists the classes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from webhook.engine.cel import netlib

PER_CALL_LIMIT = 1_000_000
"""k8s.io/apiserver/pkg/apis/cel.PerCallLimit: one expression's evaluation."""
RUNTIME_COST_BUDGET = 10_000_000
"""k8s.io/apiserver/pkg/apis/cel.RuntimeCELCostBudget: a policy's validations together."""

MATCH_CONDITIONS_BUDGET = 2_500_000
"""k8s.io/apiserver/pkg/apis/cel.RuntimeCELCostBudgetMatchConditions: a policy's (or an
admission webhook's) matchConditions together (pkg/admission/plugin/webhook/matchconditions,
which ValidatingAdmissionPolicy's plugin uses too)."""
OUT_OF_BUDGET = (
    "validation failed due to running out of cost budget, no further validation rules will be run"
)
"""The API server's error once a policy's validations pass ``RUNTIME_COST_BUDGET``."""

_POLICY: ContextVar[list[int] | None] = ContextVar("fedgate_policy_cost", default=None)
_RESERVED: ContextVar[list[tuple[int, Callable[[], int]]] | None] = ContextVar(
    "fedgate_policy_reserved", default=None
)
"""The evaluations spent by their bound, not their count (cel-expr's: ``reserve``)."""


@contextmanager
def policy_budget(limit: int = RUNTIME_COST_BUDGET) -> Iterator[None]:
    """The evaluations in the block share ``limit`` (one policy's validations, for one
    binding's params, as the API server's validator shares ``RuntimeCELCostBudget``)."""
    token, reserved = _POLICY.set([limit]), _RESERVED.set([])
    try:
        yield
    finally:
        _RESERVED.reset(reserved)
        _POLICY.reset(token)


def remaining() -> int | None:
    """What is left of the policy's budget in force (None: no budget in force)."""
    left = _POLICY.get()
    return None if left is None else left[0]


def reserve(bound: int, count: Callable[[], int]) -> None:
    """``bound`` off the budget in force for an evaluation that is not counted as it runs
    (cel-expr's, within a bound of its cost); ``count`` counts it exactly, should ``settle``
    need it."""
    left, reserved = _POLICY.get(), _RESERVED.get()
    if left is None or reserved is None:
        return
    left[0] -= bound
    reserved.append((bound, count))


def settle() -> bool:
    """The reserved evaluations' exact counts in place of their bounds (counted outside the
    budget: the count is what is given back); whether there was any."""
    left, reserved = _POLICY.get(), _RESERVED.get()
    if left is None or not reserved:
        return False
    token = _POLICY.set(None)
    try:
        for bound, count in reserved:
            left[0] += bound - count()
    finally:
        _POLICY.reset(token)
    reserved.clear()
    return True


def spend(amount: int) -> bool:
    """``amount`` off the policy's budget in force (none: nothing to spend); False once it is
    spent past its end (the evaluation that passed it fails, as every one after it)."""
    remaining = _POLICY.get()
    if remaining is None:
        return True
    remaining[0] -= amount
    return remaining[0] >= 0


STRING_TRAVERSAL = 0.1
"""cel-go common.StringTraversalCostFactor."""
REGEX_LENGTH = 0.25
"""cel-go common.RegexStringLengthCostFactor."""
LIST_CREATE = 10
MAP_CREATE = 30
SELECT = 1
"""cel-go common.ListCreateBaseCost, MapCreateBaseCost, SelectAndIdentCost."""

FREE = frozenset({"_&&_", "_||_", "_?_:_"})
"""Not calls in cel-go's plan: logic and the conditional."""

_TRAVERSAL = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})
_STRING_ONCE = frozenset(
    {
        "url",
        "lowerAscii",
        "upperAscii",
        "substring",
        "trim",
        "jsonpatch.escapeKey",
        "cidr",
        "isIP",
        "isCIDR",
        "ip",
        "quantity",
        "isQuantity",
        "semver",
        "isSemver",
    }
)
_STRING_TWICE = frozenset({"replace", "split", "ip.isCanonical"})
_ORDERING = frozenset({"_<_", "_<=_", "_>_", "_>=_"})
_CHECK = 350_000
"""An authorizer check's fixed cost (Kubernetes allows two per expression)."""


_LENGTHS = frozenset({str, bytes, list, tuple, dict})


def size(value: Any) -> int:
    """cel-go's ``actualSize``: the length of a string (code points), bytes, list or map; an
    IP's address bytes, a CIDR's prefix bytes (Kubernetes' ``Size()``); 1 for anything else."""
    if type(value) in _LENGTHS:  # most values: no isinstance of a union (slow)
        return len(value)
    if isinstance(value, str | bytes | list | tuple | dict):
        return len(value)
    if isinstance(value, netlib.IP):
        return value.address.max_prefixlen // 8
    if isinstance(value, netlib.CIDR):
        return math.ceil(value.bits / 8)
    return 1


def _ceil(value: float) -> int:
    return math.ceil(value)


def traversal(value: Any) -> int:
    """Kubernetes' ``traversalCost``: a tree's strings and bytes at 0.1 a character (each
    rounded down), 1 for each other leaf."""
    if isinstance(value, str | bytes):
        return int(len(value) * STRING_TRAVERSAL)
    if isinstance(value, list | tuple):
        return sum(traversal(v) for v in value)
    if isinstance(value, dict):
        return sum(traversal(k) + traversal(v) for k, v in value.items())
    return 1


def call_cost(function: str, args: Sequence[Any], result: Any) -> int:
    """What one call of ``function`` on ``args`` (giving ``result``) costs."""
    if function in FREE:
        return 0
    lists = _lists(function, args, result)
    if lists is not None:
        return lists
    kubernetes = _kubernetes(function, args, result)
    if kubernetes is not None:
        return kubernetes
    return _cel_go(function, args)


def _lists(function: str, args: Sequence[Any], result: Any) -> int | None:
    """cel-go's lists extension's own cost trackers (ext/lists.go), which come first: a new
    list of the result's size (``slice``, ``lists.range``, ``reverse``), of the input's times
    the depth (``flatten``), or a comparison of each item with each (``distinct``, ``sort``,
    ``sortBy``)."""
    if function in ("slice", "lists.range", "reverse"):
        return _allocating(1.0, size(result))
    if function == "flatten" and args:
        depth = args[1] if len(args) > 1 and isinstance(args[1], int) else 1
        return _allocating(float(depth), size(args[0]))
    if function.startswith("sets.") and len(args) == 2:  # ext/sets.go trackSetsCost
        pairs = size(args[0]) * size(args[1])
        return 1 + (2 * pairs if function == "sets.equivalent" else pairs)
    if function in ("distinct", "sort", "sortBy") and args:
        items = args[1] if function == "sortBy" and len(args) > 1 else args[0]
        count = size(items)
        textual = count and isinstance(items, list | tuple) and isinstance(items[0], str | bytes)
        return _allocating(2.0 + (STRING_TRAVERSAL if textual else 0.0), count * count)
    return None


def _allocating(factor: float, count: int) -> int:
    return int(count * factor) + 1 + LIST_CREATE


def _kubernetes(function: str, args: Sequence[Any], result: Any) -> int | None:
    """pkg/cel/library/cost.go ``CallCost`` (None: it has none for this function)."""
    if function == "check":
        return _CHECK
    if function in _TRAVERSAL and args:
        return traversal(args[0])
    if function == "join" and args:
        return _ceil(size(result) * 2 * STRING_TRAVERSAL)
    if function in _STRING_TWICE and args:
        return _ceil(size(args[0]) * 2 * STRING_TRAVERSAL)
    if function in ("find", "findAll", "matches") and len(args) >= 2:
        return _ceil((1 + size(args[0])) * STRING_TRAVERSAL) * _ceil(size(args[1]) * REGEX_LENGTH)
    if function == "ip" and args and isinstance(args[0], netlib.CIDR):
        return 1  # a CIDR's address: a field
    if function in _STRING_ONCE and args:
        return _ceil(size(args[0]) * STRING_TRAVERSAL)
    if function in ("containsIP", "containsCIDR") and len(args) >= 2:
        cidr, other = size(args[0]), size(args[1])
        cost = _ceil((cidr + cidr) * STRING_TRAVERSAL)
        if function == "containsCIDR":
            cost += _ceil(cidr * STRING_TRAVERSAL) + 1
        if isinstance(args[1], str):  # the string overload parses it first
            cost += _ceil(other * STRING_TRAVERSAL)
        return cost
    return None


def _cel_go(function: str, args: Sequence[Any]) -> int:
    """interpreter/runtimecost.go ``costCall``'s default cases, charged by size wherever an
    overload of that size could apply, and at least 1 (an overload cel-go could not resolve,
    the variables being dyn, costs 1 whatever the size: see the module)."""
    return max(1, _sized(function, args))


def _sized(function: str, args: Sequence[Any]) -> int:
    if function in ("startsWith", "endsWith", "bytes", "quote", "format") and args:
        return _ceil(size(args[0]) * STRING_TRAVERSAL)
    if function == "_in_" and len(args) == 2 and isinstance(args[1], list | tuple):
        return size(args[1])
    if function in ("_==_", "_!=_") and len(args) == 2:
        return _ceil(min(size(args[0]), size(args[1])) * STRING_TRAVERSAL)
    if function in _ORDERING and len(args) == 2 and _textual(args):
        return _ceil(min(size(args[0]), size(args[1])) * STRING_TRAVERSAL)
    if function == "_+_" and len(args) == 2 and _textual(args):
        return _ceil((size(args[0]) + size(args[1])) * STRING_TRAVERSAL)
    if function == "contains" and len(args) == 2:
        return _ceil(size(args[0]) * STRING_TRAVERSAL) * _ceil(size(args[1]) * STRING_TRAVERSAL)
    return 1


def _textual(args: Sequence[Any]) -> bool:
    return all(isinstance(a, str) for a in args) or all(isinstance(a, bytes) for a in args)


MACRO_STEP = {
    "all": 3,
    "exists": 4,
}
"""Per iteration, what cel-go's expansion of a macro evaluates besides its predicate:
``all``: ``@not_strictly_false(__result__)`` (a call and a variable) and ``__result__ &&``
(a variable); ``exists``: ``@not_strictly_false(!__result__)`` (two calls and a variable) and
``__result__ ||``. Then 1 for reading ``__result__`` at the end."""


def macro_cost(
    macro: str, iterations: int, kept: int, *, early: bool = False, folded: bool = False
) -> int:
    """The cost of a comprehension besides its range and its bodies: ``iterations`` run,
    ``kept`` of them true (``filter``, ``exists_one``) or mapped (``map``); ``early``: ``all``
    or ``exists`` stopped before the last item (cel-go evaluates the loop condition once more).
    A conditional's branch not taken costs nothing (``p ? __result__ + [x] : __result__``);
    ``folded``: ``map``'s made item is a literal, so cel-go's plan holds ``[f(x)]`` as a
    constant."""
    if macro in MACRO_STEP:
        step = MACRO_STEP[macro]
        return iterations * step + (step - 1 if early else 0) + 1
    if macro == "map":  # __result__ + [f(x)]: a variable, a list (a constant: folded), a call
        return iterations * (SELECT + (0 if folded else LIST_CREATE) + 1) + 1
    if macro == "filter":  # p ? __result__ + [x] : __result__ (x is read again)
        return kept * (SELECT + LIST_CREATE + 1 + SELECT) + 1
    if macro == "map_filter":  # map(x, p, f): p ? __result__ + [f] : __result__
        return kept * (SELECT + (0 if folded else LIST_CREATE) + 1) + 1
    return 0


FOLD_STEP = {
    "existsOne": 2,
    "transformList": SELECT + LIST_CREATE + 1,
    "transformMap": SELECT + SELECT + 1,
    "transformMapEntry": SELECT + 1,
}
"""What a step of cel-go's expansion of these macros costs besides its bodies, on an item the
step takes (``existsOne``: a true predicate; with a filter: a true filter): ``@r + 1`` (a
variable and a call); ``@r + [t]`` (a variable, a list built, a call);
``cel.@mapInsert(@r, k, t)`` (two variables, a call); ``cel.@mapInsert(@r, t)``. The branch
not taken, ``@r``, costs nothing."""
FOLD_RESULT = {
    "existsOne": SELECT + 1,
    "transformList": SELECT,
    "transformMap": SELECT,
    "transformMapEntry": SELECT,
}
"""The fold's result: ``@r == 1`` (a variable, a call), or ``@r``."""

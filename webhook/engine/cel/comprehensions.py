"""cel-go's comprehension macros on cel-python, step by step as cel-go's expansion runs them.

cel-go (ext/comprehensions.go, the macros Kubernetes enables from 1.32) expands each macro into
a fold over an accumulator: ``existsOne`` / ``exists_one`` counts with ``p ? @r + 1 : @r`` and
ends with ``@r == 1``; ``transformList`` appends with ``@r + [t]`` (``f ? @r + [t] : @r`` with a
filter); ``transformMap`` inserts ``cel.@mapInsert(@r, k, t)``; ``transformMapEntry`` merges the
map ``t`` with ``cel.@mapInsert(@r, t)``, failing on a key already there. Their loop condition is
the literal ``true``: every item is visited, an error in the accumulator stays (a filter's error
takes its place), and the result is that error. Over a list the two variables are the index and
the item, over a map the key and its value.

The cost is what cel-go's runtime tracker charges for the expansion (``cost.fold_cost``): the
bodies are charged as they evaluate; a branch not taken costs nothing.

Pure: the bodies are evaluated through the ``Body`` callables the evaluator hands in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from webhook.engine.cel import cost, gosort

Body = Callable[[Any], Any]
"""Evaluates a macro's body with the iteration variables bound: its value or its error."""

TWO_VARIABLE = frozenset({"all", "exists", "exists_one", "existsOne"})
"""The quantifiers that take two variables (and a predicate) as well as one."""
TRANSFORMS = frozenset({"transformList", "transformMap", "transformMapEntry"})
"""The macros that build a list or a map, each with three or four arguments (a filter)."""


def pairs(target: Any) -> Iterator[tuple[Any, Any]]:
    """The two variables' values, item by item: a list's index and item, a map's key and value."""
    if isinstance(target, dict):
        for key in target:
            yield key, target[key]
    else:
        for index, item in enumerate(target):
            yield int.__new__(celtypes.IntType, index), item


def bindings(names: list[str], first: Any, second: Any) -> dict[str, Any]:
    """One variable: the item of a list or the key of a map; two: both."""
    if len(names) == 1:
        return {names[0]: first}
    return {names[0]: first, names[1]: second}


def items(target: Any, two: bool) -> Iterator[tuple[Any, Any]]:
    """What one or two variables range over: one takes a list's items, not its indexes."""
    if two or isinstance(target, dict):
        yield from pairs(target)
    else:
        for item in target:
            yield item, None


def evaluate(body: Body, variables: dict[str, Any]) -> Any:
    try:
        return body(variables)
    except CELEvalError as exc:
        return exc


def _condition(value: Any, macro: str) -> Any:
    """A filter's or a predicate's value as cel-go's conditional takes it: a bool, else an
    error (``no such overload`` for another type)."""
    if isinstance(value, CELEvalError | celtypes.BoolType):
        return value
    return CELEvalError(f"no such overload: {macro}()'s predicate is not a bool")


def exists_one(
    target: Any, names: list[str], predicate: Body, charge: Callable[[int], None]
) -> Any:
    """``existsOne`` / ``exists_one``: ``p ? @r + 1 : @r`` on every item (an error of the
    predicate becomes the accumulator), then ``@r == 1``."""
    count: Any = 0
    for first, second in items(target, len(names) == 2):
        chosen = _condition(evaluate(predicate, bindings(names, first, second)), "existsOne")
        if isinstance(chosen, CELEvalError):
            count = chosen
        elif chosen:
            charge(cost.FOLD_STEP["existsOne"])
            if not isinstance(count, CELEvalError):
                count += 1
    charge(cost.FOLD_RESULT["existsOne"])
    if isinstance(count, CELEvalError):
        return count
    return celtypes.BoolType(count == 1)


def transform(
    macro: str,
    target: Any,
    names: list[str],
    bodies: Sequence[Body],
    *,
    charge: Callable[[int], None],
    equal: Callable[[Any, Any], bool],
    folded: bool = False,
) -> Any:
    """``transformList``, ``transformMap`` or ``transformMapEntry`` with ``bodies`` the
    transform, or the filter and the transform; ``folded``: ``transformList``'s ``[t]`` is a
    constant in cel-go's plan (``t`` a literal), not a list built at each step."""
    step = cost.FOLD_STEP[macro] - (cost.LIST_CREATE if folded else 0)
    *chooser, make = bodies
    result: Any = celtypes.ListType() if macro == "transformList" else celtypes.MapType()
    for first, second in pairs(target):
        variables = bindings(names, first, second)
        if chooser:
            chosen = _condition(evaluate(chooser[0], variables), macro)
            if isinstance(chosen, CELEvalError):
                result = chosen
                continue
            if not chosen:
                continue
        made = evaluate(make, variables)
        charge(step)
        if isinstance(result, CELEvalError):
            continue
        if isinstance(made, CELEvalError):
            result = made
        elif macro == "transformList":
            result.append(made)
        elif macro == "transformMap":
            result = _insert(result, [(first, made)], equal)
        elif isinstance(made, dict):
            result = _insert(result, list(made.items()), equal)
        else:
            result = CELEvalError("no such overload: transformMapEntry() of a value not a map")
    charge(cost.FOLD_RESULT[macro])
    return result


def _insert(into: Any, entries: list[tuple[Any, Any]], equal: Callable[[Any, Any], bool]) -> Any:
    """cel-go's ``types.InsertMapKeyValue`` for each entry: a key already there (by CEL's
    equality: ``1`` and ``1u`` are one key) fails."""
    for key, value in entries:
        if any(equal(key, present) for present in into):
            return CELEvalError(f"insert failed: key {key} already exists")
        into[key] = value
    return into


SCALARS = (
    celtypes.BoolType,
    celtypes.IntType,
    celtypes.UintType,
    celtypes.DoubleType,
    celtypes.StringType,
    celtypes.BytesType,
    celtypes.TimestampType,
    celtypes.DurationType,
)
"""celpy's scalar types: the ones whose values cel-go orders (``traits.Comparer``)."""


def sort_by(items: list[Any], keys: list[Any]) -> Any:
    """cel-go's ``@sortByAssociatedKeys`` (ext/lists.go): ``items`` ordered by ``keys`` as Go's
    ``sort.Slice`` orders them (``gosort.py``: equal keys where Go leaves them), every key of
    the first key's type, which must be ordered."""
    if not items:
        return celtypes.ListType()
    first = keys[0]
    if not isinstance(first, SCALARS):
        return CELEvalError("list elements must be comparable")
    kind = type(first)
    if len(items) > 1 and any(type(key) is not kind for key in keys):
        return CELEvalError("list elements must have the same type")
    order = list(range(len(items)))
    gosort.sort_slice(order, lambda i, j: _less(keys[i], keys[j]))
    return celtypes.ListType([items[i] for i in order])


def _less(a: Any, b: Any) -> bool:
    """``a.Compare(b) == -1``: a NaN compares as an error, never less."""
    if isinstance(a, float) and (a != a or b != b):  # noqa: PLR0124
        return False
    return bool(a < b)

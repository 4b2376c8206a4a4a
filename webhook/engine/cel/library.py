"""The Kubernetes CEL library functions fedgate's rules use, defined once for both engines.

Neither engine ships the Kubernetes libraries. Supported: ``quantity(string)`` returns the
quantity's value as a double (exact for every quantity a manifest can hold in practice), with
the Kubernetes Quantity member functions on it: ``isLessThan``, ``isGreaterThan``,
``compareTo``, ``asApproximateFloat``, ``asInteger``, ``isInteger``; and ``isQuantity(string)``.
Because a quantity is a double, ``<``, ``<=``, ``+`` work on it as well.

The strings library (``indexOf``, ``lastIndexOf``, ``split``, ...) comes with cel-expr's strings
extension; cel-python has none of it, so its backend gets the one-argument ``indexOf`` and
``lastIndexOf`` from STRING_FUNCTIONS (code-point offsets, -1 when absent, as in Kubernetes).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache
from itertools import pairwise
from typing import Any, cast

import re2  # type: ignore[import-untyped]

from webhook.quantity import QuantityError, parse_quantity


class LibraryError(ValueError):
    """A library function was called with a value it cannot take."""


@lru_cache(maxsize=4096)  # the same few quantities recur in every request
def quantity(text: str) -> float:
    try:
        return float(parse_quantity(text))
    except QuantityError as exc:
        raise LibraryError(str(exc)) from None


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def is_integer(value: float) -> bool:
    """Kubernetes' ``isInteger``: ``AsInt64`` succeeds, i.e. a whole number within int64 (a
    quantity of 1e37 is whole, and not an integer). Near 2^63 the double is not exact: a
    quantity within 512 of it counts as outside."""
    return value == int(value) and -(2.0**63) <= value < 2.0**63


def as_integer(value: float) -> int:
    if not is_integer(value):
        raise LibraryError(f"{value} cannot be converted to an integer (int64)")
    return int(value)


def compare_to(a: float, b: float) -> int:
    return (a > b) - (a < b)


MEMBER_FUNCTIONS: dict[str, tuple[Callable[..., object], str]] = {
    "isLessThan": (lambda a, b: a < b, "bool"),
    "isGreaterThan": (lambda a, b: a > b, "bool"),
    "compareTo": (compare_to, "int"),
}
"""Binary member functions on a quantity (double, double) -> result type."""

UNARY_MEMBER_FUNCTIONS: dict[str, tuple[Callable[..., object], str]] = {
    "asApproximateFloat": (float, "double"),
    "asInteger": (as_integer, "int"),
    "isInteger": (is_integer, "bool"),
}

STRING_FUNCTIONS: dict[str, tuple[Callable[..., object], str]] = {
    "indexOf": (str.find, "int"),
    "lastIndexOf": (str.rfind, "int"),
}
"""Member functions of the Kubernetes strings library, (string, string) -> int, for cel-python."""


# ---- Kubernetes' lists library (apiserver/pkg/cel/library/lists.go), cel-go's sets extension
# (ext/sets.go) and Kubernetes' regex library (library/regex.go), on plain Python values


def _cel_kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _comparable(items: list[object]) -> list[object]:
    """The items, when CEL orders them: one kind (numbers across int, uint and double),
    bool, number, string or bytes."""
    kinds = {_cel_kind(item) for item in items}
    if len(kinds) > 1 or not kinds <= {"bool", "number", "str", "bytes", "timedelta", "datetime"}:
        raise LibraryError(f"no such overload: the list holds {', '.join(sorted(kinds))}")
    return items


def is_sorted(items: list[object]) -> bool:
    ordered = _comparable(items)
    return all(a <= b for a, b in pairwise(ordered))  # type: ignore[operator]


def list_sum(items: list[object]) -> object:
    if not items:
        return 0  # Kubernetes gives the zero of the element type; a list seen empty is int
    kinds = {_cel_kind(item) for item in items}
    if kinds == {"timedelta"}:
        return sum(cast(list[timedelta], items), timedelta(0))
    if kinds != {"number"} or len({type(item) for item in items}) > 1:
        raise LibraryError("no such overload: sum() adds ints, uints, doubles or durations")
    return sum(cast(list[float], items))


def list_min(items: list[object]) -> object:
    if not items:
        raise LibraryError("min called on empty list")
    return min(_comparable(items))  # type: ignore[type-var]


def list_max(items: list[object]) -> object:
    if not items:
        raise LibraryError("max called on empty list")
    return max(_comparable(items))  # type: ignore[type-var]


def cel_equal(a: object, b: object) -> bool:
    """CEL's heterogeneous equality on plain values: numbers by value across int, uint and
    double; bool is not a number; lists and maps element by element."""
    kind = _cel_kind(a)
    if kind != _cel_kind(b):
        return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(
            any(cel_equal(k, j) and cel_equal(v, b[j]) for j in b) for k, v in a.items()
        )
    return bool(a == b)


def sets_contains(items: list[object], other: list[object]) -> bool:
    return all(any(cel_equal(x, y) for y in items) for x in other)


def sets_equivalent(items: list[object], other: list[object]) -> bool:
    return sets_contains(items, other) and sets_contains(other, items)


def sets_intersects(items: list[object], other: list[object]) -> bool:
    return any(cel_equal(x, y) for x in items for y in other)


@lru_cache(maxsize=256)  # a rule's patterns are few; Kubernetes compiles constant ones once
def _pattern(pattern: str) -> Any:
    try:
        return re2.compile(pattern)
    except re2.error as exc:
        raise LibraryError(f"invalid regex {pattern!r}: {exc}") from None


def regex_find(text: str, pattern: str) -> str:
    """The first match of an RE2 ``pattern`` in ``text``, '' when none (Kubernetes' find)."""
    found = _pattern(pattern).search(text)
    return str(found.group(0)) if found else ""


def regex_find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    """Every match, or the first ``limit`` (Go's FindAllString: a negative limit is all)."""
    if limit == 0:
        return []
    found = [m.group(0) for m in _pattern(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


LIST_FUNCTIONS: dict[str, tuple[Callable[..., object], int]] = {
    "isSorted": (is_sorted, 1),
    "sum": (list_sum, 1),
    "min": (list_min, 1),
    "max": (list_max, 1),
}
"""Member functions of Kubernetes' lists library: name -> (implementation, arguments)."""

SETS_FUNCTIONS: dict[str, Callable[..., bool]] = {
    "sets.contains": sets_contains,
    "sets.equivalent": sets_equivalent,
    "sets.intersects": sets_intersects,
}
"""cel-go's sets extension, as Kubernetes enables it: (list, list) -> bool."""

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
from functools import lru_cache

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

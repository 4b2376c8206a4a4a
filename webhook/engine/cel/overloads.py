"""The argument types cel-go's overloads take, for the functions cel-python runs in Python.

celpy's functions (and fedgate's library functions, written on plain Python values) took
values Kubernetes has no overload for: a map to ``sort()`` or ``isSorted()`` (its keys), a
list to ``bytes()``, a string to ``min()`` (its characters), a bool to ``+`` (Python's 1).
Where the checker cannot see the type (``object`` and ``params`` are ``dyn``), cel-go fails
at run time with ``no such overload``; so does cel-python now, before the call: ``refusal``
names the call whose arguments fit none of the function's overloads (cel-go v0.26's standard
library and extensions, and Kubernetes 1.34's libraries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from celpy import celtypes

ANY = "any"
"""An argument of any type (the item ``indexOf`` looks for in a list)."""

_NUMBERS = ("int", "uint", "double")
_STRING, _INT, _LIST = ("string",), ("int",), ("list",)

_OVERLOADS: dict[str, list[tuple[str, ...]]] = {
    "_+_": [
        *((n, n) for n in (*_NUMBERS, "string", "bytes", "list", "duration")),
        ("duration", "timestamp"),
        ("timestamp", "duration"),
    ],
    "_-_": [
        *((n, n) for n in (*_NUMBERS, "duration", "timestamp")),
        ("timestamp", "duration"),
    ],
    "_*_": [(n, n) for n in _NUMBERS],
    "_/_": [(n, n) for n in _NUMBERS],
    "_%_": [("int", "int"), ("uint", "uint")],
    "string": [
        (n,) for n in (*_NUMBERS, "bool", "string", "bytes", "duration", "timestamp", "IP", "CIDR")
    ],
    "bytes": [_STRING, ("bytes",)],
    "int": [(n,) for n in (*_NUMBERS, "string", "duration", "timestamp")],
    "uint": [(n,) for n in (*_NUMBERS, "string")],
    "double": [(n,) for n in (*_NUMBERS, "string")],
    "bool": [("bool",), _STRING],
    **{name: [_STRING * 2] for name in ("contains", "startsWith", "endsWith", "matches")},
    "find": [_STRING * 2],
    "findAll": [_STRING * 2, (*_STRING * 2, "int")],
    "charAt": [(*_STRING, *_INT)],
    "substring": [(*_STRING, *_INT), (*_STRING, *_INT * 2)],
    **{name: [_STRING] for name in ("trim", "lowerAscii", "upperAscii")},
    "replace": [_STRING * 3, (*_STRING * 3, "int")],
    "split": [_STRING * 2, (*_STRING * 2, "int")],
    "join": [_LIST, (*_LIST, *_STRING)],
    **{n: [_STRING * 2, (*_STRING * 2, "int"), (*_LIST, ANY)] for n in ("indexOf", "lastIndexOf")},
    **{name: [_LIST] for name in ("isSorted", "sum", "min", "max", "sort", "distinct")},
    "reverse": [_LIST],  # a string's is the strings extension's v3, past Kubernetes 1.34's
    "flatten": [_LIST, (*_LIST, "int")],
    "slice": [(*_LIST, *_INT * 2)],
    **{f"sets.{n}": [_LIST * 2] for n in ("contains", "equivalent", "intersects")},
    "size": [_STRING, ("bytes",), _LIST, ("map",)],  # celpy's size(null) was 0
    "isQuantity": [_STRING],
    "quantity": [_STRING],
}
SIGNATURES = {name: frozenset(overloads) for name, overloads in _OVERLOADS.items()}
"""Each function's overloads, by the kinds of its arguments (a method's receiver first)."""


_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    ((celtypes.BoolType, bool), "bool"),  # first: a bool is a Python int
    (celtypes.UintType, "uint"),
    (int, "int"),
    (float, "double"),
    (str, "string"),
    (bytes, "bytes"),
    (list, "list"),
    (dict, "map"),
    ((type(None), celtypes.NullType), "null"),
    (celtypes.DurationType, "duration"),
    (celtypes.TimestampType, "timestamp"),
)


def kind(value: Any) -> str:
    """The CEL type of a celpy value (or of a plain Python one celpy hands back), by the name
    the overloads above use; an opaque value's class name (``IP``, ``Quantity``...)."""
    for python, name in _KINDS:
        if isinstance(value, python):
            return name
    return type(value).__name__


def refusal(name: str, args: Sequence[Any]) -> str | None:
    """cel-go's error for ``name`` called on ``args`` when none of its overloads takes their
    types, else None (a function not in ``SIGNATURES`` is not checked here)."""
    overloads = SIGNATURES.get(name)
    if overloads is None:
        return None
    kinds = tuple(kind(arg) for arg in args)
    for overload in overloads:
        if len(overload) == len(kinds) and all(
            want in (ANY, got) for want, got in zip(overload, kinds, strict=True)
        ):
            return None
    return f"no such overload: {name}({', '.join(kinds)})"

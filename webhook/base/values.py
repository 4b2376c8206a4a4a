"""Tests on JSON values, and the value classes, that the hot paths share."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard, TypeVar, dataclass_transform

import orjson

T = TypeVar("T")


def is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, with the exact test for dict first: JSON and YAML give
    dicts, and the ABC check alone costs five times this whole call (321 against 59 ns here),
    which a review of a PropagationPolicy paid 18 times."""
    return type(value) is dict or isinstance(value, Mapping)


def same_json(before: Any, after: Any) -> bool:
    """Equal as JSON: Python's ``==`` holds ``true == 1`` and ``1 == 1.0``; JSON does not. Two
    C-speed comparisons for containers: the deep ``==``, then their JSON (the same members in
    another order count as different here: callers look closer, never less)."""
    if before is after:
        return True
    kind = type(before)
    if kind is not type(after) or before != after:
        return False
    if kind is not dict and kind is not list:
        return True
    try:
        return orjson.dumps(before) == orjson.dumps(after)
    except TypeError:  # what orjson does not write (an int beyond 64 bits): the slow way
        return json.dumps(before) == json.dumps(after)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def statically_frozen(cls: type[T]) -> type[T]:
    """A frozen dataclass to the type checker; at run time a slotted dataclass with a hash.

    For the values built on every admission request (the AdmissionRequest, its kind and user,
    the Review context, the Decision). A frozen dataclass sets each field through
    ``object.__setattr__``: 2.6 us against 0.6 us for an AdmissionRequest's twelve fields on
    this machine, about 3 % of a request's instructions over these five classes. mypy, which CI
    runs, still refuses every assignment to a field (``tests/webhook/test_values.py`` checks
    that it does); the hash is the frozen one, over the fields."""
    return dataclass(slots=True, unsafe_hash=True)(cls)


_STRINGS = frozenset({str})


class NotJson(ValueError):
    """A value ``json_key`` does not take: not made of JSON's types alone."""


def json_key(value: Any) -> Any:
    """A hashable key for a JSON value, equal for two values only when they are the same JSON
    (``true``, ``1`` and ``1.0`` apart, members in the same order): for memo tables keyed by
    what a request carries. Raises ``NotJson`` on anything but dicts with string keys, lists,
    strings, numbers, booleans and None (a YAML date, a tuple): the caller takes the slow way.

    Injective by shape: a string stays itself, an integer or a boolean becomes (its type, it),
    a float (float, its repr), None stays None, a list ("l", items...) and a dict ("d", (key,
    value)...)."""
    kind = type(value)
    if kind is str or value is None:
        return value
    if kind is dict:
        items = []
        for key, item in value.items():
            if type(key) is not str:
                raise NotJson(f"a key of type {type(key).__name__}")
            items.append((key, json_key(item)))
        return ("d", *items)
    if kind is list:
        if _STRINGS.issuperset(map(type, value)):  # names: no call per item
            return ("l", *value)
        return ("l", *(json_key(item) for item in value))
    if kind is int or kind is bool:
        return (kind, value)
    if kind is float:  # by its text: -0.0 is not 0.0, every NaN is the same NaN
        return (float, repr(value))
    raise NotJson(f"a value of type {kind.__name__}")


_PLAIN = frozenset({str, type(None)})
"""The types ``json_key`` keeps as they are."""


def fields_key(obj: dict[str, Any], names: tuple[str, ...]) -> tuple[Any, ...]:
    """``json_key`` of each of ``obj``'s fields ``names`` (None where missing), as a tuple:
    what a memo of a function reading only those fields (with ``.get``) is keyed by. Strings
    and nulls, the common case, are taken as they are. Raises ``NotJson`` as ``json_key``."""
    fields = tuple(map(obj.get, names))
    if _PLAIN.issuperset(map(type, fields)):
        return fields
    return tuple(map(json_key, fields))

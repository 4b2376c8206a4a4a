"""What CEL is handed: the request's values, where the engines represent them faithfully.

One thing stands between a request's JSON and an engine:

- **Values an engine cannot hold.** cel-expr-python cuts strings and map keys at U+0000 (the
  image ``web:1\\u0000:latest`` would reach it as ``web:1``), turns integers from 2^63 into
  uints and refuses them from 2^64; cel-python refuses them from 2^63. Kubernetes' own JSON
  decoding never gives CEL such an integer (it makes it a double). Rather than hand an engine a
  different value than the request holds, a rule that reads such a value is refused: an
  evaluation error naming the field (``unrepresentable``), on both backends, before any fast
  path, so the proof, the all-pass conjunction and the engine give one answer.
- **null fields** are not among them: CEL is handed a null as the request sends it. A
  ValidatingAdmissionPolicy's ``object`` is the request's object as a plain unstructured map
  (``objectToResolveVal`` in ``apiserver/pkg/admission/plugin/cel/condition.go``, no
  schema), so a map entry whose value is null is kept:
  ``has(object.m.a)`` is true, ``object.m.a == null``, and ``object.m.size()``, ``'a' in
  object.m`` and a comprehension over ``object.m`` count it. (The schema-typed conversion of
  ``apiserver/pkg/cel/common/values.go``, which treats a null nullable field as absent, is the
  one CRD ``x-kubernetes-validations`` run on, not admission policies.) A built-in kind's
  object never holds one: the API server decodes it into its Go type, where a null field is
  absent.

``suspect`` is the cheap filter in front: one C-speed serialization of the value; only
when it shows a NUL, an integer outside 53 bits or a value that is not JSON does the
Python walk run. What the walk finds is exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from webhook.engine.cel.paths import ITEMS, PathTree

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_NUL = "which the CEL engine cannot represent"


def suspect(value: Any) -> bool:
    """Whether ``value`` may hold something ``problems`` names (a NUL, an int beyond 2^53, a
    non-string key, a value that is not JSON). False is certain: nothing to refuse."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_STRICT_INTEGER)
    except TypeError:
        return True
    return b"\\u0000" in text


def problems(value: Any, where: str, tree: PathTree | None = None) -> Iterator[tuple[str, str]]:
    """(field, why) for every value below ``value`` that no engine represents faithfully, in
    what ``narrowed(value, tree)`` hands the engine (all of it without a tree). ``where``
    names ``value`` (``object``)."""
    kind = type(value)
    if kind is str:
        if "\x00" in value:
            yield where, f"holds U+0000 (a NUL character), {_NUL}"
    elif kind is int:
        if not INT64_MIN <= value <= INT64_MAX:
            yield where, f"{value} is outside CEL's int range (int64)"
    elif kind is dict:
        keep = None if tree is None or ITEMS in tree else tree
        for key, item in value.items():
            if keep is not None and key not in keep:
                continue  # not handed to the engine
            if type(key) is not str:
                yield where, f"has the key {key!r}, which is not a string"
                continue
            if "\x00" in key:
                yield where, f"has a key holding U+0000 ({key!r}), {_NUL}"
            yield from problems(item, _field(where, key), None if keep is None else keep[key])
    elif kind is list:
        items = tree[ITEMS] if tree is not None and ITEMS in tree else None
        for index, item in enumerate(value):
            yield from problems(item, f"{where}[{index}]", items)
    elif not (value is None or kind is bool or kind is float):
        yield where, f"a {kind.__name__} is not a JSON value"


def _field(where: str, key: str) -> str:
    return f"{where}.{key}" if key.isidentifier() else f"{where}[{key!r}]"


def mended(value: Any, tree: PathTree | None = None) -> Any:
    """``value`` with every value ``problems`` names, in the paths ``tree`` reads (everywhere
    without one), replaced by one an engine represents (NULs by U+FFFD, integers outside
    int64 by 0, other values by their text, keys by their text): a copy where anything
    changes, the value itself where nothing does; for the rules that do not read them,
    which are the only ones evaluated on a request holding them (the others are refused); so
    converting the variables, which every rule shares, never fails for a value only a
    refused rule reads. A null stays a null."""
    kind = type(value)
    if kind is dict:
        keep = None if tree is None or ITEMS in tree else tree
        changed = False
        kept = {}
        for key, item in value.items():
            if keep is not None and key not in keep:
                kept[key] = item
                continue
            cleaned = mended(item, None if keep is None else keep[key])
            if type(key) is not str or "\x00" in key:
                key = str(key).replace("\x00", "\ufffd")  # noqa: PLW2901
                changed = True
            changed = changed or cleaned is not item
            kept[key] = cleaned
        return kept if changed else value
    if kind is list:
        below = tree[ITEMS] if tree is not None and ITEMS in tree else None
        items = [mended(item, below) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if value is None or kind is bool or kind is float:
        return value
    if kind is str:
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if kind is int:
        return value if INT64_MIN <= value <= INT64_MAX else 0
    return str(value)

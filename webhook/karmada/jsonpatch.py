"""RFC 6902 add / remove / replace exactly as Karmada v1.18 applies them.

Karmada's override manager turns every overrider into JSON patch operations and applies them
with ``github.com/evanphx/json-patch/v5`` (v5.9.11, vendored at karmada v1.18.0,
``patch.go``) with its default options. Its quirks decide what a member receives, so they are
kept here:

- a path is split on ``/`` and its first token dropped, whatever it is: ``spec/x`` means the
  key ``x`` of the root, ``""`` the whole document, and a path without ``/`` nothing;
- an empty token (``/a//b``) names the container itself when walking;
- array indexes are Go's ``strconv.Atoi`` (``+1`` and ``01`` are 1; no spaces, no ``_``);
  negative indexes count from the end (``add`` at ``-1`` appends), ``-`` appends on ``add``;
- ``add`` on an object key sets it, on an array index inserts (up to the length);
- ``remove`` and ``replace`` fail on a missing key or index;
- walking through a scalar fails ("doc is missing path").

The functions take and return plain JSON values (dict, list, str, int, float, bool, None);
values from the patch are always copied in.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from webhook.engine.budget import check as check_budget

_INT = re.compile(r"^[+-]?[0-9]+\Z", re.ASCII)
_ESCAPE = re.compile(r"~[01]")
_INT64 = 1 << 63


class PatchError(ValueError):
    """A patch operation json-patch would refuse (Karmada's override fails)."""


def _atoi(token: str) -> int:
    """Go's ``strconv.Atoi`` on a 64-bit platform."""
    if not _INT.match(token):
        raise PatchError(f'strconv.Atoi: parsing "{token}": invalid syntax')
    value = int(token)
    if not -_INT64 <= value < _INT64:
        raise PatchError(f'strconv.Atoi: parsing "{token}": value out of range')
    return value


def decode_token(token: str) -> str:
    """RFC 6901 unescaping in one pass, as Go's ``strings.NewReplacer("~1", "/", "~0", "~")``."""
    return _ESCAPE.sub(lambda m: "/" if m[0] == "~1" else "~", token)


def _get(container: Any, key: str) -> tuple[bool, Any]:
    """(found, value) of ``key`` in a container (json-patch's ``get``)."""
    if key == "":
        return True, container
    if isinstance(container, dict):
        return (True, container[key]) if key in container else (False, None)
    index = _atoi(key)
    if index < 0:
        if index < -len(container):
            return False, None
        index += len(container)
    if index >= len(container):
        return False, None
    return True, container[index]


class _Selves:
    """json-patch v5 answers ``get("")`` inside a path with the container's ``self``, which
    only the document itself has: a copy decoded from the text the document had when Apply
    began, kept for the rest of the patch and never written back. An operation reaching
    through an empty segment at the top (``//b``) so changes a copy that is thrown away, and
    sees none of the patch's earlier changes; one deeper (``/a//b``) finds no path."""

    def __init__(self, pristine: Any) -> None:
        self.pristine = pristine
        self.copy: Any = None

    def self_of(self, prefix: tuple[str, ...]) -> Any:
        if prefix:
            return None
        if self.copy is None:
            self.copy = copy.deepcopy(self.pristine)
        return self.copy


def _through_self(path: Any) -> bool:
    return isinstance(path, str) and "" in path.split("/")[1:-1]


def _find(document: Any, path: str, selves: _Selves | None = None) -> tuple[Any, str] | None:
    """json-patch's ``findObject``: the container holding the last token, and that token."""
    split = path.split("/")
    if len(split) < 2:
        return (document, "") if path == "" else None
    container = document
    walked: tuple[str, ...] = ()
    for part in split[1:-1]:
        token = decode_token(part)
        if token == "" and selves is not None:
            child: Any = selves.self_of(walked)
        else:
            try:
                found, child = _get(container, token)
            except PatchError:
                return None
            if not found:
                return None
        if not isinstance(child, dict | list):
            return None
        container = child
        walked = (*walked, token)
    return container, decode_token(split[-1])


def _whole(value: Any, operation: str) -> Any:
    """``add`` or ``replace`` at ``""``: the value becomes the document (an object or an array;
    a null replace leaves a document json-patch writes ``null``, a null add one it cannot
    write)."""
    if value is None and operation == "add":
        raise PatchError("invalid value, expected object")
    if value is not None and not isinstance(value, dict | list):
        raise PatchError(f"{operation} operation value must be object or array")
    return copy.deepcopy(value)


def _add(document: Any, path: str, value: Any, selves: _Selves | None = None) -> Any:
    if path == "":
        return _whole(value, "add")
    found = _find(document, path, selves)
    if found is None:
        raise PatchError(f'add operation does not apply: doc is missing path: "{path}"')
    container, key = found
    if isinstance(container, dict):
        container[key] = copy.deepcopy(value)
        return document
    if key == "-":
        container.append(copy.deepcopy(value))
        return document
    try:
        index = _atoi(key)
    except PatchError as exc:
        raise PatchError(f"value was not a proper array index: '{key}': {exc}") from None
    size = len(container) + 1
    if index >= size or index < -size:
        raise PatchError(f"error in add for path: '{path}': Unable to access invalid index")
    if index < 0:
        index += size
    container.insert(index, copy.deepcopy(value))
    return document


def _remove(document: Any, path: str, selves: _Selves | None = None) -> Any:
    found = _find(document, path, selves)
    if found is None:
        raise PatchError(f'remove operation does not apply: doc is missing path: "{path}"')
    container, key = found
    if isinstance(container, dict):
        if key not in container:
            raise PatchError(f"error in remove for path: '{path}': nonexistent key {key}")
        del container[key]
        return document
    index = _atoi(key)
    if index >= len(container) or index < -len(container):
        raise PatchError(f"error in remove for path: '{path}': Unable to access invalid index")
    del container[index]
    return document


def _replace(document: Any, path: str, value: Any, selves: _Selves | None = None) -> Any:
    if path == "":
        return _whole(value, "replace")
    found = _find(document, path, selves)
    if found is None:
        raise PatchError(f"replace operation does not apply: doc is missing path: {path}")
    container, key = found
    try:
        present, _ = _get(container, key)
    except PatchError:
        present = False
    if not present:
        raise PatchError(f"replace operation does not apply: doc is missing key: {path}")
    if isinstance(container, dict):
        container[key] = copy.deepcopy(value)
    else:
        index = _atoi(key)
        container[index + len(container) if index < 0 else index] = copy.deepcopy(value)
    return document


def apply_patch(
    document: Any, operations: Sequence[Mapping[str, Any]], *, in_place: bool = False
) -> Any:
    """``document`` after every operation (``op``, ``path``, ``value``) in order: a copy, or
    with ``in_place`` the document itself changed (left half-changed when an operation fails;
    the caller then throws it away, as Karmada does)."""
    result = document if in_place else copy.deepcopy(document)
    if not isinstance(result, dict | list):
        raise PatchError("json-patch applies to an object or an array")
    selves = (
        _Selves(copy.deepcopy(document))
        if any(_through_self(o.get("path")) for o in operations)
        else None
    )
    for operation in operations:
        check_budget()  # a review's budget: 33,000 operations is 2.5 MiB of request
        op, path = operation.get("op"), operation.get("path")
        if not isinstance(path, str):
            raise PatchError(f"operation missing path field: {dict(operation)}")
        if result is None:
            raise PatchError("invalid state detected: the document is null")
        if op == "add":
            result = _add(result, path, operation.get("value"), selves)
        elif op == "remove":
            result = _remove(result, path, selves)
        elif op == "replace":
            result = _replace(result, path, operation.get("value"), selves)
        else:
            raise PatchError(f"Unexpected kind: {op}")
    return result

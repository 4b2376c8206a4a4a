"""JSON text as the webhook reads it: orjson, and no key given twice in one object.

orjson (like every fast parser) keeps the last of two equal keys: ``{"username": "alice",
"username": "git"}`` reads as git. The API server never sends such a body, so one that does is
refused rather than judged on a guess. orjson parses (and refuses what is not JSON, nested past
1024 levels, or holds lone surrogates); the standard library's parser then reads the same text
with a hook that sees every object's keys: 16-22 us for a 3-5 KB AdmissionReview here, where
counting the keys in the text with ``bytes.count`` and comparing them with orjson's output cost
17-35 us (CPython's substring search is slow on the runs of spaces of indented JSON).
"""

from __future__ import annotations

import json
from typing import Any

import orjson


class DuplicateKeyError(ValueError):
    """An object in the text names one key twice."""


def loads_unique(data: bytes | str) -> Any:
    """``orjson.loads(data)``; raises orjson.JSONDecodeError (a ValueError) when it is not JSON
    and DuplicateKeyError when an object in it names a key twice."""
    value = orjson.loads(data)
    if has_duplicate_keys(data):
        raise DuplicateKeyError("an object in it gives the same key twice")
    return value


class _Duplicate(Exception):
    pass


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Duplicate
    return result


def has_duplicate_keys(data: bytes | str) -> bool:
    """Whether an object in the JSON text ``data`` names a key twice (False for what the
    standard parser cannot read: orjson, which read it, is the judge of that)."""
    try:
        json.loads(data, object_pairs_hook=_unique_object)
    except _Duplicate:
        return True
    except (ValueError, RecursionError):
        return False
    return False

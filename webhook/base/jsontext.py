"""JSON text as the webhook reads it: orjson, and no key given twice in one object.

orjson (like every fast parser) keeps the last of two equal keys: ``{"username": "alice",
"username": "git"}`` reads as git. The API server never sends such a body, so one that does is
refused rather than judged on a guess. orjson parses (and refuses what is not JSON, nested past
1024 levels, or holds lone surrogates) and gives the value; jiter (a Rust parser that refuses a
key given twice, ``catch_duplicate_keys``) then reads the same bytes only to say whether a key is
repeated: 10-13 us for a 2-3 KB AdmissionReview here, against 20-26 us for the standard
library's parser with a hook on every object (``_standard_scan``), which stays the judge
wherever jiter says anything but "no key is repeated": a repeated key, or a text jiter refuses
(nested past its 200 levels, a byte order mark, what is not JSON). Where jiter reads
the text whole it is strict JSON in UTF-8, which the standard parser reads to the same objects
and keys, so "no key is repeated" is its answer too (tests/webhook/test_jsontext.py holds the
two to one answer on adversarial texts). jiter's value is not used: it reads integers past
64 bits exactly and ``1e400`` as infinity where orjson gives a float and a refusal. Its string
cache holds the object keys (``cache_mode="keys"``: 22-29k instructions of 156-201k fewer per
AdmissionReview, whose keys are nearly all the same from one request to the next; at most 16,384
strings under 64 characters). That cache is process-wide behind a Rust mutex, taken and given
back while the GIL is held, so no other thread holds it when a thread forks; a child forked
from a worker (``webhook/shell/forklane.py``) still reads with no cache (``"none"`` never
touches the mutex), so that what a review thread could leave behind is never its concern.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal

import jiter
import orjson

_CACHE_MODE: dict[str, Literal["keys", "none"]] = {"mode": "keys"}
"""jiter's string cache as this process reads: the keys, or none in a forked child."""


def _no_cache_in_child() -> None:
    _CACHE_MODE["mode"] = "none"


os.register_at_fork(after_in_child=_no_cache_in_child)


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
    if isinstance(data, bytes):
        try:
            jiter.from_json(data, catch_duplicate_keys=True, cache_mode=_CACHE_MODE["mode"])
        except ValueError:
            pass  # repeated, or a text jiter does not read: the standard parser says
        else:
            return False
    return _standard_scan(data)


def _standard_scan(data: bytes | str) -> bool:
    """``has_duplicate_keys`` by the standard library's parser alone."""
    try:
        json.loads(data, object_pairs_hook=_unique_object)
    except _Duplicate:
        return True
    except (ValueError, RecursionError):
        return False
    return False

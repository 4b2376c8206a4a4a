"""The ownership ledger: which writer owns which JSON pointer of a managed object.

The compiler records it on every object it renders, in the annotation ``fedgate.dev/ownership``,
so the webhook can enforce single-writer ownership from the request alone. The value is compact
JSON mapping RFC 6901 pointers to owners, keys sorted; the empty pointer ``""`` names the owner
of everything no longer pointer claims, for example::

    {"":"git","/metadata/finalizers":"karmada","/spec/replicas":"federated-hpa","/status":"karmada"}

A pointer owns its whole subtree; the longest (by path segments) matching pointer decides.

Ledgers are read from requests, so reading one is bounded: at most ``MAX_LEDGER_BYTES`` of
text, ``MAX_LEDGER_ENTRIES`` pointers of at most ``MAX_POINTER_SEGMENTS`` tokens, a flat object
of strings with no key given twice. Anything else is not a ledger (``LedgerError``): the rules
then treat the object as managed by git with a broken ledger, which only the writers that may
repair it can change (``webhook/engine/ownership.py``).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterator, Mapping

import orjson

from webhook.base.jsontext import has_duplicate_keys

ANNOTATION = "fedgate.dev/ownership"
ANNOTATION_POINTER = "/metadata/annotations/fedgate.dev~1ownership"


KARMADA_CLAIM_FIELDS = (
    "/metadata/labels/propagationpolicy.karmada.io~1permanent-id",
    "/metadata/labels/clusterpropagationpolicy.karmada.io~1permanent-id",
    "/metadata/annotations/propagationpolicy.karmada.io~1name",
    "/metadata/annotations/propagationpolicy.karmada.io~1namespace",
    "/metadata/annotations/clusterpropagationpolicy.karmada.io~1name",
)
"""What Karmada writes on a resource template it claims (api-facts section 6)."""

KARMADA_COMMON_FIELDS = ("/metadata/finalizers", "/status")
"""What Karmada's controllers write on every object they manage."""

TARGET_ANNOTATION = "fedgate.dev/target-ownership"
"""On an OverridePolicy: the ledger of the resource template it selects, so the webhook can tell
whether an override writes a field someone other than git owns."""


MAX_LEDGER_BYTES = 32 * 1024
"""Largest ledger text, in UTF-8 bytes. compile writes a few hundred; the API server allows
256 KiB for all of an object's annotations together."""
MAX_LEDGER_ENTRIES = 512
"""Most pointers in one ledger (compile writes about ten)."""
MAX_POINTER_SEGMENTS = 32
"""Most tokens in one ledger pointer (Kubernetes objects nest about 15 deep)."""


class LedgerError(ValueError):
    """The annotation is not a ledger."""


def escape(token: str) -> str:
    """One pointer token, escaped per RFC 6901 (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return token.replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    return "".join("/" + escape(str(token)) for token in tokens)


def encode(owners: Mapping[str, str]) -> str:
    return json.dumps(dict(sorted(owners.items())), separators=(",", ":"))


def decode(text: str) -> dict[str, str]:
    """The ledger in ``text``; raises LedgerError when it is not one (within the bounds above).

    Linear in the text: its size is checked before it is parsed, orjson parses without
    recursion, and only a flat object of strings is accepted."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > MAX_LEDGER_BYTES:
        raise LedgerError(f"{len(data)} bytes, more than the {MAX_LEDGER_BYTES} a ledger may hold")
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise LedgerError(f"not JSON: {exc}") from None
    if type(value) is not dict or not all(
        type(k) is str and type(v) is str and (k == "" or k.startswith("/"))
        for k, v in value.items()
    ):
        raise LedgerError('must map JSON pointers to owner names, e.g. {"":"git"}')
    if len(value) > MAX_LEDGER_ENTRIES:
        raise LedgerError(f"{len(value)} pointers, more than the {MAX_LEDGER_ENTRIES} allowed")
    deep = next((k for k in value if k.count("/") > MAX_POINTER_SEGMENTS), None)
    if deep is not None:
        raise LedgerError(f"pointer {deep[:80]!r} has more than {MAX_POINTER_SEGMENTS} tokens")
    if has_duplicate_keys(data):
        raise LedgerError("a pointer is given twice")
    return value


def ledger_problem(text: str) -> str:
    """Why ``text`` is not a ledger (for messages)."""
    try:
        decode(text)
    except LedgerError as exc:
        return str(exc)
    return "unreadable"


class Ledger(Mapping[str, str]):
    """A decoded ledger, indexed so that the entries below a pointer are found by bisection:
    the pointers below ``p`` are the sorted keys in ``[p + "/", p + "0")`` ("0" follows "/").
    Rules that ask, for every changed or written pointer, which ledger entries lie below it
    stay linear in the ledger (they scanned it whole for each pointer)."""

    __slots__ = ("_owners", "_sorted")

    def __init__(self, owners: Mapping[str, str]) -> None:
        self._owners = dict(owners)
        self._sorted = sorted(self._owners)

    def __getitem__(self, pointer: str) -> str:
        return self._owners[pointer]

    def __contains__(self, pointer: object) -> bool:
        return pointer in self._owners

    def __iter__(self) -> Iterator[str]:
        return iter(self._owners)

    def __len__(self) -> int:
        return len(self._owners)

    def below(self, pointer: str) -> Iterator[tuple[str, str]]:
        """(pointer, owner) of every entry strictly below ``pointer``, in sorted order."""
        keys = self._sorted
        index = bisect_left(keys, pointer + "/")
        end = pointer + "0"
        while index < len(keys) and keys[index] < end:
            yield keys[index], self._owners[keys[index]]
            index += 1


def entries_below(ledger: Mapping[str, str], pointer: str) -> Iterator[tuple[str, str]]:
    """(pointer, owner) of every entry of ``ledger`` strictly below ``pointer``."""
    if isinstance(ledger, Ledger):
        return ledger.below(pointer)
    prefix = pointer + "/"
    return ((owned, owner) for owned, owner in ledger.items() if owned.startswith(prefix))


def owner_of(path: str, ledger: Mapping[str, str]) -> tuple[str, str] | None:
    """``(owner, owning pointer)`` for ``path``: the longest ledger pointer that contains it."""
    segments = path.split("/")
    for length in range(len(segments), 0, -1):
        prefix = "/".join(segments[:length])
        if prefix in ledger:
            return ledger[prefix], prefix
    return None

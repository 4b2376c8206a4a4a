"""The ownership ledger: which writer owns which JSON pointer of a managed object.

The compiler records it on every object it renders, in the annotation ``fedgate.dev/ownership``,
so the webhook can enforce single-writer ownership from the request alone. The value is compact
JSON mapping RFC 6901 pointers to owners, keys sorted; the empty pointer ``""`` names the owner
of everything no longer pointer claims, for example::

    {"":"git","/metadata/finalizers":"karmada","/spec/replicas":"federated-hpa","/status":"karmada"}

A pointer owns its whole subtree; the longest (by path segments) matching pointer decides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

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
    """The ledger in ``text``; raises LedgerError when it is not one."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise LedgerError(f"not JSON: {exc}") from None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and (k == "" or k.startswith("/"))
        for k, v in value.items()
    ):
        raise LedgerError('must map JSON pointers to owner names, e.g. {"":"git"}')
    return value


def owner_of(path: str, ledger: Mapping[str, str]) -> tuple[str, str] | None:
    """``(owner, owning pointer)`` for ``path``: the longest ledger pointer that contains it."""
    segments = path.split("/")
    for length in range(len(segments), 0, -1):
        prefix = "/".join(segments[:length])
        if prefix in ledger:
            return ledger[prefix], prefix
    return None

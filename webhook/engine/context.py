"""What every check of one request shares: the request, the bundle, the writer, the tenant."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from datetime import date
from typing import Any, Protocol, TypeVar

from webhook.base.ledger import (
    ANNOTATION,
    KARMADA_CLAIM_FIELDS,
    KARMADA_COMMON_FIELDS,
    MAX_LEDGER_BYTES,
    Ledger,
    LedgerError,
    decode,
)
from webhook.base.memo import Memo
from webhook.base.values import statically_frozen
from webhook.bundle.index import TreeIndex
from webhook.bundle.model import Bundle, Tenant
from webhook.bundle.rules import Rule
from webhook.engine.decision import Decision, ExceptionUse, Violation
from webhook.engine.enforcement import Point
from webhook.engine.identity import Identity
from webhook.engine.request import AdmissionRequest

T = TypeVar("T")


class Reviewer(Protocol):
    """``review.review``'s signature: how a rule reviews another write (a member's copy under
    an override) without importing the engine that calls it."""

    def __call__(
        self,
        request: AdmissionRequest,
        bundle: Bundle,
        *,
        cluster: str | None = None,
        point: Point | None = "webhook",
        today: date | None = None,
    ) -> Decision: ...


@statically_frozen
class Review:
    request: AdmissionRequest
    bundle: Bundle
    identity: Identity
    tenant: Tenant | None
    cluster: str | None = None
    point: Point | None = "webhook"
    """Where the review runs (the shell says): each rule's action is its binding's for it;
    None: every rule as enforced (its strongest action), as policy test suites judge."""
    today: date | None = None
    """The day exceptions are judged on (``review``'s)."""
    reviewer: Reviewer | None = field(default=None, compare=False, repr=False)
    """How a rule reviews another write this one makes (a member's copy under an override):
    ``review.review``, which builds this context; None where no such rule runs."""
    lifted_inside: list[ExceptionUse] = field(
        default_factory=list, init=False, compare=False, repr=False
    )
    """What exceptions lifted in the reviews this one made of other writes (a member's copy
    under an override): the decision lists them with its own."""
    annotations: list[tuple[str, str]] = field(
        default_factory=list, init=False, compare=False, repr=False
    )
    """The audit annotations the rules made on this request (a ValidatingAdmissionPolicy's
    ``auditAnnotations``), as (key, value): not objections, so not violations; the decision
    carries them as its ``audit``."""
    _memo: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def memo(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()`` once for this request: for what several rules work out from it (the
        clusters a placement can select)."""
        if name not in self._memo:
            self._memo[name] = compute()
        return self._memo[name]  # type: ignore[no-any-return]

    def violation(
        self, rule: Rule, message: str, *, pointer: str = "", owner: str = "", status: str = "fail"
    ) -> Violation:
        action = rule.action_at(self.point)
        return Violation(
            rule=rule.id,
            pointer=pointer,
            owner=owner,
            writer=self.identity.describe(),
            action=action,
            status="error" if status == "error" else ("warn" if action == "warn" else "fail"),
            message=message,
            enforced=rule.staged_at(self.point),
        )

    @property
    def old_ledger(self) -> Ledger | None:
        # memo, not functools.cached_property: on Python 3.11 that takes a lock on every read
        return self.memo("old_ledger", lambda: ledger_of(self.request.old_object))

    @property
    def new_ledger(self) -> Ledger | None:
        return self.memo("new_ledger", lambda: ledger_of(self.request.object))


def cross_index(review: Review) -> TreeIndex | None:
    """The index the rules about other objects judge with: None without one, and None while the
    live index is stale (``TreeIndex.stale``), so that those rules fail closed."""
    index = review.bundle.index
    return None if index is None or index.stale is not None else index


def no_index_reason(review: Review) -> str:
    """Why ``cross_index`` is None, as a clause of a denial."""
    index = review.bundle.index
    if index is not None and index.stale is not None:
        return f"the webhook's live index of the Karmada API server is stale ({index.stale})"
    return "the webhook's bundle carries no index of the synced tree"


def annotations_of(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return _metadata_map(obj, "annotations")


def labels_of(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return _metadata_map(obj, "labels")


def _metadata_map(obj: Mapping[str, Any] | None, name: str) -> Mapping[str, Any]:
    metadata = (obj or {}).get("metadata")
    if type(metadata) is not dict and not isinstance(metadata, Mapping):  # dict: the fast test
        return {}
    value = metadata.get(name)
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def with_karmada_fields(ledger: Mapping[str, str]) -> dict[str, str]:
    """The ledger with Karmada's fields given to Karmada, whatever the ledger says of them."""
    return {**ledger, **{p: "karmada" for p in (*KARMADA_CLAIM_FIELDS, *KARMADA_COMMON_FIELDS)}}


def ledger_of(obj: Mapping[str, Any] | None, key: str = ANNOTATION) -> Ledger | None:
    """The object's ledger (Karmada's fields enforced), None when it has none or a broken one.

    A broken ledger on a managed object is reported by the ownership rule, not here.
    """
    text = annotations_of(obj).get(key)
    return _LEDGERS.get(text, lambda: _parsed_ledger(text)) if isinstance(text, str) else None


BROKEN_LEDGER = Ledger(with_karmada_fields({"": "git"}))
"""How the rules read a managed object whose ledger is broken: git's, but for Karmada's fields."""

_LEDGERS: Memo[str, Ledger | None] = Memo(budget=8 * 1024 * 1024, max_entry=8 * MAX_LEDGER_BYTES)
"""Ledgers repeat across requests (every write of an object carries the same one): each text is
parsed once while it fits. Bounded in bytes, since the texts come from requests."""


def _parsed_ledger(text: str) -> Ledger | None:
    """The parsed ledger (shared: read it, never change it), None when it is broken."""
    try:
        return Ledger(with_karmada_fields(decode(text)))
    except LedgerError:
        return None

"""Decisions are data: every violation with its reasons, rendered the same way everywhere.

The AdmissionReview response, the CLI text, ``--output json`` and the audit line are all
renderings of one Decision, in one deterministic order (rule id, then pointer).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from webhook.base.values import statically_frozen

Action = Literal["deny", "warn", "audit"]
Status = Literal["pass", "fail", "warn", "error", "skip"]
"""``fail``: the rule says no; ``error``: it could not be evaluated (fails closed under
failurePolicy Fail); ``warn``: it says no under action warn; ``pass``/``skip`` appear only in
test reports (the rule held, or did not apply)."""


@dataclass(frozen=True, order=True)
class Violation:
    """One rule's objection: which rule, at which JSON pointer, whose field, who wrote, why."""

    rule: str
    pointer: str = ""
    owner: str = ""
    writer: str = ""
    action: Action = "deny"
    status: Status = "fail"
    message: str = ""
    enforced: Action | None = None
    """Where the rule is staged (its action here weaker than its strongest elsewhere): the
    action it takes once enforced, ``deny`` for a rule that only warns here for now."""

    def as_json(self) -> dict[str, str]:
        """The Violation JSON; ``enforced`` only where the rule is staged."""
        found = {
            "rule": self.rule,
            "pointer": self.pointer,
            "owner": self.owner,
            "writer": self.writer,
            "action": self.action,
            "status": self.status,
            "message": self.message,
        }
        if self.enforced is not None:
            found["enforced"] = self.enforced
        return found

    @property
    def staged_note(self) -> str:
        """`` (staged: deny once enforced)`` for a staged rule's violation, else empty."""
        return f" (staged: {self.enforced} once enforced)" if self.enforced else ""

    @property
    def denies(self) -> bool:
        return self.action == "deny"


@dataclass(frozen=True, order=True)
class ExceptionUse:
    """A violation an exception lifted: which exception, which rule, what it would have said,
    and until when the exception is in force (the day it expires, ISO)."""

    exception: str
    rule: str
    expires: str
    owner: str
    pointer: str = ""
    message: str = ""

    def as_json(self) -> dict[str, str]:
        return {
            "exception": self.exception,
            "rule": self.rule,
            "expires": self.expires,
            "owner": self.owner,
            "pointer": self.pointer,
            "message": self.message,
        }

    def note(self) -> str:
        """The warning a writer sees: what was let through, by which exception, until when."""
        return (
            f"exception {self.exception} (owner {self.owner}, expires {self.expires}) "
            f"lifts {self.rule}: {self.message}"
        )


class AuditAnnotation(NamedTuple):
    """One entry of a decision's audit annotations: not an objection, a note for the API
    server's audit log (a ValidatingAdmissionPolicy's ``auditAnnotations``, a rule whose action
    is ``audit``, an exception that lifted a rule, a break-glass bypass). The API server
    prefixes ``key`` with the webhook's name (``response.audit_annotations``)."""

    key: str
    value: str


@statically_frozen
class Decision:
    """The engine's answer: allowed unless a deny violation stands; warnings; audit notes."""

    allowed: bool
    violations: tuple[Violation, ...] = ()
    warnings: tuple[str, ...] = ()
    audit: tuple[AuditAnnotation, ...] = field(default=())
    """The audit annotations, apart from the violations: ``Decision.of`` adds those of the
    violations whose action is ``audit`` and of the exceptions that lifted one."""
    targets: tuple[str, ...] | None = None
    """The member clusters the object's placement can select, where the review worked them out
    (propagation policies): what the decision is about, for the audit line; not a verdict."""
    faults: tuple[str, ...] = ()
    """What broke inside the engine and was stepped around (a fast path that raised): the answer
    is the slow path's, but a broken shortcut must be seen (the server counts and logs them)."""
    exceptions: tuple[ExceptionUse, ...] = ()
    """The violations exceptions lifted (``policies/exceptions/``): allowed because of them."""

    @classmethod
    def of(
        cls,
        violations: Iterable[Violation],
        *,
        notes: Iterable[str] = (),
        audit: Iterable[tuple[str, str]] = (),
        targets: tuple[str, ...] | None = None,
        faults: Iterable[str] = (),
        lifted: Iterable[ExceptionUse] = (),
    ) -> Decision:
        ordered = tuple(sorted(set(violations)))
        broken = tuple(faults)
        uses = tuple(sorted(set(lifted)))
        if not ordered and not notes and not audit and not uses:  # the common answer
            return cls(allowed=True, targets=targets, faults=broken)
        warnings = [f"{v.rule}: {v.message}{v.staged_note}" for v in ordered if v.action == "warn"]
        audits = [
            *(AuditAnnotation(key, value) for key, value in audit),
            *(
                AuditAnnotation(v.rule, f"{v.message}{v.staged_note}")
                for v in ordered
                if v.action == "audit"
            ),
        ]
        audits += [AuditAnnotation("exception", f"{u.exception} lifted {u.rule}") for u in uses]
        return cls(
            allowed=not any(v.denies for v in ordered),
            violations=ordered,
            warnings=(*notes, *warnings, *dict.fromkeys(u.note() for u in uses)),
            audit=tuple(sorted(set(audits))),
            targets=targets,
            faults=broken,
            exceptions=uses,
        )

    @property
    def denials(self) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.denies)

    def as_json(self) -> dict[str, Any]:
        """The Decision JSON of DESIGN.md; ``exceptions`` when one lifted a violation."""
        found: dict[str, Any] = {
            "allowed": self.allowed,
            "violations": [v.as_json() for v in self.violations],
            "warnings": list(self.warnings),
        }
        if self.exceptions:
            found["exceptions"] = [u.as_json() for u in self.exceptions]
        return found

    def message(self) -> str:
        """Every denial in one sentence each, for ``status.message`` and the CLI."""
        return "; ".join(f"[{v.rule}] {v.message}" for v in self.denials)

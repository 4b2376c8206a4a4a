"""Exceptions applied to a review's violations: those an exception in force covers are lifted.

Pure: the day is the caller's (``review``'s ``today``, else the bundle's); without one, or past
an exception's ``expires``, nothing is lifted. A rule no exception may lift
(``bundle.exceptions.PROTECTED``) never loads into one, and is skipped here all the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from webhook.bundle.exceptions import protected_reason
from webhook.bundle.model import PolicyException
from webhook.bundle.rules import object_selected
from webhook.engine.context import Review
from webhook.engine.decision import ExceptionUse, Violation


def lift(
    violations: Iterable[Violation], context: Review, today: date | None
) -> tuple[list[Violation], list[ExceptionUse], list[str]]:
    """The violations that stand, those lifted (as uses), and a note for each violation an
    exception past its date would have lifted (so the writer learns why it is back)."""
    exceptions = context.bundle.exceptions
    kept = list(violations)
    if not exceptions or not kept:
        return kept, [], []
    standing: list[Violation] = []
    uses: list[ExceptionUse] = []
    expired: dict[str, str] = {}
    for violation in kept:
        covering = _covering(exceptions, context, violation.rule)
        active = next((e for e in covering if today is not None and e.in_force(today)), None)
        if active is None:
            standing.append(violation)
            for gone in covering:
                expired[f"{gone.name}/{violation.rule}"] = (
                    f"exception {gone.name} expired on {gone.expires.isoformat()}: "
                    f"it no longer lifts {violation.rule}"
                )
            continue
        uses.append(
            ExceptionUse(
                active.name,
                violation.rule,
                active.expires.isoformat(),
                active.owner,
                violation.pointer,
                violation.message,
            )
        )
    return standing, uses, [expired[k] for k in sorted(expired)] if today is not None else []


def _covering(
    exceptions: tuple[PolicyException, ...], context: Review, rule: str
) -> list[PolicyException]:
    if protected_reason(rule) is not None:
        return []
    return [e for e in exceptions if covers(e, context, rule)]


def covers(exception: PolicyException, context: Review, rule: str) -> bool:
    """Whether ``exception`` lifts ``rule`` on this request (its date aside)."""
    request = context.request
    group, kind = request.kind.group, request.kind.kind
    return (
        rule in exception.rules
        and request.namespace in exception.namespaces
        and (
            not exception.kinds
            or bool({(group, kind), ("*", kind), (group, "*")} & exception.kinds)
        )
        and (not exception.names or request.name in exception.names)
        and (not exception.clusters or context.cluster in exception.clusters)
        and (not exception.writers or context.identity.writer in exception.writers)
        and object_selected(exception.object_selector, request)
    )

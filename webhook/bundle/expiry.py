"""How long each exception of a bundle has left, for ``fedgate check`` (and ``plan``): in force,
expiring soon (a warning ahead of the day it lifts nothing), or expired (remove the file)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Literal

from webhook.base.errors import Finding
from webhook.bundle.exceptions import EXCEPTIONS_DIRECTORY, load_exceptions
from webhook.bundle.model import Bundle, PolicyException
from webhook.bundle.source import BundleSource

EXPIRY_WARNING_DAYS = 14
"""``fedgate check --expiry-warning``: days before ``expires`` that check starts warning."""
Standing = Literal["in force", "expiring", "expired"]


@dataclass(frozen=True)
class ExceptionDate:
    """One exception on the bundle's day: its standing and the days it has left."""

    exception: PolicyException
    status: Standing
    days_left: int

    def render(self) -> str:
        return f"{self.exception.source}: {self.message()}"

    def finding(self) -> Finding:
        """The message as a finding at the exception's file and line."""
        file, _, line = self.exception.source.rpartition(":")
        return Finding(file, int(line) if line.isdigit() else 0, "", self.message())

    def message(self) -> str:
        e = self.exception
        rules = ", ".join(sorted(e.rules))
        where = ", ".join(sorted(e.namespaces))
        if self.status == "expired":
            return (
                f"exception {e.name} expired on {e.expires.isoformat()}: it lifts "
                f"nothing ({rules} in {where}); remove the file (owner {e.owner})"
            )
        left = "today is its last day" if self.days_left == 1 else f"{self.days_left} days left"
        return (
            f"exception {e.name} expires on {e.expires.isoformat()} ({left}): "
            f"{rules} in {where} is enforced from that day; owner {e.owner}"
        )

    def as_json(self) -> dict[str, object]:
        e = self.exception
        return {
            "name": e.name,
            "rules": sorted(e.rules),
            "namespaces": sorted(e.namespaces),
            "owner": e.owner,
            "reason": e.reason,
            "expires": e.expires.isoformat(),
            "daysLeft": self.days_left,
            "status": self.status,
            "source": e.source,
        }


def exception_dates(bundle: Bundle, warn_days: int) -> list[ExceptionDate]:
    """Every exception of ``bundle`` on ``bundle.today`` (none without a day), by name."""
    if bundle.today is None:
        return []
    return dates_of(bundle.exceptions, bundle.today, warn_days)


def source_dates(source: BundleSource, today: date, warn_days: int) -> list[ExceptionDate]:
    """The dates of the exceptions of a bundle's files that did not load (an app that does not
    compile once one expired): read for their dates alone, whatever else is wrong."""
    files = {n: t for n, t in source.files.items() if n.startswith(f"{EXCEPTIONS_DIRECTORY}/")}
    exceptions, _ = load_exceptions(files, {n: source.display(n) for n in files}, None)
    return dates_of(exceptions, today, warn_days)


def dates_of(
    exceptions: Iterable[PolicyException], today: date, warn_days: int
) -> list[ExceptionDate]:
    found = []
    for exception in exceptions:
        left = exception.days_left(today)
        status: Standing = (
            "expired" if left == 0 else "expiring" if left <= warn_days else "in force"
        )
        found.append(ExceptionDate(exception, status, left))
    return found

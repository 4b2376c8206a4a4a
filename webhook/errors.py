"""The one small error hierarchy of fedgate, and the located finding every error is made of.

Each shell maps these in exactly one place: the CLI to exit codes, the webhook to HTTP answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in a user's file: where it is, which field, what is wrong and how to fix it.

    ``line`` is 1-based; 0 means the whole file. ``path`` is a dotted field path
    (``spec.placement.weights.cluster-c``); empty for the document itself.
    """

    file: str
    line: int
    path: str
    message: str

    def render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class FedgateError(Exception):
    """Base of every error fedgate raises on purpose (anything else is a bug)."""


class FindingsError(FedgateError):
    """An error made of located findings, all of them reported at once."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.findings: tuple[Finding, ...] = tuple(sorted(set(findings)))
        super().__init__("\n".join(f.render() for f in self.findings))


class SpecError(FindingsError):
    """One or more app specs are invalid; nothing was written."""


class BundleError(FindingsError):
    """The policy bundle is invalid; it is never loaded half-way."""


class RequestError(FedgateError):
    """An admission request that cannot be reviewed at all (not a bad object: a bad request)."""


class UsageError(FedgateError):
    """A command was called wrongly (a bad option value the parser could not see); exit 2."""

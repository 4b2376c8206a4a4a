"""The one small error hierarchy of fedgate, and the located finding every error is made of.

Each shell maps these in exactly one place: the CLI to exit codes, the webhook to HTTP answers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in a user's file: where it is, which field, what is wrong and how to fix it.

    ``line`` is 1-based; 0 means the whole file. ``path`` is a dotted field path
    (``spec.placement.weights.cluster-c``); empty for the document itself. ``rule`` is the id of
    the policy rule that objects (empty for a plain format error), shown as ``[rule]`` before
    the message and kept apart in JSON. ``column`` (1-based, 0: not known) is given where the
    position inside the line matters: YAML syntax and encoding errors.
    """

    file: str
    line: int
    path: str
    message: str
    rule: str = ""
    column: int = 0

    def render(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}" + (f":{self.column}" if self.column else "")
        message = f"[{self.rule}] {self.message}" if self.rule else self.message
        return f"{where}: {self.path}: {message}" if self.path else f"{where}: {message}"

    def as_json(self) -> dict[str, str | int | None]:
        """The finding for ``--output json``: every part in its own field."""
        return {
            "file": self.file,
            "line": self.line or None,
            "column": self.column or None,
            "path": self.path,
            "rule": self.rule or None,
            "message": self.message,
        }


def describe_os_error(exc: OSError) -> str:
    """Why a file could not be used, as a person says it ("no such file or directory"), without
    Python's ``[Errno 2]`` and repeated file name."""
    if isinstance(exc, FileNotFoundError) and isinstance(exc.filename, str):
        try:  # a symbolic link whose target went away: say where it points
            return f"a symbolic link to {os.readlink(exc.filename)}, which does not exist"
        except (OSError, ValueError):
            pass
    reason = exc.strerror or str(exc) or type(exc).__name__
    return reason[:1].lower() + reason[1:]


def not_utf8(file: str, data: bytes, exc: UnicodeDecodeError) -> Finding:
    """The finding for bytes that are not UTF-8: the line and column of the first bad byte."""
    start = min(exc.start, len(data))
    line_start = data.rfind(b"\n", 0, start) + 1
    bad = data[start : start + 1].hex() or "end"
    return Finding(
        file,
        data.count(b"\n", 0, start) + 1,
        "",
        f"not UTF-8 text (byte 0x{bad} is not valid here); save the file as UTF-8",
        column=len(data[line_start:start].decode("utf-8", "replace")) + 1,
    )


def _reading_order(finding: Finding) -> tuple[str, int, str, str, str, int]:
    """By file, line and field, then as the rendered text reads ([rule] before the message)."""
    f = finding
    return (f.file, f.line, f.path, f.rule, f.message, f.column)


class FedgateError(Exception):
    """Base of every error fedgate raises on purpose (anything else is a bug)."""


class FindingsError(FedgateError):
    """An error made of located findings, all of them reported at once."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.findings: tuple[Finding, ...] = tuple(sorted(set(findings), key=_reading_order))
        super().__init__("\n".join(f.render() for f in self.findings))


class SpecError(FindingsError):
    """One or more app specs are invalid; nothing was written."""


class BundleError(FindingsError):
    """The policy bundle is invalid; it is never loaded half-way."""


class RequestError(FedgateError):
    """An admission request that cannot be reviewed at all (not a bad object: a bad request)."""


class UsageError(FedgateError):
    """A command was called wrongly (a bad option value the parser could not see); exit 2."""

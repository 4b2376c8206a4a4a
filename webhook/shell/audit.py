"""The audit log: one JSON line per decision on standard output, never an object body.

The sink never affects a decision. It writes without blocking to its own open file description
of standard output (reopened through ``/proc/self/fd``, so the flag does not change the
descriptor the master and the other workers share; where that cannot be done, the shared one is
made non-blocking). A line that cannot be written now waits in a small buffer and goes out
before the next one; past ``PENDING_BYTES`` lines are dropped. A full disk, a closed pipe or a
FIFO nobody reads therefore cost a counter, never an answer nor a hang: lines dropped and
write errors are counted (``fedgate_audit_lines_dropped_total{reason}``), and after
``FAILING_AFTER`` consecutive lines lost ``/readyz`` reports the sink as failing until a line
goes through again.

Every field is cut to a bound so that a line stays under PIPE_BUF (4 KiB) and the kernel writes
it whole or not at all on a pipe, never interleaved with another worker's.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from webhook.engine.decision import Decision
from webhook.engine.request import AdmissionRequest

PENDING_BYTES = 256 * 1024
"""Audit lines held while the sink cannot take them (a slow log collector), bytes."""
FAILING_AFTER = 20
"""Consecutive lines lost before /readyz reports the audit sink as failing."""
FIELD_CHARS = 253
"""Longest value of a text field in the line (a DNS subdomain, Kubernetes' longest name)."""
LIST_ITEMS = 16
"""Most items of a list field in the line (groups, clusters, rules)."""


def _cut(text: str) -> str:
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 3] + "..."


def _cut_list(items: Any) -> list[str]:
    if not items:  # most lines: no group, no rule, no exception (and no copy made for them)
        return []
    if len(items) <= LIST_ITEMS and max(map(len, items)) <= FIELD_CHARS:
        return list(items)  # strings within their bounds (nearly every line): nothing to cut
    kept = [_cut(str(item)) for item in list(items)[:LIST_ITEMS]]
    return [*kept, "..."] if len(items) > LIST_ITEMS else kept


def audit_record(admission: AdmissionRequest, decision: Decision, seconds: float) -> dict[str, Any]:
    """Who, what, where (the clusters the review found a propagation policy targets), the
    verdict and why, and how long it took; every field within its bound (the text fields cut
    one by one only when one of them is over it, as good as never: one ``max`` instead of six
    calls)."""
    violations, exceptions, kind, user = (
        decision.violations,
        decision.exceptions,
        admission.kind,
        admission.user,
    )
    uid, username, sub_resource = admission.uid, user.username, admission.sub_resource
    namespace, name = admission.namespace, admission.name
    kind_name = (
        f"{kind.group}/{kind.version}/{kind.kind}" if kind.group else f"{kind.version}/{kind.kind}"
    )
    if (
        max(len(uid), len(username), len(kind_name), len(sub_resource), len(namespace), len(name))
        > FIELD_CHARS
    ):
        uid, username, kind_name = _cut(uid), _cut(username), _cut(kind_name)
        sub_resource, namespace, name = _cut(sub_resource), _cut(namespace), _cut(name)
    record = {
        "uid": uid,
        "user": username,
        "groups": _cut_list(user.groups),
        "operation": admission.operation,
        "kind": kind_name,
        "subResource": sub_resource or None,
        "namespace": namespace or None,
        "name": name or None,
        "clusters": _cut_list(decision.targets) if decision.targets is not None else None,
        "dryRun": admission.dry_run,
        "allowed": decision.allowed,
        "rules": _cut_list(sorted({v.rule for v in violations})) if violations else [],
        "denied_by": _cut_list(sorted({v.rule for v in decision.denials}))
        if not decision.allowed
        else [],
        "exceptions": _cut_list(sorted({f"{u.exception}/{u.rule}" for u in exceptions}))
        if exceptions
        else [],
        "latency_ms": round(seconds * 1000, 3),
    }
    if violations:
        record.update(_staged(decision))
    return record


def _staged(decision: Decision) -> dict[str, list[str]]:
    """``staged``: each staged rule that objected, with what it does once enforced
    (``image-tag: deny``), so a rollout's audit log shows what enforcing would refuse; absent
    when none did."""
    staged = sorted({f"{v.rule}: {v.enforced}" for v in decision.violations if v.enforced})
    return {"staged": _cut_list(staged)} if staged else {}


OVERTIME_RULE = "review-time-budget"
"""The ``denied_by`` of a request denied because its review did not finish in time."""


_WHO_AND_WHAT = ("user", "groups", "operation", "kind", "subResource", "namespace", "name")


def overtime_record(uid: str, admission: AdmissionRequest | None, seconds: float) -> dict[str, Any]:
    """The line of a request denied past its time budget, with ``audit_record``'s fields: what
    is known of the request (nothing but its uid when it was still queued) and the verdict."""
    known: dict[str, Any] = dict.fromkeys(_WHO_AND_WHAT)
    dry_run = None
    if admission is not None:
        full = audit_record(admission, Decision(allowed=False), seconds)
        known = {key: full[key] for key in _WHO_AND_WHAT}
        dry_run = admission.dry_run
    return {
        "uid": _cut(uid),
        **known,
        "clusters": None,
        "dryRun": dry_run,
        "allowed": False,
        "rules": [OVERTIME_RULE],
        "denied_by": [OVERTIME_RULE],
        "exceptions": [],
        "latency_ms": round(seconds * 1000, 3),
    }


def nonblocking_descriptor(descriptor: int) -> int:
    """A non-blocking descriptor writing where ``descriptor`` writes: a new open file
    description when ``/proc`` can give one (pipes, FIFOs, files, terminals), else
    ``descriptor`` itself made non-blocking (a socket)."""
    try:
        return os.open(
            f"/proc/self/fd/{descriptor}",
            os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC,
        )
    except OSError:
        os.set_blocking(descriptor, False)
        return descriptor


def append_if_regular_file(descriptor: int) -> None:
    """Make ``descriptor`` append when it writes to a regular file (``fedgate serve > log
    2>&1``). Without it every process writing through the shared descriptor (the master's and
    workers' logs) wrote at the shared offset, over the audit lines appended meanwhile: 32
    reviews left 30 lines and a torn one. A pipe or a terminal has no offset: left alone."""
    try:
        if stat.S_ISREG(os.fstat(descriptor).st_mode):
            flags = fcntl.fcntl(descriptor, fcntl.F_GETFL)
            fcntl.fcntl(descriptor, fcntl.F_SETFL, flags | os.O_APPEND)
    except OSError:
        pass  # closed, or not ours to change: the audit sink appends through its own anyway


class AuditSink:
    """Writes audit lines without ever blocking or raising; see the module docstring."""

    def __init__(self, descriptor: int, on_lost: Callable[[str], None] | None = None) -> None:
        self._descriptor = descriptor
        self._on_lost = on_lost or (lambda reason: None)
        self._pending: deque[bytes] = deque()
        self._pending_bytes = 0
        self._lost_in_a_row = 0
        self.last_error = ""
        self._lock = threading.Lock()

    @classmethod
    def standard_output(cls, on_lost: Callable[[str], None] | None = None) -> AuditSink:
        """A sink on this process's standard output, through its own non-blocking descriptor
        (closed with the sink)."""
        stdout = sys.stdout.fileno()
        descriptor = nonblocking_descriptor(stdout)
        sink = cls(descriptor, on_lost)
        if descriptor != stdout:
            weakref.finalize(sink, os.close, descriptor)
        return sink

    @property
    def failing(self) -> bool:
        """Whether the last ``FAILING_AFTER`` lines or more were all lost."""
        return self._lost_in_a_row >= FAILING_AFTER

    def status(self) -> dict[str, Any]:
        """For /readyz: ``ok`` or ``failing`` with the last error, and what is held."""
        return {
            "status": "failing" if self.failing else "ok",
            "linesLostInARow": self._lost_in_a_row,
            "pendingBytes": self._pending_bytes,
            "lastError": self.last_error or None,
        }

    def write(self, record: dict[str, Any]) -> None:
        try:
            line = orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
        except TypeError as exc:  # never: the record is plain data; still not an answer's business
            self._lost("error", f"not JSON: {exc}")
            return
        with self._lock:
            if self._pending_bytes + len(line) > PENDING_BYTES:
                self._lost("full", "the sink takes no lines and the buffer is full")
            else:
                self._pending.append(line)
                self._pending_bytes += len(line)
            self._flush()

    def _flush(self) -> None:
        while self._pending:
            line = self._pending[0]
            try:
                written = os.write(self._descriptor, line)
            except BlockingIOError:
                return  # the reader is slow: keep the lines for the next write
            except OSError as exc:  # a full disk, a closed pipe: this line is lost
                self._pending.popleft()
                self._pending_bytes -= len(line)
                reason = "closed" if exc.errno in (errno.EPIPE, errno.EBADF) else "error"
                self._lost(reason, f"{type(exc).__name__}: {exc}")
                continue
            if written < len(line):
                self._pending[0] = line[written:]
                self._pending_bytes -= written
                return
            self._pending.popleft()
            self._pending_bytes -= len(line)
            self._lost_in_a_row = 0

    def _lost(self, reason: str, error: str) -> None:
        self._lost_in_a_row += 1
        self.last_error = error
        with contextlib.suppress(Exception):  # a counter must not turn a lost line into an error
            self._on_lost(reason)

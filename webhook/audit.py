"""The audit log: one JSON line per decision on standard output, never an object body.

Written straight to the file descriptor (not through ``logging``, nor a buffered stream: a
LogRecord, a lock and a flush per request cost more than the line itself): one ``os.write``
per line, which the kernel does not interleave with another thread's for lines under
PIPE_BUF (4 KiB) on the container's log pipe, and which is on its way before the answer is.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from webhook.engine.decision import Decision
from webhook.engine.request import AdmissionRequest


def audit_record(admission: AdmissionRequest, decision: Decision, seconds: float) -> dict[str, Any]:
    """Who, what, where (the clusters the review found a propagation policy targets), the
    verdict and why, and how long it took."""
    return {
        "uid": admission.uid,
        "user": admission.user.username,
        "groups": list(admission.user.groups),
        "operation": admission.operation,
        "kind": f"{admission.kind.api_version}/{admission.kind.kind}",
        "subResource": admission.sub_resource or None,
        "namespace": admission.namespace or None,
        "name": admission.name or None,
        "clusters": list(decision.targets) if decision.targets is not None else None,
        "dryRun": admission.dry_run,
        "allowed": decision.allowed,
        "rules": sorted({v.rule for v in decision.violations}) if decision.violations else [],
        "denied_by": sorted({v.rule for v in decision.denials}) if not decision.allowed else [],
        "latency_ms": round(seconds * 1000, 3),
    }


class AuditSink:
    def __init__(self, descriptor: int) -> None:
        self._descriptor = descriptor

    def write(self, record: dict[str, Any]) -> None:
        line = orjson.dumps(record) + b"\n"
        while line:  # a short write only happens on a full pipe: finish the line
            line = line[os.write(self._descriptor, line) :]

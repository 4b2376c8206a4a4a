"""``serve --audit-seconds``: the background audit, what the live index holds judged against the
current bundle every so often (``webhook/scan.py``), as the metric
``fedgate_audit_violations{rule,namespace}``. A shell.

One worker audits: each tries, every round, to take an exclusive lock on a file beside the
metrics (``flock``, non-blocking); the first keeps it for its life, the others skip their
rounds, and when the auditor exits the kernel releases the lock and the next round of another
worker takes over. A round reviews every held object once (tenths of a millisecond each, on a
thread of its own, while the worker's review threads keep answering), so the rounds are as
rare as the operator sets, never under ``MIN_SECONDS``.

A label set that had violations and has none now is set to 0, not left at its last value.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, Protocol

from webhook.bundle.model import Bundle
from webhook.scan import Scan, scan

LOG = logging.getLogger("fedgate.audit")

MIN_SECONDS = 10.0
"""The shortest period between two rounds ``serve`` accepts."""
LOCK_NAME = "background-audit.lock"


class Held(Protocol):
    """The live index as the audit reads it (``watch.LiveIndex``)."""

    def ready(self) -> bool: ...

    def held(self) -> list[dict[str, Any]]: ...


class AuditMetrics(Protocol):
    def audit_observe(self, violations: dict[tuple[str, str], int], objects: int) -> None: ...


def violations_by_rule_and_namespace(result: Scan) -> dict[tuple[str, str], int]:
    """(rule, namespace) -> findings, cluster-scoped objects under namespace ``""``."""
    return dict(Counter((f.violation.rule, f.ref.namespace) for f in result.findings))


def _where(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata") or {}
    name = "/".join(p for p in (metadata.get("namespace"), metadata.get("name")) if p)
    return f"{obj.get('kind')} {name}"


class BackgroundAudit:
    def __init__(
        self,
        live: Held,
        bundle: Callable[[], Bundle],
        metrics: AuditMetrics,
        seconds: float,
        lock_dir: Path,
    ) -> None:
        self.live, self.bundle, self.metrics = live, bundle, metrics
        self.seconds, self.lock_path = seconds, lock_dir / LOCK_NAME
        self.stopping = threading.Event()
        self._lock: IO[bytes] | None = None
        self.last: Scan | None = None

    def auditor(self) -> bool:
        """Whether this worker is the one that audits (taking the lock if it is free)."""
        if self._lock is not None:
            return True
        handle = open(self.lock_path, "ab")  # noqa: SIM115 - held for the worker's life
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._lock = handle
        return True

    def round(self) -> Scan | None:
        """One audit of what is held, when the index is ready; None when it is not."""
        if not self.live.ready():
            return None
        objects: Iterable[dict[str, Any]] = self.live.held()
        result = scan(((_where(o), o) for o in objects), self.bundle())
        self.metrics.audit_observe(violations_by_rule_and_namespace(result), result.objects)
        LOG.info(
            "background audit: %d objects, %d would be denied, %d findings",
            result.objects,
            len(result.denied),
            len(result.findings),
        )
        self.last = result
        return result

    def _run(self) -> None:
        while not self.stopping.wait(self.seconds):
            try:
                if self.auditor():
                    self.round()
            except Exception:  # a broken round is logged; the next one tries again
                LOG.exception("background audit failed")

    def start(self) -> None:
        threading.Thread(target=self._run, name="background-audit", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def lock_dir() -> Path:
    """Where the workers' lock lives: beside the metrics every worker shares."""
    return Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or "/tmp")

"""Prometheus metrics of the webhook, per app, aggregated across gunicorn workers.

With ``PROMETHEUS_MULTIPROC_DIR`` set (``fedgate serve`` sets it), every worker writes its
samples there and ``/metrics`` on any worker reports the sum over all of them.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from webhook.engine.decision import Decision
from webhook.engine.request import AdmissionRequest

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
OTHER_KIND = "other"
"""The ``kind`` label of requests for kinds fedgate does not know: labels come from requests,
and every distinct label value is a series each worker keeps (and Prometheus stores) forever."""


class Metrics:
    def __init__(self, kinds: frozenset[str] = frozenset()) -> None:
        self.kinds = kinds
        """The kind names that get their own label value; any other is ``other``."""
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "fedgate_admission_requests",
            "Admission requests reviewed, by result",
            ["kind", "operation", "result"],
            registry=self.registry,
        )
        self.violations = Counter(
            "fedgate_rule_violations",
            "Violations by rule and action",
            ["rule", "action"],
            registry=self.registry,
        )
        self.bad_requests = Counter(
            "fedgate_bad_requests",
            "Requests that could not be reviewed, by reason",
            ["reason"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "fedgate_admission_duration_seconds",
            "Time to answer one AdmissionReview",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.bundle_load_seconds = Gauge(
            "fedgate_bundle_load_seconds",
            "Time the worker took to load and compile the bundle",
            registry=self.registry,
            multiprocess_mode="max",
        )
        self.audit_lost = Counter(
            "fedgate_audit_lines_dropped",
            "Audit lines lost: the sink was full, closed, or failed to write (decisions go on)",
            ["reason"],
            registry=self.registry,
        )
        self._children: dict[tuple[Any, ...], Any] = {}
        """Labelled children of the per-request metrics, by label values (the request
        counter's key is its three labels; the others' start with their metric)."""
        self.engine_faults = Counter(
            "fedgate_engine_faults",
            "Shortcuts inside the review that raised and were stepped around (the answer is the "
            "full review's): a broken fast path, to be fixed",
            ["where"],
            registry=self.registry,
        )
        self.exception_uses = Counter(
            "fedgate_exception_uses",
            "Violations an exception (policies/exceptions/) lifted, by exception and rule",
            ["exception", "rule"],
            registry=self.registry,
        )
        self.bundle_load_errors = Counter(
            "fedgate_bundle_load_errors",
            "Bundle reloads refused because the bundle is broken",
            registry=self.registry,
        )
        self.tls_load_errors = Counter(
            "fedgate_tls_load_errors",
            "TLS certificate reloads refused because the certificate and key do not load",
            registry=self.registry,
        )
        self.worker_memory_replacements = Counter(
            "fedgate_worker_memory_replacements",
            "Workers replaced because their own memory passed --worker-memory-mib",
            registry=self.registry,
        )

        self.index_objects = Gauge(
            "fedgate_index_objects",
            "Objects the live index holds, by kind (each worker watches on its own)",
            ["kind"],
            registry=self.registry,
            multiprocess_mode="max",
        )
        self.index_watch_lag = Gauge(
            "fedgate_index_watch_lag_seconds",
            "Seconds since the live index's watch of a kind last heard from the API server (an "
            "event, a bookmark, a list or a new watch; one ends every minute), worst worker",
            ["kind"],
            registry=self.registry,
            multiprocess_mode="max",
        )
        self.index_relists = Counter(
            "fedgate_index_relists",
            "Lists made again after the watch's resourceVersion expired (410 Gone), by kind",
            ["kind"],
            registry=self.registry,
        )
        self.audit_violations = Gauge(
            "fedgate_audit_violations",
            "Findings of the last background audit of the live objects, by rule and namespace",
            ["rule", "namespace"],
            registry=self.registry,
            multiprocess_mode="mostrecent",
        )
        self.audit_objects = Gauge(
            "fedgate_audit_objects",
            "Objects the last background audit judged",
            registry=self.registry,
            multiprocess_mode="mostrecent",
        )
        self.audit_runs = Counter(
            "fedgate_audit_runs",
            "Background audits run",
            registry=self.registry,
        )
        self._audited: set[tuple[str, str]] = set()
        self.index_waiting = Gauge(
            "fedgate_index_waiting",
            "1 while a worker's live index waits for its first list of some kind (not ready)",
            registry=self.registry,
            multiprocess_mode="max",
        )
        self.index_stale = Gauge(
            "fedgate_index_stale",
            "1 while a worker's live index is stale: cross-object rules deny (fail closed)",
            registry=self.registry,
            multiprocess_mode="max",
        )

    def audit_observe(self, violations: dict[tuple[str, str], int], objects: int) -> None:
        """One background audit's result; a label set gone since the last is set to 0."""
        for gone in self._audited - set(violations):
            self.audit_violations.labels(*gone).set(0)
        for (rule, namespace), count in violations.items():
            self.audit_violations.labels(rule, namespace).set(count)
        self._audited = set(violations)
        self.audit_objects.set(objects)
        self.audit_runs.inc()

    def index_observe(self, kind: str, objects: int, lag: float | None) -> None:
        self.index_objects.labels(kind).set(objects)
        if lag is not None:
            self.index_watch_lag.labels(kind).set(lag)

    def index_relisted(self, kind: str) -> None:
        self.index_relists.labels(kind).inc()

    def index_state(self, ready: bool, stale: bool) -> None:
        self.index_waiting.set(0 if ready else 1)
        self.index_stale.set(1 if stale else 0)

    def observe(self, request: AdmissionRequest, decision: Decision, seconds: float) -> None:
        result = "allowed" if decision.allowed else "denied"
        kind = request.kind.kind if request.kind.kind in self.kinds else OTHER_KIND
        key = (kind, request.operation, result)
        counter = self._children.get(key)
        if counter is None:  # labels() validates and locks on every call: once per key
            counter = self._children[key] = self.requests.labels(*key)
        counter.inc()
        for violation in decision.violations:
            self._child(self.violations, violation.rule, violation.action).inc()
        for use in decision.exceptions:
            self._child(self.exception_uses, use.exception, use.rule).inc()
        for fault in decision.faults:
            self._child(self.engine_faults, fault.split(":", 1)[0]).inc()
        self.latency.observe(seconds)

    def _child(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, looked up once per label set (rule ids, actions,
        exception names and fault places come from the bundle and the engine: a bounded set)."""
        key = (metric, *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def exposition(self) -> bytes:
        """The Prometheus text format: every worker's samples when multiprocess, else ours."""
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return generate_latest(registry)
        return generate_latest(self.registry)

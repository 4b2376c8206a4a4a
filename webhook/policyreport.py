"""A :class:`~webhook.scan.Scan` as ``wgpolicyk8s.io/v1alpha2`` reports, the format Kyverno
writes and Policy Reporter reads (kubernetes-sigs/wg-policy-prototypes, ``policy-report``).

One ``PolicyReport`` per namespace with objects in it, one ``ClusterPolicyReport`` for the
cluster-scoped objects, each named ``fedgate`` (so a new audit replaces the last one when
applied). A result per finding: ``policy`` and ``rule`` are the rule id (a fedgate rule is one
policy with one rule, as a Gatekeeper constraint is), ``result`` ``fail`` / ``warn`` /
``error`` (:attr:`Finding.result`), the object in ``resources``, and fedgate's own data (the
JSON pointer, the owner, the writer judged, the action, the tenant) in ``properties``. An
object no rule objects to gets one ``pass`` result (policy ``fedgate``, rule ``bundle``), so a
report counts what was checked, not only what failed. An objection an exception lifts is a
``skip`` result naming the exception (as Kyverno reports its PolicyExceptions). Pure: the time
is given.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from webhook.scan import Finding, Lifted, ObjectRef, Scan

API_VERSION = "wgpolicyk8s.io/v1alpha2"
SOURCE = "fedgate"
REPORT_NAME = "fedgate"
RESULTS = ("pass", "fail", "warn", "error", "skip")


def _result(finding: Finding, seconds: int) -> dict[str, Any]:
    violation = finding.violation
    properties = {
        "action": violation.action,
        "tenant": finding.tenant,
        **{k: v for k, v in (("pointer", violation.pointer), ("owner", violation.owner)) if v},
    }
    if violation.writer:
        properties["writer"] = violation.writer
    if violation.enforced:  # a staged rule: what it does once enforced
        properties["enforced"] = violation.enforced
    return {
        "source": SOURCE,
        "policy": violation.rule,
        "rule": violation.rule,
        "result": finding.result,
        "message": violation.message,
        "scored": True,
        "resources": [finding.ref.as_json()],
        "properties": properties,
        "timestamp": {"seconds": seconds, "nanos": 0},
    }


def _passed(ref: ObjectRef, seconds: int) -> dict[str, Any]:
    return {
        "source": SOURCE,
        "policy": SOURCE,
        "rule": "bundle",
        "result": "pass",
        "message": "no rule of the bundle objects to this object",
        "scored": True,
        "resources": [ref.as_json()],
        "timestamp": {"seconds": seconds, "nanos": 0},
    }


def _skipped(lift: Lifted, seconds: int) -> dict[str, Any]:
    """An objection an exception lifts: ``skip``, as Kyverno reports a PolicyException's."""
    use = lift.use
    return {
        "source": SOURCE,
        "policy": use.rule,
        "rule": use.rule,
        "result": "skip",
        "message": f"lifted by exception {use.exception} until {use.expires}: {use.message}",
        "scored": False,
        "resources": [lift.ref.as_json()],
        "properties": {
            "exception": use.exception,
            "expires": use.expires,
            "owner": use.owner,
            "tenant": lift.tenant,
        },
        "timestamp": {"seconds": seconds, "nanos": 0},
    }


def policy_reports(scan: Scan, *, seconds: int) -> list[dict[str, Any]]:
    """The reports of ``scan``, cluster-scoped first, then by namespace; ``seconds`` is the
    audit's time (Unix seconds), stamped on every result."""
    results: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for finding in scan.findings:
        results[finding.ref.namespace].append(_result(finding, seconds))
    for ref in scan.clean:
        results[ref.namespace].append(_passed(ref, seconds))
    for lift in scan.lifted:
        results[lift.ref.namespace].append(_skipped(lift, seconds))
    reports = []
    for namespace in sorted(results):
        found = results[namespace]
        metadata: dict[str, Any] = {
            "name": REPORT_NAME,
            "labels": {"app.kubernetes.io/managed-by": "fedgate"},
        }
        if namespace:
            metadata["namespace"] = namespace
        reports.append(
            {
                "apiVersion": API_VERSION,
                "kind": "PolicyReport" if namespace else "ClusterPolicyReport",
                "metadata": metadata,
                "summary": {r: sum(x["result"] == r for x in found) for r in RESULTS},
                "results": found,
            }
        )
    return reports

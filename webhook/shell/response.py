"""Render a Decision as the AdmissionReview response the API server expects.

Pure: the uid is echoed; a denial carries ``status.code`` 403 and every violation in
``status.message``; warnings stay within the API server's limits (each at most 256 runes, all
together at most 4096, beyond which it drops them); audit rules and break-glass become
``auditAnnotations`` (the API server prefixes each key with the webhook's name).
"""

from __future__ import annotations

import re
from typing import Any

from webhook.engine.decision import Decision

API_VERSION = "admission.k8s.io/v1"
WARNING_RUNES = 256
WARNINGS_TOTAL_RUNES = 4096
_AUDIT_KEY = re.compile(r"[^A-Za-z0-9_.-]")


def review_response(uid: str, decision: Decision) -> dict[str, Any]:
    response: dict[str, Any] = {"uid": uid, "allowed": decision.allowed}
    if not decision.allowed:
        response["status"] = {
            "code": 403,
            "reason": "Forbidden",
            "status": "Failure",
            "message": decision.message(),
        }
    warnings = limit_warnings(decision.warnings)
    if warnings:
        response["warnings"] = warnings
    annotations = audit_annotations(decision)
    if annotations:
        response["auditAnnotations"] = annotations
    return {"apiVersion": API_VERSION, "kind": "AdmissionReview", "response": response}


def denial(uid: str, message: str, code: int = 403) -> dict[str, Any]:
    """A deny for a request that could not be reviewed (it carries a uid, so we can answer)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "AdmissionReview",
        "response": {
            "uid": uid,
            "allowed": False,
            "status": {
                "code": code,
                "reason": "Forbidden" if code == 403 else "BadRequest",
                "status": "Failure",
                "message": message,
            },
        },
    }


def limit_warnings(warnings: tuple[str, ...] | list[str]) -> list[str]:
    kept: list[str] = []
    total = 0
    for index, warning in enumerate(warnings):
        text = warning if len(warning) <= WARNING_RUNES else warning[: WARNING_RUNES - 3] + "..."
        if total + len(text) > WARNINGS_TOTAL_RUNES - 64:
            kept.append(f"... and {len(warnings) - index} more warnings (see the audit log)")
            break
        kept.append(text)
        total += len(text)
    return kept


def audit_annotations(decision: Decision) -> dict[str, str]:
    notes: dict[str, list[str]] = {}
    for key, value in decision.audit:
        notes.setdefault(_AUDIT_KEY.sub("-", key)[:63], []).append(value)
    return {key: "; ".join(values) for key, values in sorted(notes.items())}

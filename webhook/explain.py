"""Human renderings of a Decision (the CLI's text; the webhook renders the same Decision)."""

from __future__ import annotations

from webhook.engine.decision import Decision
from webhook.engine.request import AdmissionRequest


def headline(request: AdmissionRequest, decision: Decision) -> str:
    """``DENIED  UPDATE apps/v1 Deployment platform-demo/web by alice (team-a)`` style."""
    verdict = "ALLOWED" if decision.allowed else "DENIED"
    where = "/".join(p for p in (request.namespace, request.name) if p) or "(unnamed)"
    sub = f"/{request.sub_resource}" if request.sub_resource else ""
    dry = " (dry run)" if request.dry_run else ""
    user = request.user.username or "<anonymous>"
    return (
        f"{verdict:8}{request.operation} {request.kind.api_version} {request.kind.kind}{sub} "
        f"{where} by {user}{dry}"
    )


def explain(request: AdmissionRequest, decision: Decision) -> list[str]:
    """The headline, then every violation with its rule, pointer and owner, then warnings."""
    lines = [headline(request, decision)]
    for v in decision.violations:
        detail = "  ".join(p for p in (v.pointer, f"owner {v.owner}" if v.owner else "") if p)
        lines.append(
            f"  {v.action:5} {v.rule}"
            + (f"  {detail}" if detail else "")
            + (f"  [{v.status}]" if v.status == "error" else "")
            + (f"  [staged: {v.enforced} once enforced]" if v.enforced else "")
        )
        lines.append(f"        {v.message}")
    lines += [
        f"  note  {w}"
        for w in decision.warnings
        if not w.startswith(tuple(f"{v.rule}:" for v in decision.violations))
    ]
    lines += [f"  audit {key}: {value}" for key, value in decision.audit]
    return lines

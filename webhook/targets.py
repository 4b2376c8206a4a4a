"""Which clusters a request's object targets, where the object says (for the audit line)."""

from __future__ import annotations

from collections.abc import Mapping

from webhook.bundle.model import Bundle
from webhook.engine.request import AdmissionRequest
from webhook.engine.tenancy import candidates

PLACING_KINDS = ("PropagationPolicy", "ClusterPropagationPolicy")


def target_clusters(admission: AdmissionRequest, bundle: Bundle) -> list[str] | None:
    """The candidate clusters of a propagation policy; None for kinds that do not place."""
    obj = admission.current
    spec = obj.get("spec") if obj is not None else None
    if admission.kind.kind not in PLACING_KINDS or not isinstance(spec, Mapping):
        return None
    return list(candidates(spec, bundle))

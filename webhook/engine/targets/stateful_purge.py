"""``stateful-purge.targets``: a placement that fails a stateful template over (a StatefulSet, a
PersistentVolumeClaim, a pod template mounting a claim, or one Git labels stateful) purges
directly, whatever label the policy carries.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from webhook.base.values import is_mapping
from webhook.bundle.index import TreeIndex, key_of
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, cross_index, labels_of
from webhook.engine.decision import Violation
from webhook.engine.targets.selection import scan_templates, selection_key, show_key, spec_of
from webhook.engine.workloads import pod_spec
from webhook.karmada.detector import selectors

STATEFUL_LABEL = "fedgate.dev/stateful"


STATEFUL_KINDS = ("StatefulSet", "PersistentVolumeClaim")
DIRECT_PURGE = ("Directly", "Immediately")
"""The purgeModes that evict the old copy first: Immediately is Karmada v1.18's deprecated, still
served spelling of Directly (pkg/apis/policy/v1alpha1/propagation_types.go)."""


def stateful(obj: Mapping[str, Any]) -> bool:
    """Stateful by kind, by a pod template that mounts a claim, or by Git's label."""
    if obj.get("kind") in STATEFUL_KINDS:
        return True
    spec = pod_spec(obj)
    volumes = spec.get("volumes") if spec is not None else None
    if isinstance(volumes, list) and any(
        is_mapping(v) and v.get("persistentVolumeClaim") for v in volumes
    ):
        return True
    return str(labels_of(obj).get(STATEFUL_LABEL, "")).lower() == "true"


def _judged_by_cel(policy: Mapping[str, Any]) -> bool:
    """What the CEL rule stateful-purge sees in the policy itself: a stateful kind among its
    selectors, or the label."""
    return any(is_mapping(s) and s.get("kind") in STATEFUL_KINDS for s in selectors(policy)) or (
        labels_of(policy).get(STATEFUL_LABEL) == "true"
    )


FAILOVERS = ("application", "cluster")
"""The failover behaviours of a PropagationPolicy (Karmada v1.18 FailoverBehavior): each keeps
the old copy until the new one runs unless its purgeMode is Directly (Gracefully by default)."""


def check_stateful_targets(review: Review, rule: Rule) -> Iterator[Violation]:
    policy = review.request.object
    if not is_mapping(policy):
        return
    failover = spec_of(policy).get("failover")
    if not is_mapping(failover):
        return  # no failover (most policies): nothing fails over, and nothing else to read
    if _judged_by_cel(policy):
        return  # the CEL rule stateful-purge judges what the policy says of itself
    found: Sequence[str] | None = None  # the same for each behaviour: worked out once
    for behaviour in FAILOVERS:
        settings = failover.get(behaviour)
        if not is_mapping(settings):
            continue
        purge = settings.get("purgeMode", "Gracefully")
        if purge in DIRECT_PURGE:
            continue
        if found is None:
            found = stateful_found(cross_index(review), policy)
        if found:
            yield review.violation(
                rule,
                f"it fails over {', '.join(found)}, which is stateful, with purgeMode "
                f"{purge} (spec.failover.{behaviour}): two copies of a stateful app during a "
                "partition corrupt its data; use purgeMode Directly",
                pointer=f"/spec/failover/{behaviour}/purgeMode",
            )


def stateful_found(index: TreeIndex | None, policy: Mapping[str, Any]) -> tuple[str, ...]:
    """The stateful templates ``policy`` selects, as the message names them, sorted: worked
    out once per index for each scope and selectors (``selection_key``)."""
    if index is None:
        return ()
    key = selection_key(policy)
    if key is None:
        return stateful_scan(index, policy)
    return index.memo(
        "stateful-selected",
        key,
        lambda: stateful_scan(index, policy),
        lambda found: sum(STRING_BYTES + len(name) for name in found),
    )


STRING_BYTES = 64
"""What a memo is charged for a string it keeps, beside its characters."""


def stateful_scan(index: TreeIndex, policy: Mapping[str, Any]) -> tuple[str, ...]:
    """``stateful_found`` the slow way: every template selected, each looked at."""
    return tuple(sorted(show_key(key_of(t)) for t in scan_templates(index, policy) if stateful(t)))

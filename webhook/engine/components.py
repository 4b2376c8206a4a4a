"""What each Karmada component writes on the Karmada API server, from Karmada's code and RBAC.

Built-in rule: ``ownership.karmada-component``. A user of the ``karmada`` writer is one of
Karmada's components (``writers.yaml`` ``karmadaComponents`` says which); each writes, of the
kinds the webhook sees, what its job is (Karmada v1.18.2) and nothing else:

- the controller-manager: everything Karmada writes (the detector's claims on templates, the
  policies' finalizers, status aggregation, FederatedHPA scaling, bindings and Works from the
  binding, execution, work-status, graceful-eviction, namespace-sync and unified-auth
  controllers);
- the scheduler: a binding's clusters and its status (pkg/scheduler/scheduler.go
  patchScheduleResultFor(Cluster)ResourceBinding merge-patches ``spec.clusters`` and the
  ``policy.karmada.io/applied-placement`` annotation, nothing else; and the status subresource);
- the descheduler: a ResourceBinding's replicas per cluster, lowered (pkg/descheduler/
  descheduler.go updateScheduleResult sets ``spec.clusters[i].replicas`` to a smaller target,
  the clusters and their order kept, nothing else changed);
- a pull-mode cluster's agent (``system:karmada:agent:<cluster>``): Works and their status in
  its own execution namespace ``karmada-es-<cluster>`` (the Role karmadactl register grants);
- the webhook, karmada-search, the metrics adapter, the scheduler estimator and the aggregated
  API server: nothing the webhook sees (they read, or write kinds no rule matches).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from webhook.base.values import same_json
from webhook.bundle.rules import Rule
from webhook.engine.context import Review
from webhook.engine.decision import Violation
from webhook.engine.identity import KARMADA
from webhook.engine.ownfields import SERVER_METADATA
from webhook.engine.request import AdmissionRequest

WORK = "work.karmada.io"
AGENT_PREFIX = "system:karmada:agent:"
EXECUTION_NAMESPACE = "karmada-es-"
"""Karmada's execution namespace of a member cluster: ``karmada-es-<cluster>``."""


@dataclass(frozen=True)
class Scope:
    """One kind of write a component makes: kinds as (group, kind), ``*`` for any."""

    kinds: frozenset[tuple[str, str]]
    operations: frozenset[str]
    subresources: frozenset[str]
    own_execution_namespace: bool = False
    """Only in ``karmada-es-<cluster>`` of the agent's own cluster."""
    changes: Callable[[AdmissionRequest], bool] | None = None
    """What an UPDATE of the object itself (no subresource) may change; None: anything."""

    def admits(self, review: Review) -> bool:
        request = review.request
        kind = (request.kind.group, request.kind.kind)
        return (("*", "*") in self.kinds or kind in self.kinds) and (
            request.operation in self.operations
            and request.sub_resource in self.subresources
            and (not self.own_execution_namespace or _own_namespace(review))
            and (self.changes is None or request.sub_resource != "" or self.changes(request))
        )


APPLIED_PLACEMENT = "policy.karmada.io/applied-placement"
"""util.PolicyPlacementAnnotation: the placement the scheduler scheduled by."""


def _rest(obj: Mapping[str, Any] | None, *, clusters: bool) -> Any:
    """The object without the API server's metadata, the applied-placement annotation and
    (``clusters``) ``spec.clusters``: what a scheduling write leaves as it was."""
    if not isinstance(obj, Mapping):
        return obj
    rest = dict(obj)
    metadata = obj.get("metadata")
    if isinstance(metadata, Mapping):
        kept = {k: v for k, v in metadata.items() if k not in SERVER_METADATA}
        annotations = kept.get("annotations")
        if isinstance(annotations, Mapping):
            annotations = {k: v for k, v in annotations.items() if k != APPLIED_PLACEMENT}
            kept["annotations"] = annotations
        if kept.get("annotations") in ({}, None):
            kept.pop("annotations", None)
        rest["metadata"] = kept
    spec = obj.get("spec")
    if clusters and isinstance(spec, Mapping):
        rest["spec"] = {k: v for k, v in spec.items() if k != "clusters"}
    return rest


def _scheduled(request: AdmissionRequest) -> bool:
    """Only the binding's clusters and its applied-placement annotation changed."""
    old, new = request.old_object, request.object
    return same_json(_rest(old, clusters=True), _rest(new, clusters=True))


def _descheduled(request: AdmissionRequest) -> bool:
    """Only replicas of the clusters already scheduled lowered, nothing else changed."""
    old, new = request.old_object or {}, request.object or {}
    if not same_json(_rest(old, clusters=True), _rest(new, clusters=True)):
        return False
    before, after = _clusters(old), _clusters(new)
    if before is None or after is None or len(before) != len(after):
        return False
    return all(_lowered(b, a) for b, a in zip(before, after, strict=True))


def _clusters(obj: Mapping[str, Any]) -> list[Any] | None:
    spec = obj.get("spec")
    value = spec.get("clusters") if isinstance(spec, Mapping) else None
    return value if isinstance(value, list) else None


def _lowered(before: Any, after: Any) -> bool:
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return False
    was, now = before.get("replicas", 0), after.get("replicas", 0)
    return (
        same_json(
            {k: v for k, v in before.items() if k != "replicas"},
            {k: v for k, v in after.items() if k != "replicas"},
        )
        and all(isinstance(n, int) and not isinstance(n, bool) for n in (was, now))
        and 0 <= now <= was
    )


ANY_WRITE = Scope(
    frozenset({("*", "*")}),
    frozenset({"CREATE", "UPDATE", "DELETE"}),
    frozenset({"", "status", "scale", "ephemeralcontainers"}),
)
WRITES: dict[str, tuple[Scope, ...]] = {
    "controller-manager": (ANY_WRITE,),
    "scheduler": (
        Scope(
            frozenset({(WORK, "ResourceBinding"), (WORK, "ClusterResourceBinding")}),
            frozenset({"UPDATE"}),
            frozenset({"", "status"}),
            changes=_scheduled,
        ),
    ),
    "descheduler": (
        Scope(
            frozenset({(WORK, "ResourceBinding")}),
            frozenset({"UPDATE"}),
            frozenset({""}),
            changes=_descheduled,
        ),
    ),
    "agent": (
        Scope(
            frozenset({(WORK, "Work")}),
            frozenset({"CREATE", "UPDATE", "DELETE"}),
            frozenset({"", "status"}),
            own_execution_namespace=True,
        ),
    ),
    "webhook": (),
    "search": (),
    "metrics-adapter": (),
    "scheduler-estimator": (),
    "aggregated-apiserver": (),
}
"""What each component of ``webhook.bundle.model.KARMADA_COMPONENTS`` writes, of the kinds
the webhook sees."""

JOBS = {
    "controller-manager": "everything Karmada writes",
    "scheduler": "the clusters (and applied-placement annotation) and status of "
    "ResourceBindings and ClusterResourceBindings, nothing else of them",
    "descheduler": "lower replicas of the clusters a ResourceBinding already has, nothing else",
    "agent": "Works and their status in its own cluster's execution namespace",
    "webhook": "nothing fedgate judges (it admits, and reads)",
    "search": "nothing fedgate judges (it reads and caches)",
    "metrics-adapter": "nothing fedgate judges (it reads metrics)",
    "scheduler-estimator": "nothing fedgate judges (it reads its member cluster)",
    "aggregated-apiserver": "nothing fedgate judges (it serves clusters' proxies)",
}
"""One phrase per component for messages: what it writes."""


def agent_cluster(review: Review) -> str | None:
    """The cluster a pull-mode agent serves (``system:karmada:agent:<cluster>``), when the
    inventory has it."""
    username = review.identity.username
    if not username.startswith(AGENT_PREFIX):
        return None
    cluster = username[len(AGENT_PREFIX) :]
    return cluster if cluster in review.bundle.clusters else None


def _own_namespace(review: Review) -> bool:
    cluster = agent_cluster(review)
    return cluster is not None and review.request.namespace == EXECUTION_NAMESPACE + cluster


def may_write(review: Review) -> bool:
    """Whether this write is the job of the Karmada component writing it."""
    component = review.identity.component
    if component is None:
        return False
    return any(scope.admits(review) for scope in WRITES.get(component, ()))


def check_karmada_component(review: Review, rule: Rule) -> Iterator[Violation]:
    identity = review.identity
    if identity.writer != KARMADA or may_write(review):
        return
    request = review.request
    what = request.kind.kind + (f"/{request.sub_resource}" if request.sub_resource else "")
    where = f" in {request.namespace}" if request.namespace else ""
    component = identity.component
    if component is None:
        yield review.violation(
            rule,
            f"{identity.username} is a Karmada user (system:karmada:) that no component of "
            "writers.yaml karmadaComponents names, so it writes nothing: name it under its "
            "component if it is one",
            owner="karmada",
        )
        return
    job = JOBS.get(component, "nothing fedgate judges")
    yield review.violation(
        rule,
        f"Karmada's {component} writes {job}; {identity.describe()} may not "
        f"{request.operation.lower()} a {what}{where}",
        owner="karmada",
    )

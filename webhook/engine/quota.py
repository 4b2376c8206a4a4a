"""``tenancy.quota``: a tenant's quota (``tenants.yaml`` ``quota``), for what one write proves.

fedgate cannot see the whole live bill of a tenant, but one write can prove it goes over: a
workload whose requests times replicas alone exceed the tenant's whole quota (50 replicas of
64 CPU against 20), or Git's templates in the tenant's namespaces (the index of the synced
tree) plus the write. Every amount is a lower bound: a pod's requests as the scheduler counts
them (containers and sidecars, init containers, pod-level requests, overhead; a limit without
a request bills the limit, as Kubernetes defaults the request to it; per_pod) times
the pods it runs at once (replicas, a Job's parallelism; 1 where absent, for a Pod and a
DaemonSet), counted once however many clusters share it. A write that does not raise its own
bill (Karmada's fields, a status write, scaling down) is never denied.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from webhook.base.quantity import QuantityError, format_cpu, format_memory, parse_quantity
from webhook.base.values import is_mapping
from webhook.bundle.index import Key, TreeIndex, key_of
from webhook.bundle.model import Bundle, Tenant
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, cross_index, no_index_reason
from webhook.engine.decision import Violation
from webhook.engine.workloads import containers, pod_spec, replicas
from webhook.karmada.detector import Policies, policy_ref
from webhook.karmada.propagation import propagate

RESOURCES = ("cpu", "memory")
Bill = dict[str, Fraction]


MAX_QUANTITY = 64
"""The longest quantity parse_quantity reads: longer texts are refused, never cached."""


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Fraction | None:
    """A request's quantity, parsed once per text (at most 4,096 texts of 64 characters)."""
    try:
        return max(parse_quantity(text), Fraction(0))
    except QuantityError:
        return None


def _quantity(value: Any) -> Fraction | None:
    """A request's amount (0 when absent); None when the bill cannot read it: not a quantity,
    longer than MAX_QUANTITY (Kubernetes reads ``000…064`` as 64), an exponent past 30."""
    if value is None:
        return Fraction(0)
    if isinstance(value, str):
        return _parsed(value) if len(value) <= MAX_QUANTITY else None
    if type(value) is int or type(value) is float:
        return max(Fraction(value), Fraction(0))
    return None


def _requests(holder: Mapping[str, Any]) -> Mapping[str, Any]:
    """A container's requests (or, on a pod spec, its pod-level requests) as the pod will have
    them: a resource with a limit and no request requests its limit. Kubernetes defaults them so
    when it creates the pod (pkg/apis/core/v1/defaults.go: SetDefaults_Pod for containers and
    init containers, defaultPodRequests for pod-level resources), in the member, after the
    template passed here without them."""
    resources = holder.get("resources")
    if not is_mapping(resources):
        return {}
    requests, limits = resources.get("requests"), resources.get("limits")
    if not is_mapping(limits):
        return requests if is_mapping(requests) else {}
    return {**limits, **requests} if is_mapping(requests) else limits


def _amount(holder: Mapping[str, Any], resource: str) -> Fraction:
    return _quantity(_requests(holder).get(resource)) or Fraction(0)


def unreadable(spec: Mapping[str, Any]) -> Any:
    """The first request or overhead of a pod spec the bill cannot read, None if none: the
    rule denies it rather than bill it as nothing."""
    overhead = spec.get("overhead")
    values = [
        _requests(holder).get(resource)
        for holder in (*containers(spec), *containers(spec, "initContainers"), spec)
        for resource in RESOURCES
    ]
    values += [overhead.get(r) for r in RESOURCES] if is_mapping(overhead) else [overhead]
    return next((v for v in values if _quantity(v) is None), None)


def _sidecar(container: Mapping[str, Any]) -> bool:
    return container.get("restartPolicy") == "Always"


def per_pod(spec: Mapping[str, Any]) -> Bill:
    """What one pod requests, as the scheduler counts it (Kubernetes' resourcehelper
    PodRequests): its containers' sum plus its sidecars' (init containers with restartPolicy
    Always run alongside), or an init container's with the sidecars started before it if more;
    at least its pod-level request (``spec.resources``, Kubernetes 1.32+, which the API server
    holds to at least that sum); plus its RuntimeClass's ``spec.overhead``."""
    bill = {}
    overhead = spec.get("overhead")
    for resource in RESOURCES:
        running = sum((_amount(c, resource) for c in containers(spec)), Fraction(0))
        sidecars, init = Fraction(0), Fraction(0)
        for container in containers(spec, "initContainers"):
            amount = _amount(container, resource)
            if _sidecar(container):
                sidecars += amount
                init = max(init, sidecars)
            else:
                init = max(init, amount + sidecars)
        pod = max(running + sidecars, init, _amount(spec, resource))
        extra = _quantity(overhead.get(resource)) if is_mapping(overhead) else None
        bill[resource] = pod + (extra or Fraction(0))
    return bill


def requested(obj: Mapping[str, Any]) -> Bill:
    """What the workload requests at least, summed over the pods it runs at once."""
    spec = pod_spec(obj)
    if spec is None:
        return {}
    count = replicas(obj)
    return {r: amount * count for r, amount in per_pod(spec).items()}


@dataclass(frozen=True)
class Pods:
    """How many pods the members run of one template at once, at least, and why."""

    count: int
    why: str = ""
    """Empty when it is the template's own count; else how the members multiply it."""
    clusters: Mapping[str, int] = field(default_factory=dict)
    """The pods of each cluster, when the count is the sum of a Duplicated placement's (empty:
    counted once, wherever the members run them)."""


def member_pods(obj: Mapping[str, Any], bundle: Bundle, index: TreeIndex | None) -> Pods:
    """The pods of ``obj`` the members run at least: as Git's policies (the index) place it,
    with Karmada's own division, so a Duplicated app runs its replicas in every cluster it is
    placed on; and no fewer than Git's autoscalers of it keep (``floors``). A template no
    policy from Git places is counted once: its writer's own policy, which fedgate does not
    see, may divide it."""
    count = replicas(obj)
    metadata = obj.get("metadata")
    namespace = metadata.get("namespace") if is_mapping(metadata) else None
    if index is None or not isinstance(namespace, str) or not namespace:
        return Pods(count)
    federated, member = (
        bundle.memo("autoscaler-floors", key_of(obj), lambda: floors(obj, index))
        if count > 0
        else (0, 0)
    )  # floors reads the template's key alone: one scan of Git's autoscalers per template
    count = max(count, federated)
    policies = bundle.memo("git-policies", namespace, lambda: git_policies(index, namespace))
    claim = policies.claim(obj)
    if claim.policy is None or _divided(claim.policy):
        # a Divided placement's shares add up to its replicas; a member autoscaler keeps at
        # least its minimum in the one cluster, at least, that runs it
        if member > count:
            return Pods(member, f"its HorizontalPodAutoscaler from Git keeps {member} at least")
        return Pods(count)
    ref = policy_ref(claim.policy)
    return bundle.memo(
        "member-pods",
        (key_of(obj), count, member, ref),
        lambda: _placed(obj, policies, bundle, count, member),
    )


AUTOSCALERS = (
    ("autoscaling.karmada.io", "FederatedHPA"),
    ("autoscaling", "HorizontalPodAutoscaler"),
)


def floors(obj: Mapping[str, Any], index: TreeIndex) -> tuple[int, int]:
    """The fewest replicas Git's autoscalers of ``obj`` keep it at: a FederatedHPA's
    ``minReplicas`` over the whole template, and a member HorizontalPodAutoscaler's in each
    member that runs it (Kubernetes' reconcileAutoscaler, and Karmada's FederatedHPA controller
    after it, scale a target below ``minReplicas`` up to it at once; 1 when unset). (0, 0)
    when Git has no autoscaler of it."""
    group, kind, namespace, name = key_of(obj)
    found = {scaler: 0 for scaler in AUTOSCALERS}
    for scaler in index.templates(namespace):
        which = key_of(scaler)[:2]
        spec = scaler.get("spec")
        ref = spec.get("scaleTargetRef") if is_mapping(spec) else None
        if which not in found or not is_mapping(ref) or not is_mapping(spec):
            continue
        if (
            str(ref.get("apiVersion", "")).rpartition("/")[0],
            ref.get("kind"),
            ref.get("name"),
        ) != (
            group,
            kind,
            name,
        ):
            continue
        least = spec.get("minReplicas", 1)
        if type(least) is int and least > 0:
            found[which] = max(found[which], least)
    return found[AUTOSCALERS[0]], found[AUTOSCALERS[1]]


def git_policies(index: TreeIndex, namespace: str) -> Policies:
    """Git's policies that can claim a template of ``namespace``, indexed for the detector."""
    return Policies.of(index.policies(namespace))


def _divided(policy: Mapping[str, Any]) -> bool:
    """Whether the policy divides replicas: Karmada duplicates them when the placement names no
    replicaScheduling (its default)."""
    spec = policy.get("spec")
    placement = spec.get("placement") if is_mapping(spec) else None
    scheduling = placement.get("replicaScheduling") if is_mapping(placement) else None
    return is_mapping(scheduling) and scheduling.get("replicaSchedulingType") == "Divided"


def _placed(
    obj: Mapping[str, Any], policies: Policies, bundle: Bundle, count: int, member: int = 0
) -> Pods:
    """The pods of a Duplicated placement: the template's in each cluster it is placed on, and
    in each no fewer than a member autoscaler's minimum (``member``)."""
    plan = propagate(obj, policies, bundle.clusters)
    placed = [max(count if n is None else n, member) for n in plan.placement.values()]
    least = max(count, member)
    if plan.policy is None or not placed or sum(placed) <= least:
        return Pods(least, "" if least == count else f"its autoscaler from Git keeps {least}")
    policy = f"{plan.policy[0]} {plan.policy[2]}"
    why = f"{policy} from Git runs it in {len(placed)} clusters"
    if member > count:
        why += f", at least {member} in each (its HorizontalPodAutoscaler from Git)"
    return Pods(sum(placed), why, dict(zip(plan.placement, placed, strict=True)))


def billed(t: Mapping[str, Any], bundle: Bundle, index: TreeIndex | None) -> Bill:
    """What the members run of ``t`` requests at least: a pod (``per_pod``) times
    ``member_pods``. The one bill of a template: the quota rule and ``fedgate plan`` both
    call it."""
    spec = pod_spec(t)
    if spec is None:
        return {}
    pods = member_pods(t, bundle, index).count
    return {r: amount * pods for r, amount in per_pod(spec).items()}


def git_bill(index: TreeIndex, tenant: Tenant, bundle: Bundle) -> tuple[Bill, Mapping[Key, Bill]]:
    """The tenant's templates in the index, as the members run them: their bill in total, and
    each one's."""
    each = {
        key_of(t): billed(t, bundle, index)
        for namespace in tenant.namespaces
        for t in index.templates(namespace)
        if pod_spec(t) is not None
    }
    total = {r: sum((b.get(r, Fraction(0)) for b in each.values()), Fraction(0)) for r in RESOURCES}
    return total, each


def _show(resource: str, amount: Fraction) -> str:
    return f"{format_cpu(amount)} CPU" if resource == "cpu" else f"{format_memory(amount)} memory"


def _limit(tenant: Tenant, resource: str) -> Fraction | None:
    return tenant.quota.cpu if resource == "cpu" else tenant.quota.memory


@dataclass(frozen=True)
class Fit:
    """How many pods of one pod template fit a tenant's quota, per resource (None: any)."""

    pod: Bill
    whole: Mapping[str, int | None]
    """Within the whole quota."""
    with_git: Mapping[str, int | None]
    """Within the quota once Git's other templates (the index) are counted."""
    others: Bill
    """What Git's other templates in the tenant's namespaces request."""


def _most(room: Fraction, each: Fraction) -> int | None:
    return None if each <= 0 else math.floor(room / each)


def fit(pod: Bill, tenant: Tenant, others: Bill) -> Fit:
    whole, with_git = {}, {}
    for resource in RESOURCES:
        limit = _limit(tenant, resource)
        each = pod.get(resource, Fraction(0))
        whole[resource] = None if limit is None else _most(limit, each)
        room = None if limit is None else limit - others.get(resource, Fraction(0))
        with_git[resource] = None if room is None else _most(room, each)
    return Fit(pod, whole, with_git, others)


def _requests_key(spec: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What per_pod reads of a pod spec, as a key; None when a value is not a plain scalar."""
    found: list[Any] = []

    def read(holder: Any, *path: str) -> bool:
        value = holder
        for name in path:
            value = value.get(name) if is_mapping(value) else None
        found.append(value)
        return value is None or type(value) in (str, int, float)

    for listed in ("containers", "initContainers"):
        found.append(listed)
        for container in containers(spec, listed):
            if not read(container, "restartPolicy"):
                return None
            for resource in RESOURCES:
                if not (
                    read(container, "resources", "requests", resource)
                    and read(container, "resources", "limits", resource)
                ):
                    return None
    for resource in RESOURCES:
        if not (
            read(spec, "resources", "requests", resource)
            and read(spec, "resources", "limits", resource)
            and read(spec, "overhead", resource)
        ):
            return None
    return tuple(found)


def _fit(review: Review, tenant: Tenant, obj: Mapping[str, Any], spec: Mapping[str, Any]) -> Fit:
    """fit() of the write's pod template, once per tenant, object and requests."""
    index, key = review.bundle.index, key_of(obj)

    def compute() -> Fit:
        git, each = (
            review.bundle.memo(
                "tenant-bill", tenant.name, lambda: git_bill(index, tenant, review.bundle)
            )
            if index is not None
            else ({}, {})
        )
        own = each.get(key, {})
        others = {r: git.get(r, Fraction(0)) - own.get(r, Fraction(0)) for r in RESOURCES}
        return fit(per_pod(spec), tenant, others)

    requests = _requests_key(spec)
    if requests is None:
        return compute()
    return review.bundle.memo("quota-fit", (tenant.name, key, requests), compute)


def check_quota(review: Review, rule: Rule) -> Iterator[Violation]:
    request, tenant = review.request, review.tenant
    obj, old = request.object, request.old_object
    if tenant is None or review.cluster is not None or not is_mapping(obj):
        return  # a member's copy is judged by the rules on its template, not billed again
    spec = pod_spec(obj)
    if spec is None or (tenant.quota.cpu is None and tenant.quota.memory is None):
        return
    stale = review.bundle.index is not None and cross_index(review) is None
    if stale and review.identity.writer not in ("git", "platform"):  # they judge on their own
        yield review.violation(
            rule,
            f"{no_index_reason(review)}, so what the tenant's other apps already request cannot "
            "be counted: retry once the webhook's watch of the Karmada API server is back",
            pointer="/spec",
        )
        return
    if is_mapping(old) and replicas(obj) <= replicas(old) and pod_spec(old) == spec:
        return  # no more pods of the same template: Karmada's fields, status, scaling down
    pods = member_pods(obj, review.bundle, review.bundle.index)  # the claim: only when billed
    count = pods.count
    value = unreadable(spec)
    if value is not None:
        text = repr(value)
        yield review.violation(
            rule,
            f"a request of {text[:40]}{'...' if len(text) > 40 else ''} cannot be billed: write "
            f"it as a plain quantity (250m, 2, 4Gi; at most {MAX_QUANTITY} characters, "
            "exponents to 30)",
            pointer="/spec",
        )
        return
    found = _fit(review, tenant, obj, spec)
    over = [r for r in RESOURCES if (most := found.with_git[r]) is not None and count > most]
    if not over:
        return
    before = billed(old, review.bundle, review.bundle.index) if is_mapping(old) else {}
    kind = str(obj.get("kind"))
    why = f"; {pods.why}" if pods.why else ""
    for resource in over:
        limit, amount = _limit(tenant, resource), found.pod[resource] * count
        if limit is None or amount <= before.get(resource, Fraction(0)):
            continue
        whole = found.whole[resource]
        if whole is not None and count > whole:
            yield review.violation(
                rule,
                f"this {kind} requests at least {_show(resource, amount)} ({count} x "
                f"{_show(resource, found.pod[resource])}{why}), more than tenant "
                f"{tenant.name}'s whole quota of {_show(resource, limit)}",
                pointer="/spec",
            )
            continue
        others = found.others.get(resource, Fraction(0))
        yield review.violation(
            rule,
            f"with this {kind} ({_show(resource, amount)}{why}), tenant {tenant.name} requests "
            f"at least {_show(resource, others + amount)} (Git's templates "
            f"{_show(resource, others)}, in the index of the synced tree), more than its "
            f"quota of {_show(resource, limit)}",
            pointer="/spec",
        )

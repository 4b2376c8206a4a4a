"""Tenant data scoping: a tenant places workloads and data only where its scope allows.

Built-in rules: ``tenancy.namespace-writer``, ``tenancy.platform-namespace``,
``tenancy.placement-scope``, ``tenancy.explicit-selectors``, ``tenancy.data-scope``,
``tenancy.propagate-deps``, ``tenancy.cluster-policy``, ``tenancy.override-registry`` and
``tenancy.conflict-overwrite``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.base.values import is_mapping
from webhook.bundle.model import DATA_KINDS, Bundle, Tenant
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, ledger_of
from webhook.engine.decision import Violation
from webhook.engine.workloads import WORKLOAD_KINDS
from webhook.karmada.overridemanager import overriders_at
from webhook.karmada.selector import candidate_clusters, unknown_cluster_names

NAMESPACE_WRITERS = ("git", "platform", "karmada", "break-glass")
CLUSTER_POLICY_WRITERS = ("platform", "break-glass")
KARMADA_POLICY_WRITERS = ("system:karmada:karmada-controller-manager",)
"""The Karmada identities that write cluster-wide policies, unless the rule's binding names
others (``params.karmadaWriters``): the controller-manager's detector removes its finalizer
from a ClusterPropagationPolicy being deleted (karmada v1.18.0 pkg/detector/detector.go); its
permanent-id label and finalizer are added by Karmada's mutating webhook, within the writer's
own request. Other ``system:karmada:`` users (the scheduler, the webhook, the aggregated API
server) have no business writing them."""
PLACING_KINDS = ("PropagationPolicy", "ClusterPropagationPolicy")
SELECTABLE_KINDS = frozenset(
    {
        *((f"{group}/v1" if group else "v1", kind) for group, kind in WORKLOAD_KINDS),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        *(("v1", kind) for kind in DATA_KINDS),
        ("v1", "Service"),
        ("networking.k8s.io/v1", "Ingress"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
        ("policy/v1", "PodDisruptionBudget"),
    }
)
"""What a tenant's policy may select (apiVersion, kind): the kinds the webhook judges (every
pod-template kind, the member HPA), the data kinds it scopes, and plain kinds that run nothing
and carry no data. Any other kind (a CRD that runs pods such as a Rollout or a CloneSet, a
PodTemplate) is written on the Karmada API server without fedgate seeing it, so propagating it
would run what no rule judged: only the platform team may."""


def _spec(review: Review) -> Mapping[str, Any]:
    spec = (review.request.object or {}).get("spec")
    return spec if is_mapping(spec) else {}


def affinities(spec: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """Every ClusterAffinity a placement may use (fallback terms and overflow included);
    None when there is none, which means every cluster."""
    placement = spec.get("placement")
    if not is_mapping(placement):
        return None
    terms = placement.get("clusterAffinities")
    if isinstance(terms, list) and terms:
        found = []
        for term in terms:
            if is_mapping(term):
                found.append(term)
                found += [o for o in term.get("overflowAffinities") or () if is_mapping(o)]
        return found
    affinity = placement.get("clusterAffinity")
    return [affinity] if is_mapping(affinity) else None


def candidates(spec: Mapping[str, Any], bundle: Bundle) -> tuple[str, ...]:
    """Every inventory cluster the placement can select."""
    terms = affinities(spec)
    if terms is None:
        return tuple(bundle.clusters)
    selected: set[str] = set()
    for term in terms:
        selected.update(candidate_clusters(term, bundle.clusters))
    return tuple(sorted(selected))


def _candidates(review: Review) -> tuple[str, ...]:
    """candidates() of the request's placement, worked out once per review (three rules ask)."""
    return review.memo("candidates", lambda: candidates(_spec(review), review.bundle))


def placement_targets(review: Review) -> tuple[str, ...] | None:
    """The clusters a propagation policy's placement can select (the old policy's on DELETE),
    for the audit line; None for kinds that do not place or a policy without a spec. Shares
    the review's own candidates, worked out once."""
    request = review.request
    if request.kind.kind not in PLACING_KINDS:
        return None
    spec = (request.current or {}).get("spec")
    if not is_mapping(spec):
        return None
    return _candidates(review) if request.object is not None else candidates(spec, review.bundle)


def check_namespace_writer(review: Review, rule: Rule) -> Iterator[Violation]:
    tenant, identity = review.tenant, review.identity
    if tenant is None or identity.writer in NAMESPACE_WRITERS or identity.tenant == tenant.name:
        return
    yield review.violation(
        rule,
        f"namespace {review.request.namespace} belongs to tenant {tenant.name}; "
        f"{identity.describe()} may not write in it (its people are groups "
        f"{', '.join(tenant.groups) or '(none)'}; changes go through git)",
    )


def check_platform_namespace(review: Review, rule: Rule) -> Iterator[Violation]:
    """A namespace no tenant lists (``default``, a platform team's own) is the platform's: only
    the writers of a tenant namespace who are not its tenant write there. Otherwise any tenant,
    or anyone the bundle does not know, could place workloads and data where no tenant's
    scope, registries or quota apply."""
    request, identity = review.request, review.identity
    if not request.namespace or review.tenant is not None:
        return
    if identity.writer in NAMESPACE_WRITERS:
        return
    own = review.bundle.tenants.get(identity.tenant or "")
    where = (
        f"; tenant {own.name}'s namespaces are {', '.join(own.namespaces) or '(none)'}"
        if own is not None
        else ""
    )
    yield review.violation(
        rule,
        f"namespace {request.namespace} is no tenant's (policies/tenants.yaml lists it for "
        f"none), so it is the platform team's: {identity.describe()} may not write in it"
        f"{where}",
        owner="platform",
    )


def check_placement_scope(review: Review, rule: Rule) -> Iterator[Violation]:
    spec, bundle, tenant = _spec(review), review.bundle, review.tenant
    for index, term in enumerate(affinities(spec) or ()):
        unknown = unknown_cluster_names(term, bundle.clusters)
        if unknown:
            yield review.violation(
                rule,
                f"unknown cluster{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                f"the inventory has {', '.join(bundle.clusters)}",
                pointer=_affinity_pointer(spec, index),
            )
    if tenant is None:
        return
    outside = [c for c in _candidates(review) if c not in tenant.clusters]
    if outside:
        everywhere = (
            " (no cluster affinity means every cluster)" if affinities(spec) is None else ""
        )
        yield review.violation(
            rule,
            f"the placement can select {', '.join(outside)}{everywhere}, outside tenant "
            f"{tenant.name}'s clusters {', '.join(sorted(tenant.clusters))}",
            pointer="/spec/placement",
        )


def _affinity_pointer(spec: Mapping[str, Any], index: int) -> str:
    placement = spec.get("placement") or {}
    if is_mapping(placement) and placement.get("clusterAffinities"):
        return f"/spec/placement/clusterAffinities/{index}"
    return "/spec/placement/clusterAffinity"


def _selectors(spec: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    selectors = spec.get("resourceSelectors")
    if not isinstance(selectors, list):
        return []
    return [(i, s) for i, s in enumerate(selectors) if is_mapping(s)]


def _explicit(selector: Mapping[str, Any]) -> bool:
    if selector.get("name"):
        return True
    labels = selector.get("labelSelector")
    return is_mapping(labels) and bool(labels.get("matchLabels") or labels.get("matchExpressions"))


def check_explicit_selectors(review: Review, rule: Rule) -> Iterator[Violation]:
    spec = _spec(review)
    selectors = _selectors(spec)
    if not selectors:
        yield review.violation(
            rule,
            "no resourceSelectors: an OverridePolicy without them applies to every "
            "resource in the namespace; select resources by name or label",
            pointer="/spec/resourceSelectors",
        )
    for index, selector in selectors:
        if not _explicit(selector):
            yield review.violation(
                rule,
                f"resourceSelectors[{index}] selects every {selector.get('kind', 'object')}: "
                "give a name or a non-empty labelSelector",
                pointer=f"/spec/resourceSelectors/{index}",
            )
        kind = (selector.get("apiVersion"), selector.get("kind"))
        if kind not in SELECTABLE_KINDS:
            yield review.violation(
                rule,
                f"resourceSelectors[{index}] selects {kind[1]} ({kind[0]}), a kind fedgate "
                "does not judge: no rule would hold on what it runs or carries",
                pointer=f"/spec/resourceSelectors/{index}",
            )


def _data_kind(selector: Mapping[str, Any]) -> str | None:
    kind = selector.get("kind")
    return kind if selector.get("apiVersion") == "v1" and kind in DATA_KINDS else None


def _data_tenants(review: Review, selector: Mapping[str, Any]) -> list[Tenant]:
    """The tenants whose data a selector can reach: the namespace's, for a namespaced policy;
    for a cluster-wide one, the tenant of the namespace it names, or every tenant when it
    names none (it selects in every namespace)."""
    if review.request.namespace:
        return [review.tenant] if review.tenant is not None else []
    namespace = selector.get("namespace")
    if isinstance(namespace, str) and namespace:
        found = review.bundle.tenant_of_namespace(namespace)
        return [found] if found is not None else []
    return list(review.bundle.tenants.values())


def _same_cluster_policy(review: Review) -> bool:
    """An UPDATE of a cluster-wide policy that keeps its spec (Karmada's finalizer, labels):
    judged when the spec was written, so the control plane's own writes always pass."""
    request = review.request
    old, new = request.old_object, request.object
    return (
        request.operation == "UPDATE"
        and is_mapping(old)
        and is_mapping(new)
        and old.get("spec") == new.get("spec")
    )


def check_data_scope(review: Review, rule: Rule) -> Iterator[Violation]:
    """Every writer's policy, the platform team's cluster-wide ones too: a tenant's data
    scope (residency) holds whoever places the data, and a policy's labels say nothing of who
    wrote it."""
    spec = _spec(review)
    if not review.request.namespace and _same_cluster_policy(review):
        return
    clusters = _candidates(review)
    for index, selector in _selectors(spec):
        kind = _data_kind(selector)
        if kind is None:
            continue
        for tenant in _data_tenants(review, selector):
            outside = [c for c in clusters if c not in tenant.data_clusters(kind)]
            if not outside:
                continue
            what = f"{kind} {selector.get('name') or '(by label)'}"
            yield review.violation(
                rule,
                f"{what} would go to {', '.join(outside)}, outside tenant {tenant.name}'s "
                f"{kind} scope {', '.join(sorted(tenant.data_clusters(kind))) or '(none)'}",
                pointer=f"/spec/resourceSelectors/{index}",
            )


def check_propagate_deps(review: Review, rule: Rule) -> Iterator[Violation]:
    spec, tenant = _spec(review), review.tenant
    if tenant is None or spec.get("propagateDeps") is not True:
        return
    bundle = review.bundle
    scope = (  # once per bundle for each of its tenants (the review's is one of them)
        bundle.memo("deps-scope", tenant.name, lambda: deps_scope(tenant))
        if bundle.tenants.get(tenant.name) is tenant
        else deps_scope(tenant)
    )
    outside = [c for c in _candidates(review) if c not in scope]
    if outside:
        failover = (
            " (application failover requires it)"
            if is_mapping(spec.get("failover")) and spec["failover"].get("application")
            else ""
        )
        yield review.violation(
            rule,
            f"propagateDeps: true{failover} sends every ConfigMap, Secret and PVC the workload "
            f"references along with it, and the placement can select {', '.join(outside)}, "
            f"outside tenant {tenant.name}'s data scope {', '.join(sorted(scope)) or '(none)'}: "
            "restrict the placement to the data scope or drop failover",
            pointer="/spec/propagateDeps",
        )


def deps_scope(tenant: Tenant) -> frozenset[str]:
    """Where a tenant's dependencies may go: its clusters within every data kind's scope."""
    scope = set(tenant.clusters)
    for kind in DATA_KINDS:
        scope &= tenant.data_clusters(kind)
    return frozenset(scope)


def check_cluster_policy(review: Review, rule: Rule) -> Iterator[Violation]:
    identity = review.identity
    if identity.writer in CLUSTER_POLICY_WRITERS:
        return
    if identity.writer == "karmada" and (
        identity.component == "controller-manager" or identity.username in _karmada_writers(rule)
    ):
        return  # the controller-manager's detector removes its finalizer
    ledger = ledger_of(review.request.current)
    if identity.writer == "git" and ledger is not None and ledger.get("") == "platform":
        return  # git syncing a policy the platform team owns
    yield review.violation(
        rule,
        f"{review.request.kind.kind} is cluster-wide and belongs to the platform team; "
        f"{identity.describe()} may not write it (git may, for a policy whose ownership ledger "
        "gives it to platform)",
        owner="platform",
    )


def _karmada_writers(rule: Rule) -> tuple[str, ...]:
    """``params.karmadaWriters`` of the binding (a list of usernames), else the default; a
    malformed value admits nobody."""
    named = rule.params.get("karmadaWriters", KARMADA_POLICY_WRITERS)
    if isinstance(named, list | tuple) and all(isinstance(n, str) for n in named):
        return tuple(named)
    return ()


def _registry_hosts(tenant: Tenant) -> set[str]:
    return {r.split("/", 1)[0] for r in tenant.registries}


def check_override_registry(review: Review, rule: Rule) -> Iterator[Violation]:
    spec, tenant = _spec(review), review.tenant
    if tenant is None:
        return
    allowed = ", ".join(tenant.registries) or "(none)"
    for base, overriders in overriders_at(spec):
        for i, image in enumerate(overriders.get("imageOverrider") or ()):
            problem = _image_override_problem(image, tenant) if is_mapping(image) else None
            if problem:
                yield review.violation(
                    rule,
                    f"{problem}; tenant {tenant.name} may pull only from {allowed}",
                    pointer=f"{base}/imageOverrider/{i}",
                )
        for i, patch in enumerate(overriders.get("plaintext") or ()):
            if not is_mapping(patch) or not str(patch.get("path", "")).endswith("/image"):
                continue
            value = patch.get("value")
            if patch.get("operator") != "remove" and not (
                isinstance(value, str) and value.startswith(tenant.registries)
            ):
                yield review.violation(
                    rule,
                    f"plaintext sets image {value!r}; tenant "
                    f"{tenant.name} may pull only from {allowed}",
                    pointer=f"{base}/plaintext/{i}",
                )


def _image_override_problem(image: Mapping[str, Any], tenant: Tenant) -> str | None:
    component, operator, value = image.get("component"), image.get("operator"), image.get("value")
    if component == "Registry":
        if operator == "add":
            return "an image registry 'add' appends to a host fedgate cannot see"
        if operator == "replace" and value not in _registry_hosts(tenant):
            return f"image registry {value!r} is not one of the tenant's registries"
    if component == "Repository" and operator in ("add", "replace"):
        paths = {r.split("/", 1)[1] for r in tenant.registries if "/" in r}
        if operator == "add" or not any(str(value).startswith(p) for p in paths if p):
            return f"image repository {operator} {value!r} leaves the tenant's repositories"
    return None


OVERWRITERS = ("git", "platform")
"""Who may set ``conflictResolution: Overwrite``: Karmada then takes over an object of the same
name a member already has (Karmada v1.18 api: Abort, the default, leaves it alone). Only the
platform knows what the members hold; a tenant's policy would take over a member's own
default-deny NetworkPolicy or another team's Secret of the same name."""


CONFLICT_ANNOTATION = "work.karmada.io/conflict-resolution"
"""A resource template's own conflict resolution: Karmada's binding controller prefers it to
its policy's ``conflictResolution`` (pkg/controllers/binding/common.go mergeConflictResolution,
read after the overrides are applied), so ``overwrite`` there is Overwrite."""


def check_conflict_overwrite(review: Review, rule: Rule) -> Iterator[Violation]:
    if review.identity.writer in OVERWRITERS:
        return
    request = review.request
    if request.kind.group == "policy.karmada.io":
        yield from _policy_overwrites(review, rule)
        return
    if request.kind.group == "work.karmada.io":
        return  # Karmada's own derivation carries the value it chose (ownership.karmada-bindings)
    if _template_overwrites(request.object) and not (
        request.operation == "UPDATE" and _template_overwrites(request.old_object)
    ):
        yield review.violation(
            rule,
            f"annotation {CONFLICT_ANNOTATION}: overwrite makes Karmada take over an object of "
            "the same name that a member cluster already has, whatever the policy says "
            "(Karmada prefers the template's annotation to the policy's conflictResolution); "
            "only git and the platform team may choose it, not "
            f"{review.identity.describe()}: remove it, or use abort",
            pointer="/metadata/annotations/" + CONFLICT_ANNOTATION.replace("/", "~1"),
        )


def _template_overwrites(obj: Any) -> bool:
    metadata = obj.get("metadata") if is_mapping(obj) else None
    annotations = metadata.get("annotations") if is_mapping(metadata) else None
    return is_mapping(annotations) and annotations.get(CONFLICT_ANNOTATION) == "overwrite"


def _policy_overwrites(review: Review, rule: Rule) -> Iterator[Violation]:
    if _spec(review).get("conflictResolution") != "Overwrite":
        return
    old = review.request.old_object if review.request.operation == "UPDATE" else None
    old_spec = old.get("spec") if is_mapping(old) else None
    if is_mapping(old_spec) and old_spec.get("conflictResolution") == "Overwrite":
        return  # chosen when it was written (Karmada adding its finalizer writes the rest)
    yield review.violation(
        rule,
        "conflictResolution: Overwrite would take over an object of the same name that a "
        "member cluster already has (its own NetworkPolicy, another team's Secret), which "
        f"fedgate cannot see; only git and the platform team may choose it, not "
        f"{review.identity.describe()}: use Abort (the default)",
        pointer="/spec/conflictResolution",
    )

"""No allowed write lets a member run an image, a tag, a replica count or a field
owner the rules deny.

Hypothesis writes OverridePolicies (tenant's and git's) with random overriders over the example
tree's templates (the bundle's index), FederatedHPAs, CronFederatedHPAs and member HPAs on
random targets, workloads of every kind that runs a pod template (wherever the kind keeps it),
and PropagationPolicies with random names, label selectors, priority and preemption. For every
write ``review`` allows, an oracle written here
from the policy (not from the rules' code) checks what each member would run, with the copies
Karmada builds (webhook/karmada): images only from the tenant's registries, a pinned tag, at most
maxReplicasPerApp replicas, and no field changed that Git's ledger gives to another writer
(a tenant owns nothing of a git-managed template: its allowed overrides change nothing).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webhook.base.ledger import owner_of
from webhook.bundle.index import key_of
from webhook.bundle.model import Bundle
from webhook.engine.context import ledger_of
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.karmada.detector import Policies
from webhook.karmada.propagation import copies_anywhere, propagate

ALICE = {"username": "alice@example.com", "groups": ["team-a", "system:authenticated"]}
BOB = {"username": "bob@example.com", "groups": ["team-b", "system:authenticated"]}
GIT = {
    "username": "system:serviceaccount:kube-system:argocd-manager",
    "groups": ["system:serviceaccounts", "system:authenticated"],
}
TENANT_CLUSTERS = ("cluster-a", "cluster-b")  # team-a's, policies/tenants.yaml
TARGETS = ["demo-http", "web-frontend", "status-page", "orders-db", "no-such-app"]
REGISTRY_VALUES = ["registry.example.com", "mirror.example.cn", "docker.io", "evil.io", ".x", ""]
TAGS = ["1.0", "2.1", "latest", "", "sha256:" + "a" * 64]
PATHS = [
    "/spec/replicas",
    "/spec/template/spec/containers/0/image",
    "/spec/template/spec/containers/0/resources",
    "/spec/template/spec/containers/-",
    "/spec/template/spec/initContainers",
    "/metadata/labels/resourcetemplate.karmada.io~1retain-replicas",
    "/metadata/annotations/fedgate.dev~1ownership",
    "/spec/template/spec/containers/0/resources/requests/cpu",
]
VALUES = st.one_of(
    st.integers(-1, 10_000),
    st.sampled_from(["docker.io/evil/miner:1", "registry.example.com/platform/ok:1", "64", ""]),
    st.just({"name": "x", "image": "docker.io/x:latest"}),
    st.just([{"name": "init", "image": "evil.io/init:1"}]),
    st.none(),
)


def _image_overrider() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(
            lambda c, o, v: {"component": c, "operator": o, "value": v},
            st.sampled_from(["Registry", "Repository", "Tag"]),
            st.sampled_from(["add", "replace", "remove"]),
            st.sampled_from([*REGISTRY_VALUES, *TAGS, "evil/miner"]),
        ),
    )


OVERRIDERS = st.fixed_dictionaries(
    {},
    optional={
        "imageOverrider": st.lists(_image_overrider(), max_size=2),
        "plaintext": st.lists(
            st.builds(
                lambda p, o, v: {"path": p, "operator": o, "value": v},
                st.sampled_from(PATHS),
                st.sampled_from(["add", "replace", "remove"]),
                VALUES,
            ),
            max_size=2,
        ),
        "labelsOverrider": st.lists(
            st.builds(
                lambda o, k: {"operator": o, "value": {k: "true"}},
                st.sampled_from(["add", "replace", "remove"]),
                st.sampled_from(["resourcetemplate.karmada.io/retain-replicas", "team", "x"]),
            ),
            max_size=1,
        ),
        "argsOverrider": st.lists(
            st.builds(
                lambda o: {"containerName": "demo-http", "operator": o, "value": ["--debug"]},
                st.sampled_from(["add", "remove"]),
            ),
            max_size=1,
        ),
    },
)
RULES = st.lists(
    st.builds(
        lambda overriders, clusters: (
            {"overriders": overriders, "targetCluster": {"clusterNames": clusters}}
            if clusters
            else {"overriders": overriders}
        ),
        OVERRIDERS,
        st.lists(st.sampled_from(["cluster-a", "cluster-b", "cluster-c"]), max_size=2),
    ),
    min_size=1,
    max_size=2,
)


@st.composite
def override_policies(draw: st.DrawFn) -> dict[str, Any]:
    targets = draw(st.lists(st.sampled_from(TARGETS), min_size=1, max_size=2, unique=True))
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {
            "name": draw(st.sampled_from(["o1", "demo-http"])),
            "namespace": "platform-demo",
        },
        "spec": {
            "resourceSelectors": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "namespace": "platform-demo",
                    "name": t,
                }
                for t in targets
            ],
            "overrideRules": draw(RULES),
        },
    }


def _copies(bundle: Bundle, policy: Mapping[str, Any] | None) -> Iterator[tuple[Any, ...]]:
    """(template key, cluster, copy without ``policy``, copy with it) of every selected
    template the index knows, as Karmada builds them."""
    assert bundle.index is not None
    for selector in (policy or {}).get("spec", {}).get("resourceSelectors", []):
        key = ("apps", "Deployment", "platform-demo", selector["name"])
        template = bundle.index.get(key)
        if template is None:
            continue
        others = [p for p in bundle.index.policies("platform-demo") if key_of(p) != key_of(policy)]
        without, with_it = Policies.of(others), Policies.of([*others, policy])
        before = propagate(template, without, bundle.clusters).copies
        after = propagate(template, with_it, bundle.clusters).copies
        # and every other cluster of the tenant, where the template may go later
        later = {
            n: c for n, c in bundle.clusters.items() if n in TENANT_CLUSTERS and n not in after
        }
        before = {**copies_anywhere(template, without, later), **before}
        after = {**copies_anywhere(template, with_it, later), **after}
        for cluster, member in after.items():
            yield key, cluster, before[cluster].object, member.object


def _changed(old: Any, new: Any, pointer: str = "") -> Iterator[str]:
    """The JSON pointers where ``new`` differs from ``old`` (an independent, plain diff)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            escaped = str(k).replace("~", "~0").replace("/", "~1")
            yield from _changed(old.get(k), new.get(k), f"{pointer}/{escaped}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            yield from _changed(a, b, f"{pointer}/{i}")
    elif old != new or type(old) is not type(new):
        yield pointer


def _images(obj: Mapping[str, Any]) -> Iterator[str]:
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    for field in ("containers", "initContainers", "ephemeralContainers"):
        for container in spec.get(field) or []:
            yield str((container or {}).get("image", ""))


def _pinned(image: str) -> bool:
    if "@" in image:
        return True
    tail = image.rsplit("/", 1)[-1]
    return ":" in tail and not tail.endswith(":latest")


def _oracle(bundle: Bundle, policy: Mapping[str, Any], writer: str) -> list[str]:
    """What the members would run that the policy forbids (empty: nothing)."""
    tenant = bundle.tenants["team-a"]
    problems = []
    assert bundle.index is not None
    for key, cluster, before, after in _copies(bundle, policy):
        if after is None or before is None:
            problems.append(f"{key} {cluster}: Karmada cannot build the copy")
            continue
        changed = list(_changed(before, after))
        ledger = ledger_of(bundle.index.get(key)) or {}
        for pointer in changed:
            found = owner_of(pointer, ledger)
            owner = found[0] if found else "git"
            if writer != "git" or owner != "git":
                problems.append(f"{key} {cluster}: {pointer} (owner {owner}) changed by {writer}")
        for image in _images(after):
            if not any(image.startswith(r) for r in tenant.registries):
                problems.append(f"{key} {cluster}: image {image} from outside the registries")
            if not _pinned(image):
                problems.append(f"{key} {cluster}: image {image} not pinned")
        replicas = (after.get("spec") or {}).get("replicas")
        if isinstance(replicas, int) and replicas > (tenant.max_replicas_per_app or 10**9):
            problems.append(f"{key} {cluster}: {replicas} replicas")
    return problems


def _review(bundle: Bundle, obj: Mapping[str, Any], user: Mapping[str, Any]) -> bool:
    return review(sync_request(copy.deepcopy(dict(obj)), None, bundle, user=user), bundle).allowed


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(policy=override_policies(), as_git=st.booleans())
def test_no_allowed_override_lets_a_member_run_what_the_rules_deny(
    bundle: Bundle, policy: dict[str, Any], as_git: bool
) -> None:
    user = GIT if as_git else ALICE
    if _review(bundle, policy, user):
        assert _oracle(bundle, policy, "git" if as_git else "alice") == []


SCALED_BY = {"FederatedHPA": "federated-hpa", "HorizontalPodAutoscaler": "member-hpa"}
"""The ledger owner each autoscaler acts as (no ledger names a CronFederatedHPA)."""
CRON_TARGETS = ("targetReplicas", "targetMinReplicas", "targetMaxReplicas")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    target=st.sampled_from([*TARGETS, "payments-api", "checkout"]),
    kind=st.sampled_from(["FederatedHPA", "CronFederatedHPA", "HorizontalPodAutoscaler"]),
    highs=st.lists(st.integers(1, 20_000), min_size=1, max_size=3),
    fields=st.lists(st.sampled_from(CRON_TARGETS), min_size=1, max_size=3, unique=True),
)
def test_no_allowed_autoscaler_scales_what_it_does_not_own(
    bundle: Bundle, target: str, kind: str, highs: list[int], fields: list[str]
) -> None:
    namespace, user, limit = (
        ("payments", BOB, 100)
        if target in ("payments-api", "checkout")
        else ("platform-demo", ALICE, 50)
    )
    spec: dict[str, Any] = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}
    }
    if kind == "CronFederatedHPA":
        spec["rules"] = [
            {"name": f"r{i}", "schedule": "0 1 * * *", **dict.fromkeys(fields, high)}
            for i, high in enumerate(highs)
        ]
    else:
        spec |= {"minReplicas": 1, "maxReplicas": max(highs)}
    scaler = {
        "apiVersion": "autoscaling/v2"
        if kind == "HorizontalPodAutoscaler"
        else "autoscaling.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": {"name": "s", "namespace": namespace},
        "spec": spec,
    }
    if not _review(bundle, scaler, user):
        return
    assert bundle.index is not None
    template = bundle.index.get(("apps", "Deployment", namespace, target))
    assert template is not None, "an unknown target was allowed for a tenant"
    found = owner_of("/spec/replicas", ledger_of(template) or {})
    assert found is not None and found[0] == SCALED_BY.get(kind)
    assert max(highs) <= limit


POD_TEMPLATE_AT = {
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Pod": ("spec",),
}
"""Where each kind keeps its pod spec (the Kubernetes API), written here for the oracle."""
REPLICAS_AT = {
    "Deployment": ("spec", "replicas"),
    "StatefulSet": ("spec", "replicas"),
    "ReplicaSet": ("spec", "replicas"),
    "ReplicationController": ("spec", "replicas"),
    "Job": ("spec", "parallelism"),
    "CronJob": ("spec", "jobTemplate", "spec", "parallelism"),
}
GROUPS = {"Pod": "v1", "ReplicationController": "v1", "Job": "batch/v1", "CronJob": "batch/v1"}
IMAGES = [
    "registry.example.com/platform/app:1.0",
    "mirror.example.cn/platform/app@sha256:" + "b" * 64,
    "registry.example.com/platform/app:latest",
    "registry.example.com/platform/app",
    "docker.io/evil/miner:1",
    "nginx:1.27",
    "registry.example.com:5000/platform/app:1",
]
CONTAINER = st.builds(
    lambda i, image: {
        "name": f"c{i}",
        "image": image,
        "resources": {"requests": {"cpu": "10m", "memory": "8Mi"}},
    },
    st.integers(0, 9),
    st.sampled_from(IMAGES),
)


def _at(obj: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    for name in path:
        obj = obj.get(name) if isinstance(obj, Mapping) else None  # type: ignore[assignment]
    return obj


def _put(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for name in path[:-1]:
        obj = obj.setdefault(name, {})
    obj[path[-1]] = value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(POD_TEMPLATE_AT)),
    pod_spec=st.fixed_dictionaries(
        {"containers": st.lists(CONTAINER, min_size=1, max_size=2)},
        optional={
            "initContainers": st.lists(CONTAINER, min_size=1, max_size=2),
            "ephemeralContainers": st.lists(CONTAINER, min_size=1, max_size=2),
        },
    ),
    replicas=st.integers(0, 200),
)
def test_no_allowed_workload_runs_what_the_rules_deny(
    bundle: Bundle,
    kind: str,
    pod_spec: dict[str, Any],
    replicas: int,
) -> None:
    """Every kind a tenant runs code with: the pod template wherever it sits."""
    workload: dict[str, Any] = {
        "apiVersion": GROUPS.get(kind, "apps/v1"),
        "kind": kind,
        "metadata": {"name": "w", "namespace": "platform-demo"},
    }
    _put(workload, POD_TEMPLATE_AT[kind], pod_spec)
    if kind in REPLICAS_AT:
        _put(workload, REPLICAS_AT[kind], replicas)
    if not _review(bundle, workload, ALICE):
        return
    tenant = bundle.tenants["team-a"]
    spec = _at(workload, POD_TEMPLATE_AT[kind])
    for field in ("containers", "initContainers", "ephemeralContainers"):
        for container in spec.get(field) or []:
            image = container["image"]
            assert any(image.startswith(r) for r in tenant.registries), image
            assert _pinned(image), image
    if kind in REPLICAS_AT:
        assert _at(workload, REPLICAS_AT[kind]) <= (tenant.max_replicas_per_app or 0)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    selected=st.lists(st.sampled_from(TARGETS), min_size=1, max_size=2, unique=True),
    priority=st.integers(-5, 2000),
    preemption=st.sampled_from(["Always", "Never"]),
)
def test_no_allowed_tenant_policy_selects_a_template_git_propagates(
    bundle: Bundle, selected: list[str], priority: int, preemption: str
) -> None:
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "mine", "namespace": "platform-demo"},
        "spec": {
            "resourceSelectors": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": name} for name in selected
            ],
            "placement": {"clusterAffinity": {"clusterNames": ["cluster-a"]}},
            "priority": priority,
            "preemption": preemption,
        },
    }
    if not _review(bundle, policy, ALICE):
        return
    assert bundle.index is not None
    managed = {
        key_of(t)[3]
        for t in bundle.index.templates("platform-demo")
        if Policies.of(bundle.index.policies("platform-demo")).claim(t).policy is not None
    }
    assert not managed & set(selected)


REQUIREMENT = st.one_of(
    st.builds(
        lambda k, o, v: {"key": k, "operator": o, "values": v},
        st.sampled_from(["app.kubernetes.io/name", "fedgate.dev/tenant", "app", "zzz"]),
        st.sampled_from(["In", "NotIn"]),
        st.lists(st.sampled_from(["demo-http", "team-a", "reports", "x"]), min_size=1, max_size=2),
    ),
    st.builds(
        lambda k, o: {"key": k, "operator": o},
        st.sampled_from(["app.kubernetes.io/name", "fedgate.dev/tenant", "app", "zzz"]),
        st.sampled_from(["Exists", "DoesNotExist"]),
    ),
)
SELECTOR = st.builds(
    lambda kind, labels, expressions: {
        **kind,
        "labelSelector": {
            **({"matchLabels": labels} if labels else {}),
            **({"matchExpressions": expressions} if expressions else {}),
        },
    },
    st.sampled_from(
        [
            {"apiVersion": "apps/v1", "kind": "Deployment"},
            {"apiVersion": "v1", "kind": "Secret"},
        ]
    ),
    st.dictionaries(
        st.sampled_from(["app.kubernetes.io/name", "fedgate.dev/tenant", "app"]),
        st.sampled_from(["demo-http", "team-a", "reports"]),
        max_size=1,
    ),
    st.lists(REQUIREMENT, max_size=2),
)


def _holds(requirement: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """One requirement, as the Kubernetes API documents it (written here, for the oracle)."""
    key, operator, values = requirement["key"], requirement["operator"], requirement.get("values")
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    return (key in labels) == (operator == "Exists")


def _requirements(selector: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    labels = selector["labelSelector"]
    return [
        *(
            {"key": k, "operator": "In", "values": [v]}
            for k, v in labels.get("matchLabels", {}).items()
        ),
        *labels.get("matchExpressions", []),
    ]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chosen=st.lists(SELECTOR, min_size=1, max_size=2))
def test_no_allowed_tenant_selector_reaches_what_the_tenant_does_not_own(
    bundle: Bundle, chosen: list[dict[str, Any]]
) -> None:
    """A selector without a name, judged by what it matches: it needs some label (an object
    without labels does not meet it), and matches none of Git's templates."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "mine", "namespace": "platform-demo"},
        "spec": {
            "resourceSelectors": chosen,
            "placement": {"clusterAffinity": {"clusterNames": ["cluster-a"]}},
        },
    }
    if not _review(bundle, policy, ALICE):
        return
    assert bundle.index is not None
    for selector in chosen:
        requirements = _requirements(selector)
        assert not all(_holds(r, {}) for r in requirements), f"{selector} needs no label"
        for template in bundle.index.templates("platform-demo"):
            labels = template["metadata"].get("labels") or {}
            same_kind = (template["apiVersion"], template["kind"]) == (
                selector["apiVersion"],
                selector["kind"],
            )
            assert not (same_kind and all(_holds(r, labels) for r in requirements)), (
                f"{selector} matches Git's {template['metadata']['name']}"
            )

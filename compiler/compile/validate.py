"""Checks of app specs against the bundle and against each other (the loader checks each file).

Tenant scope, data scope, retain and CEL rules are not here: they are the rule engine's, which
compile runs on every rendered object. What is here is what only the compiler can know: the
inventory behind a placement, weights against candidates, who owns a namespace, objects claimed
by two apps, and each tenant's quota summed over all of its apps.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from compiler.compile.summary import AppSummary
from compiler.spec.model import AppSpec, ClusterTarget
from webhook.bundle.model import Bundle
from webhook.errors import Finding
from webhook.karmada.selector import candidate_clusters
from webhook.quantity import format_cpu, format_memory

Key = tuple[str, str]


@dataclass(frozen=True)
class Validated:
    """Findings, and the clusters each app's placement selects (by app key)."""

    findings: tuple[Finding, ...]
    candidates: Mapping[Key, tuple[str, ...]]


def validate(apps: Sequence[AppSpec], bundle: Bundle) -> Validated:
    """Each app against the bundle (the checks across apps take summaries: ``across``)."""
    findings: list[Finding] = []
    candidates: dict[Key, tuple[str, ...]] = {}
    for app in apps:
        report = _Report(app, findings)
        _check_tenant(app, bundle, report)
        candidates[app.key] = _check_placement(app, bundle, report)
        _check_overrides(app, bundle, candidates[app.key], report)
    return Validated(tuple(findings), candidates)


def across(apps: Sequence[AppSummary], bundle: Bundle) -> list[Finding]:
    """What only all apps together show: duplicates, shared data, tenant quotas."""
    return [*_duplicates(apps), *_shared_data(apps), *_quotas(apps, bundle)]


class _Report:
    def __init__(self, app: AppSpec, findings: list[Finding]) -> None:
        self.app, self.findings = app, findings

    def __call__(self, path: tuple[str | int, ...], message: str) -> None:
        self.findings.append(_finding(self.app, path, message))


def _finding(app: AppSpec, path: tuple[str | int, ...], message: str) -> Finding:
    assert app.origin is not None
    return app.origin.finding(path, message)


def _check_tenant(app: AppSpec, bundle: Bundle, report: _Report) -> None:
    if app.tenant not in bundle.tenants:
        report(
            ("spec", "tenant"),
            f"unknown tenant {app.tenant!r}; the bundle has {', '.join(bundle.tenants)}",
        )
        return
    owner = bundle.tenant_of_namespace(app.namespace)
    if owner is None:
        report(
            ("metadata", "namespace"),
            f"namespace {app.namespace!r} belongs to no tenant; tenant {app.tenant} owns "
            f"{', '.join(bundle.tenants[app.tenant].namespaces)}",
        )
    elif owner.name != app.tenant:
        report(
            ("metadata", "namespace"),
            f"namespace {app.namespace!r} belongs to tenant {owner.name}, not {app.tenant}",
        )


def _known_names(
    target: ClusterTarget, bundle: Bundle, path: tuple[str | int, ...], report: _Report
) -> bool:
    ok = True
    for index, name in enumerate(target.names):
        if name not in bundle.clusters:
            report(
                (*path, "clusters", index),
                f"unknown cluster {name!r}; the bundle has {', '.join(bundle.clusters)}",
            )
            ok = False
    return ok


def _check_placement(app: AppSpec, bundle: Bundle, report: _Report) -> tuple[str, ...]:
    path = ("spec", "placement")
    placement = app.placement
    if not _known_names(placement.target, bundle, path, report):
        return ()
    candidates = candidate_clusters(placement.target.affinity(), bundle.clusters)
    if not candidates:
        report((*path, "clusterLabels"), "selects no cluster of the bundle")
        return ()
    for cluster in placement.weights:
        if cluster not in candidates:
            report(
                (*path, "weights", cluster),
                f"{cluster} is not selected by spec.placement (candidates: "
                f"{', '.join(candidates)})",
            )
    unweighted = [c for c in candidates if c not in placement.weights]
    if placement.weights and unweighted:
        report(
            (*path, "weights"),
            f"{', '.join(unweighted)} {_is_are(unweighted, 'a candidate', 'candidates')}"
            " without weight: Karmada gives such a cluster no replicas; give it a weight or "
            "leave it out of the placement",
        )
    return candidates


def _is_are(items: Sequence[str], one: str, many: str) -> str:
    return f"is {one}" if len(items) == 1 else f"are {many}"


def _check_overrides(
    app: AppSpec, bundle: Bundle, candidates: tuple[str, ...], report: _Report
) -> None:
    for index, override in enumerate(app.overrides):
        path = ("spec", "overrides", index)
        if override.target is None or not candidates:
            continue
        if not _known_names(override.target, bundle, path, report):
            continue
        hit = candidate_clusters(override.target.affinity(), bundle.clusters)
        outside = [c for c in override.target.names if c not in candidates]
        if outside:
            report(
                (*path, "clusters"),
                f"{', '.join(outside)} not selected by spec.placement "
                f"({', '.join(candidates)}): this override would never apply",
            )
        elif not set(hit) & set(candidates):
            report(
                (*path, "clusterLabels"),
                f"matches none of the placement's clusters ({', '.join(candidates)})",
            )


def _duplicates(apps: Sequence[AppSummary]) -> list[Finding]:
    first: dict[Key, AppSummary] = {}
    findings = []
    for app in sorted(apps, key=lambda a: (a.key, a.file)):
        if app.key in first:
            findings.append(
                app.finding(
                    ("metadata", "name"),
                    f"app {app.namespace}/{app.name} is already defined in {first[app.key].file}",
                )
            )
        else:
            first[app.key] = app
    return findings


def _shared_data(apps: Sequence[AppSummary]) -> list[Finding]:
    """Karmada lets one PropagationPolicy claim an object: two apps selecting it would lose."""
    claimed: dict[tuple[str, str, str], AppSummary] = {}
    findings = []
    for app in sorted(apps, key=lambda a: (a.key, a.file)):
        for kind, field, names in (
            ("ConfigMap", "configMaps", app.config_maps),
            ("Secret", "secrets", app.secrets),
        ):
            for index, name in enumerate(names):
                key = (app.namespace, kind, name)
                if key in claimed and claimed[key].key != app.key:
                    findings.append(
                        app.finding(
                            ("spec", "envFrom", field, index),
                            f"{kind} {name} is also selected by app {claimed[key].name}; "
                            "Karmada lets only one PropagationPolicy claim an object, so one "
                            "app's clusters would not receive it: give each app its own, or "
                            "place both alike in one app",
                        )
                    )
                claimed.setdefault(key, app)
    return findings


def billed_replicas(app: AppSpec, clusters: int) -> int:
    """The most replicas ``app`` can run across the federation (autoscaled: at maxReplicas)."""
    scaling = app.autoscaling
    if scaling.owner == "member-hpa":
        return (scaling.max_replicas or 0) * clusters  # every member HPA scales on its own
    total = app.replicas if scaling.owner == "git" else scaling.max_replicas
    per = total or 0
    return per * clusters if app.placement.replicas == "Duplicated" else per


def _quotas(apps: Sequence[AppSummary], bundle: Bundle) -> list[Finding]:
    usage: dict[str, dict[str, list[tuple[Fraction, AppSummary]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for app in apps:
        for resource, amount in app.billed.items():
            if amount:
                usage[app.tenant][resource].append((amount, app))
    findings = []
    for tenant_name, resources in sorted(usage.items()):
        tenant = bundle.tenants.get(tenant_name)
        if tenant is None:
            continue
        for resource, fmt in (("cpu", format_cpu), ("memory", format_memory)):
            limit = getattr(tenant.quota, resource)
            entries = resources.get(resource, [])
            total = sum((amount for amount, _ in entries), Fraction(0))
            if limit is None or total <= limit:
                continue
            entries.sort(key=lambda e: (-e[0], e[1].key))
            biggest = entries[0][1]
            share = ", ".join(f"{a.namespace}/{a.name} {fmt(amount)}" for amount, a in entries[:5])
            findings.append(
                biggest.finding(
                    ("spec", "resources", "requests", resource),
                    f"tenant {tenant_name} would request {fmt(total)} {resource} over all its apps "
                    f"and clusters, over its quota of {fmt(limit)} (largest: {share}); lower "
                    "replicas or requests, or ask the platform team for more quota",
                )
            )
    return findings

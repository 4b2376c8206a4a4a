"""The Argo CD pieces: per tenant an AppProject and an Application, and the root Application.

One Application per tenant of the bundle (not per app): the tenant is the unit of ownership, of
the Argo CD project and of RBAC, and a thousand apps stay a handful of Applications for the repo
server to render on each refresh; ignoreDifferences still name each object. A tenant keeps its
Application when it has no app left, so Argo CD prunes what the tenant had instead of orphaning
it. Each Application syncs its tenant's namespaces of the rendered tree, automated with prune
and self-heal, with ``RespectIgnoreDifferences=true`` and ``ignoreDifferences`` derived from the
ownership ledgers: every field git does not own, so Argo CD never fights the FederatedHPA or
Karmada over it. Never ``Replace=true``: Karmada denies replacing a policy without its
permanent-id label.

Argo CD checks an Application's own destination, namespace included, against its project
(``ValidatePermissions``): the destination names the tenant's first namespace, and the project
lists every namespace of the tenant, so each object syncs to its own namespace
(``validateSyncPermissions``). ``compiler/argocd/permissions.py`` replays both at compile time.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from compiler.compile.summary import AppSummary
from webhook.bundle.model import ArgoCD, Bundle

API_VERSION = "argoproj.io/v1alpha1"
FOLDER = "argocd"
ROOT_APPLICATION = "fedgate-tenants"
ROOT_PROJECT = "fedgate-root"
"""The root Application's AppProject: Argo CD's ``default`` permits everything everywhere."""
IN_CLUSTER = "https://kubernetes.default.svc"
ROOT_KINDS = (("argoproj.io", "AppProject"), ("argoproj.io", "Application"))
"""All the root Application syncs: the tenants' AppProjects and Applications (and its own)."""
SYNC_OPTIONS = ["RespectIgnoreDifferences=true"]
RENDERED_KINDS = (
    ("apps", "Deployment"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("autoscaling.karmada.io", "FederatedHPA"),
    ("policy.karmada.io", "OverridePolicy"),
    ("policy.karmada.io", "PropagationPolicy"),
)
"""What fedgate renders for a tenant."""
REFERENCED_KINDS = (("", "ConfigMap"), ("", "Secret"))
"""What an app spec references (``envFrom``) and its PropagationPolicy selects."""


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _metadata(name: str, settings: ArgoCD, tenant: str | None = None) -> dict[str, Any]:
    labels = {"app.kubernetes.io/managed-by": "fedgate"}
    if tenant:
        labels["fedgate.dev/tenant"] = tenant
    return {"name": name, "namespace": settings.namespace, "labels": labels}


def _destination(settings: ArgoCD, namespace: str | None = None) -> dict[str, str]:
    destination = (
        {"name": settings.destination_name}
        if settings.destination_name
        else {"server": settings.destination_server or ""}
    )
    if namespace:
        destination["namespace"] = namespace
    return destination


def ignore_differences(apps: Sequence[AppSummary]) -> list[dict[str, Any]]:
    """Every non-git field of every object: shared ones once per kind, the rest per object.

    ``/status`` is left out: Argo CD ignores status by default."""
    owned: dict[tuple[str, str], list[tuple[str, str, set[str]]]] = defaultdict(list)
    for app in apps:
        for api_version, kind, name, fields in app.owned:
            owned[(_group(api_version), kind)].append((app.namespace, name, set(fields)))
    entries: list[dict[str, Any]] = []
    for (group, kind), objects in sorted(owned.items()):
        shared = set.intersection(*(pointers for _, _, pointers in objects))
        head = {"group": group, "kind": kind} if group else {"kind": kind}
        if shared:
            entries.append({**head, "jsonPointers": sorted(shared)})
        for namespace, name, pointers in sorted(objects):
            if pointers - shared:
                entries.append(
                    {
                        **head,
                        "name": name,
                        "namespace": namespace,
                        "jsonPointers": sorted(pointers - shared),
                    }
                )
    return entries


def _application(
    tenant: str, namespaces: Sequence[str], apps: Sequence[AppSummary], settings: ArgoCD
) -> dict[str, Any]:
    include = ",".join(f"{namespace}/*" for namespace in namespaces)
    return {
        "apiVersion": API_VERSION,
        "kind": "Application",
        "metadata": _metadata(f"fedgate-{tenant}", settings, tenant),
        "spec": {
            "project": tenant,
            "source": {
                "repoURL": settings.repo_url,
                "targetRevision": settings.target_revision,
                "path": settings.path,
                "directory": {"recurse": True, "include": f"{{{include}}}"},
            },
            "destination": _destination(settings, namespaces[0]),
            "syncPolicy": {
                "automated": {"prune": True, "selfHeal": True},
                "syncOptions": list(SYNC_OPTIONS),
            },
            "ignoreDifferences": ignore_differences(apps),
        },
    }


def tenant_kinds(settings: ArgoCD) -> list[dict[str, str]]:
    """The namespaced kinds a tenant's project permits: fedgate's, the data its apps reference,
    and the platform's ``tenantKinds``; nothing cluster-scoped."""
    kinds = dict.fromkeys((*RENDERED_KINDS, *REFERENCED_KINDS, *settings.tenant_kinds))
    return [{"group": group, "kind": kind} for group, kind in sorted(kinds)]


def _project(tenant: str, namespaces: Sequence[str], settings: ArgoCD) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "AppProject",
        "metadata": _metadata(tenant, settings, tenant),
        "spec": {
            "description": f"fedgate tenant {tenant}: its namespaces on the Karmada API server",
            "sourceRepos": [settings.repo_url],
            "destinations": [_destination(settings, n) for n in namespaces],
            "clusterResourceWhitelist": [],
            "namespaceResourceWhitelist": tenant_kinds(settings),
        },
    }


def _root_project(settings: ArgoCD) -> dict[str, Any]:
    """What the root Application may sync: Applications and AppProjects in Argo CD's namespace
    of its own cluster, from the platform repository; nothing cluster-scoped, no other place."""
    return {
        "apiVersion": API_VERSION,
        "kind": "AppProject",
        "metadata": _metadata(ROOT_PROJECT, settings),
        "spec": {
            "description": "fedgate's root Application: the tenants' Applications and AppProjects",
            "sourceRepos": [settings.repo_url],
            "destinations": [{"server": IN_CLUSTER, "namespace": settings.namespace}],
            "clusterResourceWhitelist": [],
            "namespaceResourceWhitelist": [{"group": g, "kind": k} for g, k in ROOT_KINDS],
        },
    }


def _root(settings: ArgoCD, files: Sequence[str]) -> dict[str, Any]:
    """The Application syncing ``files`` (fedgate's, under the folder) into Argo CD. Its
    directory include names them, so Argo CD reads nothing else of the folder (no hand-written
    Application, no kustomization.yaml or Chart.yaml making it a Kustomize or Helm source)."""
    names = ",".join(sorted(f.rsplit("/", 1)[-1] for f in files))
    return {
        "apiVersion": API_VERSION,
        "kind": "Application",
        "metadata": _metadata(ROOT_APPLICATION, settings),
        "spec": {
            "project": ROOT_PROJECT,
            "source": {
                "repoURL": settings.repo_url,
                "targetRevision": settings.target_revision,
                "path": f"{settings.path}/{FOLDER}",
                "directory": {"include": f"{{{names}}}"},
            },
            "destination": {"server": IN_CLUSTER, "namespace": settings.namespace},
            "syncPolicy": {"automated": {"prune": True, "selfHeal": True}},
        },
    }


def render_argocd(apps: Sequence[AppSummary], bundle: Bundle) -> dict[str, dict[str, Any]]:
    """Path (relative to the output directory) -> Argo CD object; none without argocd.yaml.

    Every tenant of the bundle gets its project and Application, apps or not."""
    settings = bundle.argocd
    if settings is None:
        return {}
    by_tenant: dict[str, list[AppSummary]] = defaultdict(list)
    for app in apps:
        by_tenant[app.tenant].append(app)
    files = {f"{FOLDER}/{ROOT_PROJECT}.yaml": _root_project(settings)}
    for tenant in sorted(bundle.tenants.values(), key=lambda t: t.name):
        namespaces = sorted(tenant.namespaces)
        if not namespaces:
            continue
        files[f"{FOLDER}/{tenant.name}-application.yaml"] = _application(
            tenant.name, namespaces, by_tenant[tenant.name], settings
        )
        files[f"{FOLDER}/{tenant.name}-project.yaml"] = _project(tenant.name, namespaces, settings)
    root = f"{FOLDER}/{ROOT_APPLICATION}.yaml"
    files[root] = _root(settings, [*files, root])
    return dict(sorted(files.items()))

"""What compile checks of the Argo CD pieces: Argo CD accepts every Application and syncs every
object fedgate renders (errors), and the declared Argo CD version keeps the replicas an
autoscaler owns (warnings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compiler.argocd.sync import ArgoCDTree, Selections
from compiler.compile.summary import AppSummary
from compiler.render.argocd import ROOT_PROJECT
from compiler.render.pipeline import object_path
from webhook.bundle.model import ArgoCD, Bundle
from webhook.errors import Finding

RESPECT_IGNORE_FIX = {(2, 7): 18, (2, 8): 15, (2, 9): 11, (2, 10): 6}
"""The first patch release of each minor with argo-cd #17693 ("fix calculating patch for
respect ignore diff feature"); every release from 2.11.0 has it."""


def keeps_absent_ignored_fields(version: tuple[int, int, int]) -> bool:
    """Whether this Argo CD copies the live value of an ignored field that Git leaves out into
    what it applies (``RespectIgnoreDifferences=true``, ``normalizeTargetResources``)."""
    major, minor, patch = version
    if (major, minor) >= (2, 11):
        return True
    first = RESPECT_IGNORE_FIX.get((major, minor))
    return first is not None and patch >= first


def _display(version: tuple[int, int, int]) -> str:
    return "v" + ".".join(map(str, version))


def _argocd_file(bundle: Bundle) -> str:
    return f"{bundle.source}/argocd.yaml"


def refusals(
    apps: Sequence[AppSummary],
    objects: Mapping[str, Mapping[str, Any]],
    bundle: Bundle,
    selections: Selections | None = None,
) -> list[Finding]:
    """Every Application Argo CD would refuse and every rendered object it would not sync;
    ``selections`` as ``ArgoCDTree.of`` takes them."""
    settings = bundle.argocd
    if settings is None:
        return []
    tree = ArgoCDTree.of(objects.values(), selections)
    where = _argocd_file(bundle)
    findings = [
        Finding(where, 0, "argocd", f"Argo CD would refuse Application {name}: {why}")
        for name, why in tree.application_refusals()
    ]
    if ROOT_PROJECT in bundle.tenants:
        findings.append(
            Finding(
                f"{bundle.source}/tenants.yaml",
                0,
                "tenants",
                f"tenant {ROOT_PROJECT}: its AppProject would replace the root Application's "
                "(which permits Argo CD's own Applications and AppProjects); rename the tenant",
            )
        )
    for path, obj in objects.items():
        for why in tree.object_refusals(f"{settings.path}/{path}", obj):
            findings.append(Finding(where, 0, "argocd", f"{path}: {why}"))
    for app in apps:
        for api_version, kind, name, _ in app.owned:
            path = object_path(app.namespace, app.name, kind)
            obj = {
                "apiVersion": api_version,
                "kind": kind,
                "metadata": {"name": name, "namespace": app.namespace},
            }
            for why in tree.object_refusals(f"{settings.path}/{path}", obj):
                findings.append(app.finding(("metadata", "namespace"), f"{path}: {why}"))
    return findings


def version_warnings(apps: Sequence[AppSummary], settings: ArgoCD | None) -> list[Finding]:
    """With an Argo CD older than the RespectIgnoreDifferences fix, each app whose replicas an
    autoscaler owns is safe only while the live Deployment remembers no replicas."""
    if settings is None or settings.version is None:
        return []
    if keeps_absent_ignored_fields(settings.version):
        return []
    version = _display(settings.version)
    return [
        app.finding(
            ("spec", "autoscaling", "owner"),
            f"Argo CD {version} (policies/argocd.yaml) does not keep the live value of an "
            "ignored field that Git leaves out (argo-cd #17693, fixed in v2.7.18, v2.8.15, "
            "v2.9.11, v2.10.6 and v2.11.0): /spec/replicas, which the autoscaler owns, is safe "
            "only while the live Deployment's kubectl.kubernetes.io/last-applied-configuration "
            "holds no replicas; upgrade Argo CD",
        )
        for app in apps
        if any(kind == "Deployment" and "/spec/replicas" in p for _, kind, _, p in app.owned)
    ]

"""No silent wipe: a change that would take every workload of a tenant, or of the whole tree,
out of the rendered tree is refused unless the user says so.

With ``prune: true`` Argo CD deletes from the Karmada API server (and so from every member
cluster) whatever leaves the tree it syncs. An empty or mistyped APPS directory, a CMP that
emits nothing or a bad merge would otherwise delete every tenant's workloads. Pure: paths in,
findings out; the shells read the previous tree (the manifest of ``--out``, or git HEAD).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from compiler.render.argocd import FOLDER as ARGOCD_FOLDER
from webhook.bundle.model import Bundle

ALLOW_FLAG = "--allow-empty"


@dataclass(frozen=True)
class Wipe:
    """Every workload file of ``tenant`` (None: of the whole tree) would leave the tree."""

    tenant: str | None
    apps: tuple[str, ...]
    """``namespace/app`` directories that go."""
    files: int

    def message(self) -> str:
        whose = f"tenant {self.tenant}" if self.tenant else "every tenant"
        apps = f"{len(self.apps)} app{'s' if len(self.apps) != 1 else ''}"
        shown = ", ".join(self.apps[:5]) + (", ..." if len(self.apps) > 5 else "")
        return (
            f"this deletes every workload of {whose}: {apps} ({shown}), "
            f"{self.files} manifest{'s' if self.files != 1 else ''}; Argo CD would prune them "
            f"from the Karmada API server and every member cluster. If that is what you want, "
            f"pass {ALLOW_FLAG}"
        )


def workload_paths(paths: Iterable[str]) -> set[str]:
    """The Karmada manifests among rendered paths (not the Argo CD pieces)."""
    return {
        p
        for p in paths
        if not p.startswith(f"{ARGOCD_FOLDER}/") and p.endswith((".yaml", ".yml", ".json"))
    }


def _app_of(path: str) -> str:
    return "/".join(path.split("/")[:2])


def wipes(old: Iterable[str], new: Iterable[str], bundle: Bundle) -> list[Wipe]:
    """The tenants (or the whole tree) that had workload files in ``old`` and have none in
    ``new``; one entry for the whole tree when nothing is left at all."""
    before, after = workload_paths(old), workload_paths(new)
    if before and not after:
        return [Wipe(None, tuple(sorted({_app_of(p) for p in before})), len(before))]
    tenant_of = {ns: t.name for t in bundle.tenants.values() for ns in t.namespaces}
    had: dict[str, set[str]] = defaultdict(set)
    for path in before:
        tenant = tenant_of.get(path.split("/")[0])
        if tenant:
            had[tenant].add(path)
    kept = {tenant_of.get(p.split("/")[0]) for p in after}
    return [
        Wipe(tenant, tuple(sorted({_app_of(p) for p in paths})), len(paths))
        for tenant, paths in sorted(had.items())
        if tenant not in kept
    ]

"""Argo CD's sync of the examples into the live federation, shared by the e2e test modules.

``fedgate compile`` of ``examples/apps`` into a ``rendered/`` tree, then what Argo CD's default
sync runs (client-side ``kubectl apply`` of each tenant's folder, as Argo CD's user): the first
sync, a resync and a change (checkout's image bumped). The session fixture ``synced``
(tests/e2e/conftest.py) runs it once per layout."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.e2e.conftest import ARGOCD, ARGOCD_GROUPS, Federation
from tests.e2e.identities import cluster_admin

REPO = Path(__file__).resolve().parents[2]
FEDGATE = str(Path(sys.executable).with_name("fedgate"))
TENANT_FOLDERS = ("payments", "platform-demo")


@dataclass
class Synced:
    rendered: Path
    first: subprocess.CompletedProcess[str]
    resync: subprocess.CompletedProcess[str]
    change: subprocess.CompletedProcess[str]


def compile_apps(apps: Path, out: Path) -> None:
    subprocess.run(
        [FEDGATE, "compile", str(apps), "--out", str(out), "--policies", str(REPO / "policies")],
        cwd=REPO,
        check=True,
        capture_output=True,
    )


def argocd_sync(federation: Federation, rendered: Path) -> subprocess.CompletedProcess[str]:
    """What Argo CD's default sync runs: client-side kubectl apply of each tenant's folder."""
    paths = [arg for folder in TENANT_FOLDERS for arg in ("-f", str(rendered / folder))]
    return federation.kubectl("apply", "-R", *paths, user=ARGOCD[0], groups=ARGOCD_GROUPS)


def sync_examples(federation: Federation, work: Path) -> Synced:
    """Compile the examples into ``work`` and sync them as Argo CD does: first, again, changed."""
    rendered = work / "rendered"
    compile_apps(REPO / "examples" / "apps", rendered)
    # The platform's part, outside fedgate: the tenants' namespaces, and RBAC letting Argo CD
    # (as `argocd cluster add` does) and the tenants write, so only fedgate stands in the way.
    setup = [
        *(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            for name in TENANT_FOLDERS
        ),
        cluster_admin("e2e-argocd-manager", "User", ARGOCD[0]),
        cluster_admin("e2e-team-a", "Group", "team-a"),
    ]
    result = federation.kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all(setup))
    assert result.returncode == 0, result.stderr
    first = argocd_sync(federation, rendered)
    resync = argocd_sync(federation, rendered)
    apps = work / "apps"
    shutil.copytree(REPO / "examples" / "apps", apps)
    spec = apps / "checkout.yaml"
    spec.write_text(spec.read_text().replace("checkout:1.8.0", "checkout:1.8.1"))
    compile_apps(apps, rendered)
    change = argocd_sync(federation, rendered)
    return Synced(rendered, first, resync, change)

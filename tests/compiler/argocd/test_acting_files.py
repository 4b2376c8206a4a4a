"""Files Argo CD acts on that fedgate does not judge as objects, per Argo CD's repo server."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.argocd.acting_files import acting_files, source_override
from compiler.argocd.sync import ArgoCDTree


def _application(name: str, path: str, include: str = "") -> dict[str, Any]:
    directory: dict[str, Any] = {"recurse": True}
    if include:
        directory["include"] = include
    return {
        "kind": "Application",
        "metadata": {"name": name},
        "spec": {"project": name, "source": {"path": path, "directory": directory}},
    }


TEAM_A = _application("fedgate-team-a", "rendered", "{platform-demo/*}")
ROOT = _application("fedgate-tenants", "rendered/argocd")
TENANTS = ArgoCDTree.of([TEAM_A])


@pytest.mark.parametrize(
    ("name", "merged"),
    [
        (".argocd-source.yaml", True),
        (".argocd-source-fedgate-team-a.yaml", True),
        (".argocd-source-.yaml", False),  # ``%s`` of an empty name is never asked for
        (".argocd-source.yml", False),  # only .yaml is read (repoSourceFile, appSourceFile)
        ("argocd-source.yaml", False),
        (".ARGOCD-SOURCE.yaml", False),
    ],
)
def test_source_override_names(name: str, merged: bool) -> None:
    assert source_override(name) is merged


@pytest.mark.parametrize(
    ("path", "start"),
    [
        pytest.param(
            ".argocd-source-fedgate-team-a.yaml",
            "Argo CD's repo server merges this file into the source of Argo CD Application "
            "fedgate-team-a before",
            id="named-for-team-a-at-its-path",
        ),
        pytest.param(
            ".argocd-source.yaml",
            "Argo CD's repo server merges this file into the source of Argo CD Application "
            "fedgate-team-a before",
            id="for-every-application-at-its-path",
        ),
        pytest.param(
            "argocd/.argocd-source.yaml",
            "Argo CD's repo server merges this file into the source of Argo CD Application "
            "fedgate-tenants before",
            id="the-root-applications",
        ),
        pytest.param(
            "argocd/extra.yaml", "only fedgate writes rendered/argocd/", id="argo-cd-folder"
        ),
        pytest.param(
            "platform-demo/x.jsonnet",
            "Argo CD evaluates this jsonnet file (fedgate-team-a renders",
            id="synced-jsonnet",
        ),
        pytest.param("stray/x.jsonnet", None, id="unsynced-jsonnet"),
        pytest.param("platform-demo/x.yaml", None, id="a-manifest"),
    ],
)
def test_acting_files(path: str, start: str | None) -> None:
    found = acting_files([path], "rendered", TENANTS, [TEAM_A, ROOT], "argocd")
    if start is None:
        assert found == []
    else:
        [(where, why)] = found
        assert where == path and why.startswith(start)


def test_without_applications_every_jsonnet_file_is_synced() -> None:
    [(_, why)] = acting_files(["a/x.jsonnet"], "rendered", None, [], "argocd")
    assert why.startswith("Argo CD evaluates this jsonnet file (the Application syncing")

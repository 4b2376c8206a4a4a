"""Files of the synced tree Argo CD acts on that fedgate does not judge as Kubernetes objects.

Each answer is read from Argo CD's repo server (``reposerver/repository/repository.go``, the
same from v2.6.0 to 3.x):

- ``.argocd-source.yaml`` and ``.argocd-source-<app>.yaml`` at an Application's
  ``source.path`` are merged into its source before anything is rendered
  (``mergeSourceParameters``, a JSON merge patch): they can narrow or widen the directory
  include, exclude, recursion and jsonnet settings, or turn the source into Helm, Kustomize or
  a plugin. One narrowing a tenant's include makes Argo CD prune every app left out. fedgate
  writes none, so every such file is refused, wherever it is in the tree.
- ``.jsonnet`` files a directory source selects are evaluated (``findManifests``), and what
  they produce is applied: fedgate cannot judge it, so a selected one is refused (a file no
  Application selects is only warned about, with the other unsynced files).
- The Argo CD folder is synced by the root Application into Argo CD itself: an Application
  written there may name any project and any destination, an AppProject may permit
  everything. Only fedgate writes there.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from compiler.argocd.glob import GlobPanic
from compiler.argocd.sync import ArgoCDTree

REPO_SOURCE_FILE = ".argocd-source.yaml"
APP_SOURCE_FILE = re.compile(r"\.argocd-source-(.+)\.yaml\Z", re.DOTALL)
"""``appSourceFile``: ``.argocd-source-%s.yaml`` with the Application's name."""
JSONNET = ".jsonnet"


def _name(application: Mapping[str, Any]) -> str:
    return str((application.get("metadata") or {}).get("name", ""))


def _source_path(application: Mapping[str, Any]) -> str:
    path = str(((application.get("spec") or {}).get("source") or {}).get("path") or ".")
    cleaned = posixpath.normpath(path)
    return "" if cleaned == "." else cleaned


def source_override(name: str) -> bool:
    """Whether a file of this name is one Argo CD merges into an Application's source."""
    return name == REPO_SOURCE_FILE or APP_SOURCE_FILE.match(name) is not None


def _merged_into(repo_path: str, applications: Iterable[Mapping[str, Any]]) -> list[str]:
    """The Applications whose source Argo CD merges the file at ``repo_path`` into."""
    directory, _, name = repo_path.rpartition("/")
    directory = posixpath.normpath(directory or ".")
    directory = "" if directory == "." else directory
    wanted = APP_SOURCE_FILE.match(name)
    return sorted(
        _name(app)
        for app in applications
        if _source_path(app) == directory and (wanted is None or wanted.group(1) == _name(app))
    )


def _override_message(repo_path: str, applications: Sequence[Mapping[str, Any]]) -> str:
    merged = _merged_into(repo_path, applications)
    whose = (
        f"the source of Argo CD Application {', '.join(merged)}"
        if merged
        else "the source of every Application whose path is this folder (and of the one it names)"
    )
    return (
        f"Argo CD's repo server merges this file into {whose} before rendering it (directory "
        "include, exclude, recursion, jsonnet, or a Helm, Kustomize or plugin source instead): "
        "it changes what Argo CD syncs and prunes, and fedgate writes no such file; remove it"
    )


def _jsonnet_message(syncing: Sequence[Mapping[str, Any]]) -> str:
    names = ", ".join(sorted(_name(a) for a in syncing)) or "the Application syncing the tree"
    return (
        f"Argo CD evaluates this jsonnet file ({names} renders every .jsonnet file its directory "
        "source selects) and applies what it produces, which fedgate cannot judge: write the "
        "objects as YAML or JSON, or keep the file out of the synced folders"
    )


def _argocd_folder_message(folder: str) -> str:
    return (
        f"only fedgate writes {folder}/: the root Application syncs it into Argo CD itself, "
        "where an Application can name any project and destination and an AppProject can "
        "permit everything; fedgate's root Application reads only fedgate's files there (its "
        "directory include). Remove this file, or add what it should do to the app specs or "
        "policies/argocd.yaml"
    )


def acting_files(
    paths: Iterable[str],
    prefix: str,
    argocd: ArgoCDTree | None,
    applications: Sequence[Mapping[str, Any]],
    argocd_folder: str,
) -> list[tuple[str, str]]:
    """(path, why) for each hand-written file of the tree (``paths``, relative to the tree,
    which is ``prefix`` in the repository) that Argo CD acts on and fedgate does not judge.
    ``argocd`` holds the tenant Applications (None: no policies/argocd.yaml, the whole tree is
    taken as synced); ``applications`` every Application fedgate writes, the root included;
    ``argocd_folder`` is the folder the root Application syncs, relative to the tree."""
    found = []
    for path in paths:
        repo_path = f"{prefix}/{path}"
        name = path.rpartition("/")[2]
        if source_override(name):
            found.append((path, _override_message(repo_path, applications)))
        elif path.startswith(f"{argocd_folder}/"):
            found.append((path, _argocd_folder_message(f"{prefix}/{argocd_folder}")))
        elif path.endswith(JSONNET):
            try:
                syncing = argocd.syncing(repo_path) if argocd is not None else []
            except GlobPanic:
                continue  # reported as the Application's own refusal
            if argocd is None or syncing:
                found.append((path, _jsonnet_message(syncing)))
    return found

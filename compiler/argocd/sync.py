"""Would Argo CD accept the Applications fedgate writes, and sync every object they select?

``ArgoCDTree`` holds the rendered Applications and AppProjects; it answers which Applications
read a file of the repository (``directory.selects``), what Argo CD says of each Application
(``ValidatePermissions``) and of each object (``validateSyncPermissions``), in Argo CD's words
(``permissions.py``). The compiler refuses to write a tree Argo CD would refuse.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from compiler.argocd import directory, permissions
from compiler.argocd.glob import GlobPanic

Selections = dict[str, dict[str, list[int]]]
"""Remembered answers of ``ArgoCDTree.syncing``: for the Applications of one digest
(``ArgoCDTree.digest``), each repository path asked about and the indexes of the Applications
that read it. Plain JSON, kept between runs by the compile cache."""


def digest(applications: Iterable[Mapping[str, Any]]) -> str:
    """What ``syncing`` depends on, as a sha256: every Application, whole, in order."""
    return hashlib.sha256(orjson.dumps(list(applications), option=orjson.OPT_SORT_KEYS)).hexdigest()


def _well_formed(remembered: object, applications: int) -> bool:
    """Answers as ``syncing`` writes them (a cache read back may hold anything)."""
    return isinstance(remembered, dict) and all(
        isinstance(path, str)
        and isinstance(indexes, list)
        and all(type(i) is int and 0 <= i < applications for i in indexes)
        for path, indexes in remembered.items()
    )


@dataclass(frozen=True)
class ArgoCDTree:
    """The tenant Applications and their AppProjects: which one syncs a file, and if it may."""

    applications: tuple[Mapping[str, Any], ...]
    projects: Mapping[str, Mapping[str, Any]]
    remembered: dict[str, list[int]] = field(default_factory=dict, compare=False, repr=False)
    """Paths already answered, for these very Applications (see ``Selections``)."""

    @classmethod
    def of(
        cls, objects: Iterable[Mapping[str, Any]], selections: Selections | None = None
    ) -> ArgoCDTree:
        """The Applications and AppProjects among ``objects``; ``selections`` (updated in
        place) lends and keeps the answers for Applications of the same digest: it is left
        with that digest's answers only."""
        applications, projects = [], {}
        for obj in objects:
            if obj.get("kind") == "Application":
                applications.append(obj)
            elif obj.get("kind") == "AppProject":
                projects[(obj.get("metadata") or {}).get("name", "")] = obj
        if selections is None:
            return cls(tuple(applications), projects)
        key = digest(applications)
        remembered = selections.get(key)
        if remembered is None or not _well_formed(remembered, len(applications)):
            remembered = {}
        selections.clear()
        selections[key] = remembered
        return cls(tuple(applications), projects, remembered)

    def project(self, application: Mapping[str, Any]) -> Mapping[str, Any] | None:
        name = (application.get("spec") or {}).get("project") or "default"
        if name in self.projects:
            return self.projects[name]
        return permissions.DEFAULT_PROJECT if name == "default" else None

    def syncing(self, repo_path: str) -> list[Mapping[str, Any]]:
        """The Applications whose directory source reads ``repo_path``; GlobPanic when Argo CD's
        repo server would crash deciding it (a directory include or exclude)."""
        known = self.remembered.get(repo_path)
        if known is None:
            known = [
                index
                for index, app in enumerate(self.applications)
                if directory.selects((app.get("spec") or {}).get("source") or {}, repo_path)
            ]
            self.remembered[repo_path] = known
        return [self.applications[index] for index in known]

    def application_refusals(self) -> list[tuple[str, str]]:
        """(Application name, Argo CD's InvalidSpecError message) for each one it refuses."""
        refusals = []
        for app in self.applications:
            name = (app.get("metadata") or {}).get("name", "")
            project = self.project(app)
            if project is None:
                wanted = (app.get("spec") or {}).get("project")
                refusals.append((name, f"AppProject {wanted!r} does not exist"))
                continue
            messages = permissions.application_refusals(app, project)
            refusals.extend((name, message) for message in messages)
        return refusals

    def object_refusals(
        self, repo_path: str, obj: Mapping[str, Any], *, namespaced: bool = True
    ) -> list[str]:
        """Why Argo CD would not sync ``obj`` (read from ``repo_path``); [] when it would."""
        try:
            syncing = self.syncing(repo_path)
        except GlobPanic as panic:
            return [f"Argo CD's repo server would fail to generate the manifests: {panic}"]
        if not syncing:
            return ["no Argo CD Application syncs this file: it would never reach the cluster"]
        if len(syncing) > 1:
            names = ", ".join(sorted((a.get("metadata") or {}).get("name", "") for a in syncing))
            return [f"two Applications sync this file ({names}): they would fight over it"]
        app = syncing[0]
        project = self.project(app)
        if project is None:
            return []  # reported once, as the Application's own refusal
        cluster = permissions.application_cluster(app)
        refusal = permissions.sync_refusal(project, cluster, obj, namespaced=namespaced)
        app_name = (app.get("metadata") or {}).get("name", "")
        return [f"Argo CD Application {app_name}: {refusal}"] if refusal else []

"""Would Argo CD accept the Applications fedgate writes, and sync every object they select?

``ArgoCDTree`` holds the rendered Applications and AppProjects; it answers which Applications
read a file of the repository (``directory.selects``), what Argo CD says of each Application
(``ValidatePermissions``) and of each object (``validateSyncPermissions``), in Argo CD's words
(``permissions.py``). The compiler refuses to write a tree Argo CD would refuse.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from compiler.argocd import directory, permissions


@dataclass(frozen=True)
class ArgoCDTree:
    applications: tuple[Mapping[str, Any], ...]
    projects: Mapping[str, Mapping[str, Any]]

    @classmethod
    def of(cls, objects: Iterable[Mapping[str, Any]]) -> ArgoCDTree:
        applications, projects = [], {}
        for obj in objects:
            if obj.get("kind") == "Application":
                applications.append(obj)
            elif obj.get("kind") == "AppProject":
                projects[(obj.get("metadata") or {}).get("name", "")] = obj
        return cls(tuple(applications), projects)

    def project(self, application: Mapping[str, Any]) -> Mapping[str, Any] | None:
        name = (application.get("spec") or {}).get("project") or "default"
        if name in self.projects:
            return self.projects[name]
        return permissions.DEFAULT_PROJECT if name == "default" else None

    def syncing(self, repo_path: str) -> list[Mapping[str, Any]]:
        """The Applications whose directory source reads ``repo_path``."""
        return [
            app
            for app in self.applications
            if directory.selects((app.get("spec") or {}).get("source") or {}, repo_path)
        ]

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
        syncing = self.syncing(repo_path)
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

"""Argo CD's AppProject rules, ported from its source, to refuse at compile time what Argo CD
would refuse at sync time.

Sources (argoproj/argo-cd; the same logic from v2.6.0 to 3.x):

- ``pkg/apis/application/v1alpha1/app_project_types.go``: ``IsSourcePermitted``,
  ``IsDestinationPermitted`` / ``isDestinationMatched`` (gobwas globs, ``!`` deny patterns),
  ``IsGroupKindNamePermitted`` (white- and blacklists matched with ``filepath.Match``; an absent
  namespaced whitelist permits every kind, an empty one none; a cluster-scoped kind needs a
  non-empty whitelist entry);
- ``util/argo/argo.go`` ``ValidatePermissions``: an Application whose repository or destination
  (server or name, and namespace) its project does not permit gets an ``InvalidSpecError`` and
  never syncs;
- ``controller/sync.go`` ``validateSyncPermissions``: each object synced must be a permitted
  group/kind and, when namespaced, go to a permitted namespace of the destination cluster.

Everything here reads the objects as fedgate renders them (plain mappings) and answers with
Argo CD's own sentences, so a refusal reads the same as the Application condition would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from compiler.argocd.glob import match, path_match

DEFAULT_PROJECT: Mapping[str, Any] = {
    "metadata": {"name": "default"},
    "spec": {
        "sourceRepos": ["*"],
        "destinations": [{"server": "*", "namespace": "*"}],
        "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
    },
}
"""The project Argo CD creates at first start (``server/server.go`` initializeDefaultProject)."""


@dataclass(frozen=True)
class Cluster:
    """The destination cluster as Argo CD resolves it: a name, a server URL, or both."""

    name: str = ""
    server: str = ""


def _spec(project: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = project.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _is_deny(pattern: str) -> bool:
    return pattern.startswith("!")


def glob_match(pattern: str, value: str, *, allow_negation: bool, separators: str = "") -> bool:
    """``globMatch`` of app_project_types.go."""
    if allow_negation and _is_deny(pattern):
        return not match(pattern[1:], value, separators)
    if pattern == "*":
        return True
    return match(pattern, value, separators)


def normalize_git_url(repo: str) -> str:
    """``util/git.NormalizeGitURL``: lower case, ``git@host:path`` as ``host/path``, no
    ``.git`` suffix."""
    repo = repo.strip().lower()
    if "@" in repo and not repo.startswith(("ssh://", "http://", "https://")):
        repo = "ssh://" + repo.replace(":", "/", 1)
    repo = repo.removesuffix(".git")
    try:
        urlsplit(repo)
    except ValueError:
        return ""
    return repo.removeprefix("ssh://")


def source_permitted(project: Mapping[str, Any], repo_url: str) -> bool:
    """``IsSourcePermitted``."""
    source = normalize_git_url(repo_url)
    matched_any = False
    for pattern in _spec(project).get("sourceRepos") or []:
        if _is_deny(pattern):
            normalized = "!" + normalize_git_url(pattern[1:])
        else:
            normalized = normalize_git_url(pattern)
        if glob_match(normalized, source, allow_negation=True, separators="/"):
            matched_any = True
        elif _is_deny(normalized):
            return False
    return matched_any


def destination_permitted(project: Mapping[str, Any], cluster: Cluster, namespace: str) -> bool:
    """``IsDestinationPermitted`` (without ``permitOnlyProjectScopedClusters``, which fedgate's
    projects do not set) through ``isDestinationMatched``."""
    if _spec(project).get("permitOnlyProjectScopedClusters"):
        return False  # needs Argo CD's cluster secrets to answer; refuse rather than guess
    matched_any = False
    for item in _spec(project).get("destinations") or []:
        name, server = item.get("name") or "", item.get("server") or ""
        pattern_namespace = item.get("namespace") or ""
        name_matched = bool(cluster.name) and glob_match(name, cluster.name, allow_negation=True)
        server_matched = bool(cluster.server) and glob_match(
            server, cluster.server, allow_negation=True
        )
        namespace_matched = glob_match(pattern_namespace, namespace, allow_negation=True)
        if (server_matched or name_matched) and namespace_matched:
            matched_any = True
            continue
        denied_cluster = (not name_matched and _is_deny(name)) or (
            not server_matched and _is_deny(server) and namespace_matched
        )
        denied_namespace = not namespace_matched and _is_deny(pattern_namespace) and server_matched
        if denied_cluster or denied_namespace:
            return False
    return matched_any


def _in_list(group: str, kind: str, entries: Sequence[Mapping[str, Any]], name: str = "") -> bool:
    """``isResourceInList`` / ``isNamedResourceInList``."""
    for entry in entries:
        if not path_match(entry.get("kind") or "", kind):
            continue
        if not path_match(entry.get("group") or "", group):
            continue
        if not entry.get("name") or path_match(entry["name"], name):
            return True
    return False


def group_kind_permitted(
    project: Mapping[str, Any], group: str, kind: str, name: str, *, namespaced: bool
) -> bool:
    """``IsGroupKindNamePermitted``."""
    spec = _spec(project)
    if namespaced:
        whitelist = spec.get("namespaceResourceWhitelist")
        blacklist = spec.get("namespaceResourceBlacklist") or []
        whitelisted = whitelist is None or (bool(whitelist) and _in_list(group, kind, whitelist))
        return whitelisted and not (blacklist and _in_list(group, kind, blacklist))
    whitelist = spec.get("clusterResourceWhitelist") or []
    blacklist = spec.get("clusterResourceBlacklist") or []
    whitelisted = bool(whitelist) and _in_list(group, kind, whitelist, name)
    return whitelisted and not (blacklist and _in_list(group, kind, blacklist, name))


def application_cluster(application: Mapping[str, Any]) -> Cluster:
    destination = (application.get("spec") or {}).get("destination") or {}
    return Cluster(name=destination.get("name") or "", server=destination.get("server") or "")


def application_refusals(application: Mapping[str, Any], project: Mapping[str, Any]) -> list[str]:
    """``ValidatePermissions`` for a single-source Application: Argo CD's condition messages."""
    spec = application.get("spec") or {}
    project_name = (project.get("metadata") or {}).get("name", "")
    refusals = []
    repo_url = (spec.get("source") or {}).get("repoURL", "")
    if not source_permitted(project, repo_url):
        refusals.append(f"application repo {repo_url} is not permitted in project '{project_name}'")
    cluster = application_cluster(application)
    namespace = (spec.get("destination") or {}).get("namespace") or ""
    if not destination_permitted(project, cluster, namespace):
        server = cluster.name or cluster.server
        refusals.append(
            f"application destination server '{server}' and namespace '{namespace}' do not "
            f"match any of the allowed destinations in project '{project_name}'"
        )
    return refusals


def sync_refusal(
    project: Mapping[str, Any], cluster: Cluster, obj: Mapping[str, Any], *, namespaced: bool
) -> str | None:
    """``validateSyncPermissions`` for one object; None when Argo CD would sync it."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    kind = str(obj.get("kind", ""))
    metadata = obj.get("metadata") or {}
    name, namespace = metadata.get("name") or "", metadata.get("namespace") or ""
    project_name = (project.get("metadata") or {}).get("name", "")
    if not group_kind_permitted(project, group, kind, name, namespaced=namespaced):
        return f"resource {group}:{kind} is not permitted in project {project_name}"
    if namespaced and not destination_permitted(project, cluster, namespace):
        return f"namespace {namespace} is not permitted in project '{project_name}'"
    return None

"""The writes Argo CD will make from the synced tree, reviewed as the webhook will review them.

Pure: file contents in, reviews out (``commands/check.py`` reads the working tree and git HEAD).

- Which Application syncs a file: the generated tenant Applications' directory sources
  (``compiler/argocd/directory.py``: path relative to ``source.path``, gobwas globs where ``*``
  crosses ``/``, ``{a,b}`` alternatives). A file no Application syncs never reaches the cluster.
  Without ``policies/argocd.yaml`` there are no Applications and the whole tree is taken as
  synced (no ignoreDifferences).
- The write of each object in a file: CREATE when it is not at HEAD, UPDATE with the HEAD
  version as ``oldObject``, DELETE for one that left; from git's identity. A namespaced object
  without a namespace gets its Application's destination namespace, as Argo CD sets it.
- ``RespectIgnoreDifferences=true`` on an UPDATE: every ``ignoreDifferences`` entry of the
  Application that matches the object (group and kind as globs, name and namespace exactly;
  Argo CD's ``ignoreNormalizer``) keeps the live value of its JSON pointers in what is applied
  (``controller/sync.go`` ``normalizeTargetResources``): the HEAD version stands in for the
  live object, so an ignored field takes the old value, or is left out when the old has none.
  Nothing is ignored on CREATE (there is no live object).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import jsonpointer

from compiler.argocd.glob import match
from compiler.argocd.manifests import Manifest
from compiler.argocd.sync import ArgoCDTree
from webhook.bundle.model import Bundle
from webhook.engine.decision import Decision
from webhook.engine.request import AdmissionRequest
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.karmada.jsonpatch import PatchError, apply_patch

SYNC_OPTION = "RespectIgnoreDifferences=true"
CLUSTER_SCOPED = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("storage.k8s.io", "StorageClass"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("policy.karmada.io", "ClusterPropagationPolicy"),
        ("policy.karmada.io", "ClusterOverridePolicy"),
        ("config.karmada.io", "ResourceInterpreterCustomization"),
        ("cluster.karmada.io", "Cluster"),
    }
)
"""Kinds Argo CD must not give a namespace (it asks the API server; fedgate knows these)."""


@dataclass(frozen=True)
class Write:
    """One object's write by Argo CD, and the webhook's decision on it."""

    file: str
    request: AdmissionRequest
    decision: Decision
    application: str | None = None
    notes: tuple[str, ...] = ()


def group_kind(obj: Mapping[str, Any]) -> tuple[str, str]:
    return str(obj.get("apiVersion", "")).rpartition("/")[0], str(obj.get("kind", ""))


def _name(application: Mapping[str, Any] | None) -> str | None:
    if application is None:
        return None
    return str((application.get("metadata") or {}).get("name", ""))


def syncing(argocd: ArgoCDTree | None, repo_path: str) -> list[Mapping[str, Any]]:
    """The Applications that sync ``repo_path``."""
    return [] if argocd is None else argocd.syncing(repo_path)


def with_namespace(obj: Mapping[str, Any], application: Mapping[str, Any] | None) -> dict[str, Any]:
    """The object as Argo CD applies it: a namespaced object without a namespace gets the
    Application's destination namespace."""
    result = dict(obj)
    metadata = dict(result.get("metadata") or {})
    if metadata.get("namespace") or group_kind(obj) in CLUSTER_SCOPED or application is None:
        return result
    namespace = ((application.get("spec") or {}).get("destination") or {}).get("namespace")
    if namespace:
        metadata["namespace"] = namespace
        result["metadata"] = metadata
    return result


def as_synced(
    manifests: Iterable[Manifest], argocd: ArgoCDTree | None, prefix: str
) -> list[Manifest]:
    """Each manifest (its file relative to the tree, which is ``prefix`` in the repository) as
    Argo CD applies it: from a file an Application syncs, a namespaced object without a
    namespace is in that Application's destination namespace. Others are left as written."""
    result = []
    for manifest in manifests:
        apps = syncing(argocd, f"{prefix}/{manifest.file}")
        applied = with_namespace(manifest.object, apps[0]) if apps else manifest.object
        result.append(manifest if applied == manifest.object else replace(manifest, object=applied))
    return result


def ignored_pointers(application: Mapping[str, Any] | None, obj: Mapping[str, Any]) -> list[str]:
    """The ignoreDifferences JSON pointers of ``application`` that apply to ``obj``, when it
    syncs with RespectIgnoreDifferences."""
    if application is None:
        return []
    spec = application.get("spec") or {}
    options = (spec.get("syncPolicy") or {}).get("syncOptions") or []
    if SYNC_OPTION not in options:
        return []
    group, kind = group_kind(obj)
    metadata = obj.get("metadata") or {}
    pointers: list[str] = []
    for entry in spec.get("ignoreDifferences") or []:
        if not (
            match(str(entry.get("group", "")), group)
            and match(str(entry.get("kind", "")), kind)
            and entry.get("name", "") in ("", metadata.get("name"))
            and entry.get("namespace", "") in ("", metadata.get("namespace"))
        ):
            continue
        pointers.extend(str(p) for p in entry.get("jsonPointers") or [])
    return pointers


def keep_live(
    new: Mapping[str, Any], old: Mapping[str, Any], pointers: Sequence[str]
) -> tuple[dict[str, Any], list[str]]:
    """``normalizeTargetResources``: each ignored pointer takes the live (old) value, or is
    removed when the live object has none. Returns the object applied and, for each pointer
    where Git's value differs from it, a note."""
    result = copy.deepcopy(dict(new))
    notes = []
    for pointer in pointers:
        before = _resolve(old, pointer)
        after = _resolve(result, pointer)
        if after != before:
            notes.append(
                f"Argo CD ignores {pointer} here (ignoreDifferences, RespectIgnoreDifferences) "
                "and keeps the live value: this change of it never reaches the cluster"
            )
        try:
            if before is _MISSING:
                if after is not _MISSING:
                    result = apply_patch(result, [{"op": "remove", "path": pointer}], in_place=True)
            else:
                result = _set(result, pointer, before)
        except PatchError:
            continue  # Argo CD skips a normalization patch it cannot apply
    return result, notes


_MISSING = object()


def _resolve(obj: Any, pointer: str) -> Any:
    try:
        return jsonpointer.resolve_pointer(obj, pointer)
    except jsonpointer.JsonPointerException:
        return _MISSING


def _set(obj: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    """Set ``pointer`` to ``value``, creating the objects on the way (a merge patch does)."""
    tokens = jsonpointer.JsonPointer(pointer).parts
    node: Any = obj
    for token in tokens[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(token, {})
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise PatchError(f"cannot set {pointer}")
    if isinstance(node, dict):
        node[tokens[-1]] = copy.deepcopy(value)
    elif isinstance(node, list) and tokens[-1].isdigit() and int(tokens[-1]) < len(node):
        node[int(tokens[-1])] = copy.deepcopy(value)
    else:
        raise PatchError(f"cannot set {pointer}")
    return obj


def _identity(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    metadata = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion", "")),
        str(obj.get("kind", "")),
        str(metadata.get("namespace", "") or ""),
        str(metadata.get("name", "")),
    )


def file_writes(
    file: str,
    new: Sequence[Manifest],
    old: Sequence[Manifest],
    application: Mapping[str, Any] | None,
    bundle: Bundle,
    *,
    unchanged: bool = False,
) -> list[Write]:
    """Every object write Argo CD makes of one file, reviewed (objects paired by identity);
    with ``unchanged``, also the objects it would apply as they are (``check --all``)."""
    before = {_identity(o): o for o in (with_namespace(m.object, application) for m in old)}
    after = {_identity(o): o for o in (with_namespace(m.object, application) for m in new)}
    writes = []
    for key in [*after, *(k for k in before if k not in after)]:
        obj, previous = after.get(key), before.get(key)
        notes: list[str] = []
        if obj is not None and previous is not None:
            obj, notes = keep_live(obj, previous, ignored_pointers(application, obj))
            if obj == previous and not notes and not unchanged:
                continue  # Argo CD has nothing to write
        request = sync_request(obj, previous, bundle)
        writes.append(
            Write(
                file,
                request,
                review(request, bundle, point="check"),
                _name(application),
                tuple(notes),
            )
        )
    return writes


def template_keys(
    policy: Mapping[str, Any], namespace_of_policy: str
) -> list[tuple[str, str, str, str | None]]:
    """(apiVersion, kind, namespace or "" for any, name or None for any) of what a policy's
    selectors can reach: the templates to judge again when the policy changes."""
    spec = policy.get("spec") or {}
    selectors = spec.get("resourceSelectors") or []
    namespaced = policy.get("kind") in ("PropagationPolicy", "OverridePolicy")
    if not selectors:  # an override policy without selectors reaches everything in its scope
        return [("", "", namespace_of_policy if namespaced else "", None)]
    keys = []
    for selector in selectors:
        if not isinstance(selector, Mapping):
            continue
        namespace = namespace_of_policy if namespaced else str(selector.get("namespace") or "")
        keys.append(
            (
                str(selector.get("apiVersion", "")),
                str(selector.get("kind", "")),
                namespace,
                str(selector["name"]) if selector.get("name") else None,
            )
        )
    return keys


def reaches(key: tuple[str, str, str, str | None], identity: tuple[str, str, str, str]) -> bool:
    """Whether a ``template_keys`` entry can reach an object of ``identity``."""
    api_version, kind, namespace, name = key
    return (
        (not api_version or api_version == identity[0])
        and (not kind or kind == identity[1])
        and (not namespace or namespace == identity[2])
        and (name is None or name == identity[3])
    )

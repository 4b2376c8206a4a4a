"""Kubernetes manifests in a directory tree, read the way Argo CD's directory source reads them.

Argo CD (``reposerver/repository/repository.go`` ``getObjsFromYAMLOrJSON``) reads every
``.yaml`` / ``.yml`` file as a stream of documents and every ``.json`` file as one object;
``.jsonnet`` files it evaluates, fedgate cannot (they are listed, not read). Each object must
be a mapping with a string ``apiVersion``, ``kind`` and ``metadata.name``; anything else is a
finding with file, line and field, and the rest of the tree is still read.

``parse_manifests`` is pure (text in, manifests out); ``read_tree`` is the only I/O.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webhook.errors import Finding, describe_os_error
from webhook.yamlsource import YamlSyntaxError, parse_documents

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
UNREAD_SUFFIXES = (".jsonnet",)


@dataclass(frozen=True)
class Manifest:
    """One object of a manifest file: where it is and what it says."""

    file: str
    """The path relative to the tree's root (``/``-separated)."""
    line: int
    object: Mapping[str, Any]
    index: int = 0

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """(apiVersion, kind, namespace, name): what the API server keys it by."""
        metadata = self.object.get("metadata") or {}
        return (
            str(self.object.get("apiVersion", "")),
            str(self.object.get("kind", "")),
            str(metadata.get("namespace", "") or ""),
            str(metadata.get("name", "")),
        )


@dataclass(frozen=True)
class ManifestSet:
    """Every manifest of a tree, the findings that kept others out, and unreadable files."""

    manifests: tuple[Manifest, ...] = ()
    findings: tuple[Finding, ...] = ()
    skipped: tuple[str, ...] = field(default=())
    """Files Argo CD would render but fedgate cannot (``.jsonnet``)."""


def _invalid(obj: Any) -> tuple[str, str] | None:
    """(field, problem) when ``obj`` is not a Kubernetes object fedgate can place."""
    if not isinstance(obj, dict):
        return "", "a manifest must be an object with apiVersion, kind and metadata"
    for key in ("apiVersion", "kind"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            return key, f"{key} must be a non-empty string"
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return "metadata", "metadata must be an object"
    if not isinstance(metadata.get("name"), str) or not metadata["name"]:
        return "metadata.name", "metadata.name must be a non-empty string"
    namespace = metadata.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        return "metadata.namespace", "metadata.namespace must be a string"
    return None


def _json_documents(text: str, file: str) -> Iterator[tuple[int, Any]]:
    try:
        yield 1, json.loads(text)
    except json.JSONDecodeError as exc:
        raise YamlSyntaxError(Finding(file, exc.lineno, "", f"not valid JSON: {exc.msg}")) from None


def parse_manifests(text: str, file: str) -> tuple[list[Manifest], list[Finding]]:
    """The objects of one manifest file (named ``file``); the findings of what is not one."""
    try:
        if file.endswith(".json"):
            documents = list(_json_documents(text, file))
        else:
            documents = [(d.line(()), d.data) for d in parse_documents(text, file)]
    except YamlSyntaxError as exc:
        return [], [exc.finding]
    manifests, findings = [], []
    for index, (line, obj) in enumerate(documents):
        problem = _invalid(obj)
        if problem is not None:
            findings.append(Finding(file, line, problem[0], problem[1]))
            continue
        manifests.append(Manifest(file, line, obj, index))
    return manifests, findings


def tree_files(root: Path) -> list[str]:
    """Every manifest file under ``root`` (relative, sorted); ``root`` may be one file. One
    ``scandir`` per directory (as ``os.walk`` lists them: symbolic links to directories are
    not followed): a thousand apps' tree is listed in milliseconds."""
    if root.is_file():
        return [root.name]
    suffixes = (*MANIFEST_SUFFIXES, *UNREAD_SUFFIXES)
    found: list[str] = []
    pending = [""]
    while pending:
        prefix = pending.pop()
        try:
            entries = list(os.scandir(os.path.join(root, prefix) if prefix else root))
        except OSError:  # os.walk skips a directory it cannot list
            continue
        for entry in entries:
            try:
                is_directory = entry.is_dir()
            except OSError:
                is_directory = False
            if not is_directory:
                if entry.name.endswith(suffixes):
                    found.append(prefix + entry.name)
            elif not entry.is_symlink():
                pending.append(f"{prefix}{entry.name}/")
    return sorted(found)


def read_tree(root: Path, files: Iterable[str] | None = None) -> ManifestSet:
    """Read the manifest files of ``root`` (all of them, or ``files``, relative to it)."""
    base = root.parent if root.is_file() else root
    manifests: list[Manifest] = []
    findings: list[Finding] = []
    skipped: list[str] = []
    for relative in tree_files(root) if files is None else files:
        if relative.endswith(UNREAD_SUFFIXES):
            skipped.append(relative)
            continue
        try:
            text = (base / relative).read_text(encoding="utf-8")
        except OSError as exc:
            findings.append(Finding(relative, 0, "", f"cannot read: {describe_os_error(exc)}"))
            continue
        except UnicodeDecodeError as exc:
            findings.append(Finding(relative, 0, "", f"cannot read: {exc}"))
            continue
        found, problems = parse_manifests(text, relative)
        manifests.extend(found)
        findings.extend(problems)
    return ManifestSet(tuple(manifests), tuple(findings), tuple(skipped))


def duplicates(manifests: Iterable[Manifest]) -> list[Finding]:
    """Two manifests of one object (Argo CD refuses to sync either)."""
    seen: dict[tuple[str, str, str, str], Manifest] = {}
    findings = []
    for manifest in manifests:
        first = seen.setdefault(manifest.identity, manifest)
        if first is not manifest:
            kind, name = manifest.identity[1], "/".join(p for p in manifest.identity[2:] if p)
            findings.append(
                Finding(
                    manifest.file,
                    manifest.line,
                    "",
                    f"{kind} {name} is also defined in {first.file}:{first.line}",
                )
            )
    return findings

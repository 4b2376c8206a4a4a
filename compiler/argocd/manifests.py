"""Kubernetes manifests in a directory tree, read the way Argo CD's directory source reads them.

Argo CD (``reposerver/repository/repository.go`` ``getObjsFromYAMLOrJSON``) reads every
``.yaml`` / ``.yml`` file as a stream of documents and every ``.json`` file as one object;
``.jsonnet`` files it evaluates, fedgate cannot (they are listed, not read). Each object must
be a mapping with a string ``apiVersion``, ``kind`` and ``metadata.name``; anything else is a
finding with file, line and field, and the rest of the tree is still read.

A document whose top-level ``items`` is a list is a list, whatever its kind (a ``List``, a
``ConfigMap`` with ``items``): Argo CD applies each item and never the document itself
(``GenerateManifests``: ``obj.IsList()`` then ``EachListItem``, apimachinery's
``Unstructured.IsList``: an ``items`` field holding a list); ``items: null`` with no ``spec``
or ``status`` applies nothing (``isNullList``). Items are not expanded again.

Scalars are typed as Argo CD's decoder types them (gitops-engine ``kube.SplitYAML``:
apimachinery's YAML-or-JSON decoder over sigs.k8s.io/yaml and go-yaml v2), not as YAML 1.1:
a plain ``y`` or ``N`` is a boolean and ``1e3`` the number 1000 (go-yaml's ``resolve``), so
``privileged: y`` is the privileged container Argo CD applies. A number reaches the API server
as encoding/json writes it, so an integral one below 1e21 (``1e3``, ``1000.0``) is an integer.

``parse_manifests`` is pure (text in, manifests out); ``read_tree`` is the only I/O.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webhook.base.errors import Finding, describe_os_error
from webhook.base.yamlsource import YamlSyntaxError, parse_documents
from webhook.karmada.goyaml import resolve_plain

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


def _as_sent(value: Any) -> Any:
    """A number as the API server receives it from Argo CD: encoding/json writes a float64
    that is integral and below 1e21 as an integer's digits."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _go_plain(text: str) -> Any:
    """A plain YAML scalar as Argo CD's decoder reads it (go-yaml v2), as it is sent."""
    return _as_sent(resolve_plain(text))


def _json_documents(text: str, file: str) -> Iterator[tuple[int, Any]]:
    try:
        yield 1, json.loads(text, parse_float=lambda t: _as_sent(float(t)))
    except json.JSONDecodeError as exc:
        raise YamlSyntaxError(Finding(file, exc.lineno, "", f"not valid JSON: {exc.msg}")) from None


Located = tuple[int, Any, str]
"""(line, object, field path of the object in its document: "" or ``items[3]``)."""


def _json_line(_path: tuple[str | int, ...]) -> int:
    return 1


def _null_list(obj: Mapping[str, Any]) -> bool:
    return "items" in obj and obj["items"] is None and "spec" not in obj and "status" not in obj


def _applied(obj: Any, line: Callable[[tuple[str | int, ...]], int]) -> list[Located]:
    """The objects Argo CD applies of one document: the document, or the items of a list."""
    if not isinstance(obj, dict) or not isinstance(obj.get("items"), list):
        return [] if isinstance(obj, dict) and _null_list(obj) else [(line(()), obj, "")]
    return [(line(("items", i)), item, f"items[{i}]") for i, item in enumerate(obj["items"])]


def parse_manifests(text: str, file: str) -> tuple[list[Manifest], list[Finding]]:
    """The objects of one manifest file (named ``file``) as Argo CD applies them (the items of
    a list, see the module doc); the findings of what is not one."""
    documents: list[tuple[Callable[[tuple[str | int, ...]], int], Any]]
    try:
        if file.endswith(".json"):
            documents = [(_json_line, obj) for _, obj in _json_documents(text, file)]
        else:
            documents = [(d.line, d.data) for d in parse_documents(text, file, plain=_go_plain)]
    except YamlSyntaxError as exc:
        return [], [exc.finding]
    manifests, findings = [], []
    position = 0  # of each applied object in the file, valid or not
    for line, document in documents:
        listed = isinstance(document, dict) and isinstance(document.get("items"), list)
        if listed and not (isinstance(document.get("kind"), str) and document["kind"]):
            findings.append(Finding(file, line(()), "kind", "kind must be a non-empty string"))
            continue
        for at, obj, where in _applied(document, line):
            position += 1
            problem = _invalid(obj)
            if problem is not None:
                path = ".".join(p for p in (where, problem[0]) if p)
                findings.append(Finding(file, at, path, _in_list(problem[1], where)))
                continue
            manifests.append(Manifest(file, at, obj, position - 1))
    return manifests, findings


def _in_list(problem: str, where: str) -> str:
    if not where:
        return problem
    return f"{problem} (Argo CD applies each of a list's items as an object of its own)"


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

"""Compile only the spec files that changed: the rest comes from a cache of FileResults.

The cache lives in the git directory (``.git/fedgate/compile-cache.json``: per clone, never
committed) and is keyed by a fingerprint of fedgate's own code and of the policy bundle, so a
change to either recompiles everything. A spec file is taken from the cache only when its
bytes (sha256) and the name it was given by are the same. A cached file contributes exactly
what a fresh compile of it would: its apps' summaries, its rendered bytes and its warnings;
the checks across files and the Argo CD pieces always run on all of them. The cache also
remembers which Application reads each rendered file (``ArgoCDTree.syncing``, thousands of
glob matches), for Applications whose every byte is the same (``sync.digest``), so a second
compile asks the globs only about new files or changed Applications.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from compiler.argocd.sync import Selections
from compiler.core import Compiled, FileResult, combine, compile_file, render_file
from compiler.output import Progress
from compiler.resolve import Resolver
from compiler.spec.load import parse_specs
from compiler.summary import AppSummary
from webhook.bundle.load import BundleSource, bundle_from_source, read_source
from webhook.bundle.model import Bundle
from webhook.engine.cel import grammar
from webhook.errors import Finding, SpecError, describe_os_error, not_utf8

CACHE_FILE = Path("fedgate") / "compile-cache.json"
_CODE_ROOTS = ("compiler", "webhook")


def code_fingerprint() -> str:
    """What fedgate's rendering depends on: its own source files."""
    digest = hashlib.sha256()
    base = Path(__file__).resolve().parent.parent
    for root in _CODE_ROOTS:
        for path in sorted((base / root).rglob("*.py")):
            digest.update(path.relative_to(base).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def source_fingerprint(source: BundleSource) -> str:
    digest = hashlib.sha256()
    for name, text in sorted(source.files.items()):
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()


def default_cache(start: Path) -> Path | None:
    """``.git/fedgate/compile-cache.json`` of the repository holding ``start``, if any."""
    for directory in (start.resolve(), *start.resolve().parents):
        if (directory / ".git").is_dir():
            return directory / ".git" / CACHE_FILE
    return None


def _encode(sha: str, display: str, result: FileResult) -> dict[str, Any]:
    return {
        "sha256": sha,
        "display": display,
        "apps": [a.as_json() for a in result.apps],
        "files": {p: d.decode() for p, d in result.files.items()},
        "warnings": [[w.file, w.line, w.path, w.message, w.rule] for w in result.warnings],
    }


def _decode(entry: dict[str, Any]) -> FileResult:
    return FileResult(
        apps=tuple(AppSummary.from_json(a) for a in entry["apps"]),
        files={p: t.encode() for p, t in entry["files"].items()},
        warnings=tuple(Finding(*w) for w in entry["warnings"]),
    )


def _load(cache: Path | None, key: str) -> tuple[dict[str, Any], Selections]:
    """The cached files and the remembered Argo CD selections, for this code and bundle."""
    if cache is None:
        return {}, {}
    try:
        data = orjson.loads(cache.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}, {}
    if not isinstance(data, dict) or data.get("key") != key:
        return {}, {}
    selections = data.get("selections")
    return data.get("files", {}), selections if isinstance(selections, dict) else {}


def _size(selections: Selections) -> tuple[tuple[str, ...], int]:
    """What an update of ``selections`` changes (ArgoCDTree.of replaces the digest, syncing
    adds paths)."""
    return tuple(selections), sum(len(paths) for paths in selections.values())


def _save(cache: Path | None, key: str, entries: dict[str, Any], selections: Selections) -> None:
    if cache is None:
        return
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(
            orjson.dumps({"key": key, "files": entries, "selections": selections})
        )
        os.replace(temporary, cache)
    except OSError:
        pass  # a cache that cannot be written only costs time


def _read_bytes(file: Path) -> bytes:
    """``file.read_bytes()`` at half pathlib's cost (a thousand spec files per compile)."""
    with open(file, "rb") as stream:
        return stream.read()


def _cache_key(source: BundleSource, bundle: Bundle) -> str:
    """What a cached verdict depends on: fedgate's code, the bundle's bytes and the CEL backend
    (a rule may compile or decide differently on each)."""
    backend = bundle.backend.name if bundle.backend is not None else ""
    return f"{code_fingerprint()}:{source_fingerprint(source)}:{backend}"


def compile_files(
    files: Sequence[Path],
    policies: Path,
    *,
    cache: Path | None,
    backend: str | None = None,
    rendered: bool = False,
    progress: Progress | None = None,
) -> tuple[Compiled, Bundle]:
    """Load the bundle and compile ``files``, reusing cached results where nothing changed;
    ``progress(done, total)`` is told after each file.

    ``rendered``: every app's full render is wanted (``plan``), also for files taken from the
    cache (they are rendered again, not judged again)."""
    grammar.use_cache(None if cache is None else cache.parent)  # the CEL parser, kept beside
    source = read_source(policies, index=False)  # compile has the tree itself
    bundle = bundle_from_source(source, backend) if backend else bundle_from_source(source)
    key = _cache_key(source, bundle)
    cached, selections = _load(cache, key)
    remembered = _size(selections)
    entries: dict[str, Any] = {}
    results: list[FileResult] = []
    findings: list[Finding] = []
    resolve = Resolver()
    for done, file in enumerate(files, 1):
        if progress is not None:
            progress(done, len(files))
        display = str(file)
        try:
            data = _read_bytes(file)
        except OSError as exc:
            findings.append(Finding(display, 0, "", f"cannot read: {describe_os_error(exc)}"))
            continue
        sha = hashlib.sha256(data).hexdigest()
        identity = resolve(file)
        entry = cached.get(identity)
        if entry is not None and entry["sha256"] == sha and entry["display"] == display:
            result = _decode(entry)
            if rendered:
                apps = parse_specs(data.decode("utf-8"), display)
                result = replace(result, rendered=render_file(apps, bundle))
            results.append(result)
            entries[identity] = entry
            continue
        try:
            result = compile_file(parse_specs(data.decode("utf-8"), display), bundle)
        except UnicodeDecodeError as exc:
            findings.append(not_utf8(display, data, exc))
            continue
        except SpecError as exc:
            findings.extend(exc.findings)
            continue
        results.append(result)
        entries[identity] = _encode(sha, display, result)
    if findings:
        if entries != cached:
            _save(cache, key, entries, selections)
        raise SpecError(findings)
    try:
        return combine(results, bundle, selections), bundle
    finally:
        if entries != cached or _size(selections) != remembered:
            _save(cache, key, entries, selections)

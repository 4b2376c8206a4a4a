"""Compile only the spec files that changed: the rest comes from a cache of FileResults.

The cache lives in the git directory (``.git/fedgate/compile-cache.json``: per clone, never
committed) and is keyed by a fingerprint of fedgate's own code and of the policy bundle, so a
change to either recompiles everything. A spec file is taken from the cache only when its
bytes (sha256) and the name it was given by are the same. A cached file contributes exactly
what a fresh compile of it would: its apps' summaries, its rendered bytes and its warnings.
The checks across files and the Argo CD pieces (``core.cross_file``) run on all of them
whenever any spec file differs from the last run (an added, removed, renamed or edited one);
when every one is as it was, their last result is reused (a digest of every entry says so).
The cache also remembers which Application reads each rendered file (``ArgoCDTree.syncing``,
thousands of glob matches), for Applications whose every byte is the same (``sync.digest``),
so a second compile asks the globs only about new files or changed Applications.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import orjson

from compiler.argocd.sync import Selections
from compiler.compile import celparser
from compiler.compile.core import (
    Compiled,
    CrossFile,
    FileResult,
    across_valid,
    apps_of,
    combine,
    compile_file,
    cross_file,
    render_file,
)
from compiler.compile.resolve import Resolver
from compiler.compile.statmemo import StatMemo
from compiler.compile.summary import AppSummary
from compiler.progress import Progress
from compiler.spec.load import parse_specs
from webhook.base.errors import Finding, SpecError, describe_os_error, not_utf8
from webhook.bundle.exceptions import EXCEPTIONS_DIRECTORY
from webhook.bundle.load import bundle_from_source, read_source
from webhook.bundle.model import Bundle
from webhook.bundle.source import BundleSource
from webhook.engine.cel.engines import DEFAULT_BACKEND, make_backend

CACHE_FILE = Path("fedgate") / "compile-cache.json"
HOMOGENEOUS_KEPT = 10_000
"""The literal-check memo keeps the newest this many expressions (640 KB): a bundle edited
for years does not grow the cache without bound; an evicted expression is checked again."""
PROOFS_AFTER_REVIEWS = 200
"""A command builds the CEL proofs (``CelRuntime``) once it has reviewed this many requests:
a warm check reviews a handful and never pays the ~0.1 s; a cold compile of a thousand apps
reviews thousands and gets them early."""
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


@dataclass(frozen=True)
class _Stored:
    """What the cache file holds for this code, bundle and engine (empty where it does not)."""

    files: dict[str, Any]
    selections: Selections
    homogeneous: tuple[str, ...]
    """``Backend.homogeneous``, oldest first: kept across bundle changes (it depends on code
    and engine), the newest ``HOMOGENEOUS_KEPT`` of them."""
    cross: dict[str, Any] | None = None
    """The last ``cross_file`` result and the digest of the entries it was computed from."""
    specs: StatMemo = field(default_factory=StatMemo, compare=False)
    """The spec files' bytes by stat signature (``statmemo``): whatever the key, since it
    says only what the files hold."""


def _load(cache: Path | None, key: str, engine_key: str) -> _Stored:
    """The cached files and the remembered Argo CD selections for this code and bundle, and
    the engine's memo for this code and engine."""
    if cache is None:
        return _Stored({}, {}, ())
    try:
        data = orjson.loads(cache.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return _Stored({}, {}, ())
    if not isinstance(data, dict):
        return _Stored({}, {}, ())
    specs = StatMemo.from_json(data.get("specs"))
    memo = data.get("cel")
    homogeneous: tuple[str, ...] = ()
    if isinstance(memo, dict) and memo.get("key") == engine_key:
        listed = memo.get("homogeneous")
        if isinstance(listed, list) and all(isinstance(x, str) for x in listed):
            homogeneous = tuple(listed)
    if data.get("key") != key:
        return _Stored({}, {}, homogeneous, None, specs)
    files, selections, cross = data.get("files"), data.get("selections"), data.get("cross")
    return _Stored(
        files if isinstance(files, dict) else {},
        selections if isinstance(selections, dict) else {},
        homogeneous,
        cross if isinstance(cross, dict) else None,
        specs,
    )


def _size(selections: Selections) -> tuple[tuple[str, ...], int]:
    """What an update of ``selections`` changes (ArgoCDTree.of replaces the digest, syncing
    adds paths)."""
    return tuple(selections), sum(len(paths) for paths in selections.values())


def _save(cache: Path | None, keys: tuple[str, str], stored: _Stored) -> None:
    if cache is None:
        return
    key, engine_key = keys
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(
            orjson.dumps(
                {
                    "key": key,
                    "files": stored.files,
                    "selections": stored.selections,
                    "cel": {"key": engine_key, "homogeneous": list(stored.homogeneous)},
                    "cross": stored.cross,
                    "specs": stored.specs.as_json(),
                }
            )
        )
        os.replace(temporary, cache)
    except OSError:
        pass  # a cache that cannot be written only costs time


def _entries_digest(entries: dict[str, Any]) -> str:
    """Which compiled files a ``cross_file`` result was computed from: every spec file's
    identity, bytes (sha256) and display name, the whole of what its entry was compiled from."""
    digest = hashlib.sha256()
    for identity in sorted(entries):
        entry = entries[identity]
        digest.update(f"{identity}\0{entry['sha256']}\0{entry['display']}\n".encode())
    return digest.hexdigest()


def _encode_cross(digest: str, cross: CrossFile) -> dict[str, Any]:
    return {
        "digest": digest,
        "files": {p: d.decode() for p, d in cross.files.items()},
        "warnings": [[w.file, w.line, w.path, w.message, w.rule] for w in cross.warnings],
    }


def _decode_cross(stored: dict[str, Any] | None, digest: str) -> CrossFile | None:
    """The remembered ``cross_file`` result when it was computed from these very entries
    (under this cache key: the same code, engine and bundle), else None."""
    if stored is None or stored.get("digest") != digest:
        return None
    try:
        return CrossFile(
            {p: t.encode() for p, t in stored["files"].items()},
            tuple(Finding(*w) for w in stored["warnings"]),
        )
    except (AttributeError, KeyError, TypeError):
        return None


def _read_bytes(file: Path) -> bytes:
    """``file.read_bytes()`` at half pathlib's cost (a thousand spec files per compile)."""
    with open(file, "rb") as stream:
        return stream.read()


_ENGINE_PACKAGES = {"cel-expr": ("cel_expr_python",), "cel-python": ("celpy", "cel_expr_python")}
"""The installed packages each CEL engine compiles and decides with (cel-python's compile
checks types with cel-expr)."""


def engine_fingerprint(name: str) -> str:
    """What an engine's verdicts depend on besides fedgate's code: its name and its installed
    files (path, size, modification time: an upgrade replaces them), found without importing
    them."""
    digest = hashlib.sha256(name.encode())
    for package in _ENGINE_PACKAGES.get(name, ()):
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            for directory, folders, names in os.walk(location):
                folders[:] = sorted(f for f in folders if f != "__pycache__")
                for file in sorted(names):
                    path = os.path.join(directory, file)
                    with contextlib.suppress(OSError):
                        status = os.stat(path)
                        digest.update(f"{path}\0{status.st_size}\0{status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _cache_keys(source: BundleSource, engine: str, today: date | None) -> tuple[str, str]:
    """What a cached verdict depends on: fedgate's code, the CEL engine (a rule may compile or
    decide differently on each, or on another release of one), the bundle's bytes and, where
    it has exceptions, the day (one expires at midnight); and what the engine's memo depends
    on (the same without the bundle)."""
    engine_key = f"{code_fingerprint()}:{engine_fingerprint(engine)}"
    exceptions = any(name.startswith(f"{EXCEPTIONS_DIRECTORY}/") for name in source.files)
    day = f":{today.isoformat()}" if exceptions and today is not None else ""
    return f"{engine_key}:{source_fingerprint(source)}{day}", engine_key


def _compile_or_reuse(
    file: Path, resolve: Resolver, stored: _Stored, bundle: Bundle, rendered: bool
) -> tuple[str, dict[str, Any], FileResult]:
    """One spec file's identity, cache entry and result: from the cache when its bytes and
    display name are the same (its bytes known by signature, else read), else compiled;
    raises SpecError."""
    display = str(file)
    identity = resolve(file)
    entry = stored.files.get(identity)
    try:
        status = os.stat(file)
        if (
            entry is not None
            and not rendered
            and entry["display"] == display
            and stored.specs.digest(identity, status) == entry["sha256"]
        ):
            return identity, entry, _decode(entry)
        data = _read_bytes(file)
    except OSError as exc:
        raise SpecError(
            [Finding(display, 0, "", f"cannot read: {describe_os_error(exc)}")]
        ) from None
    sha = hashlib.sha256(data).hexdigest()
    stored.specs.read(identity, status, sha)
    if entry is not None and entry["sha256"] == sha and entry["display"] == display:
        result = _decode(entry)
        if rendered:
            apps = parse_specs(data.decode("utf-8"), display)
            result = replace(result, rendered=render_file(apps, bundle))
        return identity, entry, result
    try:
        result = compile_file(parse_specs(data.decode("utf-8"), display), bundle)
    except UnicodeDecodeError as exc:
        raise SpecError([not_utf8(display, data, exc)]) from None
    return identity, _encode(sha, display, result), result


def compile_files(
    files: Sequence[Path],
    policies: Path,
    *,
    cache: Path | None,
    backend: str | None = None,
    rendered: bool = False,
    progress: Progress | None = None,
    today: date | None = None,
    warn: bool = False,
) -> tuple[Compiled, Bundle]:
    """Load the bundle and compile ``files``, reusing cached results where nothing changed;
    ``progress(done, total)`` is told after each file. ``today``: the day the bundle's
    exceptions are judged on (``Bundle.today``). ``warn``: find what the CEL backend warns of
    (``Bundle.warnings``, which ``check`` prints; a compile shows none and so does not import
    cel-python's checks for it).

    ``rendered``: every app's full render is wanted (``plan``), also for files taken from the
    cache (they are rendered again, not judged again)."""
    celparser.keep_in(None if cache is None else cache.parent)  # the CEL parser, kept beside
    source = read_source(policies, index=False)  # compile has the tree itself
    name = backend or DEFAULT_BACKEND
    keys = _cache_keys(source, name, today)
    stored = _load(cache, *keys)
    engine = make_backend(name)
    engine.homogeneous.update(stored.homogeneous)
    bundle = bundle_from_source(source, engine, proofs_after=PROOFS_AFTER_REVIEWS, warn=warn)
    bundle = replace(bundle, today=today) if today is not None else bundle
    selections = stored.selections  # ArgoCDTree.of adds to it: _size says whether it did
    remembered = _size(selections)
    entries: dict[str, Any] = {}
    results: list[FileResult] = []
    findings: list[Finding] = []
    resolve = Resolver()
    for done, file in enumerate(files, 1):
        if progress is not None:
            progress(done, len(files))
        try:
            identity, entry, result = _compile_or_reuse(file, resolve, stored, bundle, rendered)
        except SpecError as exc:
            findings.extend(exc.findings)
            continue
        results.append(result)
        entries[identity] = entry

    cross = stored.cross

    def keep() -> None:
        known = set(stored.homogeneous)
        learnt = sorted(k for k in engine.homogeneous if k not in known)
        homogeneous = (*stored.homogeneous, *learnt)[-HOMOGENEOUS_KEPT:]
        now = _Stored(entries, selections, homogeneous, cross, stored.specs)
        if now != stored or _size(selections) != remembered or stored.specs.changed:
            _save(cache, keys, now)

    if findings:
        keep()
        raise SpecError([*findings, *across_valid(results, bundle)])
    try:
        digest = _entries_digest(entries)
        known = _decode_cross(stored.cross, digest)
        if known is None:
            known = cross_file(apps_of(results), bundle, selections)
            cross = _encode_cross(digest, known)
        return combine(results, bundle, cross=known), bundle
    finally:
        keep()

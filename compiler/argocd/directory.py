"""Which files of the repository an Argo CD directory-source Application reads.

Ported from ``reposerver/repository/repository.go`` (``getPotentiallyValidManifests`` and
``getPotentiallyValidManifestFile``, the same from v2.6.0 to 3.x): the files below
``source.path`` (its top level only unless ``directory.recurse``), named ``*.yaml``, ``*.yml``,
``*.json`` or ``*.jsonnet``, whose path relative to ``source.path`` is not matched by
``directory.exclude`` and is matched by ``directory.include`` when one is set (gobwas globs with
no separator: ``*`` crosses ``/``). Hidden files and directories are read like any other.

Argo CD also skips a file holding ``+argocd:skip-file-rendering``; fedgate does not read file
contents here and counts such a file as synced, so check judges it anyway: stricter, not looser
(docs/git-side-doors.md).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from compiler.argocd.glob import match

MANIFEST_NAME = re.compile(r"^.*\.(yaml|yml|json|jsonnet)\Z")
"""``manifestFile``, with Go's RE2 meanings: ``.`` stops at a newline, ``$`` is the very end."""


@lru_cache(maxsize=256)
def _application_directory(source_path: str) -> str | None:
    """``util/app/path.Path``: an absolute ``source.path`` is refused, the rest is cleaned
    (``filepath.Join``); a path that leaves the repository reads nothing of it. "" is the
    repository's root."""
    if source_path.startswith("/"):
        return None
    cleaned = posixpath.normpath(source_path or ".")
    if cleaned == ".." or cleaned.startswith("../"):
        return None
    return "" if cleaned == "." else cleaned


def _relative(source_path: str, path: str) -> str | None:
    """``filepath.Rel(appPath, path)`` for a file below the application's directory, by string
    operations (a check of a thousand apps' tree asks this tens of thousands of times;
    PurePosixPath was most of its cost); rare spellings of ``path`` take the slow way."""
    base = _application_directory(source_path)
    if base is None:
        return None
    plain = path and "//" not in path and not path.startswith("/") and not path.endswith("/")
    slow = not plain or "." in path.split("/")
    candidate = str(PurePosixPath(path)) if slow else path
    if not base:
        return candidate
    if candidate == base:
        return "."
    return candidate[len(base) + 1 :] if candidate.startswith(base + "/") else None


def selects(source: Mapping[str, Any], path: str) -> bool:
    """Whether a directory ``source`` (an Application's ``spec.source``) reads the repository
    file ``path`` (relative to the repository root, ``/``-separated), by its name alone."""
    relative = _relative(str(source.get("path") or "."), path)
    if relative is None:
        return False
    directory = source.get("directory") or {}
    if "/" in relative and not directory.get("recurse"):
        return False
    if not MANIFEST_NAME.match(relative.rsplit("/", 1)[-1]):
        return False
    exclude, include = directory.get("exclude") or "", directory.get("include") or ""
    if exclude and match(exclude, relative):
        return False
    return not include or match(include, relative)

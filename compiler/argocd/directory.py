"""Which files of the repository an Argo CD directory-source Application reads.

Ported from ``reposerver/repository/repository.go`` (``getPotentiallyValidManifests`` and
``getPotentiallyValidManifestFile``, the same from v2.6.0 to 3.x): the files below
``source.path`` (its top level only unless ``directory.recurse``), named ``*.yaml``, ``*.yml``,
``*.json`` or ``*.jsonnet``, whose path relative to ``source.path`` is not matched by
``directory.exclude`` and is matched by ``directory.include`` when one is set (gobwas globs with
no separator: ``*`` crosses ``/``), and which do not contain the skip marker. Hidden files and
directories are read like any other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from compiler.argocd.glob import match

MANIFEST_NAME = re.compile(r"^.*\.(yaml|yml|json|jsonnet)$", re.DOTALL)
SKIP_MARKER = b"+argocd:skip-file-rendering"
"""A file holding this string is never rendered by Argo CD."""


@lru_cache(maxsize=256)
def _base(source_path: str) -> str:
    """``source.path`` normalised as PurePosixPath would (``./a//b/`` -> ``a/b``; ``.`` -> "")."""
    base = str(PurePosixPath(source_path.strip("/") or "."))
    return "" if base == "." else base


def _relative(source_path: str, path: str) -> str | None:
    """``path`` relative to ``source.path``, by string operations (a check of a thousand apps'
    tree asks this tens of thousands of times; PurePosixPath was most of its cost)."""
    base = _base(source_path)
    plain = path and "//" not in path and not path.startswith("/") and not path.endswith("/")
    slow = not plain or "." in path.split("/")
    candidate = str(PurePosixPath(path)) if slow else path  # rare spellings: the slow way
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

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
from pathlib import PurePosixPath
from typing import Any

from compiler.argocd.glob import match

MANIFEST_NAME = re.compile(r"^.*\.(yaml|yml|json|jsonnet)$", re.DOTALL)
SKIP_MARKER = b"+argocd:skip-file-rendering"
"""A file holding this string is never rendered by Argo CD."""


def _relative(source_path: str, path: str) -> str | None:
    base = PurePosixPath(source_path.strip("/") or ".")
    candidate = PurePosixPath(path)
    if str(base) == ".":
        return str(candidate)
    try:
        return str(candidate.relative_to(base))
    except ValueError:
        return None


def selects(source: Mapping[str, Any], path: str) -> bool:
    """Whether a directory ``source`` (an Application's ``spec.source``) reads the repository
    file ``path`` (relative to the repository root, ``/``-separated), by its name alone."""
    relative = _relative(str(source.get("path") or "."), path)
    if relative is None:
        return False
    directory = source.get("directory") or {}
    if "/" in relative and not directory.get("recurse"):
        return False
    if not MANIFEST_NAME.match(PurePosixPath(relative).name):
        return False
    exclude, include = directory.get("exclude") or "", directory.get("include") or ""
    if exclude and match(exclude, relative):
        return False
    return not include or match(include, relative)

"""Files that claim to be exceptions outside the bundle's ``exceptions/`` folder: refused.

Exceptions belong to the platform team: fedgate reads them only from ``<policies>/exceptions/``,
the platform's directory. A file elsewhere in the repository (``apps/``, a tenant's folder, the
rendered tree) with their apiVersion and kind lifts nothing, but it reads like a grant, and a
tenant may have written it hoping it is one: ``fedgate check`` names it, with file and line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from webhook.bundle.exceptions import API_VERSION, EXCEPTIONS_DIRECTORY, KIND, claims_exception
from webhook.errors import Finding
from webhook.yamlsource import YamlSyntaxError, parse_documents

SUFFIXES = (".yaml", ".yml", ".json")
"""What Argo CD and fedgate read as manifests or specs."""
_MARK = KIND.encode()


def stray_exceptions(
    root: Path, policies: Path, files: Sequence[Path] | None = None
) -> list[Finding]:
    """Every document of ``files`` (None: every file below ``root``, hidden folders skipped)
    claiming to be an exception outside ``policies/exceptions/`` (its subfolders included:
    those are not read either)."""
    home = os.path.realpath(policies / EXCEPTIONS_DIRECTORY)
    findings: list[Finding] = []
    for directory, names in _folders(root, files):
        if os.path.realpath(directory) == home:
            continue
        for name in names:
            if not name.endswith(SUFFIXES):
                continue
            path = Path(directory, name)
            try:
                data = path.read_bytes()
            except OSError:
                continue  # not ours to report: the spec and tree checks read what they need
            if _MARK in data:
                findings += _claims(path, data, policies)
    return findings


def _folders(root: Path, files: Sequence[Path] | None) -> Iterator[tuple[str, list[str]]]:
    """(folder, file names in it): of ``files``, else of every folder below ``root``."""
    if files is not None:
        for file in files:
            yield str(file.parent), [file.name]
        return
    for directory, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        yield directory, sorted(names)


def _claims(path: Path, data: bytes, policies: Path) -> list[Finding]:
    shown = os.path.relpath(path)
    try:
        documents = parse_documents(data.decode("utf-8"), shown)
    except (UnicodeDecodeError, YamlSyntaxError):
        return []
    return [
        Finding(
            shown,
            document.line(("kind",)),
            "",
            f"an exception ({API_VERSION} {KIND}) outside {policies}/{EXCEPTIONS_DIRECTORY}/: "
            "exceptions belong to the platform team and are read only from there, so this one "
            "lifts nothing; remove it, or ask the platform team to add it there",
        )
        for document in documents
        if claims_exception(document.data)
    ]

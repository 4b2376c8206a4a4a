"""``Path.resolve()`` for many files in few directories (a thousand spec files in ten team
folders): each directory is resolved once, then each file costs one ``lstat``.

``realpath(dir/name)`` is ``realpath(realpath(dir)/name)``, which is ``realpath(dir)/name``
whenever ``name`` is a plain name and not a symbolic link there; anything else (a link,
``.``, ``..``, a trailing ``/``) takes ``resolve()``.
"""

from __future__ import annotations

import os
from pathlib import Path


class Resolver:
    """``str(Path(path).resolve())``, remembering each directory's resolution (for one
    command: a directory renamed or relinked meanwhile is not seen)."""

    def __init__(self) -> None:
        self._directories: dict[str, str] = {}

    def __call__(self, path: str | os.PathLike[str]) -> str:
        text = os.fspath(path)
        head, name = os.path.split(text)
        if not name or name in (".", ".."):
            return str(Path(text).resolve())
        base = self._directories.get(head)
        if base is None:
            base = self._directories[head] = str(Path(head or ".").resolve())
        candidate = os.path.join(base, name)
        return str(Path(candidate).resolve()) if os.path.islink(candidate) else candidate

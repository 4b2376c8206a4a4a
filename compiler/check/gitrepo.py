"""What ``fedgate check`` asks of git: the committed version of the rendered tree.

Plumbing commands only (``ls-tree``, ``cat-file --batch``): one process for the whole tree
rather than one per file, so a thousand apps cost milliseconds.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from webhook.errors import UsageError

TIMEOUT = 60


def blob_id(data: bytes) -> str:
    """The id git gives ``data`` as a blob, to compare without asking git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    try:
        result = subprocess.run(
            ["git", "-C", str(root), *args],
            input=stdin,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


@dataclass(frozen=True)
class Repository:
    """The git repository holding the working tree: what HEAD commits, read through git itself."""

    root: Path
    revision: str = "HEAD"
    """What the working tree is compared with: HEAD, or the merge base of ``--base REF``."""
    label: str = "git HEAD"
    """How reports name ``revision``."""
    _listings: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)
    """``committed`` per folder, for this object's life (one command: HEAD does not move)."""

    @classmethod
    def find(cls, start: Path, base: str | None = None) -> Repository | None:
        """The repository holding ``start`` (None outside git). ``base``: compare with where
        the branch left ``base`` (``git merge-base base HEAD``), so a pull request is judged
        whole, every commit of it, whether its hooks ran or not."""
        out = _git(start, "rev-parse", "--show-toplevel")
        if not out:
            if base is not None:
                raise UsageError(f"--base {base}: {start} is not inside a git repository")
            return None
        root = Path(out.decode().strip())
        if base is None:
            return cls(root)
        if base.startswith("-") or not base.strip():
            raise UsageError(f"--base {base!r}: give a branch, tag or commit (e.g. origin/main)")
        if _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}") is None:
            raise UsageError(
                f"--base {base}: not a commit this clone has; fetch it first (in CI: "
                f"`git fetch origin {base.removeprefix('origin/')}`, or check out with the "
                "whole history)"
            )
        merge_base = _git(root, "merge-base", base, "HEAD")
        if not merge_base:
            raise UsageError(f"--base {base}: it shares no history with HEAD")
        commit = merge_base.decode().strip()
        return cls(root, commit, f"{base} (merge base {commit[:12]})")

    def committed(self, folder: Path) -> dict[str, str]:
        """Path (relative to ``folder``) -> blob id of every file under it at HEAD; {} when
        there is no HEAD yet (the first commit) or ``folder`` is outside the repository."""
        prefix = self._prefix(folder)
        if prefix is None:
            return {}
        if prefix not in self._listings:
            self._list([prefix])
        return dict(self._listings[prefix])

    def prefetch(self, *folders: Path) -> None:
        """List the folders at HEAD with one ``git ls-tree`` (a process less per folder);
        ``committed`` answers from it."""
        prefixes = {self._prefix(f) for f in folders} - {None} - self._listings.keys()
        if prefixes:
            self._list(sorted(p for p in prefixes if p is not None))

    def _list(self, prefixes: list[str]) -> None:
        listings: dict[str, dict[str, str]] = {p: {} for p in prefixes}
        out = _git(self.root, "ls-tree", "-r", "-z", self.revision, "--", *prefixes)
        for record in (out or b"").split(b"\0"):
            if not record:
                continue
            meta, _, path = record.decode().partition("\t")
            _, kind, blob = meta.split()
            if kind != "blob":
                continue
            for prefix in prefixes:
                if prefix == ".":
                    listings[prefix][path] = blob
                elif path.startswith(prefix + "/"):
                    listings[prefix][path[len(prefix) + 1 :]] = blob
        self._listings.update(listings)

    def _prefix(self, folder: Path) -> str | None:
        """``folder`` relative to the repository's root (``.`` for the root), None outside."""
        try:
            return folder.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None

    def changed_files(self) -> list[Path] | None:
        """Every file of the working tree that differs from ``revision`` or that git does not
        track (ignored ones left out); None when git cannot say."""
        changed = _git(self.root, "diff", "--name-only", "-z", self.revision, "--")
        untracked = _git(self.root, "ls-files", "--others", "--exclude-standard", "-z")
        if changed is None or untracked is None:
            return None
        names = {n for n in (changed + b"\0" + untracked).decode().split("\0") if n}
        return [self.root / name for name in sorted(names)]

    def symbolic_links(self) -> list[str]:
        """Every symbolic link the index holds (what the next commit holds), relative to the
        root: one ``git ls-files -s``."""
        out = _git(self.root, "ls-files", "-s", "-z")
        links = []
        for record in (out or b"").split(b"\0"):
            meta, _, path = record.decode("utf-8", "replace").partition("\t")
            if meta.startswith("120000 "):
                links.append(path)
        return links

    def read(self, blobs: Iterable[str]) -> dict[str, bytes]:
        """Blob id -> content, all through one ``git cat-file --batch``."""
        ids = list(dict.fromkeys(blobs))
        if not ids:
            return {}
        out = _git(self.root, "cat-file", "--batch", stdin="".join(f"{b}\n" for b in ids).encode())
        contents: dict[str, bytes] = {}
        position = 0
        while out and position < len(out):
            header_end = out.index(b"\n", position)
            blob, _, size = out[position:header_end].decode().split()
            start = header_end + 1
            contents[blob] = out[start : start + int(size)]
            position = start + int(size) + 1
        return contents
